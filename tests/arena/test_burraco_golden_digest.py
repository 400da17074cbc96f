"""Burraco plays exactly as it did before the engine was made faster (commit a184830).

Seeded matches of every preset and a spread of rule options are played by the built-in random bots
(the greedy bot's choices follow the iteration order of sets of strings, so they change with
PYTHONHASHSEED), with probing actions thrown in (most rejected, some played: a random meld, add or
discard), and everything the engine hands out at every step — each seat's observation, the events
each seat and the replay see, the outcome, every rejection's rule code and message — goes through
``repr`` (which tells lists from tuples and keeps key order) into one sha256 digest per match. The
digests were recorded from a184830; any change in behaviour changes one.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from arena.bots import make_bot
from arena.cards import derive_seed
from arena.games.burraco import PRESETS, new_match
from tests.arena.golden import attempt, digest_of

OPTION_SETS = {
    "burraco": [{}, {"target": 300, "duplicate_sets": "forbidden", "stalemate_turns": 4},
                {"target": 1000, "stock_end": "finish_turn", "stalemate_turns": 60}],
    "burraco-2p": [{}, {"target": 300, "stock_end": "finish_turn", "duplicate_sets": "forbidden"},
                   {"stalemate_turns": 2}],
}
SEEDS = (3, 2**64 - 2)
MAX_STEPS = 1500
CARDS = ["AS", "2H", "7D", "KC", "X", "9S", "TH", "3C"]


def probes(state, seat: int, rng: random.Random) -> Iterator[tuple[object, object]]:
    """Actions worth sending now, most of them illegal: (seat, action)."""
    observation = state.observation(seat)
    hand = observation["hand"]
    melds = [m["id"] for m in observation["melds"]]
    some = rng.sample(hand, min(len(hand), rng.choice([1, 2, 3, 3, 4, 5])))
    yield (seat + 1) % state.num_seats, {"type": "draw"}
    yield seat, rng.choice(["draw", None, {"type": "pass"}, {"type": "draw", "card": "AS"}, {"cards": hand}])
    if observation["decision"] == "draw":
        yield seat, rng.choice([{"type": "meld", "cards": some}, {"type": "discard", "card": hand[0]},
                                {"type": "take_pile"}, {"type": "draw"}])
        return
    yield seat, rng.choice([{"type": "draw"}, {"type": "take_pile"}, {"type": "meld", "cards": []},
                            {"type": "meld", "cards": "AS"}, {"type": "meld", "cards": ["ZZ", *some]},
                            {"type": "discard", "card": rng.choice(["ZZ", 3, rng.choice(CARDS)])},
                            {"type": "add", "meld": rng.choice([-1, True, "0", 99]), "cards": some}])
    yield seat, {"type": "meld", "cards": some, **rng.choice([{}, {}, {"wild_as": rng.choice(CARDS)},
                                                            {"wild_as": 5}])}
    if melds:
        yield seat, {"type": "add", "meld": rng.choice(melds), "cards": some[:rng.choice([1, 1, 2])],
                     **rng.choice([{}, {}, {"wild_as": rng.choice(CARDS)}])}
    yield seat, {"type": "discard", "card": rng.choice(hand)}


def transcript(preset: str, options: dict, seed: int, bot_names=("random",)) -> Iterator[str]:
    """Every output of one match, step by step, as text; seats take turns at ``bot_names``."""
    rules = dataclasses.replace(PRESETS[preset], **options)
    state = new_match(rules, seed)
    rng = random.Random(seed)
    seats = range(state.num_seats)
    bots = [make_bot("burraco", bot_names[(seat + seed) % len(bot_names)], seat, rules, derive_seed(seed, seat))
            for seat in seats]
    cursors = {seat: 0 for seat in (None, *seats)}
    for step in range(MAX_STEPS):
        yield repr((state.to_move(), state.is_over(), state.outcome()))
        for seat in seats:
            yield repr((state.observation(seat), state.legal_actions(seat)))
        for seat in cursors:
            fresh = state.events(seat, cursors[seat])
            cursors[seat] += len(fresh)
            yield repr(fresh)
        if step % 17 == 0:
            yield repr([state.events(seat, rng.choice([0, -3, 5])) for seat in cursors])
        if state.is_over():
            yield attempt(state, 0, {"type": "draw"})
            return
        mover = state.to_move()
        if rng.random() < 0.3:
            for probe_seat, action in probes(state, mover, rng):
                yield attempt(state, probe_seat, action)
                if state.to_move() != mover or state.observation(mover)["decision"] != "play":
                    break
            continue
        state.apply(mover, bots[mover].act(state.observation(mover), state.legal_actions(mover)))


def digest(preset: str, options: dict, seed: int) -> str:
    return digest_of(transcript(preset, options, seed))


CASES = [(preset, i, seed) for preset, sets in OPTION_SETS.items() for i in range(len(sets)) for seed in SEEDS]

# Recorded from a184830 with: python -m tests.arena.test_burraco_golden_digest
GOLDEN = {
    "burraco/0/3": "0f212928303d850eee13825028a856ad6ceac2c2f4193f0d16c0d27e9e167a9d",
    "burraco/0/18446744073709551614": "dd7f0ce6d09a5c1230582cce76c38e4b2f286559216c012b754e0e880f094b4d",
    "burraco/1/3": "8171f2725ea9f4dfb0c5787145e29edc5bdcb42e5f16c44a79e4878628646743",
    "burraco/1/18446744073709551614": "d19924689336b0945d598207e0ff7b960b10af35e4e8c24f5e6100b37f773ba1",
    "burraco/2/3": "94016da0e58506290dbac527e3a54ec8366352bf3435e3b10469cc0b8c4eabcb",
    "burraco/2/18446744073709551614": "0d1b49fe444b1be6931a8a160c845487c43ada1d61615940673554b0466de630",
    "burraco-2p/0/3": "ec26c23b5d38ffef5723b9df5bfaaf7a3f25947b9e52d6c4cb56191978d83215",
    "burraco-2p/0/18446744073709551614": "f874c2e3af032d71580567900074e698274b72ba1d2fc9874fe0941595640283",
    "burraco-2p/1/3": "20520824ba19a10991fb74c1b1c27272acc2da0c21e2561117180f0ded657b21",
    "burraco-2p/1/18446744073709551614": "0ce99f261f1f8d1e7e2079552b10c0721033324ebe8089c4bc463ad7862d7748",
    "burraco-2p/2/3": "27474ca53a1497b8307278fe6e3291d23d5f18de18874180d6de2823faed0ae2",
    "burraco-2p/2/18446744073709551614": "ba6ea4f412669ce04a0559ce159e214538a8312c77bbf1498f7c2560b7bf4219",
}


@pytest.mark.parametrize(("preset", "option_set", "seed"), CASES)
def test_matches_play_as_they_did_before(preset: str, option_set: int, seed: int):
    assert digest(preset, OPTION_SETS[preset][option_set], seed) == GOLDEN[f"{preset}/{option_set}/{seed}"]


if __name__ == "__main__":
    for preset, i, seed in CASES:
        print(f'    "{preset}/{i}/{seed}": "{digest(preset, OPTION_SETS[preset][i], seed)}",')
