"""A fixed amount of engine work, for instruction counts: ``bench/engine.py``'s played-out driver run over a
set number of seeded matches instead of for a set time, so two runs do exactly the same work.

Wall-clock figures on a shared machine wander by tens of percent; ``valgrind --tool=callgrind`` counts of
this script do not. Run it once with ``--matches 0`` to learn the start-up cost and subtract it::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python bench/engine_matches.py \\
        --preset bura --matches 3 [--observe]
"""

from __future__ import annotations

import argparse

from engine import play_match

from arena.games import resolve


def play(preset: str, matches: int, observe: bool) -> tuple[int, int]:
    """(deals, actions) of ``matches`` played-out random-bot matches of ``preset``, seeded as bench/engine.py."""
    game, rules = resolve(preset)
    deals = actions = 0
    for match_no in range(matches):
        played, taken = play_match(game, rules, match_no, play_out=True, observe=observe)
        deals += played
        actions += taken
    return deals, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="bura")
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--observe", action="store_true", help="build the observation before every action")
    args = parser.parse_args()
    deals, actions = play(args.preset, args.matches, args.observe)
    print(f"{args.preset}: {args.matches} matches, {deals} deals, {actions} actions")


if __name__ == "__main__":
    main()
