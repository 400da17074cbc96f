"""Par: what the strongest search bot scores in one seat of a recorded match, on the same deals.

The match is played again from the replay's seed (so every deal is dealt alike) with the strongest built-in
search level (``arena.bots.search.LEVELS``) in the seat. The other seats keep the bots that played them when
those are built-in bots: a house opponent is the same bot as in the match, on a seed of par's own (its play
could not follow the match's anyway once the search plays differently). An uploaded bot (or a person) cannot
be re-run here, and its recorded actions stop fitting the moment the search plays differently, so its seat
is played by the built-in ``greedy`` bot instead, and the result says so (``exact`` is False): that par is
"against greedy in those seats", not against the match's own opponents. Like the analysis, a pure function
of (replay, seat, iterations, seed).
"""

from __future__ import annotations

from typing import Any

from arena.bots import make_bot
from arena.bots.search import FALLBACK, LEVELS, SAMPLERS, SearchBot, sampler_for
from arena.cards import derive_seed
from arena.games import load_game, new_match
from arena.referee import MAX_DECISIONS

STAND_IN = "greedy"  # plays a seat whose bot cannot be re-run here


def strongest(game: str) -> str:
    """The search level with the largest budget: the house's strongest bot of ``game``."""
    if game not in SAMPLERS:
        raise ValueError(f"no search bot for game {game!r}; games with one: {', '.join(SAMPLERS)}")
    return max(LEVELS[game], key=LEVELS[game].__getitem__)


def par(replay: dict[str, Any], seat: int, builtins: list[str | None], *, iterations: int | None = None,
        seed: int = 0) -> dict[str, Any]:
    """The strongest search bot's points in ``seat`` on the replay's deals. ``builtins[s]`` names the built-in
    bot that played seat ``s`` (None: an uploaded bot or a person, played by ``greedy`` here); ``iterations``
    defaults to the strongest level's own budget."""
    game = replay["game"]
    rules = load_game(game).Rules(**replay["rules"])
    state = new_match(rules, replay["seed"])
    if not 0 <= seat < state.num_seats:
        raise ValueError(f"seat {seat} does not exist; this match has seats 0 to {state.num_seats - 1}")
    level = strongest(game)
    budget = LEVELS[game][level] if iterations is None else iterations
    if budget < 1:
        raise ValueError(f"par's search needs at least 1 iteration a decision, not {budget}")
    players: list[Any] = []
    opponents: list[str | None] = []
    for s in range(state.num_seats):
        if s == seat:
            players.append(SearchBot(sampler_for(game, rules), s, derive_seed(seed, s), iterations=budget,
                                     fallback=make_bot(game, STAND_IN, s, rules, derive_seed(seed, s, FALLBACK))))
            opponents.append(None)
            continue
        name = builtins[s] if s < len(builtins) and builtins[s] else None
        players.append(make_bot(game, name or STAND_IN, s, rules, derive_seed(seed, s)))
        opponents.append(name or STAND_IN)
    decisions = 0
    while not state.is_over() and decisions < MAX_DECISIONS:
        mover = state.to_move()
        state.apply(mover, players[mover].act(state.observation(mover), state.legal_actions(mover)))
        decisions += 1
    outcome = state.outcome()
    return {"seat": seat, "bot": level, "iterations": budget, "seed": seed, "points": outcome["points"][seat],
            "points_kind": outcome.get("points_kind", "score"), "rank": outcome["ranks"][seat],
            "opponents": opponents, "stand_ins": [s for s, name in enumerate(builtins)
                                                  if s != seat and not name],
            "exact": all(name for s, name in enumerate(builtins) if s != seat), "decisions": decisions}
