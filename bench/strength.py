"""Built-in bot strength: how often ``greedy`` beats ``random``, per preset, over seeded matches.

For every registered preset whose game has both bots (``arena.bots.bots_for``), match i seats greedy and
random alternately (seat s is greedy when s + i is even; with teams that gives each team one bot), so
every seat plays both bots equally often. The win rate is over every (greedy seat, random seat) pair of
each match: 1 when the greedy seat ranks better, 0.5 for a shared rank. 50% means no better than random.

    .venv/bin/python bench/strength.py --matches 500 --presets bura,burkozel
"""

from __future__ import annotations

import argparse
import time

from selection import chosen_presets

from arena.bots import bots_for, make_bot
from arena.cards import derive_seed
from arena.games import new_match


def play(game: str, rules, seed: int, names: list[str]) -> dict:
    state = new_match(rules, seed)
    bots = [make_bot(game, name, seat, rules, derive_seed(seed, 7, seat)) for seat, name in enumerate(names)]
    while not state.is_over():
        seat = state.to_move()
        state.apply(seat, bots[seat].act(state.observation(seat), state.legal_actions(seat)))
    return state.outcome()


def greedy_score(ranks: list[int], names: list[str]) -> tuple[float, int]:
    """(points, pairs): a greedy seat ranked better than a random seat scores 1, a shared rank 0.5."""
    score, pairs = 0.0, 0
    for g, name_g in enumerate(names):
        for r, name_r in enumerate(names):
            if name_g == "greedy" and name_r == "random":
                pairs += 1
                score += 1.0 if ranks[g] < ranks[r] else 0.5 if ranks[g] == ranks[r] else 0.0
    return score, pairs


def win_rate(game: str, rules, matches: int) -> float:
    total, pairs = 0.0, 0
    for i in range(matches):
        names = ["greedy" if (seat + i) % 2 == 0 else "random" for seat in range(rules.players)]
        outcome = play(game, rules, derive_seed(4242, i), names)
        score, count = greedy_score(outcome["ranks"], names)
        total += score
        pairs += count
    return total / pairs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500, help="seeded matches per preset (default 500)")
    parser.add_argument("--presets", default="", help="comma-separated preset names (default: all)")
    args = parser.parse_args(argv)
    chosen = chosen_presets(parser, args.presets)
    print(f"{'preset':<18} {'matches':>8} {'greedy vs random':>17} {'seconds':>8}")
    for name, game, rules in chosen:
        if not {"greedy", "random"} <= set(bots_for(game)):
            print(f"{name:<18} {'-':>8} {'no greedy/random bots':>17}")
            continue
        start = time.perf_counter()
        rate = win_rate(game, rules, args.matches)
        print(f"{name:<18} {args.matches:>8} {100 * rate:>16.1f}% {time.perf_counter() - start:>8.1f}")


if __name__ == "__main__":
    main()
