"""OpenSpiel's ISMCTS against the house bot ``greedy``, per preset, over duplicate deal pairs.

ISMCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``, random rollouts) searches only worlds its seat
cannot tell from the true one: every simulation starts from ``resample_from_infostate`` (arena/env/resample.py),
which deals the cards the seat has not seen afresh, so it never reads a hidden card. Each ISMCTS seat has a bot
of its own (partners share nothing). ``greedy`` plays through the built-in bot's ``act`` on its own
observation, its action applied as the engine action (``KozyrState.apply_engine_action``).

Deal pair i is two matches of one seed (``derive_seed(4243, i)``, as bench/strength.py deals): ISMCTS in the
even seats and greedy in the odd ones, then the other way round. ISMCTS's result in a match is the mean over
its seats against greedy's of 1 (better rank), 1/2 (same) or 0 (``arena.stats.encounter``); a pair is won when
its two results add up to more than 1. Printed per preset: ISMCTS's share of the pairs with a 95% interval,
its mean match result, and its CPU milliseconds per decision (those with one legal action included: the bot
answers them without searching); each pair's result goes to stderr as it is played. Matches are shortened
(``SHORT``: one deal of the Bura family, Kozel to 2 points, Burraco to 300) so that every rollout, which plays
to the end of the match, stays short. ``--opponent`` names another house bot to play against (``random``
shows the search works at all); ``--rollout greedy`` has ``greedy`` play the rollouts instead of random moves.

    .venv/bin/python bench/openspiel_ismcts.py --pairs 16 --simulations 50
    .venv/bin/python bench/openspiel_ismcts.py --pairs 8 --presets bura,kozel --rollout greedy
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from selection import chosen_presets
from strength import interval

from arena.bots import make_bot
from arena.cards import derive_seed
from arena.env.openspiel import register_openspiel, seeded_resampler, short_name
from arena.stats import encounter

BASE_SEED = 4243
# Rule overrides per game: one deal of the Bura family, Kozel to 2 points, Burraco to 300 (see above).
SHORT = {"bura": "match:deals:1", "kozel": "target:2", "burraco": "target:300"}


class GreedyRollouts:
    """An ISMCTS evaluator whose rollout plays ``greedy`` in every seat (of the resampled world the search is
    in, each seat on its own observation), from ``--rollout greedy``; priors are uniform, as in OpenSpiel's
    ``RandomRolloutEvaluator``."""

    def __init__(self, family: str, rules, seed: int):
        self.family, self.rules, self.seed = family, rules, seed

    def evaluate(self, state):
        state = state.clone()
        self.seed += 1
        bots = [make_bot(self.family, "greedy", seat, self.rules, derive_seed(self.seed, seat))
                for seat in range(state.get_game().num_players())]
        while not state.is_terminal():
            seat = state.current_player()
            match = state.match
            state.apply_engine_action(bots[seat].act(match.observation(seat), match.legal_actions(seat)))
        return np.array(state.returns())

    def prior(self, state):
        actions = state.legal_actions()
        return [(action, 1.0 / len(actions)) for action in actions]


def play(game, family: str, rules, i: int, ismcts_parity: int, simulations: int, clock: list[float],
         rollout: str = "random", opponent: str = "greedy") -> list[int]:
    """The ranks of deal pair i's match with ISMCTS in the seats of ``ismcts_parity``."""
    seed = derive_seed(BASE_SEED, i)
    state = game.new_initial_state()
    state.apply_action(i)
    seats = game.num_players()
    bots: list = []
    for seat in range(seats):
        own = derive_seed(seed, 7, seat)
        if seat % 2 == ismcts_parity:
            evaluator: object = GreedyRollouts(family, rules, own)
            if rollout == "random":
                evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(own % 2 ** 32))
            bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations,
                                   random_state=np.random.RandomState((own >> 32) % 2 ** 32))
            bot.set_resampler(seeded_resampler(own))
            bots.append(bot)
        else:
            bots.append(make_bot(family, opponent, seat, rules, own))
    while not state.is_terminal():
        seat = state.current_player()
        bot = bots[seat]
        if seat % 2 == ismcts_parity:
            start = time.process_time()
            action = bot.step(state)
            clock[0] += time.process_time() - start
            clock[1] += 1
            state.apply_action(int(action))
        else:
            match = state.match
            state.apply_engine_action(bot.act(match.observation(seat), match.legal_actions(seat)))
    return state.match.outcome()["ranks"]


def pair_results(preset: str, family: str, pairs: int, simulations: int, clock: list[float],
                 rollout: str = "random", opponent: str = "greedy", first: int = 0) -> tuple[list, list]:
    game = pyspiel.load_game(short_name(preset), {"rules": SHORT[family], "base_seed": BASE_SEED,
                                                  "seeds": first + max(pairs, 1)})
    rules = game.new_initial_state().kozyr.rules
    results, means = [], []
    for i in range(first, first + pairs):
        total = 0.0
        for parity in (0, 1):
            ranks = play(game, family, rules, i, parity, simulations, clock, rollout, opponent)
            mine = [s for s in range(len(ranks)) if s % 2 == parity]
            total += encounter(ranks, mine, [s for s in range(len(ranks)) if s % 2 != parity])
        means.append(total / 2)
        results.append(1.0 if total > 1 else 0.5 if total == 1 else 0.0)
        print(f"  {preset} pair {i + 1}/{first + pairs}: {total / 2:.3f}", file=sys.stderr, flush=True)
    return results, means


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="duplicate deal pairs per preset (default 10)")
    parser.add_argument("--simulations", type=int, default=50, help="ISMCTS simulations per decision (default 50)")
    parser.add_argument("--presets", default="", help="comma-separated presets (default: all)")
    parser.add_argument("--first", type=int, default=0, help="the first deal pair's number (default 0)")
    parser.add_argument("--opponent", default="greedy", help="the house bot ISMCTS plays against (default greedy)")
    parser.add_argument("--rollout", choices=("random", "greedy"), default="random",
                        help="who plays the search's rollouts (default random, OpenSpiel's evaluator)")
    args = parser.parse_args(argv)
    presets = chosen_presets(parser, args.presets)
    register_openspiel()
    print(f"ISMCTS ({args.simulations} simulations, {args.rollout} rollouts) vs {args.opponent}, "
          f"{args.pairs} duplicate deal pairs")
    for preset, family, _rules in presets:
        clock = [0.0, 0]
        results, means = pair_results(preset, family, args.pairs, args.simulations, clock, args.rollout,
                                      args.opponent, args.first)
        share, low, high = interval(results)
        print(f"{preset:<15} rules {SHORT[family] or 'as preset':<11} pairs won {share:6.1%} "
              f"[{low:5.1%}, {high:5.1%}]   mean result {sum(means) / len(means):5.3f}   "
              f"{1000 * clock[0] / max(1, clock[1]):7.1f} ms/decision", flush=True)


if __name__ == "__main__":
    main()
