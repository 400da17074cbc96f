"""Built-in bot strength: how often ``greedy`` beats ``random``, per preset, over seeded matches; and with
``--table``, every built-in bot against every other over duplicate deal pairs.

For every registered preset whose game has both bots (``arena.bots.bots_for``), match i seats greedy and
random alternately (seat s is greedy when s + i is even; with teams that gives each team one bot), so
every seat plays both bots equally often. The win rate is over every (greedy seat, random seat) pair of
each match: 1 when the greedy seat ranks better, 0.5 for a shared rank. 50% means no better than random.

    .venv/bin/python bench/strength.py --matches 500 --presets bura,burkozel

``--table``: for each preset and each pair of bots (A, B), deal pair i is two matches of one seed
(``derive_seed(4243, i)``; ``--seed`` replaces 4243), A in the even seats and B in the odd ones, then the
other way round. A's result in a match is the mean over its seats against B's of 1 (better rank), ½
(same) or 0 (``arena.stats``); a pair is won when A's two results add up to more than 1, drawn at
exactly 1. The cell is A's share of the pairs (a drawn pair half) with a 95% interval (normal
approximation over the pairs' 1, ½ and 0), and each bot's mean CPU milliseconds per decision (every
decision, those with one candidate included) are printed below it. ``--rule key=value`` changes an
option of every chosen preset (e.g. a shorter Burraco target).

    .venv/bin/python bench/strength.py --table --pairs 100 --presets bura --bots greedy,search-1,search-3
"""

from __future__ import annotations

import argparse
import sys
import time

from selection import chosen_presets

from arena.bots import bots_for, make_bot
from arena.cards import derive_seed
from arena.games import new_match
from arena.games.base import RuleOptionError
from arena.games.options import with_options
from arena.stats import Z95, encounter

DEFAULT_TABLE_BOTS = "random,greedy,search-1,search-2,search-3"


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


class Clock:
    """Seconds spent and decisions taken, per bot name, over a whole table."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.decisions: dict[str, int] = {}

    def ms(self, name: str) -> float:
        return 1000 * self.seconds.get(name, 0.0) / max(1, self.decisions.get(name, 0))


def timed_play(game: str, rules, seed: int, names: list[str], clock: Clock) -> list[int]:
    """The ranks of one match, with every bot's thinking time added to ``clock``."""
    state = new_match(rules, seed)
    bots = [make_bot(game, name, seat, rules, derive_seed(seed, 7, seat)) for seat, name in enumerate(names)]
    while not state.is_over():
        seat = state.to_move()
        observation, legal = state.observation(seat), state.legal_actions(seat)
        start = time.process_time()  # this process's CPU time: other jobs on a shared machine do not count
        action = bots[seat].act(observation, legal)
        clock.seconds[names[seat]] = clock.seconds.get(names[seat], 0.0) + time.process_time() - start
        clock.decisions[names[seat]] = clock.decisions.get(names[seat], 0) + 1
        state.apply(seat, action)
    return state.outcome()["ranks"]


def pair_results(game: str, rules, a: str, b: str, pairs: int, clock: Clock, base: int = 4243) -> list[float]:
    """A's result in each duplicate deal pair against B: 1 won, ½ drawn, 0 lost."""
    results = []
    for i in range(pairs):
        seed = derive_seed(base, i)
        total = 0.0
        for a_parity in (0, 1):  # the same deal with the seats swapped
            names = [a if seat % 2 == a_parity else b for seat in range(rules.players)]
            ranks = timed_play(game, rules, seed, names, clock)
            mine = [s for s in range(rules.players) if s % 2 == a_parity]  # (by parity: A may play itself)
            theirs = [s for s in range(rules.players) if s not in mine]
            total += encounter(ranks, mine, theirs)
        results.append(1.0 if total > 1 else 0.5 if total == 1 else 0.0)
        # One line a pair on stderr: a long table on a busy machine can be read (and stopped) part-way.
        print(f"{a} vs {b}: pair {i + 1}/{pairs}: {results[-1]} (so far {sum(results) / len(results):.3f}; "
              f"ms/decision {a} {clock.ms(a):.1f}, {b} {clock.ms(b):.1f})", file=sys.stderr, flush=True)
    return results


def interval(results: list[float]) -> tuple[float, float, float]:
    """The mean and its 95% interval (normal approximation), clipped to [0, 1]."""
    n = len(results)
    mean = sum(results) / n
    spread = (sum((r - mean) ** 2 for r in results) / (n - 1)) ** 0.5 if n > 1 else 0.0
    half = Z95 * spread / n ** 0.5
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def table(parser: argparse.ArgumentParser, chosen, bot_names: str, pairs: int, base: int = 4243) -> None:
    for preset, game, rules in chosen:
        available = bots_for(game)
        names = [n for n in bot_names.split(",") if n]
        unknown = [n for n in names if n not in available]
        if unknown:
            parser.error(f"{preset} has no built-in bot(s) {', '.join(unknown)}; "
                         f"it has: {', '.join(sorted(available))}")
        clock = Clock()
        start = time.perf_counter()
        cells: dict[tuple[str, str], tuple[float, float, float]] = {}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                cells[a, b] = interval(pair_results(game, rules, a, b, pairs, clock, base))
                mean, low, high = cells[a, b]
                cells[b, a] = (1 - mean, 1 - high, 1 - low)
        width = max(14, *map(len, names))
        print(f"\n{preset}: share of {pairs} duplicate deal pairs won by the row's bot (95% interval)")
        print(f"{'':<{width}} " + " ".join(f"{n:>{width}}" for n in names))
        for a in names:
            row = [f"{'—':>{width}}" if a == b else
                   f"{100 * cells[a, b][0]:>3.0f}% ({100 * cells[a, b][1]:.0f}–{100 * cells[a, b][2]:.0f})".rjust(width)
                   for b in names]
            print(f"{a:<{width}} " + " ".join(row))
        print("ms/decision: " + ", ".join(f"{n} {clock.ms(n):.1f}" for n in names)
              + f"; {time.perf_counter() - start:.0f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500, help="seeded matches per preset (default 500)")
    parser.add_argument("--presets", default="", help="comma-separated preset names (default: all)")
    parser.add_argument("--table", action="store_true", help="every bot of --bots against every other")
    parser.add_argument("--bots", default=DEFAULT_TABLE_BOTS, help=f"--table's bots (default {DEFAULT_TABLE_BOTS})")
    parser.add_argument("--pairs", type=int, default=50, help="--table's duplicate deal pairs per cell (default 50)")
    parser.add_argument("--seed", type=int, default=4243, help="--table: the deal pairs' base seed (default 4243)")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="--table: a rule option for every chosen preset (repeatable)")
    args = parser.parse_args(argv)
    chosen = chosen_presets(parser, args.presets)
    if args.pairs < 2:
        parser.error("--pairs must be at least 2 (an interval needs two pairs)")
    if args.table:
        overrides = dict(rule.split("=", 1) for rule in args.rule if "=" in rule)
        if len(overrides) != len(args.rule):
            parser.error("--rule takes key=value")
        try:
            chosen = [(name, game, with_options(rules, overrides)) for name, game, rules in chosen]
        except RuleOptionError as err:
            parser.error(str(err))
        table(parser, chosen, args.bots, args.pairs, args.seed)
        return
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
