"""A person's rating cannot be farmed with their own bots (docs/ratings.md, "People"): a casual match with a
bot of the person's own at the table — opponent or partner, sandboxed or remote — moves no rating, live or
official, while the same person's match against someone else's bot does."""

from __future__ import annotations

import random

import pytest

from tests.platform.matches.test_live_tables import answer_like_the_page, play_in_thread, sit_down

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def person(house_bots, make_user, monkeypatch):
    """ann, logged in at the tables; the test plays her matches (as test_live_tables' fixture does)."""
    from django.test import Client

    from matches import actions

    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)
    user = make_user("ann")
    client = Client()
    client.force_login(user)
    return user, client


def own_bot(owner, name: str, game: str = "bura", builtin: str = "greedy"):
    from bots.actions import do_create_bot, make_current
    from bots.models import BotVersion

    bot = do_create_bot(owner, game=game, name=name)
    make_current(BotVersion.objects.create(bot=bot, number=1, builtin=builtin, runtime="builtin", status="ready"))
    bot.refresh_from_db()
    return bot


def play_through_the_page(client, opponent: str, seed: int) -> int:
    from matches.models import Match

    match_id = sit_down(client, opponent)
    played = play_in_thread(match_id)
    answer_like_the_page(client, match_id, random.Random(seed))
    played["thread"].join(timeout=60)
    assert played["result"] == "finished" and Match.objects.get(pk=match_id).status == "finished"
    return match_id


def forfeit_for_the_person(match, person_seat: int) -> None:
    """Record the match as the farming bot plays it: every other seat forfeits at once."""
    from arena.games.seating import layout
    from matches import actions

    assert actions.claim(match.pk, "worker")
    seats, teams = layout(match.preset, {})
    mine = next(team for team in teams if person_seat in team)
    result = {"seats": [{"seat": s, "verdict": "ok" if s in mine else "crash"} for s in range(seats)],
              "ranks": [1 if s in mine else 2 for s in range(seats)], "teams": teams, "ended_by": "forfeit"}
    assert actions.finish(match.pk, "worker", result, "", 0, {})


def people_rows(user):
    from ratings.models import Rating

    return list(Rating.objects.filter(bot__owner=user, bot__kind="person").values_list("preset", "games"))


def test_a_person_playing_their_own_bot_moves_no_rating_and_the_fit_never_reads_it(person):
    from matches.models import Match
    from ratings.models import Rating
    from ratings.people import presets_needing_people_refit, rated_outcomes, refit_people

    user, client = person
    own_bot(user, "anns-greedy")
    own = play_through_the_page(client, "anns-greedy", 3)
    assert people_rows(user) == []  # no live rating, no counters
    assert Rating.objects.filter(bot__name="anns-greedy").count() == 0
    other = play_through_the_page(client, "greedy-bura", 4)
    assert people_rows(user) == [("bura", 1)]  # the match against someone else's bot is rated
    _, matches, newest = rated_outcomes("bura")
    assert matches == 1 and newest == max(own, other)  # the fit reads the rated one only, and has seen both
    assert presets_needing_people_refit() == ["bura"]
    refit_people("bura")
    assert presets_needing_people_refit() == []  # the unrated match never calls for another refit
    assert Match.objects.get(pk=own).result["ended_by"] == "rules"


def test_a_bot_of_ones_own_that_forfeits_farms_nothing_as_opponent_partner_or_remote_bot(house_bots, make_user,
                                                                                         settings, monkeypatch):
    from bots.actions import make_current
    from bots.models import Bot, BotVersion, RemoteToken
    from bots.remote import do_make_remote_version, open_connection
    from matches import actions
    from matches.casual import person_seats, start_casual

    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)  # recorded by hand here
    settings.CASUAL_PER_HOUR = 100
    ann = make_user("ann")
    far = Bot.objects.get(pk=own_bot(ann, "anns-far").pk)
    version, _ = do_make_remote_version(far)
    BotVersion.objects.filter(pk=version.pk).update(status="ready")
    make_current(BotVersion.objects.get(pk=version.pk))
    open_connection(RemoteToken.objects.get(bot=far), version, address="127.0.0.1", max_matches=4)
    partner = own_bot(ann, "anns-kozel", game="kozel")
    tables = [(Bot.objects.get(pk=far.pk), "bura", None),  # the live case: 12 forfeits, 1578 to 1957
              (Bot.objects.get(name="greedy-kozel"), "kozel", partner)]
    for opponent, preset, beside in tables:
        for _ in range(3):
            match = start_casual(ann, opponent, preset, beside)
            forfeit_for_the_person(match, person_seats(match)[0].seat)
    assert people_rows(ann) == []
    match = start_casual(ann, Bot.objects.get(name="greedy-bura"), "bura")  # the control: a stranger's bot
    forfeit_for_the_person(match, person_seats(match)[0].seat)
    assert people_rows(ann) == [("bura", 1)]
