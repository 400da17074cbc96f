"""The validation flow: a new version plays one short match before it may enter the ladder.

Upload → the version ``pending`` and its validation match, held, in one transaction → released when it is
the owner's turn (at most one validation per user published at a time: one user's ten uploads never keep
another's waiting for more than a match) → played like any match → the finish pipeline's first step makes
the version ``ready`` (and current) if it played cleanly, ``rejected`` with the reason if not, ``error`` if
the match could not be played at all; its last step releases the owner's next validation.
"""

from __future__ import annotations

import re

from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone

from accounts.locks import lock_account
from arena import protocol
from arena.games.seating import layout
from arena.runner import seat_assignment
from arena.stderr_cause import last_error
from bots import blobs
from bots.actions import add_version, check_new_version, forget_build, house_version, make_current, store_file
from bots.models import Bot, BotVersion
from bots.upload import CheckedUpload
from matches.actions import create_match, release_validations
from matches.hooks import MatchHook
from matches.models import Match, Seat

# The short match a new version plays before it may enter the ladder: its game's first preset, cut short.
VALIDATION_MATCHES: dict[str, tuple[str, dict[str, str]]] = {
    "bura": ("bura", {"match": "deals:2"}),
    "kozel": ("kozel", {"target": "2"}),
    "burraco": ("burraco-2p", {"target": "1"}),
}
VALIDATION_OPPONENT = "random"
STDERR_TAGGED = re.compile(r"^\[\d+\] ")  # a stored log line's request id (play.match.store_logs)
CAUSE_TAIL_BYTES = 16 * 1024  # the end of a crashed bot's stored stderr, where its interpreter said why


def do_upload_version(bot: Bot, upload: CheckedUpload) -> BotVersion:
    """Store the checked file and queue its validation match; the version is ``pending`` until it ends."""
    check_new_version(bot, upload)  # before storing anything
    store_file(upload)
    with transaction.atomic():
        version = add_version(bot, upload)  # locks the owner's row: first in the lock order
        preset, overrides = VALIDATION_MATCHES[bot.game]
        opponent = house_version(bot.game, VALIDATION_OPPONENT)
        # Held, then released if it is the owner's turn: one validation per user out at a time (fair share).
        create_match(kind=Match.Kind.VALIDATION, preset=preset, overrides=overrides, requested_by=bot.owner,
                     seat_versions=_validation_seats(preset, overrides, version, opponent), validates=version,
                     held=True)
        release_validations(bot.owner_id)
    return version


def do_validate_remote(version: BotVersion) -> bool:
    """A pending remote version has connected: queue its validation match (once; True when queued now). Until
    its first connection nothing is queued, since the match could only time out."""
    with transaction.atomic():
        lock_account(version.bot.owner_id)  # first in the lock order; makes two connections queue one match
        if (not BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).exists()
                or Match.objects.filter(validates_id=version.pk).exists()):
            return False
        preset, overrides = VALIDATION_MATCHES[version.bot.game]
        opponent = house_version(version.bot.game, VALIDATION_OPPONENT)
        create_match(kind=Match.Kind.VALIDATION, preset=preset, overrides=overrides, requested_by=version.bot.owner,
                     seat_versions=_validation_seats(preset, overrides, version, opponent), validates=version,
                     held=True)
        release_validations(version.bot.owner_id)
    return True


def validation_links() -> Prefetch:
    """For a queryset of versions: each one's validation match (its id and status), in one query for them all,
    so ``version.validation_match_id`` reads the prefetched row."""
    return Prefetch("validation_matches", queryset=Match.objects.only("pk", "validates_id", "status"))


def validation_stage(version: BotVersion) -> str:
    """pending (its validation match waits for a worker), building (a version sent as source is compiled by the
    worker that took the match: its row names no build yet), playing (the match is being played), ready or
    rejected; reads the match ``validation_links`` prefetched."""
    match = version.validation_match
    if version.status == BotVersion.Status.PENDING and match is not None and match.status == Match.Status.RUNNING:
        return "building" if version.language and not version.build_sha256 else "playing"
    return version.status


def _validation_seats(preset: str, overrides: dict, version: BotVersion, opponent: BotVersion) -> list[BotVersion]:
    seats, teams = layout(preset, overrides)
    return seat_assignment([version, opponent], seats, teams)


def finish_validation(match: Match, seats: list[Seat]) -> None:
    """The validation match ended (inside its result transaction): ready if the new version played cleanly.
    No row is locked beyond what the updates take (docs/matches.md, "Lock order"): the match's own lock
    already makes this run once, and a FOR UPDATE on the version would block uploads' seat inserts."""
    version = (BotVersion.objects.filter(pk=match.validates_id, status=BotVersion.Status.PENDING).first()
               if match.validates_id is not None else None)
    if version is None:
        return
    own = [s for s in seats if s.version_id == version.pk]
    failed = next((s for s in own if s.verdict != protocol.OK), None)
    validated_at = timezone.now()
    pending = BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING)
    if failed is None:
        if not pending.update(status=BotVersion.Status.READY, reason="", validated_at=validated_at):
            return
        make_current(version)
        # A ladder suspension is lifted by a new version that validates; a staff suspension is not.
        Bot.objects.filter(pk=version.bot_id, suspended_by="ladder").update(suspended_reason="", suspended_by="")
    else:
        cause = stderr_cause(failed)
        reason = f"{failed.verdict} ({failed.code}): {f'{cause}; ' if cause else ''}{failed.detail}"[:4000]
        if pending.update(status=BotVersion.Status.REJECTED, reason=reason, validated_at=validated_at):
            forget_build(version)  # a rejected version never plays again: its build is not kept


def stderr_cause(seat: Seat) -> str:
    """Why a crashed bot died, in its own stderr's words (its exception and line, arena.stderr_cause): the
    referee only saw it exit. Its owner's alone, as the reason it goes into is; a failed build's reason already
    names the compiler's error."""
    if seat.verdict != protocol.CRASH or seat.code == "build-failed" or not seat.log_sha256:
        return ""
    try:
        tail = blobs.get("logs", seat.log_sha256)[-CAUSE_TAIL_BYTES:]
    except (blobs.BlobMissing, blobs.BlobCorrupt):  # pruned or damaged: the referee's words alone, as before
        return ""
    return last_error([STDERR_TAGGED.sub("", line, count=1) for line in tail.decode("utf-8", "replace").splitlines()])


def fail_validation(match: Match) -> None:
    """The validation match could not be played at all (infrastructure, after every attempt)."""
    version = (BotVersion.objects.filter(pk=match.validates_id, status=BotVersion.Status.PENDING).first()
               if match.validates_id is not None else None)
    if version is None:
        return
    if BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).update(
            status=BotVersion.Status.ERROR, validated_at=timezone.now(),
            reason=f"the validation match could not be played ({match.failure[:500]}); this is not the bot's "
                   f"fault: upload it again"):
        forget_build(version)  # it is uploaded again as a new version, which is built afresh


class ValidationResult(MatchHook):
    """First: the version the match validates is ready, rejected or in error. Its owner's row is locked
    before the seats are written (it comes first in the lock order)."""

    kinds = frozenset({Match.Kind.VALIDATION})

    def lock(self, match: Match) -> None:
        lock_account(match.requested_by_id)

    def finished(self, match: Match, seats: list[Seat]) -> None:
        finish_validation(match, seats)

    def failed(self, match: Match) -> None:
        fail_validation(match)


class ReleaseNextValidation(MatchHook):
    """Last: the owner's next held validation goes out (held matches come last in the lock order)."""

    kinds = frozenset({Match.Kind.VALIDATION})

    def finished(self, match: Match, seats: list[Seat]) -> None:
        release_validations(match.requested_by_id)

    def failed(self, match: Match) -> None:
        release_validations(match.requested_by_id)
