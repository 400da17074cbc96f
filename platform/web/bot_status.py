"""A bot's status, as its page says it: one function for the header's state, each version's stage and the line
that follows a validation, rendered by the page and served as JSON (/bots/<name>/status/) to the page's poll, so
no part of the page says something another part has moved past (issue 36)."""

from __future__ import annotations

from django.http import JsonResponse
from django.template.loader import render_to_string

from bots.access import access_bot, can_see_private
from bots.models import Bot, BotVersion
from matches.models import Match
from matches.validation import validation_links, validation_stage
from web.outcomes import recent_matches

RECENT = 20  # the page's "Recent matches"

SHOWN_VERSIONS = 50
STAGE_WORDS = {
    "pending": "pending: its validation match waits for a worker",
    "building": "compiling: a worker builds it from its source",
    "playing": "playing its validation match",
    "ready": "ready",
    "rejected": "rejected",
    "error": "its validation could not be played (not the bot's fault)",
}
WAITING = ("pending", "building", "playing")


def versions_of(bot: Bot) -> list[BotVersion]:
    """The bot's newest versions, each with its ``stage``, in two queries."""
    versions = list(bot.versions.prefetch_related(validation_links()).order_by("-number")[:SHOWN_VERSIONS])
    for version in versions:
        version.stage = validation_stage(version)
    return versions


def state_of(bot: Bot, versions: list[BotVersion]) -> dict:
    """The bot's one state line: what it is doing, and which version is validating if one is."""
    validating = next((v for v in versions if v.stage in WAITING), None)
    doing = f"v{validating.number} is {STAGE_WORDS[validating.stage]}" if validating else ""
    if bot.deleted is not None:
        key, text = "deleted", "deleted"
    elif bot.suspended_reason:
        key, text = "suspended", "suspended"
    elif not bot.active:
        key, text = "inactive", "inactive"
    elif bot.current_version_id is not None:
        current = next((v.number for v in versions if v.pk == bot.current_version_id), None)
        key, text = "ladder", f"on the ladder with v{current}" if current else "on the ladder"
    elif validating:
        key, text = "validating", "validating its first version"
    else:
        rejected = next((v for v in versions if v.stage == "rejected"), None)
        key, text = "waiting", (f"waiting for a valid version (v{rejected.number} was rejected)" if rejected
                                else "waiting for a valid version")
    return {"state": key, "text": text + (f" · {doing}" if doing else ""), "waiting": validating is not None}


def status_json(bot: Bot, versions: list[BotVersion], private: bool) -> dict:
    """What the page's poll reads: the state line and each version's stage; the reasons and the validation
    matches only for its owner (and staff), as on the page."""
    rows = []
    for v in versions:
        row = {"number": v.number, "stage": v.stage, "current": v.pk == bot.current_version_id}
        if private:
            row.update(reason=v.reason, validation_match=v.validation_match_id)
        rows.append(row)
    return {**state_of(bot, versions), "versions": rows}


def bots_matches(bot: Bot):
    return Match.objects.filter(seats__version__bot=bot).distinct()


def matches_key(bot: Bot) -> str:
    """The newest matches' ids and statuses (one query): the page fetches its "Recent matches" again, rendered as
    on the page, only when this changes (a validation match taken, finished)."""
    return ",".join(f"{pk}:{status}" for pk, status in bots_matches(bot).order_by("-id")
                    .values_list("id", "status")[:RECENT])


def bot_status(request, name: str):
    bot = access_bot(request.user, name)
    body = {**status_json(bot, versions_of(bot), can_see_private(request.user, bot)), "matches_key": matches_key(bot)}
    if request.GET.get("matches"):
        body["matches_html"] = render_to_string("web/match_table.html", {
            "matches": recent_matches(bots_matches(bot), RECENT, request.user), "empty": "No match yet."}, request)
    answer = JsonResponse(body)
    answer["Cache-Control"] = "no-store"
    return answer
