"""A user's public page (/users/<name>/): their bots, the tournaments they host and enter, and their ratings as a
person at the tables. Only what the site shows anyone anyway: no e-mail, no token, no file, no private log."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import Http404
from django.shortcuts import render

from bots.models import Bot
from ratings.live import to_elo
from ratings.models import Rating
from tournaments.models import Entry, Tournament, Trophy

LISTED = 200  # bots, tournaments, entries: more than an account can have (bots) or anyone reads on one page


def user_page(request, username: str):
    users = get_user_model().objects
    user = users.filter(username=username).first() or users.filter(username__iexact=username).first()
    if user is None:
        raise Http404("no such user")
    bots = list(Bot.objects.filter(owner=user, kind=Bot.Kind.BOT, deleted__isnull=True)
                .select_related("current_version").order_by("game", "name")[:LISTED])
    best: dict[int, Rating] = {}  # each bot's best current rating, to show one figure a bot
    for rating in Rating.objects.filter(bot__in=bots, is_current=True).order_by("-board", "-live_mu"):
        best.setdefault(rating.bot_id, rating)
    for bot in bots:
        bot.best = best.get(bot.pk)
    people = list(Rating.objects.filter(bot__owner=user, bot__kind=Bot.Kind.PERSON).select_related("bot")
                  .order_by("preset"))
    for row in people:
        row.live_elo = to_elo(row.live_mu)
    hosted = list(Tournament.objects.filter(host=user).order_by("-created")[:LISTED])
    entries = list(Entry.objects.filter(bot__owner=user, bot__kind=Bot.Kind.BOT)
                   .select_related("tournament", "bot").order_by("-tournament__created", "bot__name")[:LISTED])
    trophies = {(t.tournament_id, t.bot_id): t.place
                for t in Trophy.objects.filter(bot__owner=user, tournament_id__in={e.tournament_id for e in entries})}
    for entry in entries:
        entry.place = trophies.get((entry.tournament_id, entry.bot_id))
    return render(request, "web/user.html", {"person": user, "bots": bots, "people": people, "hosted": hosted,
                                             "entries": entries, "is_me": request.user.pk == user.pk})
