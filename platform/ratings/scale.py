"""The Elo scale both rating layers are shown on, and the two formulas every chess rating list uses.

A rating difference D means the odds of winning are 10^(D/400) : 1 (Elo's logistic curve: 400 points
= 10:1). Internally the fit works in natural-log strengths θ, where the odds are e^(θa−θb); one nat is
400/ln 10 ≈ 173.7 Elo. The scale is anchored so that the mean of the rated versions of a preset is 1500.
"""

from __future__ import annotations

import math

BASE = 1500.0  # the mean rating of a preset's rated versions
ELO_PER_NAT = 400.0 / math.log(10.0)
Z95 = 1.959963984540054  # two-sided 95% normal quantile


def expected_score(difference: float) -> float:
    """Elo's expected score of the player rated ``difference`` points above the other."""
    return 1.0 / (1.0 + 10.0 ** (-difference / 400.0))


def elo_difference(score: float) -> float | None:
    """The rating difference an expected score implies; None at 0 or 1, where it is unbounded."""
    if not 0.0 < score < 1.0:
        return None
    return -400.0 * math.log10(1.0 / score - 1.0)


def los_from_results(wins: float, losses: float) -> float | None:
    """Likelihood of superiority from a head-to-head record: ½(1 + erf((W − L)/√(2(W + L)))).

    Draws carry no information on which player is better and do not enter. None without a decisive game.
    """
    decisive = wins + losses
    if decisive <= 0:
        return None
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * decisive)))


def los_from_ratings(difference: float, sd: float) -> float:
    """Likelihood of superiority from a fitted rating difference and its standard error: Φ(D/sd)."""
    if sd <= 0:
        return 0.5 if difference == 0 else float(difference > 0)
    return 0.5 * (1.0 + math.erf(difference / (sd * math.sqrt(2.0))))
