"""Bots uploaded as C++, Rust, Go or Java source (issue 25): the upload check refuses what cannot be built
without the network, the validation match's worker compiles the rest in its sandbox, a compiler's errors are
the version's rejection reason (its owner's to read), and a build is made once for the whole site."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bots.models import BotVersion
from matches.models import Match, Seat
from tests.platform.conftest import zip_of
from tests.sandbox.conftest import container_image  # noqa: F401  (the bot image, built when out of date)

pytestmark = pytest.mark.django_db
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
KITS = {"cpp": ["main.cpp"], "rust": ["main.rs"], "go": ["main.go", "go.mod"], "java": ["Main.java"]}
BOT = "alice-bura"


def kit_zip(game: str, language: str) -> bytes:
    folder = EXAMPLES / game / language
    return zip_of({name: (folder / name).read_bytes() for name in KITS[language]})


@pytest.fixture
def validate(settings):
    """validate(version) -> the version after its validation match was played by this process's worker code."""
    settings.WORKER_SELF_STOP = False
    # The lease keeper renews from a connection of its own, which cannot see this test's uncommitted rows: its
    # first renewal (LEASE_SECONDS / 3 in) would find no match and call the lease lost. A Go build on a loaded
    # machine passed the default 20 s; renewals are tested with committed rows (test_match_lifecycle.py).
    settings.LEASE_SECONDS = 3600

    def run(version: BotVersion) -> BotVersion:
        from play.tasks import play_match

        assert play_match(version.validation_match_id) == "finished"
        version.refresh_from_db()
        return version

    return run


@pytest.fixture(autouse=True)
def _fresh_worker_cache(settings, tmp_path):
    """The worker's bot cache lives under VAR_DIR: a folder of each test's own, so every test compiles."""
    settings.VAR_DIR = tmp_path / "var"
    yield
    shutil.rmtree(tmp_path / "var", ignore_errors=True)


@pytest.mark.parametrize("language", sorted(KITS))
def test_a_starter_kit_sent_as_source_is_built_by_the_worker_and_validated(language, alice, bura_bot, upload,
                                                                          validate):
    response = upload(alice, BOT, f"bura-{language}.zip", kit_zip("bura", language))
    assert response.status_code == 201, response.json()
    version = BotVersion.objects.get(bot=bura_bot, number=1)
    assert version.runtime == ("java" if language == "java" else "native") and version.language == language
    assert response.json()["language"] == language
    assert version.entry[0] in ("java", "./.kozyr-build/main")
    version = validate(version)
    assert version.status == "ready", version.reason
    assert len(version.build_sha256) == 64  # the build is stored for every other worker


@pytest.mark.parametrize("language", sorted(KITS))
def test_a_source_kit_is_built_and_validated_in_the_container_backend(language, alice, bura_bot, upload, validate,
                                                                     settings, container_image):  # noqa: F811
    """The same upload path on a worker whose sandbox is the container backend (podman here): the compiler in
    the bot image builds it, and the build runs there."""
    settings.SANDBOX_BACKEND = "docker"
    assert upload(alice, BOT, f"bura-{language}.zip", kit_zip("bura", language)).status_code == 201
    version = validate(BotVersion.objects.get(bot=bura_bot, number=1))
    assert version.status == "ready", version.reason
    seats = Seat.objects.filter(match_id=version.validation_match_id, version=version)
    assert seats and all(seat.verdict == "ok" for seat in seats)


def test_another_worker_unpacks_the_stored_build_instead_of_compiling(alice, bura_bot, upload, validate, settings,
                                                                     tmp_path, monkeypatch):
    from arena import builds
    from play.match import staged_version

    assert upload(alice, BOT, "bot.zip", kit_zip("bura", "cpp")).status_code == 201
    version = validate(BotVersion.objects.get(bot=bura_bot, number=1))
    assert version.status == "ready" and version.build_sha256
    settings.VAR_DIR = tmp_path / "another-worker"

    def never(*args, **kwargs):
        raise AssertionError("a version with a stored build was compiled again")

    monkeypatch.setattr(builds, "compile_in_sandbox", never)
    spec = staged_version(version)
    built = Path(spec.directory) / ".kozyr-build" / "main"
    assert built.is_file() and built.read_bytes()[:4] == b"\x7fELF"
    assert spec.build_failure is None


def test_a_compile_error_rejects_the_version_with_the_compilers_message_for_its_owner_only(
        alice, bob, bura_bot, upload, validate, as_user):
    source = b'#include <iostream>\nint main() {\n    std::cout << undeclared_name << std::endl;\n}\n'
    assert upload(alice, BOT, "main.cpp", source).status_code == 201
    version = validate(BotVersion.objects.get(bot=bura_bot, number=1))
    assert version.status == "rejected"
    assert version.reason.startswith("crash (build-failed): the C++ compiler refused the bot"), version.reason
    assert "undeclared_name" in version.reason and "main.cpp:3" in version.reason, version.reason
    assert not version.build_sha256
    match = Match.objects.get(pk=version.validation_match_id)
    seat = Seat.objects.get(match=match, version=version)
    log_url = f"/api/v1/matches/{match.pk}/seats/{seat.seat}/log/"
    log = as_user(alice).get(log_url)
    assert log.status_code == 200 and b"error" in log.content and b"undeclared_name" in log.content
    assert as_user(bob).get(log_url).status_code == 404
    theirs = as_user(bob).get(f"/api/v1/bots/{BOT}/versions/1/")
    assert "undeclared_name" not in theirs.content.decode()


def test_the_bot_page_says_a_version_was_compiled_here(alice, bura_bot, upload, client):
    assert upload(alice, BOT, "bot.zip", kit_zip("bura", "go")).status_code == 201
    client.force_login(alice)
    page = client.get(f"/bots/{BOT}/").content.decode()
    assert "Go, compiled here" in page


@pytest.mark.parametrize(("files", "words"), [
    ({"Cargo.toml": b'[package]\nname = "bot"\nedition = "2021"\n[dependencies]\nserde = "1"\n',
      "src/main.rs": b"fn main() {}\n"}, ("dependencies", "serde", "no crates")),
    ({"Cargo.toml": b'[package]\nname = "bot"\nbuild = "build.rs"\n', "build.rs": b"fn main() {}\n",
      "src/main.rs": b"fn main() {}\n"}, ("build script",)),
    ({"Cargo.toml": b'[package]\nname = "bot"\n'}, ("src/main.rs",)),
    ({"Cargo.toml": b"[package\nname = 1\n", "src/main.rs": b"fn main() {}\n"}, ("not valid TOML",)),
    ({"main.go": b"package main\nfunc main() {}\n",
      "go.mod": b"module bot\n\ngo 1.19\n\nrequire example.com/x v1.0.0\n"}, ("requires modules", "standard library")),
    ({"main.go": b"package main\nfunc main() {}\n", "util/util.go": b"package util\n"}, ("one package",)),
    ({"Main.java": b"package bots;\npublic class Main { public static void main(String[] a) {} }\n"},
     ("package bots", "default")),
    ({"main.cpp": b"int main() {}\n", ".kozyr-build/main": b"\x7fELF"}, (".kozyr-build", "reserved")),
])
def test_the_upload_check_refuses_what_cannot_be_built_here(files, words, alice, bura_bot, upload):
    from tests.platform.attacks.test_bad_uploads import assert_error

    response = upload(alice, BOT, "bot.zip", zip_of(files))
    error = assert_error(response, 400)
    assert all(word.lower() in error["message"].lower() for word in words), error["message"]
    assert not BotVersion.objects.filter(bot=bura_bot).exists()


def test_a_single_java_file_must_be_main_java(alice, bura_bot, upload):
    from tests.platform.attacks.test_bad_uploads import assert_error

    error = assert_error(upload(alice, BOT, "Bot.java", b"public class Bot {}\n"), 400)
    assert "Main.java" in error["message"], error["message"]
