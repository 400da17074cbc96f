"""Build amplification (issue 34, section 5): a 120-byte C++ upload stored a 150 MiB build, kept after its
version was rejected. A build's products are capped (KOZYR_BUILD_MAX_MB), a build over the cap rejects the
version with the cap and the size in its reason and is never stored, a version that is rejected or retired
keeps no build (a build shared by two versions goes with the last), and builds count against their owner's
storage (KOZYR_MAX_STORAGE_MB) like uploads. The caps are made small here, so the builds stay small.
"""

from __future__ import annotations

import pytest

from bots import blobs
from bots.actions import do_retire_version, forget_build
from bots.limits import storage_used
from bots.models import Bot, BotVersion
from tests.platform.attacks.test_bad_uploads import assert_error, media_files
from tests.platform.bots.test_source_bots import _fresh_worker_cache, kit_zip, validate  # noqa: F401  (fixtures)
from tests.platform.conftest import python_bot

pytestmark = pytest.mark.django_db
BOT = "alice-bura"
MIB = 1 << 20


def table_bot(size: str) -> bytes:
    """A tiny C++ source whose binary holds an initialised table of ``size`` bytes (a C++ expression)."""
    return f"char table[{size}] = {{1}};\nint main(int argc, char **) {{ return table[argc * 4096]; }}\n".encode()


def builds_stored(tmp_path) -> set[str]:
    return {name for name in media_files(tmp_path) if name.startswith("builds/")}


@pytest.fixture
def played(validate, django_capture_on_commit_callbacks):  # noqa: F811
    """played(version) -> the version after its validation match, with what its result's commit runs run."""

    def run(version: BotVersion) -> BotVersion:
        with django_capture_on_commit_callbacks(execute=True):
            return validate(version)

    return run


def test_a_tiny_source_whose_build_passes_the_cap_is_rejected_naming_the_cap_and_stores_no_build(
        alice, bura_bot, upload, played, settings, tmp_path):
    settings.BUILD_MAX_MB = 1
    source = table_bot("4 << 20")
    assert len(source) < 120
    assert upload(alice, BOT, "main.cpp", source).status_code == 201
    version = played(BotVersion.objects.get(bot=bura_bot, number=1))
    assert version.status == "rejected"
    assert version.reason.startswith("crash (build-failed): the C++ build produced more than 1 MiB, the cap on a "
                                     "build's products"), version.reason
    assert version.build_sha256 == "" and version.build_size == 0
    assert builds_stored(tmp_path) == set()
    assert storage_used(alice).builds == 0


def test_a_rejected_versions_build_is_deleted(alice, bura_bot, upload, played, tmp_path):
    # It builds, and then never says hello: the validation rejects it after its build was stored.
    assert upload(alice, BOT, "main.cpp", b"int main() { return 3; }\n").status_code == 201
    version = played(BotVersion.objects.get(bot=bura_bot, number=1))
    assert version.status == "rejected" and not version.reason.startswith("crash (build-failed)"), version.reason
    assert version.build_sha256 == "" and version.build_size == 0
    assert builds_stored(tmp_path) == set(), "the rejected version's build was kept"


def test_a_ready_versions_build_counts_against_its_owners_storage(alice, bura_bot, upload, played, tmp_path):
    assert upload(alice, BOT, "bot.zip", kit_zip("bura", "cpp")).status_code == 201
    version = played(BotVersion.objects.get(bot=bura_bot, number=1))
    assert version.status == "ready", version.reason
    stored = blobs.get("builds", version.build_sha256)
    assert version.build_size == len(stored) > 0
    assert builds_stored(tmp_path) == {blobs.blob_name("builds", version.build_sha256)}
    used = storage_used(alice)
    assert (used.uploads, used.builds) == (version.size, len(stored))


def test_a_build_that_would_pass_the_owners_storage_rejects_the_version_naming_the_limit(
        alice, bura_bot, upload, played, settings, tmp_path):
    settings.BUILD_MAX_MB, settings.MAX_STORAGE_MB = 4, 1  # a 1.5 MiB build is within its cap, not the account's
    assert upload(alice, BOT, "main.cpp", table_bot("3 << 19")).status_code == 201
    version = played(BotVersion.objects.get(bot=bura_bot, number=1))
    assert version.status == "rejected"
    assert version.reason.startswith("crash (build-failed): the C++ build is 1.5 MiB, and your uploads and builds "
                                     "take "), version.reason
    assert "of the 1 MiB an account may store" in version.reason, version.reason
    assert version.build_sha256 == "" and builds_stored(tmp_path) == set()


def test_an_upload_is_refused_when_the_owners_builds_leave_no_room(alice, bura_bot, upload, settings, tmp_path):
    settings.MAX_STORAGE_MB = 1
    # A version whose build takes 900 KiB of alice's 1 MiB (its blob need not be there for the count).
    BotVersion.objects.create(bot=bura_bot, number=1, sha256="a" * 64, size=1000, filename="main.cpp",
                              entry=["./.kozyr-build/main"], runtime="native", language="cpp", status="ready",
                              build_sha256="b" * 64, build_size=900 * 1024)
    padded = python_bot() + b"#" * (200 * 1024) + b"\n"
    error = assert_error(upload(alice, BOT, "main.py", padded), 403)
    assert error["code"] == "cap_reached", error
    assert "of the 1 MiB an account may store" in error["message"], error["message"]
    assert "builds 0.9 MiB" in error["message"], error["message"]
    assert bura_bot.versions.count() == 1 and media_files(tmp_path) == set()
    # Without that build the same upload fits.
    BotVersion.objects.filter(bot=bura_bot, number=1).update(build_sha256="", build_size=0)
    assert upload(alice, BOT, "main.py", padded).status_code == 201


def test_a_build_shared_by_two_versions_goes_with_the_last_that_names_it(alice, bura_bot, house_bots, tmp_path,
                                                                       django_capture_on_commit_callbacks):
    other = Bot.objects.create(owner=alice, game="bura", name="alice-other")
    sha = blobs.put("builds", b"the same sources, built the same")
    common = dict(sha256="c" * 64, size=100, filename="main.cpp", entry=["./.kozyr-build/main"], runtime="native",
                  language="cpp", status="ready", build_sha256=sha, build_size=32)
    first = BotVersion.objects.create(bot=bura_bot, number=1, **common)
    BotVersion.objects.create(bot=bura_bot, number=2, **{**common, "sha256": "d" * 64})
    rejected = BotVersion.objects.create(bot=other, number=1, **{**common, "status": "pending"})
    with django_capture_on_commit_callbacks(execute=True):
        forget_build(rejected)
    assert builds_stored(tmp_path) == {blobs.blob_name("builds", sha)}, "a build another version names was deleted"
    assert storage_used(alice).builds == 32  # counted once, for the two versions that still name it
    with django_capture_on_commit_callbacks(execute=True):
        do_retire_version(first)
    assert builds_stored(tmp_path) == {blobs.blob_name("builds", sha)}
    with django_capture_on_commit_callbacks(execute=True):
        do_retire_version(BotVersion.objects.get(bot=bura_bot, number=2))
    assert builds_stored(tmp_path) == set(), "the last version naming the build was retired and it stayed"
    assert storage_used(alice).builds == 0


def test_a_version_whose_validation_could_not_be_played_keeps_no_build(alice, bura_bot, tmp_path,
                                                                       django_capture_on_commit_callbacks):
    from types import SimpleNamespace

    from matches.validation import fail_validation

    sha = blobs.put("builds", b"a build")
    version = BotVersion.objects.create(bot=bura_bot, number=1, sha256="e" * 64, size=100, filename="main.cpp",
                                        entry=["./.kozyr-build/main"], runtime="native", language="cpp",
                                        build_sha256=sha, build_size=7)
    with django_capture_on_commit_callbacks(execute=True):
        fail_validation(SimpleNamespace(validates_id=version.pk, failure="the worker was lost"))
    version.refresh_from_db()
    assert version.status == "error" and version.build_sha256 == "" and builds_stored(tmp_path) == set()


def test_a_version_whose_named_build_is_gone_is_compiled_again(alice, bura_bot, upload, played, settings, tmp_path):
    """A build shared by two versions may be deleted with the other one as it is named for this one: the next
    worker compiles it again rather than failing the match."""
    from play.match import staged_version

    assert upload(alice, BOT, "bot.zip", kit_zip("bura", "cpp")).status_code == 201
    version = played(BotVersion.objects.get(bot=bura_bot, number=1))
    assert version.status == "ready", version.reason
    blobs.delete("builds", version.build_sha256)
    settings.VAR_DIR = tmp_path / "another-worker"
    spec = staged_version(version)
    assert spec.build_failure is None
    version.refresh_from_db()
    assert builds_stored(tmp_path) == {blobs.blob_name("builds", version.build_sha256)}
    assert version.build_size == len(blobs.get("builds", version.build_sha256))
