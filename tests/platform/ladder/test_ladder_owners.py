"""Fair play on the ladder (docs/matches.md, "The ladder"; "Remote seats and duplicate deals"): two bots of one
owner never sit at one ranked table (house bots excepted), and a ranked set with a remote seat deals each
rotation afresh while sets of sealed seats keep sharing their deal."""

from __future__ import annotations

import random

import pytest

from bots.actions import do_create_bot, make_current
from bots.models import Bot, BotVersion, RemoteToken
from bots.remote import do_make_remote_version, open_connection
from ladder.matchmaking import fill_ladder, pick_table
from matches.models import Match


def builtin_bot(owner, name: str, builtin: str = "greedy", game: str = "bura") -> BotVersion:
    bot = do_create_bot(owner, game=game, name=name)
    version = BotVersion.objects.create(bot=bot, number=1, builtin=builtin, runtime="builtin", status="ready")
    make_current(version)
    return version


def connected_remote(owner, name: str) -> BotVersion:
    bot = do_create_bot(owner, game="bura", name=name)
    version, _ = do_make_remote_version(bot)
    version.status = BotVersion.Status.READY
    version.save(update_fields=["status"])
    make_current(version)
    open_connection(RemoteToken.objects.get(bot=bot), version, address="127.0.0.1", max_matches=50)
    return version


def owners(table: list[BotVersion]) -> list[int | None]:
    """Each seat's owner, None for a house bot."""
    bots = {b.pk: b for b in Bot.objects.select_related("owner").filter(pk__in=[v.bot_id for v in table])}
    return [None if bots[v.bot_id].is_house else bots[v.bot_id].owner_id for v in table]


@pytest.mark.parametrize(("preset", "sides"), [("bura", 2), ("bura-3p", 3), ("burkozel-pairs", 2)])
def test_matchmaking_never_seats_two_bots_of_one_owner_at_a_table(house_bots, alice, bob, preset, sides):
    builtin_bot(bob, "bob-0", "greedy-p75")
    for k, builtin in enumerate(("greedy", "random", "greedy-p50", "greedy-p25")):
        builtin_bot(alice, f"alice-{k}", builtin)  # the newest: alice's bots take the first seat
    for seed in range(150):
        table = pick_table(preset, sides, random.Random(seed))
        assert table is not None and len(table) == sides
        people = [o for o in owners(table) if o is not None]
        assert len(people) == len(set(people)), f"rng {seed}: {[v.bot.name for v in table]}"


def test_an_owner_whose_bots_crowd_the_field_still_gets_one_seat(house_bots, alice, settings):
    """With only alice's bots and one house bot able to play, every table is one of alice's against the house
    bot: the next candidate takes the first seat when alice's other bots cannot fill it."""
    Bot.objects.filter(owner__username="kozyr", game="bura").exclude(name="random-bura").update(active=False)
    mine = {builtin_bot(alice, f"alice-{k}").pk for k in range(3)}
    for seed in range(30):
        table = pick_table("bura", 2, random.Random(seed))
        assert table is not None and sum(v.pk in mine for v in table) == 1
    assert pick_table("bura-3p", 3, random.Random(0)) is None  # three sides need three owners (or house bots)


def test_a_filled_ladder_never_has_one_owners_bots_at_a_table(house_bots, alice, settings):
    settings.LADDER_QUEUE_DEPTH = 12
    for k in range(4):
        builtin_bot(alice, f"alice-{k}", ("greedy", "random")[k % 2])
    fill_ladder(random.Random(7))
    tables = Match.objects.filter(kind="ladder").prefetch_related("seats__version__bot__owner")
    assert tables.count() > 12
    house_tables = 0
    for match in tables:
        versions = {s.version_id: s.version.bot for s in match.seats.all()}  # a team's seats share a version
        people = [bot.owner_id for bot in versions.values() if not bot.is_house]
        assert len(people) == len(set(people)), match
        house_tables += len(people) == 0
    assert house_tables  # house bots still meet one another


def test_a_ranked_set_with_a_remote_seat_deals_each_rotation_afresh(house_bots, alice, settings):
    settings.LADDER_QUEUE_DEPTH = 8
    far = connected_remote(alice, "far-ladder")
    fill_ladder(random.Random(3))
    sets: dict = {}
    for match in Match.objects.filter(kind="ladder", preset="bura").prefetch_related("seats"):
        sets.setdefault(match.duplicate_set, []).append(match)
    remote_sets = [ms for ms in sets.values() if any(s.version_id == far.pk for m in ms for s in m.seats.all())]
    sealed_sets = [ms for ms in sets.values() if ms not in remote_sets]
    assert remote_sets and sealed_sets  # the remote version is new: its placement games come first
    for matches in remote_sets:
        assert len(matches) == 2 and len({m.base_seed for m in matches}) == 2
    for matches in sealed_sets:
        assert len(matches) == 2 and len({m.base_seed for m in matches}) == 1
    remote_seeds = [m.base_seed for ms in remote_sets for m in ms]
    every_seed = list(Match.objects.values_list("base_seed", flat=True))
    assert all(every_seed.count(seed) == 1 for seed in remote_seeds)  # no other match deals those cards
