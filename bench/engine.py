"""Engine speed per preset: complete deals per second and the cost of one action, random bots in-process.

Every registered preset (``arena.games.all_presets``) is played by its game's ``random`` built-in bots
on one core, for ``--seconds`` per figure, in three ways:

* **random** — the way the referee drives a match: observation, legal actions, the bot's choice, apply.
  Random Bura bots claim half the time and most claims are false, so these Bura deals are short.
* **played out** — the same bots, except that at a claim decision they always pass, so every deal is
  played to its last trick (the longest deals, the engine's worst case); measured once with the
  observation built before each action (as the referee does) and once with legal actions and apply
  only. Games without claims play exactly the random deals here. Where a game does not list its legal
  actions (Burraco) the bot needs the observation, so it is always built.

A "deal" is a deal actually played (redeals excluded). Time is this process's CPU time, so the figures
are per core and stay comparable when other work shares the machine.

    .venv/bin/python bench/engine.py --seconds 5 --presets bura,burkozel
"""

from __future__ import annotations

import argparse
import time

from selection import chosen_presets

from arena.bots import make_bot
from arena.cards import derive_seed
from arena.games import new_match

PASS = {"type": "pass"}


class PlayItOut:
    """A bot that never claims: at a claim decision it passes; every other choice is its inner bot's."""

    def __init__(self, bot):
        self.bot = bot

    def act(self, observation: dict | None, legal_actions: list[dict] | None) -> dict:
        # A claim decision lists the claim first; the cheap test first keeps the bench's own cost low.
        if legal_actions and legal_actions[0].get("type") == "claim" and PASS in legal_actions:
            return PASS
        return self.bot.act(observation, legal_actions)


def run_preset(game: str, rules, seconds: float, *, play_out: bool = False,
               observe: bool = True) -> tuple[int, int, float]:
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
        if play_out:
            bots = [PlayItOut(bot) for bot in bots]
        while not state.is_over():
            seat = state.to_move()
            legal = state.legal_actions(seat)
            observation = state.observation(seat) if observe or legal is None else None
            state.apply(seat, bots[seat].act(observation, legal))
            actions += 1
        deals += sum(1 for d in state.outcome()["deals"] if d.get("reason") != "redeal")
    return deals, actions, time.process_time() - start


def rates(measured: tuple[int, int, float]) -> tuple[float, float, float]:
    """(deals/s, µs/action, actions/deal)."""
    deals, actions, elapsed = measured
    return deals / elapsed, 1e6 * elapsed / max(actions, 1), actions / max(deals, 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per preset and figure (default 3)")
    parser.add_argument("--presets", default="", help="comma-separated preset names (default: all)")
    args = parser.parse_args(argv)
    chosen = chosen_presets(parser, args.presets)
    ways = ((False, True), (True, True), (True, False))  # (play_out, observe)
    print(f"{'':<18} | {'random':^31} | {'played out, with observation':^31} | {'played out, legal + apply':^31}")
    print(f"{'preset':<18}" + f" |  {'deals/s':>9} {'µs/action':>10} {'act/deal':>9}" * len(ways))
    for name, game, rules in chosen:
        cells = [rates(run_preset(game, rules, args.seconds, play_out=play_out, observe=observe))
                 for play_out, observe in ways]
        print(f"{name:<18}" + "".join(f" |  {deals:>9.0f} {cost:>10.1f} {length:>9.1f}"
                                      for deals, cost, length in cells))

if __name__ == "__main__":
    main()
