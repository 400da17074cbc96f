"""A built-in bot chooses from its seed and what it sees, never from the interpreter's string-hash order: the
worker, `arena play` and the site's "reproduce locally" command run in processes with different
PYTHONHASHSEEDs and must play the same match. (Burraco's greedy bot broke ties among equal-value cards by set
order and played differently in every process.)"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arena.bots import bots_for

PLAY = """
import hashlib, json, sys
from arena.bots import make_bot
from arena.games import new_match, resolve
game, rules = resolve(sys.argv[1])
digest = hashlib.sha256()
for match in range(3):
    state = new_match(rules, 9000 + match)
    bots = [make_bot(game, sys.argv[2], seat, rules, 31 + seat) for seat in range(state.num_seats)]
    for _ in range(4000):
        if state.is_over():
            break
        seat = state.to_move()
        action = bots[seat].act(state.observation(seat), state.legal_actions(seat))
        digest.update(json.dumps(action, sort_keys=True).encode())
        state.apply(seat, action)
print(digest.hexdigest())
"""

# Whole matches of every built-in bot but the search levels: a search-3 match takes a minute or more of CPU in a
# subprocess, and test_search_bots.py::test_a_search_bot_plays_the_same_whatever_the_hash_seed checks them on
# short matches.
CASES = [(preset, name) for preset, game in (("bura", "bura"), ("kozel", "kozel"), ("burraco", "burraco"))
         for name in sorted(bots_for(game)) if not name.startswith("search-")]


@pytest.mark.parametrize(("preset", "bot"), CASES, ids=[f"{p}-{b}" for p, b in CASES])
def test_a_built_in_bot_plays_the_same_whatever_the_hash_seed(preset, bot):
    def digest(hash_seed: str) -> str:
        done = subprocess.run([sys.executable, "-c", PLAY, preset, bot], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed}, timeout=120)
        return done.stdout.strip()

    assert digest("1") == digest("2") == digest("3")
