"""Per-user caps on bots, on versions waiting for validation and on the storage an account's versions take.

Checked inside ``do_create_bot`` and ``do_upload_version`` (bots/actions.py), the one way in for the API,
the pages and commands alike; the storage cap also by the worker that builds a version sent as source
(play/match.py), whose build counts against its owner like an upload.

Inside a transaction the owner's row is locked first, so concurrent requests
of one user are counted one after the other and cannot pass a cap together. Staff and the house-bot
account are exempt. The rate limits (uploads and new bots an hour) are the views' business:
accounts/limits.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from arena import builds
from bots.models import Bot, BotVersion
from config.errors import ActionError

MIB = 1024 * 1024


class CapReached(ActionError):
    """A per-user cap: the API answers 403 with the message naming the cap; ``field`` names the input the
    message belongs beside on the pages (or None)."""

    status = 403
    code = "cap_reached"


def exempt(user) -> bool:
    return bool(user.is_staff or user.is_system)


def _lock(owner) -> None:
    # FOR NO KEY UPDATE: serialises these checks without blocking inserts that merely reference the user
    if transaction.get_connection().in_atomic_block:
        list(get_user_model().objects.select_for_update(no_key=True).filter(pk=owner.pk).values_list("pk", flat=True))


def check_bot_cap(owner) -> None:
    if exempt(owner):
        return
    _lock(owner)
    cap = settings.MAX_BOTS_PER_USER
    # a person's seats are not bots, and a deleted bot is a tombstone: neither counts
    have = Bot.objects.filter(owner=owner, kind=Bot.Kind.BOT, deleted__isnull=True).count()
    if have >= cap:
        raise CapReached(f"at most {cap} bots per account, and you have {have}: upload a new version of one of "
                         f"them instead (a bot keeps all its versions)")


def check_pending_cap(owner) -> None:
    if exempt(owner):
        return
    _lock(owner)
    cap = settings.MAX_PENDING_VERSIONS
    waiting = BotVersion.objects.filter(bot__owner=owner, status=BotVersion.Status.PENDING).count()
    if waiting >= cap:
        raise CapReached(f"at most {cap} versions per account may wait for their validation match at once, and "
                         f"you have {waiting} waiting: upload again when one of them is validated", "file")


@dataclass(frozen=True)
class Storage:
    """What an account's versions take in storage: each distinct upload and each distinct build once."""

    uploads: int
    builds: int

    @property
    def total(self) -> int:
        return self.uploads + self.builds

    def __str__(self) -> str:
        return f"{self.total / MIB:.1f} MiB (uploads {self.uploads / MIB:.1f} MiB, builds {self.builds / MIB:.1f} MiB)"


def storage_used(owner, *, besides_build_of: int | None = None) -> Storage:
    """The bytes ``owner``'s versions keep in storage. Builds of rejected and retired versions are deleted
    (bots.actions.release_build), so they no longer count; ``besides_build_of`` leaves out one version's build
    (the one being replaced)."""
    versions = BotVersion.objects.filter(bot__owner=owner)
    uploads = dict(versions.exclude(sha256="").values_list("sha256", "size"))
    stored = versions.exclude(build_sha256="")
    if besides_build_of is not None:
        stored = stored.exclude(pk=besides_build_of)
    built = dict(stored.values_list("build_sha256", "build_size"))
    return Storage(sum(uploads.values()), sum(built.values()))


def _over_storage(used: Storage, adding: int, what: str) -> str | None:
    cap = settings.MAX_STORAGE_MB
    if used.total + adding <= cap * MIB:
        return None
    return (f"{what} is {adding / MIB:.1f} MiB, and your uploads and builds take {used} of the {cap} MiB an account "
            f"may store: retire versions you no longer play to free their builds")


def check_upload_storage(owner, sha256: str, size: int) -> None:
    """An upload counts against its owner's storage, unless one of their versions holds the same file."""
    if exempt(owner):
        return
    _lock(owner)
    if BotVersion.objects.filter(bot__owner=owner, sha256=sha256).exists():
        return
    problem = _over_storage(storage_used(owner), size, "this upload")
    if problem is not None:
        raise CapReached(problem, "file")


def check_build_storage(version: BotVersion, size: int, label: str) -> None:
    """A version's build counts against its owner's storage like an upload: over the cap, the build is the
    version's failure (play/match.py), and nothing is stored. No lock: one owner's validations, which build,
    are played one at a time (matches/validation.py)."""
    owner = version.bot.owner
    if exempt(owner):
        return
    problem = _over_storage(storage_used(owner, besides_build_of=version.pk), size, f"the {label} build")
    if problem is not None:
        raise CapReached(problem)


def build_caps() -> builds.Caps:
    """The caps on one build's products, from the settings (KOZYR_BUILD_MAX_MB, KOZYR_BUILD_MAX_FILES)."""
    return builds.Caps(max_bytes=settings.BUILD_MAX_MB * MIB, max_files=settings.BUILD_MAX_FILES)
