"""Engine speed per preset: complete deals per second and the cost of one action, random bots in-process.

Every registered preset (``arena.games.all_presets``) is played by its game's ``random`` built-in bots
the way the referee drives a match — observation, legal actions, the bot's choice, apply — on one core,
for ``--seconds`` each. A "deal" is a deal actually played (redeals excluded). Time is this process's
CPU time, so the figures are per core and stay comparable when other work shares the machine.

    .venv/bin/python bench/engine.py --seconds 5 --presets bura,burkozel
"""

from __future__ import annotations

import argparse
import time

from selection import chosen_presets

from arena.bots import make_bot
from arena.cards import derive_seed
from arena.games import new_match


def run_preset(game: str, rules, seconds: float) -> tuple[int, int, float]:
    """(deals, actions, elapsed seconds) for random-bot matches played back to back for ``seconds``."""
    deals = actions = 0
    match_no = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        seed = derive_seed(20240601, match_no)
        match_no += 1
        state = new_match(rules, seed)
        bots = [make_bot(game, "random", seat, rules, derive_seed(seed, 7, seat)) for seat in range(state.num_seats)]
        while not state.is_over():
            seat = state.to_move()
            action = bots[seat].act(state.observation(seat), state.legal_actions(seat))
            state.apply(seat, action)
            actions += 1
        deals += sum(1 for d in state.outcome()["deals"] if d.get("reason") != "redeal")
    return deals, actions, time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per preset (default 3)")
    parser.add_argument("--presets", default="", help="comma-separated preset names (default: all)")
    args = parser.parse_args(argv)
    chosen = chosen_presets(parser, args.presets)
    print(f"{'preset':<18} {'deals/s':>10} {'actions/s':>11} {'µs/action':>10} {'actions/deal':>13}")
    for name, game, rules in chosen:
        deals, actions, elapsed = run_preset(game, rules, args.seconds)
        print(f"{name:<18} {deals / elapsed:>10.0f} {actions / elapsed:>11.0f} {1e6 * elapsed / max(actions, 1):>10.1f}"
              f" {actions / max(deals, 1):>13.1f}")


if __name__ == "__main__":
    main()
