"""Tournament pages: the list, hosting form, and a tournament with its standings, crosstable and rounds."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena.games import all_presets
from bots.models import Bot
from matches.time_controls import BOUNDS, STANDARD, TimeControlError, check_time_control
from tournaments import standings as tables
from tournaments.actions import do_create_tournament, do_host_action, do_join, do_leave
from tournaments.lifecycle import TournamentError
from tournaments.models import TABLE_FORMATS, Tournament
from tournaments.queries import access_tournament, board_matches, matches_by_board, tournament_queryset
from web.challenge_views import ready_bots
from web.charts import bracket
from web.forms import EntrantForm
from web.live_views import running_matches
from web.outcomes import number, recent_matches


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=80)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=4000)
    preset = forms.ChoiceField(choices=[])
    format = forms.ChoiceField(choices=Tournament.Format.choices)
    rounds = forms.IntegerField(min_value=1, max_value=50, required=False, help_text="Swiss only")
    deals = forms.IntegerField(min_value=1, max_value=20, initial=1, label="Duplicate sets per pairing",
                               help_text="each plays the same cards once in every seat rotation")
    move_ms = forms.IntegerField(initial=STANDARD.move_ms, label="Time per move (ms)", widget=forms.NumberInput(
        attrs={"min": BOUNDS["move_ms"][0], "max": BOUNDS["move_ms"][1]}))
    live_delay_seconds = forms.IntegerField(min_value=0, max_value=3600, required=False, label="Live delay (s)",
                                            help_text="how far behind the play its matches are shown live; "
                                                      "empty: the site's default")
    remote_bots = forms.BooleanField(required=False, initial=True, label="Remote bots may enter",
                                     help_text="bots played from their owners' machines over arena connect; "
                                               "off: only bots in the site's sandbox")
    entry = forms.ChoiceField(choices=Tournament.Entry.choices)
    max_entries = forms.IntegerField(min_value=2, max_value=1024, initial=16)
    starts_at = forms.DateTimeField(help_text="UTC, e.g. 2026-12-24 18:00",
                                    widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = [(p, p) for p in all_presets()]

    def clean_move_ms(self) -> int:
        try:  # the one check every way in shares (the API's too)
            return check_time_control({"move_ms": self.cleaned_data["move_ms"]}).move_ms
        except TimeControlError as err:
            raise forms.ValidationError(str(err)) from None


def tournament_list(request):
    rows = tournament_queryset().order_by("-starts_at")[:200]
    return render(request, "web/tournament_list.html", {"tournaments": rows})


@login_required
def tournament_new(request):
    form = TournamentForm(request.POST or None, initial={"starts_at": timezone.now().replace(second=0, microsecond=0)
                                                         + timezone.timedelta(hours=1)})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            t = do_create_tournament(
                request.user, name=data["name"], description=data["description"], preset=data["preset"],
                format=data["format"], rounds=data["rounds"], deals=data["deals"], overrides={},
                time_control={"move_ms": data["move_ms"]}, entry=data["entry"], max_entries=data["max_entries"],
                starts_at=data["starts_at"], entry_deadline=None, live_delay_seconds=data["live_delay_seconds"],
                remote_bots=data["remote_bots"])
        except TournamentError as err:
            form.add_error(err.field if err.field in form.fields else None, str(err))
        else:
            messages.success(request, "Tournament created. Entrants can join until it starts.")
            return redirect("tournament", pk=t.pk)
    return render(request, "web/tournament_new.html", {"form": form})


# The tie-break columns of a pairing tournament's standings, in the order they break ties: (key, heading, name,
# what it counts). A column that is 0 for every entrant is left out, and the note under the table says so.
TIEBREAKS = (
    ("buchholz", "Buch.", "Buchholz", "the sum of the points of every opponent met"),
    ("sonneborn_berger", "S-B", "Sonneborn–Berger", "each opponent's points times the points scored against it"),
    ("head_to_head", "H2H", "head to head", "the points scored against the others level on points, Buchholz "
                                             "and S-B, counted only when all of them have met"),
    ("point_difference", "Diff", "duplicate point difference", "own deal points minus the opponents' over "
                                                                "every duplicate set"),
)


def _points(value: float) -> str:
    return f"{number(value)} point{'' if value == 1 else 's'}"


def _games(count: int) -> str:
    return f"{count} game{'' if count == 1 else 's'}"


def _pairing_result(p: dict) -> dict:
    """What a pairing's result says: who won it (or that it was drawn, or a bye), by how much, and what the
    counted games gave."""
    if p["second"] is None:
        return {"winner": p["first"], "text": "bye", "detail": f"{_points(p['score'])} for sitting out"}
    if p["score"] is None:
        return {"winner": None, "text": "playing…", "detail": f"{_games(p['games'])} in" if p["games"] else ""}
    first, second = p["games_first"], p["games"] - p["games_first"]
    if p["score"] == p["score_second"]:
        return {"winner": None, "text": f"drawn {number(p['score'])} – {number(p['score'])}",
                "detail": f"{_points(first)} each from {_games(p['games'])}"}
    winner, won = (p["first"], first) if p["score"] > p["score_second"] else (p["second"], second)
    return {"winner": winner, "text": f"{winner} won {number(max(p['score'], p['score_second']))} – "
                                      f"{number(min(p['score'], p['score_second']))}",
            "detail": f"{_points(won)} from {_games(p['games'])}"
                      + (f", {p['tiebreak_sets']} tiebreak set{'s' if p['tiebreak_sets'] != 1 else ''}"
                         if p["tiebreak_sets"] else "")}


def _rounds_with_links(t: Tournament, rounds: list[dict]) -> None:
    """Each pairing and table gets its matches (ids, for links) and the words of its result."""
    played = matches_by_board(t)
    for rnd in rounds:
        for p in rnd["pairings"]:
            p["matches"] = played.get((rnd["number"], p["board"]), [])
            p["result"] = _pairing_result(p)
        for table in rnd.get("tables", []):
            table["matches"] = played.get((rnd["number"], table["board"]), [])


def _crosstable(t: Tournament, rows: list[dict], rounds: list[dict]) -> list[dict]:
    """The crosstable in standings order; each cell the results of every meeting of the row's bot with the
    column's, each with the round and board of its pairing (for the link to its matches)."""
    cells = tables.crosstable(t)["cells"]
    meetings: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for rnd in rounds:  # in round order, as the crosstable lists the results of one pair
        for p in rnd["pairings"]:
            if p["second"] is not None and p["score"] is not None:
                meetings.setdefault((p["first"], p["second"]), []).append((rnd["number"], p["board"]))
                meetings.setdefault((p["second"], p["first"]), []).append((rnd["number"], p["board"]))
    lines = []
    for r in rows:
        line: list[dict | None] = []
        for other in rows:
            found = cells.get(r["entry"], {}).get(other["entry"])
            if other["entry"] == r["entry"]:
                line.append({"self": True})
            elif found is None:
                line.append(None)  # they have not met (yet)
            else:
                line.append({"results": [{"points": value, "round": at[0], "board": at[1]} for value, at in
                                         zip(found, meetings.get((r["bot"], other["bot"]), []), strict=False)]})
        lines.append({"row": r, "cells": line})
    return lines


def _detail(request, t: Tournament, entrant_form: EntrantForm | None = None):
    rows = tables.standings(t) if t.status != Tournament.Status.OPEN else []
    rounds = tables.rounds(t)
    _rounds_with_links(t, rounds)
    crosstable = _crosstable(t, rows, rounds) if rows and t.format not in (*TABLE_FORMATS, Tournament.Format.KNOCKOUT) \
        else []
    is_host = request.user.is_authenticated and request.user.pk == t.host_id
    entries_open = t.status == Tournament.Status.OPEN
    game = all_presets()[t.preset][0]
    my_bots = []
    if request.user.is_authenticated and entries_open and t.entry != Tournament.Entry.PRIVATE:
        my_bots = list(ready_bots(request.user, game).exclude(entries__tournament=t))
    entries = list(t.entries.select_related("bot__owner", "version").order_by("seed", "joined"))
    mine = set(Bot.objects.filter(owner=request.user).values_list("name", flat=True)) \
        if request.user.is_authenticated else set()
    adding = is_host and (entrant_form is not None or (t.entry == Tournament.Entry.PRIVATE and entries_open))
    if adding and entrant_form is None:
        entrant_form = EntrantForm(game=game, preset=t.preset)
    shown = [tb for tb in TIEBREAKS if any(r[tb[0]] for r in rows)]
    return render(request, "web/tournament_detail.html", {
        "running": running_matches(request.user, t.pk) if t.status == Tournament.Status.RUNNING else [],
        "t": t, "standings": rows, "crosstable": crosstable, "rounds": rounds, "entries": entries,
        "my_bots": my_bots, "mine": mine, "is_host": is_host, "tabled": t.format in TABLE_FORMATS,
        "tiebreaks": shown, "tiebreaks_hidden": [tb[1] for tb in TIEBREAKS if tb not in shown],
        "tiebreak_notes": [(short, name, what, (key, short, name, what) not in shown)
                           for key, short, name, what in TIEBREAKS],
        "entrant_form": entrant_form if adding else None,
        "entrant_choices": entrant_choices(t, game) if adding and entries_open else [],
        "can_remove": is_host and entries_open,
        "bracket": bracket(rounds) if t.format == Tournament.Format.KNOCKOUT and rounds else ""})


def entrant_choices(t: Tournament, game: str, limit: int = 500) -> list[str]:
    """Names the host's entrant field suggests: active bots of the game with a ready version that play the preset
    and have not joined (one query)."""
    bots = (Bot.objects.filter(kind=Bot.Kind.BOT, game=game, active=True, suspended_reason="",
                               current_version__status="ready").exclude(entries__tournament=t)
            .order_by("name").only("name", "game", "presets")[:limit])
    return [b.name for b in bots if t.preset in b.plays()]


def tournament_detail(request, pk: int):
    return _detail(request, access_tournament(pk))


def tournament_board(request, pk: int, number: int, board: int):
    """One pairing or table of a round: who met, the result, and every match played for it."""
    t = access_tournament(pk)
    rnd = next((r for r in tables.rounds(t) if r["number"] == number), None)
    found = None
    if rnd is not None:
        found = next((x for x in rnd["pairings"] + rnd.get("tables", []) if x["board"] == board), None)
    if found is None:
        raise Http404("no such pairing")
    if "first" in found:
        found["result"] = _pairing_result(found)
    played = recent_matches(board_matches(t, number, board), 500, request.user)
    played.reverse()  # in the order they were played
    return render(request, "web/tournament_board.html", {"t": t, "round": rnd, "board": found, "matches": played,
                                                          "tabled": t.format in TABLE_FORMATS})


@login_required
@require_POST
def tournament_entrant_add(request, pk: int):
    """The host of a private tournament adds a bot (anyone's) by name; a refusal is shown beside the field."""
    t = access_tournament(pk)
    if request.user.pk != t.host_id:
        raise Http404("no such tournament")  # to others, the host's controls do not exist
    form = EntrantForm(request.POST, game=all_presets()[t.preset][0], preset=t.preset)
    if form.is_valid():
        bot = Bot.objects.filter(name__iexact=form.cleaned_data["bot"], kind=Bot.Kind.BOT).first()
        if bot is None:
            form.add_error("bot", f"no bot is called {form.cleaned_data['bot']!r}")
        else:
            try:
                do_join(request.user, t, bot)
            except TournamentError as err:
                form.add_error(err.field if err.field in form.fields else None, str(err))
            else:
                messages.success(request, f"{bot.name}, {bot.owner.username}'s bot, is entered in {t.name}.")
                return redirect(reverse("tournament", args=[t.pk]) + "#entries")
    return _detail(request, access_tournament(pk), entrant_form=form)


@login_required
@require_POST
def tournament_entrant_remove(request, pk: int):
    """The host takes an entrant out before the start."""
    t = access_tournament(pk)
    if request.user.pk != t.host_id:
        raise Http404("no such tournament")
    bot = Bot.objects.filter(name__iexact=request.POST.get("bot", ""), kind=Bot.Kind.BOT).first()
    if bot is None:
        raise Http404("no such bot")
    try:
        do_leave(request.user, t, bot)
    except TournamentError as err:
        messages.error(request, str(err))
    else:
        messages.success(request, f"{bot.name} is no longer entered in {t.name}.")
    return redirect(reverse("tournament", args=[t.pk]) + "#entries")


@login_required
@require_POST
def tournament_join(request, pk: int):
    t = access_tournament(pk)
    bot = Bot.objects.filter(name__iexact=request.POST.get("bot", ""), kind=Bot.Kind.BOT).first()
    if bot is None:
        raise Http404("no such bot")
    try:
        do_join(request.user, t, bot, request.POST.get("invite_code", ""))
    except TournamentError as err:
        messages.error(request, str(err))
    else:
        messages.success(request, f"{bot.name} joined {t.name}.")
    return redirect("tournament", pk=pk)


@login_required
@require_POST
def tournament_control(request, pk: int, action: str):
    t = access_tournament(pk)
    if request.user.pk != t.host_id:
        raise Http404("no such tournament")
    try:
        do_host_action(request.user, t, action)
    except TournamentError as err:
        messages.error(request, str(err))
    return redirect("tournament", pk=pk)
