"""Match tables: scores, wins/draws/losses, Elo differences with a 95% interval, likelihood of superiority.

Results are counted per match and per opposing bot: a bot's result against another bot in a match is
the average, over every pair of their seats, of 1 (better rank), ½ (same rank) or 0, so a bot playing a
whole team counts once, not once per partner. That average adds to the score; above ½ is a win, ½ a
draw, below a loss. With two bots this is the ordinary match result. The Elo and LOS formulas are the
ones chess engine testers use (cutechess-cli, BayesElo's LOS).

A match that ended ``aborted`` (nobody's fault: docs/protocol.md, "Verdicts") is not counted at all.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054
ABORTED = "aborted"  # a match's ended_by and a seat's verdict when nobody is to blame


@dataclass
class BotTally:
    bot: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0  # sum of per-encounter results (1, ½, 0 or an average of them)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0


def encounter(ranks: list[int], mine: list[int], theirs: list[int]) -> float:
    """My result against another bot in one match: the mean over our seat pairs of 1, ½ or 0."""
    total = sum(1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0 for a in mine for b in theirs)
    return total / (len(mine) * len(theirs))


def tally(matches: list[dict[str, Any]]) -> list[BotTally]:
    """Per bot, results against every other bot over all matches, in order of first appearance."""
    tallies: dict[str, BotTally] = {}
    for match in matches:
        if match.get("ended_by") == ABORTED:
            continue
        seats_of: dict[str, list[int]] = {}
        for seat in match["seats"]:
            seats_of.setdefault(seat["bot"], []).append(seat["seat"])
            tallies.setdefault(seat["bot"], BotTally(seat["bot"]))
        for bot, mine in seats_of.items():
            for other, theirs in seats_of.items():
                if other == bot:
                    continue
                result = encounter(match["ranks"], mine, theirs)
                t = tallies[bot]
                t.points += result
                if result > 0.5:
                    t.wins += 1
                elif result == 0.5:
                    t.draws += 1
                else:
                    t.losses += 1
    return list(tallies.values())


def elo_difference(score: float) -> float | None:
    """Elo difference implied by an expected score; None when the score is 0 or 1 (unbounded)."""
    if score <= 0 or score >= 1:
        return None
    return -400 * math.log10(1 / score - 1)


def elo_interval(t: BotTally) -> tuple[float | None, float | None, float | None]:
    """(elo, low, high) at 95%, from the standard error of the per-game score."""
    n = t.games
    if n == 0:
        return None, None, None
    p = t.score
    # Variance of a W/D/L outcome around the mean score (exact when every encounter is 1, ½ or 0).
    variance = max((t.wins * (1 - p) ** 2 + t.draws * (0.5 - p) ** 2 + t.losses * (0 - p) ** 2) / n, 0.0)
    margin = Z95 * math.sqrt(variance / n)
    return elo_difference(p), elo_difference(max(p - margin, 0.0)), elo_difference(min(p + margin, 1.0))


def likelihood_of_superiority(t: BotTally) -> float | None:
    decisive = t.wins + t.losses
    if decisive == 0:
        return None
    return 0.5 * (1 + math.erf((t.wins - t.losses) / math.sqrt(2 * decisive)))


def summary(matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for t in tally(matches):
        elo, low, high = elo_interval(t)
        los = likelihood_of_superiority(t)
        # A bot that met no other bot (it played itself) has no score, rather than a score of 0.
        score = round(t.score, 4) if t.games else None
        rows.append({"bot": t.bot, "score": score, "wins": t.wins, "draws": t.draws, "losses": t.losses,
                     "elo": _round(elo), "elo_low": _round(low), "elo_high": _round(high), "los": _round(los, 4)})
    return rows


def failures_by_bot(matches: list[dict[str, Any]]) -> dict[str, int]:
    """Forfeits per bot (an aborted seat is not a failure)."""
    counts: dict[str, int] = defaultdict(int)
    for match in matches:
        for seat in match["seats"]:
            if seat["verdict"] not in ("ok", ABORTED):
                counts[seat["bot"]] += 1
    return dict(counts)


def aborted_count(matches: list[dict[str, Any]]) -> int:
    return sum(1 for match in matches if match.get("ended_by") == ABORTED)


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)
