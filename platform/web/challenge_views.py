"""Challenges from the web: the form on a bot's page, and the page of one challenge with its matches."""

from __future__ import annotations

import uuid

from django import forms
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts import limits
from accounts.limits import RateLimited
from arena.games.seating import layout, side_scores
from bots.models import Bot, BotVersion
from matches.challenges import ChallengeError, do_challenge
from matches.models import Match
from web.outcomes import number, recent_matches


class ChallengeForm(forms.Form):
    bot = forms.ChoiceField(label="Your bot", help_text="one of your bots of the same game with a ready version")
    preset = forms.ChoiceField(help_text="a two-sided preset both bots play")

    def __init__(self, mine: list[Bot], presets: list[str], *args, **kwargs):
        super().__init__(*args, auto_id="challenge-%s", **kwargs)
        self.fields["bot"].choices = [(b.name, b.name) for b in mine]
        self.fields["preset"].choices = [(p, p) for p in presets]


def two_sided(bot: Bot) -> list[str]:
    """The presets of the bot a challenge can be played on: those with two sides."""
    return [p for p in bot.plays() if len(layout(p, {})[1]) == 2]


def ready_bots(owner, game: str):
    """The owner's bots of a game that can play now: active, not suspended, with a ready current version. The
    forms that pick a bot to play offer only these, so none offers a bot it would then refuse."""
    return Bot.objects.filter(owner=owner, kind=Bot.Kind.BOT, game=game, active=True, suspended_reason="",
                              current_version__status=BotVersion.Status.READY).order_by("name")


def can_play(bot: Bot) -> bool:
    version = bot.current_version
    return bool(bot.active and not bot.suspended_reason and version is not None
                and version.status == BotVersion.Status.READY)


def challenge_form(request, bot: Bot, data=None) -> ChallengeForm | None:
    """The form for the viewer's bots of this bot's game, or None when they have none to challenge with (or
    this bot cannot play now)."""
    if not request.user.is_authenticated or not can_play(bot):
        return None
    mine = list(ready_bots(request.user, bot.game).exclude(pk=bot.pk))
    presets = two_sided(bot)
    if not mine or not presets:
        return None
    return ChallengeForm(mine, presets, data)


def handle(request, bot: Bot) -> tuple[HttpResponseRedirect | None, ChallengeForm | None, RateLimited | None]:
    """A challenge posted from the bot's page: a redirect to the challenge's page, or the form with the reason
    beside the field at fault."""
    form = challenge_form(request, bot, request.POST)
    if form is None:
        raise Http404("no bot of yours can challenge this one")
    if not form.is_valid():
        return None, form, None
    mine = Bot.objects.get(owner=request.user, name=form.cleaned_data["bot"])
    try:  # the API's rate for challenges (REST_FRAMEWORK's "challenge"), counted for the pages
        limits.spend(limits.rate("challenge", "challenges"), request.user.pk)
    except RateLimited as err:
        form.add_error(None, str(err))
        return None, form, err
    try:
        matches = do_challenge(request.user, mine, bot, form.cleaned_data["preset"])
    except ChallengeError as err:
        field = {"opponent": None}.get(err.field, err.field)
        form.add_error(field if field in form.fields else None, str(err))
        return None, form, None
    return redirect("challenge", set_id=matches[0].duplicate_set), None, None


def challenge_detail(request, set_id: uuid.UUID):
    matches = recent_matches(Match.objects.filter(duplicate_set=set_id, kind=Match.Kind.CHALLENGE), 50, request.user)
    if not matches:
        raise Http404("no such challenge")
    matches.sort(key=lambda m: m.rotation)
    first = sorted(matches[0].seats.all(), key=lambda s: s.seat)
    challenger = next((s.version.bot for s in first if matches[0].requested_by_id == s.version.bot.owner_id),
                      first[0].version.bot)
    opponent = next((s.version.bot for s in first if s.version.bot.pk != challenger.pk), challenger)
    return render(request, "web/challenge.html", {
        "matches": matches, "first": matches[0], "challenger": challenger, "opponent": opponent,
        "totals": totals(matches), "pending": any(not m.is_done for m in matches),
        "poll_url": reverse("api-matches") + f"?duplicate_set={set_id}&page_size=50"})


def totals(matches: list[Match]) -> list[dict] | None:
    """Each bot's match points over the set (1 a win, ½ a draw) once every match is finished, best first."""
    if not matches or any(m.status != Match.Status.FINISHED for m in matches):
        return None
    points: dict[str, float] = {}
    for match in matches:
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        teams = (match.result or {}).get("teams") or [[s.seat] for s in seats]
        scores = side_scores([s.rank for s in seats], teams)
        for team, score in zip(teams, scores, strict=True):
            name = seats[team[0]].version.bot.name
            points[name] = points.get(name, 0.0) + score
    return [{"bot": name, "points": number(p)} for name, p in sorted(points.items(), key=lambda kv: -kv[1])]
