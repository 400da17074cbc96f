"""What each event says, and to whom: one function per event, called from the hooks and receivers.

Each builds the words and the link and calls ``emit.notify``, which writes nothing before the surrounding
transaction commits. The house bots' account is never told anything.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from django.urls import reverse

from accounts.models import SYSTEM_USERNAME
from arena import protocol
from bots.models import Bot, BotVersion
from ladder.suspension import FAULT_VERDICTS, SUSPEND_AFTER
from matches.models import Match, Seat
from notifications.emit import notify
from notifications.models import Event
from tournaments.models import Entry, Tournament

CRASH_STREAK = 3  # ladder matches in a row crashed or timed out: a warning, before the suspension at SUSPEND_AFTER


def version_result(version_id: int | None) -> None:
    """A version's validation ended: validated, rejected, or not played at all (error)."""
    version = (BotVersion.objects.select_related("bot__owner").filter(pk=version_id).first()
               if version_id is not None else None)
    if version is None or version.bot.owner.username == SYSTEM_USERNAME:
        return
    bot, url = version.bot, reverse("bot", args=[version.bot.name])
    data = {"bot": bot.name, "version": version.number, "status": version.status}
    if version.status == BotVersion.Status.READY:
        notify(bot.owner_id, Event.VERSION_VALIDATED, f"version:{version.pk}:ready",
               f"{bot.name} v{version.number} is validated", url=url, data=data,
               text=f"{bot.name} v{version.number} passed its validation match and is now the version that plays.")
    elif version.status in (BotVersion.Status.REJECTED, BotVersion.Status.ERROR):
        what = "was rejected" if version.status == BotVersion.Status.REJECTED else "could not be validated"
        notify(bot.owner_id, Event.VERSION_REJECTED, f"version:{version.pk}:{version.status}",
               f"{bot.name} v{version.number} {what}", url=url, data={**data, "reason": version.reason},
               text=version.reason)


def crash_streaks(match: Match, seats: list[Seat]) -> None:
    """After a ladder match: each version whose CRASH_STREAK-th fault in a row this match was (once a streak)."""
    for seat in seats:
        if seat.verdict not in FAULT_VERDICTS:
            continue
        before = list(Seat.objects.filter(version_id=seat.version_id, match__kind=Match.Kind.LADDER,
                                          match__status=Match.Status.FINISHED)
                      .exclude(match_id=match.pk).order_by("-match__finished")
                      .values_list("verdict", flat=True)[:CRASH_STREAK])
        streak = before[: CRASH_STREAK - 1]
        if len(streak) < CRASH_STREAK - 1 or any(v not in FAULT_VERDICTS for v in streak):
            continue
        if len(before) == CRASH_STREAK and before[-1] in FAULT_VERDICTS:
            continue  # a longer streak: told when it reached CRASH_STREAK
        version = BotVersion.objects.select_related("bot__owner").get(pk=seat.version_id)
        bot = version.bot
        if bot.owner.username == SYSTEM_USERNAME:
            continue
        notify(bot.owner_id, Event.BOT_CRASHING, f"crashing:{version.pk}:{match.pk}",
               f"{bot.name} v{version.number} failed {CRASH_STREAK} ladder matches in a row",
               url=reverse("match", args=[match.pk]),
               data={"bot": bot.name, "version": version.number, "match": match.pk, "verdict": seat.verdict,
                     "code": seat.code},
               text=(f"Its last match ended by {seat.verdict} ({seat.code}): {seat.detail[:300]}. After "
                     f"{SUSPEND_AFTER} in a row it leaves the ladder until a fixed version validates."))


def suspended(bot_ids: list[int]) -> None:
    """Bots whose ladder standing changed: those now suspended (by the ladder's rule or by staff)."""
    for bot in (Bot.objects.filter(pk__in=bot_ids).exclude(suspended_reason="")
                .exclude(owner__username=SYSTEM_USERNAME)):
        digest = hashlib.sha256(bot.suspended_reason.encode()).hexdigest()[:16]
        notify(bot.owner_id, Event.BOT_SUSPENDED, f"suspended:{bot.pk}:{digest}", f"{bot.name} is suspended",
               url=reverse("bot", args=[bot.name]), text=bot.suspended_reason,
               data={"bot": bot.name, "by": bot.suspended_by, "reason": bot.suspended_reason})


def tournament_status(tournament_id: int, status: str) -> None:
    """A tournament started or finished: its host and the owners of its entries (each once)."""
    by_status: dict[str, Event] = {Tournament.Status.RUNNING: Event.TOURNAMENT_STARTED,
                                   Tournament.Status.FINISHED: Event.TOURNAMENT_FINISHED}
    event = by_status.get(status)
    t = Tournament.objects.filter(pk=tournament_id).only("pk", "name", "host_id").first()
    if event is None or t is None:
        return
    owners = set(Entry.objects.filter(tournament_id=t.pk).exclude(bot__owner__username=SYSTEM_USERNAME)
                 .values_list("bot__owner_id", flat=True))
    verb = "has started" if event == Event.TOURNAMENT_STARTED else "has finished: the standings are final"
    for user_id in sorted(owners | {t.host_id}):
        notify(user_id, event, f"tournament:{t.pk}:{status}:{user_id}", f"Tournament {t.name} {verb}",
               url=reverse("tournament", args=[t.pk]), data={"tournament": t.pk, "name": t.name},
               text=f"{t.name} {verb}.")


def challenge_played(duplicate_set: str) -> None:
    """A challenge's matches have all ended: the challenger and the challenged bot's owner (once each)."""
    matches = list(Match.objects.filter(duplicate_set=duplicate_set, kind=Match.Kind.CHALLENGE)
                   .values("pk", "status", "requested_by_id"))
    if not matches or any(m["status"] in (Match.Status.QUEUED, Match.Status.RUNNING) for m in matches):
        return
    seats = list(Seat.objects.filter(match_id__in=[m["pk"] for m in matches])
                 .select_related("version__bot__owner").order_by("match_id", "seat"))
    bots = {s.version.bot_id: s.version.bot for s in seats}
    wins: Counter[int] = Counter(s.version.bot_id for s in seats if s.rank == 1 and s.verdict == protocol.OK)
    requester = matches[0]["requested_by_id"]
    names = sorted(bots.values(), key=lambda b: b.owner_id != requester)  # the challenger's bot first
    score = " – ".join(f"{b.name} {wins[b.pk]}" for b in names)
    played = sum(m["status"] == Match.Status.FINISHED for m in matches)
    title = f"Challenge played: {' vs '.join(b.name for b in names)}"
    text = f"{played} of {len(matches)} matches played; matches won: {score}."
    recipients = {requester} | {b.owner_id for b in bots.values() if b.owner.username != SYSTEM_USERNAME}
    for user_id in sorted(u for u in recipients if u is not None):
        notify(user_id, Event.CHALLENGE_PLAYED, f"challenge:{duplicate_set}:{user_id}", title, text=text,
               url=reverse("challenge", args=[duplicate_set]),
               data={"challenge": str(duplicate_set), "matches": [m["pk"] for m in matches],
                     "won": {b.name: wins[b.pk] for b in names}})
