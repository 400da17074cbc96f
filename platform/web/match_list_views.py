"""/matches/: every match, newest first, filtered by bot, opponent, preset, kind, result and date, paged by cursor
(the id to continue from: no count of a million rows, and a page stays put while new matches come in).

It shows what the other match lists show (web/match_table.html): who played, and who won once a match is
finished; never a seed, a hand or a log. A validation match's verdict detail is its bot's owner's alone
(matches.access.detail_visible), as on the match's own page."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from urllib.parse import urlencode

from django import forms
from django.db.models import Exists, OuterRef, Prefetch
from django.shortcuts import render
from django.utils import timezone

from arena.games import all_presets
from bots.models import BotVersion
from matches.models import Match, Seat
from web.outcomes import with_outcomes

PAGE = 50
RESULTS = [("", "any result"), ("won", "won"), ("lost", "lost"), ("drawn", "drawn")]


class MatchFilterForm(forms.Form):
    bot = forms.CharField(required=False, max_length=40, label="Bot")
    opponent = forms.CharField(required=False, max_length=40, label="Opponent", help_text="matches with both")
    preset = forms.ChoiceField(required=False, label="Preset")
    kind = forms.ChoiceField(required=False, label="Kind")
    result = forms.ChoiceField(required=False, choices=RESULTS, label="Result", help_text="the bot's, finished")
    since = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, auto_id="matches-%s", **kwargs)
        self.fields["preset"].choices = [("", "any preset")] + [(p, p) for p in all_presets()]
        self.fields["kind"].choices = [("", "any kind")] + [(k, k) for k in Match.Kind.values]
        for name in ("bot", "opponent"):
            self.fields[name].widget.attrs.update({"autocapitalize": "none", "spellcheck": "false",
                                                   "placeholder": "name"})

    def clean(self):
        data = super().clean()
        if data.get("result") and not data.get("bot"):
            self.add_error("result", "a result is the bot's: name the bot too")
        if data.get("since") and data.get("until") and data["until"] < data["since"]:
            self.add_error("until", f"{data['until']} is before {data['since']}")
        for name in ("bot", "opponent"):
            if data.get(name):
                data[f"{name}_versions"] = list(BotVersion.objects.filter(bot__name__iexact=data[name])
                                                .values_list("pk", flat=True)[:10_000])
                if not data[f"{name}_versions"]:
                    self.add_error(name, f"no bot is named {data[name]!r}")
        return data


def filtered(data: dict):
    """The matches the filters keep (a queryset, not yet ordered or cut)."""
    matches = Match.objects.all()
    for name in ("bot", "opponent"):  # through the seat index (version, match): the versions first, a handful
        if data.get(f"{name}_versions"):
            matches = matches.filter(pk__in=Seat.objects.filter(version_id__in=data[f"{name}_versions"])
                                     .values("match_id"))
    if data.get("preset"):
        matches = matches.filter(preset=data["preset"])
    if data.get("kind"):
        matches = matches.filter(kind=data["kind"])
    if data.get("since"):
        matches = matches.filter(created__gte=_day(data["since"]))
    if data.get("until"):
        matches = matches.filter(created__lt=_day(data["until"]) + timedelta(days=1))
    if data.get("result"):
        mine = Seat.objects.filter(match_id=OuterRef("pk"), version_id__in=data["bot_versions"])
        beaten = Seat.objects.filter(match_id=OuterRef("pk"), rank__gt=1)
        matches = matches.filter(status=Match.Status.FINISHED)
        if data["result"] == "won":
            matches = matches.filter(Exists(mine.filter(rank=1)), Exists(beaten))
        elif data["result"] == "lost":
            matches = matches.filter(Exists(mine.filter(rank__gt=1)))
        else:
            matches = matches.filter(Exists(mine)).exclude(Exists(beaten))
    return matches


def _day(day) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def _cursor(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


def match_list(request):
    form = MatchFilterForm(request.GET or None)
    data = form.cleaned_data if form.is_bound and form.is_valid() else {}
    rows: list[Match] = []
    older = newer = None
    if not form.is_bound or form.is_valid():
        seats = Seat.objects.select_related("version__bot").order_by("seat")
        matches = filtered(data).prefetch_related(Prefetch("seats", queryset=seats))
        before, after = _cursor(request.GET.get("before")), _cursor(request.GET.get("after"))
        if after is not None:  # the page just newer than one seen: read upwards, show newest first
            rows = list(matches.filter(pk__gt=after).order_by("id")[:PAGE + 1])
            newer = rows[PAGE - 1].pk if len(rows) > PAGE else None
            rows = rows[:PAGE][::-1]
            older = rows[-1].pk if rows else None
        else:
            if before is not None:
                matches = matches.filter(pk__lt=before)
            rows = list(matches.order_by("-id")[:PAGE + 1])
            older = rows[PAGE - 1].pk if len(rows) > PAGE else None
            rows = rows[:PAGE]
            newer = rows[0].pk if rows and before is not None else None
    with_outcomes(rows, request.user)  # a validation match's reasons blanked for all but its bot's owner
    keep = {k: v for k, v in request.GET.items() if k in form.fields and v}
    return render(request, "web/match_list.html", {
        "form": form, "matches": rows, "filtered": bool(keep),
        "older": f"?{urlencode({**keep, 'before': older})}" if older else "",
        "newer": f"?{urlencode({**keep, 'after': newer})}" if newer else "",
        "first": f"?{urlencode(keep)}" if (request.GET.get("before") or request.GET.get("after")) else ""})
