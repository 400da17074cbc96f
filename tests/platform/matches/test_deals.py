"""Which deal a match plays (docs/matches.md, "Remote seats and duplicate deals"): every seed comes from one
CSPRNG function and never from an id; a duplicate set of sealed seats replays one deal, and a set with an
open seat (a remote bot, a person) deals every rotation afresh; an open seat's match played again gets a
fresh deal; the side a person sits on says nothing of the deal."""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from arena.cards import derive_seed
from arena.games.seating import layout
from bots.actions import do_create_bot, house_version, make_current
from bots.models import BotVersion
from bots.remote import do_make_remote_version
from matches import actions
from matches.models import Match

PLATFORM = Path(__file__).resolve().parents[3] / "platform"
SEED_FUNCTIONS = {"new_base_seed", "seed_to_play_again"}  # the only ways a seed reaches a match row
WRITES = {"Match", "create_match", "create", "update", "get_or_create", "update_or_create"}  # not filter()


def called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def remote_version(owner, name: str = "far-away", game: str = "bura") -> BotVersion:
    bot = do_create_bot(owner, game=game, name=name)
    version, _ = do_make_remote_version(bot)
    version.status = BotVersion.Status.READY
    version.save(update_fields=["status"])
    make_current(version)
    return version


def test_the_one_seed_function_draws_63_bits_from_secrets(monkeypatch):
    asked = []
    monkeypatch.setattr(actions.secrets, "randbits", lambda bits: asked.append(bits) or 12345)
    assert actions.new_base_seed() == 12345 and asked == [63]


def test_every_seed_written_anywhere_in_the_platform_comes_from_the_one_function():
    """A source scan: outside matches.actions (which draws and hands on), a match's base seed is set only from
    new_base_seed() or seed_to_play_again() — never from an id, a counter or another match's fields."""
    found = []
    for path in PLATFORM.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        values = [k.value for node in ast.walk(tree) if isinstance(node, ast.Call) and called_name(node) in WRITES
                  for k in node.keywords if k.arg == "base_seed"]
        values += [node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                   for target in node.targets if isinstance(target, ast.Attribute) and target.attr == "base_seed"]
        for value in values:
            found.append(path.name)
            if path.relative_to(PLATFORM).as_posix() == "matches/actions.py" and ast.unparse(value) in (
                    "new_base_seed() if base_seed is None else base_seed", "seed"):
                continue  # create_match's own draw, and create_duplicate_set's seeds from deal_seeds
            called = called_name(value) if isinstance(value, ast.Call) else None
            assert called in SEED_FUNCTIONS, f"{path}:{value.lineno}: base_seed={ast.unparse(value)}"
    assert {"actions.py", "recording.py", "versiontests.py"} <= set(found)  # the scan sees the real writers


def test_seeds_are_not_a_function_of_the_match_id(house_bots):
    greedy, rand = house_version("bura", "greedy"), house_version("bura", "random")
    made = [actions.create_match(kind="ladder", preset="bura", seat_versions=[greedy, rand]) for _ in range(40)]
    made += [m for _ in range(20) for m in actions.create_duplicate_set(kind="ladder", preset="bura",
                                                                         versions=[greedy, rand])]
    pairs = sorted((m.pk, m.base_seed) for m in made)
    seeds = [seed for _, seed in pairs]
    assert all(0 <= seed < 2**63 for seed in seeds)
    assert len(set(seeds)) == 40 + 20  # a fresh deal per match and per set (rotations share theirs)
    assert max(seed.bit_length() for seed in seeds) >= 60  # spread over the whole range, not small numbers
    assert not any(seed in (pk, derive_seed(pk, 0), derive_seed(pk)) for pk, seed in pairs)
    assert len({seed - pk for pk, seed in pairs}) > 50 and len({seed ^ pk for pk, seed in pairs}) > 50
    assert seeds != sorted(seeds) and seeds != sorted(seeds, reverse=True)  # not increasing with the id


def test_a_set_of_sealed_seats_replays_one_deal_with_the_seats_turned(house_bots):
    greedy, rand, p50 = (house_version("bura", name) for name in ("greedy", "random", "greedy-p50"))
    matches = actions.create_duplicate_set(kind="ladder", preset="bura-3p", versions=[greedy, rand, p50])
    assert len(matches) == 3 and len({m.base_seed for m in matches}) == 1


@pytest.mark.parametrize("preset", ["bura", "bura-3p", "kozel"])
def test_a_set_with_a_remote_seat_deals_every_rotation_afresh(house_bots, alice, preset):
    game = preset.split("-")[0]
    far = remote_version(alice, game=game)
    _, teams = layout(preset, {})
    others = [house_version(game, name) for name in ("greedy", "random")][: len(teams) - 1]
    matches = actions.create_duplicate_set(kind="challenge", preset=preset, versions=[far, *others])
    assert len(matches) == len(teams)  # still a set for the bookkeeping: every rotation, one set id
    assert len({m.duplicate_set for m in matches}) == 1
    assert len({m.base_seed for m in matches}) == len(matches)  # but no cards shared between rotations


def test_no_match_with_a_remote_seat_shares_its_deal_with_any_other_match(house_bots, alice, bob):
    far, other_far = remote_version(alice), remote_version(bob, "far-too")
    greedy, rand = house_version("bura", "greedy"), house_version("bura", "random")
    for versions in ([far, greedy], [far, rand], [far, other_far], [other_far, greedy], [greedy, rand]):
        for _ in range(3):
            actions.create_duplicate_set(kind="challenge", preset="bura", versions=versions)
    remote_ids = {far.pk, other_far.pk}
    by_seed: dict[int, list[Match]] = {}
    for match in Match.objects.prefetch_related("seats"):
        by_seed.setdefault(match.base_seed, []).append(match)
    for seed, matches in by_seed.items():
        if any(s.version_id in remote_ids for m in matches for s in m.seats.all()):
            assert len(matches) == 1, f"seed {seed} is dealt to {[m.pk for m in matches]}"
        else:
            assert len(matches) == 2  # a sealed set's two rotations


def test_a_match_with_a_remote_seat_played_again_after_its_worker_died_gets_a_fresh_deal(house_bots, alice):
    far = remote_version(alice)
    sealed = actions.create_match(kind="ladder", preset="bura", seat_versions=[
        house_version("bura", "greedy"), house_version("bura", "random")])
    remote = actions.create_match(kind="challenge", preset="bura", seat_versions=[far, house_version("bura", "greedy")])
    before = {m.pk: m.base_seed for m in (sealed, remote)}
    for match in (sealed, remote):
        assert actions.claim(match.pk, "dead-worker")
    Match.objects.filter(pk__in=before).update(lease_expires=timezone.now() - timedelta(seconds=1))
    assert actions.recover_expired_leases() == 2
    after = dict(Match.objects.filter(pk__in=before).values_list("pk", "base_seed"))
    assert after[sealed.pk] == before[sealed.pk]  # its partner rotation plays this deal: it stays
    assert after[remote.pk] != before[remote.pk]  # the remote bot saw its hand and the play of the lost attempt
    assert Match.objects.get(pk=remote.pk).status == "queued"


def test_seed_to_play_again_keeps_a_sealed_deal_and_replaces_an_open_one(house_bots, alice):
    far = remote_version(alice)
    sealed = actions.create_match(kind="tournament", preset="bura", seat_versions=[
        house_version("bura", "greedy"), house_version("bura", "random")])
    remote = actions.create_match(kind="tournament", preset="bura", seat_versions=[
        house_version("bura", "greedy"), far])
    assert actions.seed_to_play_again(sealed) == sealed.base_seed
    assert actions.seed_to_play_again(remote) != remote.base_seed


def test_the_side_a_person_sits_on_says_nothing_of_the_deal(house_bots, make_user, settings):
    from bots.models import Bot
    from matches.casual import person_seats, start_casual

    settings.CASUAL_PER_HOUR = 1000
    ann = make_user("ann")
    greedy = Bot.objects.get(name="greedy-bura")
    agree = []
    for _ in range(40):
        match = start_casual(ann, greedy, "bura")
        (mine,) = person_seats(match)
        agree.append(mine.seat == match.base_seed % 2)
        Match.objects.filter(pk=match.pk).update(status=Match.Status.CANCELLED)  # one table at a time
    assert not all(agree) and any(agree)  # drawn apart: about half and half (all alike: 1 run in 2**39)
