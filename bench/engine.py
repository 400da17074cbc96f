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
are per core and stay comparable when other work shares the machine. Each line says whether the engine ran
compiled (mypyc, ``make`` builds it: arena/compiled.py) or as Python (``KOZYR_ENGINES=python`` forces it).

``--baseline REV`` measures side by side instead: the engines of git revision REV (``git archive`` into a
temporary directory) and of this checkout run the same played-out deals in turn, each figure in a fresh
process, alternating for ``--rounds`` rounds so that load on a shared machine hits both alike; the best
round of each side is reported with the speed-up.

    .venv/bin/python bench/engine.py --seconds 5 --presets bura,burkozel
    .venv/bin/python bench/engine.py --baseline d4eb91d --seconds 2 --rounds 3 --presets bura,kozel
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

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


def play_match(game: str, rules, match_no: int, *, play_out: bool, observe: bool) -> tuple[int, int]:
    """(deals, actions) of the bench's ``match_no``-th seeded random-bot match."""
    seed = derive_seed(20240601, match_no)
    state = new_match(rules, seed)
    bots = [make_bot(game, "random", seat, rules, derive_seed(seed, 7, seat)) for seat in range(state.num_seats)]
    if play_out:
        bots = [PlayItOut(bot) for bot in bots]
    actions = 0
    while not state.is_over():
        seat = state.to_move()
        legal = state.legal_actions(seat)
        observation = state.observation(seat) if observe or legal is None else None
        state.apply(seat, bots[seat].act(observation, legal))
        actions += 1
    return sum(1 for d in state.outcome()["deals"] if d.get("reason") != "redeal"), actions


def run_preset(game: str, rules, seconds: float, *, play_out: bool = False,
               observe: bool = True) -> tuple[int, int, float]:
    """(deals, actions, elapsed seconds) for random-bot matches played back to back for ``seconds``."""
    deals = actions = 0
    match_no = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        played, taken = play_match(game, rules, match_no, play_out=play_out, observe=observe)
        match_no += 1
        deals += played
        actions += taken
    return deals, actions, time.process_time() - start


def rates(measured: tuple[int, int, float]) -> tuple[float, float, float]:
    """(deals/s, µs/action, actions/deal)."""
    deals, actions, elapsed = measured
    return deals / elapsed, 1e6 * elapsed / max(actions, 1), actions / max(deals, 1)


REPO = Path(__file__).resolve().parent.parent
SIDE_BY_SIDE = (("played out, with observation", True), ("played out, legal + apply", False))


def extract(revision: str, into: str) -> str:
    """The ``arena`` package of a git revision, unpacked under ``into``; returns the directory to import from."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", revision, "arena"],
                             check=True, capture_output=True).stdout
    path = Path(into) / "tree"
    path.mkdir()
    with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
        tar.extractall(path, filter="data")
    return str(path)


def engine_build(game: str) -> str:
    """How this process runs ``game``'s engine: "compiled" (mypyc, see arena/compiled.py) or "python"."""
    try:
        from arena import compiled
    except ImportError:  # a revision from before the compiled engines
        return "python"
    return "compiled" if compiled.is_compiled(f"arena.games.{game}.state") else "python"


BUILDS: dict[str, str] = {}  # tree → how its worker ran the engine


def measure_in(tree: str, preset: str, seconds: float, observe: bool) -> tuple[int, int, float]:
    """One played-out figure measured in a fresh process importing ``arena`` from ``tree``."""
    env = {**os.environ, "PYTHONPATH": tree}
    out = subprocess.run([sys.executable, __file__, "--worker", preset, "--seconds", str(seconds)]
                         + (["--observe"] if observe else []), env=env, check=True, capture_output=True, text=True)
    result = json.loads(out.stdout)
    if Path(result["arena"]).resolve() != (Path(tree) / "arena").resolve():
        raise SystemExit(f"the worker imported arena from {result['arena']}, not from {tree}")
    BUILDS[tree] = result["engines"]
    return result["deals"], result["actions"], result["elapsed"]


def side_by_side(revision: str, chosen, seconds: float, rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="engine-baseline-") as tmp:
        trees = {"baseline": extract(revision, tmp), "now": str(REPO)}
        print(f"played-out deals/s, best of {rounds} alternated rounds of {seconds:g} s; "
              f"baseline = {revision}, now = this checkout")
        print(f"{'preset':<16} {'figure':<30} {'baseline':>9} {'now':>9} {'speed-up':>9}")
        for name, _game, _rules in chosen:
            for label, observe in SIDE_BY_SIDE:
                best = {side: 0.0 for side in trees}
                for _ in range(rounds):
                    for side, tree in trees.items():
                        best[side] = max(best[side], rates(measure_in(tree, name, seconds, observe))[0])
                print(f"{name:<16} {label:<30} {best['baseline']:>9.0f} {best['now']:>9.0f} "
                      f"{best['now'] / best['baseline']:>8.2f}x  (engines: {BUILDS[trees['baseline']]} / "
                      f"{BUILDS[trees['now']]})", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per preset and figure (default 3)")
    parser.add_argument("--presets", default="", help="comma-separated preset names (default: all)")
    parser.add_argument("--baseline", metavar="REV", help="compare with the engines of this git revision")
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds per figure with --baseline")
    parser.add_argument("--worker", metavar="PRESET", help=argparse.SUPPRESS)
    parser.add_argument("--observe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:  # one figure for --baseline, printed as JSON
        import arena
        from arena.games import resolve

        game, rules = resolve(args.worker)
        deals, actions, elapsed = run_preset(game, rules, args.seconds, play_out=True, observe=args.observe)
        print(json.dumps({"deals": deals, "actions": actions, "elapsed": elapsed,
                          "arena": str(Path(arena.__file__).parent), "engines": engine_build(game)}))
        return
    chosen = chosen_presets(parser, args.presets)
    if args.baseline:
        side_by_side(args.baseline, chosen, args.seconds, args.rounds)
        return
    ways = ((False, True), (True, True), (True, False))  # (play_out, observe)
    print(f"{'':<18} | {'random':^31} | {'played out, with observation':^31} | {'played out, legal + apply':^31}")
    print(f"{'preset':<18}" + f" |  {'deals/s':>9} {'µs/action':>10} {'act/deal':>9}" * len(ways))
    for name, game, rules in chosen:
        cells = [rates(run_preset(game, rules, args.seconds, play_out=play_out, observe=observe))
                 for play_out, observe in ways]
        print(f"{name:<18}" + "".join(f" |  {deals:>9.0f} {cost:>10.1f} {length:>9.1f}"
                                      for deals, cost, length in cells) + f"  ({engine_build(game)})")

if __name__ == "__main__":
    main()
