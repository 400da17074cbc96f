"""Analysis of a finished match: what each decision of a seat was worth against the best one the search found.

For every decision of the analysed seat the match is re-run to that point, and the search of the built-in
search bots (``arena.bots.search``) is run from the seat's own observation, the observation it decided on:
it samples the cards the seat could not see, so it knows exactly what the seat knew and nothing more (not
the cards that were really hidden). Every candidate action gets the same number of playouts
(``budget``), so each one's expected points are estimated alike, the played action's among them. The
expected loss of a decision is the best candidate's estimate minus the played action's; past the game's
thresholds it is marked an inaccuracy, a mistake or a blunder, with the best candidate as the suggestion.

What it cannot see: the estimates are those of playouts in which every player plays like the greedy bot
(Bura, Burraco) or at random (Kozel) to the end of the deal (Burraco: to the end of the seat's next
turn), so a loss is "against this model of the table", with sampling noise that a larger budget shrinks.
Decisions the search does not weigh (Kozel's widow and discard, Burraco's melds and adds) are counted and
left unmarked. The result is a function of (replay, seat, budget, seed): the same inputs give the same
marks on any machine.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena import replay as replays
from arena.bots.search import sampler_for, search
from arena.cards import derive_seed
from arena.games import load_game, new_match

DEFAULT_BUDGET = 150  # playouts per candidate action: two seeds then agree on 9 blunders in 10 (bench/analysis.py)
MARKS = ("inaccuracy", "mistake", "blunder")
# Expected loss, in the game's own points, from which a decision is marked (inaccuracy, mistake, blunder):
# a Bura deal moves about 4 penalty points, a Kozel hand 1 to 3, a Burraco turn tens of points.
THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "bura": (0.5, 1.0, 2.0),
    "kozel": (0.25, 0.5, 1.0),
    "burraco": (15.0, 40.0, 100.0),
}
POINTS_UNIT = {"bura": "penalty points of the deal (opponents' minus the seat's team's)",
               "kozel": "penalty points of the hand (others' mean minus the seat's)",
               "burraco": "hand points a turn later, cards in hand aside (the seat's team's minus the other's)"}


@dataclass
class Decision:
    index: int  # the action's place in the replay's list of actions
    seat: int
    deal: int
    decision: str
    played: dict
    played_value: float
    suggested: dict
    best_value: float
    loss: float
    mark: str | None
    candidates: list[dict] = field(default_factory=list)  # every candidate's action, visits and mean


def mark_for(loss: float, thresholds: tuple[float, float, float]) -> str | None:
    found = None
    for name, threshold in zip(MARKS, thresholds, strict=True):
        if loss >= threshold:
            found = name
    return found


def canonical(action: Any) -> str:
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def analyse(replay: dict[str, Any], seats: list[int] | None = None, *, budget: int = DEFAULT_BUDGET,
            seed: int = 0) -> dict[str, Any]:
    """The analysis of ``seats`` (default: every seat) of a replay, as plain JSON-ready data.

    The replay is verified first (``arena.replay.rebuild``): a replay that does not re-run is refused."""
    if budget < 1:
        raise ValueError(f"the budget is playouts per candidate action, at least 1, not {budget}")
    replays.rebuild(replay)
    game = replay["game"]
    rules = load_game(game).Rules(**replay["rules"])
    state = new_match(rules, replay["seed"])
    every = list(range(state.num_seats))
    chosen = every if seats is None else sorted(set(seats))
    for seat in chosen:
        if seat not in every:
            raise ValueError(f"seat {seat} does not exist; this match has seats 0 to {state.num_seats - 1}")
    sampler = sampler_for(game, rules)
    thresholds = THRESHOLDS[game]
    decisions: list[Decision] = []
    skipped = dict.fromkeys(chosen, 0)  # decisions the search does not weigh
    forced = dict.fromkeys(chosen, 0)  # decisions with a single candidate
    for index, entry in enumerate(replay["actions"]):
        seat, played = entry["seat"], entry["action"]
        if seat in skipped:
            observation, legal = state.observation(seat), state.legal_actions(seat)
            found = _weigh(sampler, observation, legal, played, budget, derive_seed(seed, index))
            if found is None:
                skipped[seat] += 1
            elif found == "forced":
                forced[seat] += 1
            else:
                decisions.append(_decision(index, seat, observation, played, found, thresholds))
        state.apply(seat, played)
    return {
        "game": game, "preset": replay["preset"], "seed": seed, "budget": budget, "thresholds": thresholds,
        "unit": POINTS_UNIT[game],
        "seats": [_summary(replay, seat, decisions, skipped[seat], forced[seat]) for seat in chosen],
        "decisions": [asdict(d) for d in decisions],
    }


def _weigh(sampler, observation: dict, legal: list[dict] | None, played: dict, budget: int, seed: int):
    """Every candidate's estimate (the played action among them), "forced" or None (not searched)."""
    candidates = sampler.candidates(observation, legal)
    if candidates is None:
        return None
    if canonical(played) not in {canonical(c) for c in candidates}:
        # (a Burraco discard the greedy bot would not have reached, say: weighed beside the others)
        candidates = [*candidates, played]
    if len(candidates) < 2:
        return "forced"
    return search(sampler, observation, candidates, iterations=budget * len(candidates), seed=seed, uniform=True)


def _decision(index: int, seat: int, observation: dict, played: dict, estimates, thresholds) -> Decision:
    mine = canonical(played)
    top = max(estimates, key=lambda e: e.mean)  # ties: the first listed
    own = next(e for e in estimates if canonical(e.action) == mine)
    loss = max(0.0, top.mean - own.mean)
    marked = mark_for(loss, thresholds)
    return Decision(index=index, seat=seat, deal=observation.get("deal", 0), decision=observation["decision"],
                    played=played, played_value=round(own.mean, 3), suggested=top.action,
                    best_value=round(top.mean, 3), loss=round(loss, 3), mark=marked,
                    candidates=[{"action": e.action, "visits": e.visits, "mean": round(e.mean, 3)}
                                for e in estimates])


def _summary(replay: dict, seat: int, decisions: list[Decision], skipped: int, forced: int) -> dict:
    mine = [d for d in decisions if d.seat == seat]
    bot = next((s.get("bot") for s in replay.get("seats", []) if s.get("seat") == seat), None)
    return {"seat": seat, "bot": bot, "analysed": len(mine), "forced": forced, "not_searched": skipped,
            "expected_loss": round(sum(d.loss for d in mine), 3),
            **{name: sum(d.mark == name for d in mine) for name in MARKS}}


# ---- the command line: arena analyse ------------------------------------------------------------------------

def add_command(sub) -> None:
    command = sub.add_parser(
        "analyse", help="mark each decision of a replay's seats that lost expected points, with the best one",
        description="Re-runs the search from each decision's own observation (docs/bots.md, 'Analysis').")
    command.add_argument("file", type=Path, metavar="REPLAY")
    command.add_argument("--seat", type=int, action="append", help="a seat to analyse (repeatable; default all)")
    command.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="N",
                         help=f"playouts per candidate action (default {DEFAULT_BUDGET})")
    command.add_argument("--seed", type=int, default=0, help="the search's seed (default 0)")
    command.add_argument("--all", action="store_true", help="list every analysed decision, not only marked ones")
    command.add_argument("--json", action="store_true", help="print the analysis as JSON")


def run(args: argparse.Namespace) -> int:
    if args.seed < 0:
        raise ValueError("--seed must be 0 or more")
    result = analyse(replays.load(args.file), args.seat, budget=args.budget, seed=args.seed)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for line in table(result, every=args.all):
        print(line)
    return 0


def table(result: dict, *, every: bool = False) -> list[str]:
    lines = [f"{result['preset']}: budget {result['budget']} playouts per candidate, seed {result['seed']}; "
             f"values in {result['unit']}"]
    shown = [d for d in result["decisions"] if every or d["mark"]]
    if shown:
        lines.append(f"{'#':>5} {'seat':>4} {'deal':>4} {'decision':<9} {'played':<24} {'value':>7} "
                     f"{'suggested':<24} {'value':>7} {'loss':>6}  mark")
    for d in shown:
        lines.append(f"{d['index']:>5} {d['seat']:>4} {d['deal']:>4} {d['decision']:<9} "
                     f"{describe(d['played']):<24} {d['played_value']:>7.2f} {describe(d['suggested']):<24} "
                     f"{d['best_value']:>7.2f} {d['loss']:>6.2f}  {d['mark'] or ''}")
    for s in result["seats"]:
        lines.append(f"seat {s['seat']} ({s['bot']}): {s['analysed']} decisions analysed ({s['forced']} forced, "
                     f"{s['not_searched']} not searched), expected loss {s['expected_loss']:.2f}: "
                     f"{s['inaccuracy']} inaccuracies, {s['mistake']} mistakes, {s['blunder']} blunders")
    return lines


def describe(action: dict) -> str:
    """An action in a few characters: its cards (with "down" for a face-down set), a card or its type."""
    kind = action.get("type", "?")
    if "cards" in action:
        down = action.get("face_down")
        return f"{kind} {' '.join(map(str, action['cards']))}" + (" down" if down else "")
    if "card" in action:
        return f"{kind} {action['card']}"
    return str(kind)
