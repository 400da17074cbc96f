"""Sequential probability ratio test for version tests, as fishtest runs it on game pairs.

A version test plays duplicate pairs: the same deals twice with the seats swapped. Each pair scores the new
version 0, 0.5, 1, 1.5 or 2 points, so the results are the *pentanomial* frequencies [LL, LD, WL+DD, WD, WW]
(the trinomial [L, D, W] of single games is supported too). The statistic is the generalized log-likelihood
ratio (GLLR) of Michel Van den Bergh, the one fishtest uses (fishtest `server/fishtest/stats/LLRcalc.py`):

    LLR = N · Σ_i p̂_i · log(p1_i / p0_i)

where p̂ is the observed distribution over the outcomes (scores a_i = i/(k-1)), N the number of pairs (or
games), and p0, p1 the maximum-likelihood distributions that satisfy H0 and H1:

* logistic Elo: H: E[a] = s with s = 1 / (1 + 10^(-elo/400)); the constrained MLE is
  p_i = p̂_i / (1 + λ(a_i - s)) with λ solving Σ p̂_i (a_i - s) / (1 + λ(a_i - s)) = 0
  ("support_MLE_multinomial.pdf", Proposition 1.1);
* normalized Elo (fishtest's default): H: (μ - 1/2)/σ = t, with t = nelo / (800/ln 10) for games and
  t·√2 for pairs, σ the standard deviation of the per-pair (or per-game) score; the constrained MLE is found
  by the fixed-point iteration of "normalized_elo_practical.pdf", section 4.1.

Empty outcome cells are given a count of 1e-3 first, as fishtest does. The test stops when
LLR < A = log(β/(1-α)) (accept H0: the new version is not elo1 better) or LLR > B = log((1-β)/α) (accept H1);
otherwise it continues. α bounds the false positives at elo0, β the false negatives at elo1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scipy.optimize import brentq

LOGISTIC, NORMALIZED = "logistic", "normalized"
MODELS = (LOGISTIC, NORMALIZED)
H0, H1, CONTINUE = "H0", "H1", "continue"

#: Defaults for a version test: the new version must show 10 normalized Elo over the base, 5% error each way.
ELO0, ELO1, ALPHA, BETA = 0.0, 10.0, 0.05, 0.05

NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value (≈ 347.44)
_EMPTY_CELL = 1e-3


@dataclass(frozen=True)
class SprtState:
    llr: float
    lower: float  # A: below it, accept H0
    upper: float  # B: above it, accept H1
    decision: str  # H0, H1 or continue
    samples: int  # pairs (pentanomial) or games (trinomial)


def bounds(alpha: float = ALPHA, beta: float = BETA) -> tuple[float, float]:
    """Wald's bounds (A, B) = (log(β/(1-α)), log((1-β)/α))."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0 < value < 0.5:
            raise ValueError(f"{name} must be between 0 and 0.5, got {value}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def pentanomial(pairs: Iterable[tuple[float, float]]) -> list[int]:
    """Pentanomial counts from the new version's two game scores of each duplicate pair."""
    counts = [0] * 5
    for first, second in pairs:
        total = 2 * (first + second)
        if total not in (0, 1, 2, 3, 4):
            raise ValueError(f"a pair's game scores must each be 0, 0.5 or 1, got ({first}, {second})")
        counts[int(total)] += 1
    return counts


def llr(results: Sequence[int], elo0: float = ELO0, elo1: float = ELO1, model: str = NORMALIZED) -> float:
    """The GLLR of H1 (elo1) against H0 (elo0) for trinomial [L, D, W] or pentanomial results."""
    if model not in MODELS:
        raise ValueError(f"unknown Elo model {model!r}; expected {' or '.join(MODELS)}")
    if len(results) not in (3, 5):
        raise ValueError(f"results must be trinomial (3 counts) or pentanomial (5 counts), got {len(results)}")
    if any(c < 0 for c in results):
        raise ValueError(f"result counts cannot be negative: {list(results)}")
    if elo0 >= elo1:
        raise ValueError(f"elo0 must be below elo1, got elo0={elo0}, elo1={elo1}")
    n = sum(results)
    if n == 0:
        return 0.0
    counts = [c if c > 0 else _EMPTY_CELL for c in results]
    total = sum(counts)
    observed = [c / total for c in counts]
    scores = [i / (len(counts) - 1) for i in range(len(counts))]
    if model == LOGISTIC:
        p0, p1 = (_mle_mean(scores, observed, _logistic_score(e)) for e in (elo0, elo1))
    else:
        per_sample = math.sqrt(2) if len(results) == 5 else 1.0
        p0, p1 = (_mle_t_value(scores, observed, e / NELO_PER_T * per_sample) for e in (elo0, elo1))
    return total * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(observed, p0, p1, strict=True))


def sprt(results: Sequence[int], elo0: float = ELO0, elo1: float = ELO1, alpha: float = ALPHA, beta: float = BETA,
         model: str = NORMALIZED) -> SprtState:
    lower, upper = bounds(alpha, beta)
    value = llr(results, elo0, elo1, model)
    decision = H0 if value < lower else H1 if value > upper else CONTINUE
    return SprtState(llr=value, lower=lower, upper=upper, decision=decision, samples=sum(results))


def _logistic_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def _stats(scores: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mean = sum(p * a for a, p in zip(scores, probs, strict=True))
    variance = sum(p * (a - mean) ** 2 for a, p in zip(scores, probs, strict=True))
    return mean, variance


def _solve_secular(shifts: Sequence[float], probs: Sequence[float]) -> float:
    """The x with Σ p_i c_i / (1 + x c_i) = 0, between the poles (the c_i must take both signs)."""
    low, high = min(shifts), max(shifts)
    if not low < 0 < high:
        raise ValueError("the hypothesis lies outside the range of possible scores")
    eps = 1e-9

    def f(x: float) -> float:
        return sum(p * c / (1 + x * c) for c, p in zip(shifts, probs, strict=True))

    return brentq(f, -1 / high + eps, -1 / low - eps)


def _mle_mean(scores: Sequence[float], observed: Sequence[float], s: float) -> list[float]:
    """The distribution closest to `observed` (maximum likelihood) whose mean score is s."""
    shifts = [a - s for a in scores]
    x = _solve_secular(shifts, observed)
    return [p / (1 + x * c) for c, p in zip(shifts, observed, strict=True)]


def _mle_t_value(scores: Sequence[float], observed: Sequence[float], t: float) -> list[float]:
    """The maximum-likelihood distribution with (μ - 1/2)/σ = t, by fixed-point iteration from uniform."""
    probs = [1 / len(scores)] * len(scores)
    for _ in range(50):
        mean, variance = _stats(scores, probs)
        sigma = math.sqrt(variance)
        shifts = [a - 0.5 - t * sigma * (1 + ((mean - a) / sigma) ** 2) / 2 for a in scores]
        x = _solve_secular(shifts, observed)
        updated = [p / (1 + x * c) for c, p in zip(shifts, observed, strict=True)]
        converged = max(abs(a - b) for a, b in zip(probs, updated, strict=True)) < 1e-12
        probs = updated
        if converged:
            break
    return probs
