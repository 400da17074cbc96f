"""Tournament pages: the list, hosting form, and a tournament with its standings, crosstable and rounds."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena.games import all_presets
from bots.models import Bot
from matches.time_controls import BOUNDS, STANDARD, TimeControlError, check_time_control
from tournaments import standings as tables
from tournaments.actions import do_create_tournament, do_host_action, do_join
from tournaments.lifecycle import TournamentError
from tournaments.models import TABLE_FORMATS, Tournament
from tournaments.queries import access_tournament, tournament_queryset
from web.charts import bracket


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=80)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=4000)
    preset = forms.ChoiceField(choices=[])
    format = forms.ChoiceField(choices=Tournament.Format.choices)
    rounds = forms.IntegerField(min_value=1, max_value=50, required=False, help_text="Swiss only")
    deals = forms.IntegerField(min_value=1, max_value=20, initial=1,
                               help_text="deals per pairing; each is a duplicate set (every seat rotation)")
    move_ms = forms.IntegerField(initial=STANDARD.move_ms, label="Time per move (ms)", widget=forms.NumberInput(
        attrs={"min": BOUNDS["move_ms"][0], "max": BOUNDS["move_ms"][1]}))
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
                starts_at=data["starts_at"], entry_deadline=None)
        except TournamentError as err:
            form.add_error(err.field if err.field in form.fields else None, str(err))
        else:
            messages.success(request, "Tournament created. Entrants can join until it starts.")
            return redirect("tournament", pk=t.pk)
    return render(request, "web/tournament_new.html", {"form": form})


def tournament_detail(request, pk: int):
    t = access_tournament(pk)
    rows = tables.standings(t) if t.status != Tournament.Status.OPEN else []
    order = [r["entry"] for r in rows]
    cells = tables.crosstable(t)["cells"] if rows else {}
    crosstable = [{"row": r, "cells": [None if a == r["entry"] else cells.get(r["entry"], {}).get(a) for a in order]}
                  for r in rows]
    rounds = tables.rounds(t)
    my_bots = []
    if request.user.is_authenticated and t.status == Tournament.Status.OPEN:
        game = all_presets()[t.preset][0]
        my_bots = list(Bot.objects.filter(owner=request.user, game=game, active=True).exclude(entries__tournament=t))
    entries = t.entries.select_related("bot__owner", "version").order_by("seed", "joined")
    mine = set(Bot.objects.filter(owner=request.user).values_list("name", flat=True)) \
        if request.user.is_authenticated else set()
    return render(request, "web/tournament_detail.html", {
        "t": t, "standings": rows, "crosstable": crosstable, "rounds": rounds, "entries": entries,
        "my_bots": my_bots, "mine": mine, "is_host": request.user.is_authenticated and request.user.pk == t.host_id,
        "tabled": t.format in TABLE_FORMATS,
        "bracket": bracket(rounds) if t.format == Tournament.Format.KNOCKOUT and rounds else ""})


@login_required
@require_POST
def tournament_join(request, pk: int):
    t = access_tournament(pk)
    bot = Bot.objects.filter(name__iexact=request.POST.get("bot", "")).first()
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
