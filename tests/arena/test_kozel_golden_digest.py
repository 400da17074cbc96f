"""Kozel plays exactly as it did before the engine was made faster (commit a184830).

Seeded matches of every preset and a spread of rule options are played by the built-in bots, with
rejected actions thrown in, and everything the engine hands out at every step — each seat's
observation and legal actions, the events each seat and the replay see, the outcome, every rejection's
rule code and message — goes through ``repr`` (which tells lists from tuples and keeps key order) into
one sha256 digest per match. The digests were recorded from a184830; any change in behaviour changes one.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from arena.bots import make_bot
from arena.cards import derive_seed
from arena.games.kozel import PRESETS, new_match
from tests.arena.golden import attempt, digest_of

OPTION_SETS = {
    "kozel": [{}, {"target": 3}, {"tie_doubles": False, "target": 5}, {"deck": "no-sixes"}],
    "kozel-3p": [{}, {"target": 4}, {"deck": "no-sevens", "tie_doubles": False}],
}
SEEDS = (1, 2**64 - 1)
MAX_STEPS = 600


def probes(state, seat: int, rng: random.Random) -> Iterator[tuple[int | object, object]]:
    """Actions worth sending now, most of them illegal: (seat, action)."""
    observation = state.observation(seat)
    hand = observation["hand"]
    others = [c for c in state._table.deck if c not in hand]
    yield (seat + 1) % state.num_seats, {"type": "play", "card": hand[0]}
    yield rng.choice([str(seat), True, None]), {"type": "play", "card": hand[0]}
    yield seat, rng.choice(["play", None, [], {"type": None}, {"card": hand[0]}])
    yield seat, rng.choice([{"type": "play"}, {"type": "play", "card": hand[0], "x": 1},
                            {"type": "widow", "take": rng.choice([True, 1, "yes"])},
                            {"type": "discard", "cards": rng.choice([hand[:2], hand[:1], hand[:1] * 2, hand[0],
                                                                     [hand[0], "ZZ"], [others[0], hand[0]]])}])
    yield seat, {"type": "play", "card": rng.choice(["ZZ", 5, "as", "X", "", others[0], "AS" * 20])}
    if observation["decision"] == "widow":
        yield seat, {"type": "widow", "take": rng.choice([1, "yes", None, []])}
    if observation["decision"] == "discard":
        yield seat, {"type": "discard", "cards": rng.choice([hand[:3], hand[:1] * 2, (hand[0], hand[1]), None,
                                                             [hand[0], others[0]], [hand[0], 7]])}
    yield seat, {"type": "play", "card": rng.choice(hand)}  # often a must-follow-suit; sometimes played


def transcript(preset: str, options: dict, seed: int, bot_names=("random", "greedy")) -> Iterator[str]:
    """Every output of one match, step by step, as text; seats take turns at ``bot_names``."""
    rules = dataclasses.replace(PRESETS[preset], **options)
    state = new_match(rules, seed)
    rng = random.Random(seed)
    seats = range(state.num_seats)
    bots = [make_bot("kozel", bot_names[(seat + seed) % len(bot_names)], seat, rules, derive_seed(seed, seat))
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
            yield attempt(state, 0, {"type": "play", "card": "AS"})
            return
        mover = state.to_move()
        if rng.random() < 0.3:
            for probe_seat, action in probes(state, mover, rng):
                yield attempt(state, probe_seat, action)
                if state.to_move() != mover:
                    break
            continue
        state.apply(mover, bots[mover].act(state.observation(mover), state.legal_actions(mover)))


def digest(preset: str, options: dict, seed: int) -> str:
    return digest_of(transcript(preset, options, seed))


CASES = [(preset, i, seed) for preset, sets in OPTION_SETS.items() for i in range(len(sets)) for seed in SEEDS]

# Recorded from a184830 with: python -m tests.arena.test_kozel_golden_digest
GOLDEN = {
    "kozel/0/1": "f4254afbce9b8a91980a9d02c9c3dd08066d86e0cba0e9fa374ae90c00319e78",
    "kozel/0/18446744073709551615": "a2b6437b85723d8593e504be3a85e2c11bdf5cd475330f054c95fd26d75aaa4f",
    "kozel/1/1": "8f45f87d4c7192d2ce0afb33d6ded92ce0683729d5369f75b7cdafc33a589192",
    "kozel/1/18446744073709551615": "5f696a8057213a1e7e9445f8b17b432218fd63c5d7a13c5854bb8918f73cac2a",
    "kozel/2/1": "014ba6c9d1a933b827f318c72c0d1d06339213451cc1cda6c8642cc49f882af2",
    "kozel/2/18446744073709551615": "1e592740e985c7d19f493c9cc1666c2f65aec2b76752c90dd5f58a5a27a58d1a",
    "kozel/3/1": "d742b4a7ae914fe526f2e2e9af7dc8d3eb65e1c2aad567ef03716d1748b63144",
    "kozel/3/18446744073709551615": "992e45a8779b1fd6438e224a0a74ad87fd61b318d78b4807a821414213e947c6",
    "kozel-3p/0/1": "b434647375b78819e7716e44cbbd0d609499728f122cccb4d2b13fc2e17747b6",
    "kozel-3p/0/18446744073709551615": "b4298b99a7b80febdd2cbe11212cfc7da3272d3613e48ef38e46d8cee6bfd2c0",
    "kozel-3p/1/1": "48d8ee3eef37574294d49062d43ab6f899ad17c569b7d2319c42df72701fbe2c",
    "kozel-3p/1/18446744073709551615": "9a84b0b310e830ab7f509e3542a62f75e574c5863bf0b2c8440fe70fdccbef94",
    "kozel-3p/2/1": "e13a41e1c8f8f8d5889d41ffc7e557d6c97cb7a5a04f5fc9ad43c5cdf4b1bc70",
    "kozel-3p/2/18446744073709551615": "5562d8b83a3f5930948bc258065cfb3bd63e965cbea8d56626ce170df2cc8113",
}


@pytest.mark.parametrize(("preset", "option_set", "seed"), CASES)
def test_matches_play_as_they_did_before(preset: str, option_set: int, seed: int):
    assert digest(preset, OPTION_SETS[preset][option_set], seed) == GOLDEN[f"{preset}/{option_set}/{seed}"]


if __name__ == "__main__":
    for preset, i, seed in CASES:
        print(f'    "{preset}/{i}/{seed}": "{digest(preset, OPTION_SETS[preset][i], seed)}",')
