"""The official rating: a maximum a posteriori Bradley–Terry fit over every ranked outcome of a preset.

Model: an outcome row x (see outcomes.py) is won by its + side with probability σ(x·θ), σ the logistic
function, θ the players' log-strengths in nats (Bradley–Terry 1952; Elo's curve once θ is put on the Elo
scale). A draw counts as half a win (score ½), the way Elo, Ordo and every chess list score it. The prior
is VIRTUAL_DRAWS virtual draws per version, spread over the comparisons it took part in (keeps a perfect
record finite, pulls only versions that met towards each other), and a wide Gaussian θ ~ N(0, PRIOR_SD²)
that only matters for a group of versions that never met the rest. Every outcome row sums to zero, so the
optimum has mean θ exactly 0: that anchors the scale, the mean of a preset's rated versions is 1500.

The fit maximises the log posterior with Newton's method (a concave objective, backtracking line search),
solving each step with a Cholesky factorisation when there are few players and with conjugate gradients
on the sparse Hessian (Jacobi preconditioned) otherwise. It is order independent by construction: the
optimum does not depend on the order of the matches, and outcomes are canonically ordered, so the same
results give the same numbers. A warm start (previous ratings) only saves iterations.

Uncertainty: the Laplace approximation, covariance = (Fisher information / φ + prior precision)⁻¹, with φ
the dispersion clustered by unit — a duplicate set, or a match outside any set. The pairwise outcomes of
one match are not independent games (the seat that finished first won every one of its comparisons), so
the likelihood is a composite (pairwise) one and its variance is the sandwich H⁻¹JH⁻¹, J = Σ u uᵀ over the
units, u a unit's summed score vector (Liang & Zeger 1986; Varin, Reid & Firth 2011). φ is that meat
pooled over the preset, J ≈ φ·(Fisher information): the mean over units of uᵀu over its expectation if
the unit's comparisons were independent (a Pearson statistic with the unit as the observation,
quasi-likelihood, McCullagh & Nelder 1989 §4.5). A preset has one table shape, so one factor serves all its
versions, and a version's first few matches cannot make its interval collapse the way its own sandwich
would. Between near-equal versions a k-seat free-for-all match has (k + 1)/3 times the variance its
comparisons would have as separate games; draws and duplicate sets whose luck cancels make a unit's score
less variable than a coin toss with the same odds, so φ < 1 and intervals narrow to what the data show.
Intervals are for the rating relative to the anchor (θ − mean θ). The covariance is exact up to
DENSE_LIMIT rated versions; above it each variance is a second-order bound from the sparse Hessian (the
version's own games plus its opponents' uncertainty) plus the part the bound misses, solved exactly for
CALIBRATION_SAMPLE versions spread over the table and interpolated by rating order. The difference of two
versions (for LOS) is always exact. A version is provisional while its 95% interval is wider than
±PROVISIONAL_HALF_WIDTH Elo.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import linalg, sparse
from scipy.sparse.linalg import cg

from ratings.outcomes import Outcomes
from ratings.scale import BASE, ELO_PER_NAT, Z95, los_from_ratings

VIRTUAL_DRAWS = 2.0  # per version, spread over the opponents it met (BayesElo's prior is 2 virtual draws)
PRIOR_SD = 5000.0  # Elo; only places groups of versions that never met the rest (and fixes the mean)
PROVISIONAL_HALF_WIDTH = 100.0  # Elo; about 50 even games for a version with φ = 1
DENSE_LIMIT = 2500  # rated versions up to which the covariance is computed exactly
CALIBRATION_SAMPLE = 12  # above it: versions whose variance is solved exactly to calibrate the approximation
MIN_DISPERSION_DF = 20  # fewer spare units than this: φ = 1 (too few to estimate it)
DISPERSION_BOUNDS = (0.1, 10.0)


@dataclass(frozen=True)
class PlayerRating:
    rating: float  # Elo scale
    low: float  # 95% interval
    high: float
    games: float  # weight of the outcomes this version took part in (one per two-sided game)
    provisional: bool

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


class Ratings:
    """The fitted ratings of one preset. Unrated players (no game against another player) give None."""

    def __init__(self, players: tuple, index: dict, theta: np.ndarray, variance: np.ndarray, games: np.ndarray,
                 hessian, covariance: np.ndarray | None, dispersion: float, iterations: int, seconds: float):
        self.players = players
        self._index = index  # player → position in theta, rated players only
        self._theta = theta
        self._variance = variance
        self._games = games
        self._hessian = hessian
        self._covariance = covariance
        self.dispersion = dispersion
        self.iterations = iterations
        self.seconds = seconds

    def __contains__(self, player: Hashable) -> bool:
        return player in self._index

    def rating(self, player: Hashable) -> PlayerRating | None:
        i = self._index.get(player)
        if i is None:
            return None
        value = BASE + ELO_PER_NAT * self._theta[i]
        margin = Z95 * ELO_PER_NAT * math.sqrt(self._variance[i])
        return PlayerRating(float(value), float(value - margin), float(value + margin), float(self._games[i]),
                            margin > PROVISIONAL_HALF_WIDTH)

    def table(self) -> dict[Hashable, PlayerRating | None]:
        return {p: self.rating(p) for p in self.players}

    def elo(self) -> dict[Hashable, float]:
        """Rated players' values, to warm start the next fit."""
        return {p: float(BASE + ELO_PER_NAT * self._theta[i]) for p, i in self._index.items()}

    def difference_sd(self, a: Hashable, b: Hashable) -> float | None:
        """Standard error (Elo) of rating(a) − rating(b), from the full covariance of the fit."""
        i, j = self._index.get(a), self._index.get(b)
        if i is None or j is None:
            return None
        if i == j:
            return 0.0
        if self._covariance is not None:
            c = self._covariance
            var = c[i, i] + c[j, j] - 2 * c[i, j]
        else:
            e = np.zeros(len(self._theta))
            e[i], e[j] = 1.0, -1.0
            x = _solve(self._hessian, e, rtol=1e-10)
            var = float(e @ x)
        return ELO_PER_NAT * math.sqrt(max(var, 0.0))

    def los_many(self, pairs: list[tuple[Hashable, Hashable]]) -> list[float | None]:
        """LOS for many pairs at once (e.g. every pair of leaderboard neighbours): exact up to DENSE_LIMIT
        rated versions, above it from a second-order approximation of each difference's variance."""
        known = [(k, self._index[a], self._index[b]) for k, (a, b) in enumerate(pairs)
                 if a in self._index and b in self._index]
        out: list[float | None] = [None] * len(pairs)
        if not known:
            return out
        slots, i, j = (np.array(x) for x in zip(*known, strict=True))
        if self._covariance is not None:
            c = self._covariance
            var = c[i, i] + c[j, j] - 2 * c[i, j]
        else:
            var = _difference_variances(self._hessian, i, j)
        sd = ELO_PER_NAT * np.sqrt(np.maximum(var, 0.0))
        for slot, a, b, s in zip(slots, i, j, sd, strict=True):
            out[slot] = 0.5 if a == b else los_from_ratings(ELO_PER_NAT * (self._theta[a] - self._theta[b]), float(s))
        return out

    def los(self, a: Hashable, b: Hashable) -> float | None:
        """Likelihood that a is stronger than b: Φ(difference / its standard error); None if either is unrated."""
        sd = self.difference_sd(a, b)
        if sd is None:
            return None
        i, j = self._index[a], self._index[b]
        return los_from_ratings(ELO_PER_NAT * (self._theta[i] - self._theta[j]), sd)


def _difference_variances(hessian, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(e_a − e_b)ᵀ H⁻¹ (e_a − e_b) for many pairs at once, from the series H⁻¹ = Σₖ (D⁻¹O)ᵏ D⁻¹ (H = D − O)
    to second order. The table's large-scale uncertainty, which the series misses, is shared by the two
    versions of a pair and cancels: within 0.1% of exact in a well-mixed pool, 0.8–1.0× on a ladder."""
    d = hessian.diagonal()
    off = (sparse.diags(d) - hessian).tocsr()
    inv = 1.0 / d
    direct = np.asarray(off[a, b]).ravel()
    own = np.asarray(off.multiply(off) @ inv).ravel() * inv**2
    shared = np.asarray(off[a].multiply(off[b]) @ inv).ravel() * inv[a] * inv[b]
    return inv[a] + inv[b] - 2 * direct * inv[a] * inv[b] + own[a] + own[b] - 2 * shared


def fit(outcomes: Outcomes, previous: Mapping[Any, float] | None = None, *,
        units: np.ndarray | None = None, prior_sd: float = PRIOR_SD, virtual_draws: float = VIRTUAL_DRAWS,
        tolerance: float = 1e-4, max_iterations: int = 100) -> Ratings:
    """Fit the official ratings. ``previous`` (Elo values by player) is a warm start; ``tolerance`` is in Elo.

    ``units`` labels each outcome row with its unit (its duplicate set, or its match outside any set): the
    cluster of the interval's dispersion. Without it the outcomes' own ``unit`` labels are used if they
    carry them, and otherwise every row is its own unit — right for two-sided games, too narrow for a
    multi-seat game, whose comparisons in one match are correlated. The point estimates do not depend on it.

    ``prior_sd`` (Elo) and ``virtual_draws`` set the prior; ``virtual_draws=0`` with a huge ``prior_sd``
    gives the plain maximum likelihood estimate (infinite for a perfect record).
    """
    started = time.perf_counter()
    design = outcomes.design.tocsc()
    active = np.flatnonzero(np.diff(design.indptr) > 0)  # players with at least one outcome against another
    design = design[:, active].tocsr()
    players = [outcomes.players[i] for i in active]
    index = {p: k for k, p in enumerate(players)}
    n = len(players)
    score, weight = outcomes.score, outcomes.weight
    games = np.asarray((design != 0).T @ weight, dtype=np.float64).ravel()
    if n == 0:
        empty = np.zeros(0)
        return Ratings(outcomes.players, {}, empty, empty, empty, None, None, 1.0, 0, time.perf_counter() - started)

    prior = (ELO_PER_NAT / prior_sd) ** 2  # precision in nats⁻²
    # The likelihood depends on a comparison's rows only through their summed weight and score, so the fit
    # runs on one row per distinct comparison (pattern), carrying its virtual draws too.
    pattern = outcomes.pattern
    _, first = np.unique(pattern, return_index=True)
    compact = design[first]
    total = np.bincount(pattern, weights=weight, minlength=len(first))
    won = np.bincount(pattern, weights=weight * score, minlength=len(first))
    virtual = _virtual_draws(compact, virtual_draws)
    fit_weight = total + virtual
    fit_score = (won + virtual / 2) / fit_weight
    compact_t = compact.T.tocsr()
    hessian_of = _HessianBuilder(compact, prior)
    theta = np.zeros(n)
    if previous:
        for p, value in previous.items():
            k = index.get(p)
            if k is not None:
                theta[k] = (value - BASE) / ELO_PER_NAT
        theta -= theta.mean()  # the optimum has mean 0 (see the module docstring); start there

    def objective(t: np.ndarray) -> float:
        z = compact @ t
        # log σ(z) = −log(1 + e^−z), computed without overflow
        return float(-(fit_weight * (fit_score * np.logaddexp(0, -z) + (1 - fit_score) * np.logaddexp(0, z))).sum()
                     - 0.5 * prior * (t @ t))

    step_tolerance = tolerance / ELO_PER_NAT
    iterations = 0
    current = objective(theta)
    while iterations < max_iterations:
        iterations += 1
        p = _sigmoid(compact @ theta)
        gradient = compact_t @ (fit_weight * (fit_score - p)) - prior * theta
        step = _solve(hessian_of(fit_weight * p * (1 - p)), gradient, rtol=1e-8)
        step -= step.mean()  # exact steps keep the mean at 0; remove rounding in that flat direction
        t = 1.0
        while True:
            candidate = theta + t * step
            value = objective(candidate)
            if value >= current - 1e-12 * abs(current) or t < 1e-6:
                break
            t /= 2
        theta, current = candidate, value
        if np.max(np.abs(t * step)) < step_tolerance:
            break

    p = _sigmoid(compact @ theta)
    if units is None:
        units = outcomes.unit  # the builders record each row's unit
    dispersion = _dispersion(design, score, weight, p[pattern], units)
    # the data's information scales with 1/φ; the prior's (virtual draws) does not
    hessian = hessian_of((total / dispersion + virtual) * p * (1 - p))
    covariance = None
    if n <= DENSE_LIMIT:
        # Ratings are relative to the mean (the anchor), so the covariance that matters is that of θ − mean θ:
        # P H⁻¹ P with P the centring projection. The all-ones vector is an eigenvector of H (rows of the
        # design sum to zero), so lifting its eigenvalue by 1 changes nothing else and keeps H well conditioned.
        inverse = linalg.cho_solve(linalg.cho_factor(_lifted(hessian)), np.eye(n))
        centred = inverse - inverse.mean(axis=0)
        covariance = centred - centred.mean(axis=1, keepdims=True)
        variance = np.diag(covariance).copy()
    else:
        variance = _calibrated_variance(hessian, theta, prior)
    return Ratings(outcomes.players, index, theta, variance, games, hessian, covariance, dispersion, iterations,
                   time.perf_counter() - started)


class _HessianBuilder:
    """Xᵀ diag(c) X + λI for a fixed X and any curvature c, in one pass over a precomputed sparsity pattern.

    Every row contributes c·xᵢ·xⱼ to H[i, j] for each pair of its non-zeros; where each contribution lands
    in H's CSR data is worked out once, so a Newton step costs one weighted bincount instead of a sparse
    matrix product.
    """

    def __init__(self, design: sparse.csr_matrix, prior: float):
        n = design.shape[1]
        lengths = np.diff(design.indptr)
        row_of = np.repeat(np.arange(design.shape[0]), lengths)
        per_entry = lengths[row_of]
        left = np.repeat(np.arange(design.nnz), per_entry)
        block_start = np.repeat(np.cumsum(per_entry) - per_entry, per_entry)
        right = np.repeat(design.indptr[row_of], per_entry) + (np.arange(len(left)) - block_start)
        key = design.indices[left].astype(np.int64) * n + design.indices[right]
        cells, self.slot = np.unique(key, return_inverse=True)
        self.slot = self.slot.ravel()
        self.origin = row_of[left]
        self.product = design.data[left] * design.data[right]
        rows, cols = cells // n, cells % n
        self.indices = cols
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
        self.diagonal = np.flatnonzero(rows == cols)
        self.prior = prior
        self.shape = (n, n)

    def __call__(self, curvature: np.ndarray) -> sparse.csr_matrix:
        data: np.ndarray = np.bincount(self.slot, weights=self.product * curvature[self.origin],
                                       minlength=len(self.indices)).astype(float, copy=False)
        data[self.diagonal] += self.prior
        return sparse.csr_matrix((data, self.indices, self.indptr), shape=self.shape)


def _virtual_draws(compact: sparse.csr_matrix, per_version: float) -> np.ndarray:
    """Virtual draw weight per distinct comparison: a version's ``per_version`` draws are spread evenly over
    the comparisons it appears in, and a comparison gets the mean share of its versions.

    Like BayesElo's virtual draws, this keeps a perfect record finite and pulls only versions that met
    towards each other: it never shrinks the spread of a ladder whose versions met only near neighbours,
    which a prior on each version's own rating does.
    """
    if per_version <= 0 or compact.shape[0] == 0:
        return np.zeros(compact.shape[0])
    touched = (compact != 0).astype(np.float64)
    degree = np.asarray(touched.sum(axis=0)).ravel()
    share = per_version / np.maximum(degree, 1.0)
    return np.asarray(touched @ share).ravel() / np.asarray(touched.sum(axis=1)).ravel()


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.exp(-np.logaddexp(0, -z))


def _solve(hessian, rhs: np.ndarray, rtol: float = 1e-6) -> np.ndarray:
    n = hessian.shape[0]
    if n <= DENSE_LIMIT:
        return linalg.cho_solve(linalg.cho_factor(_lifted(hessian)), rhs)
    inverse_diagonal = 1.0 / hessian.diagonal()
    preconditioner = sparse.diags(inverse_diagonal)
    x, info = cg(hessian, rhs, x0=rhs * inverse_diagonal, rtol=rtol, atol=0.0, maxiter=10 * n, M=preconditioner)
    if info < 0:
        raise RuntimeError("conjugate gradients broke down on the rating Hessian")
    return x


def _solve_many(hessian, rhs: np.ndarray, rtol: float) -> np.ndarray:
    """Jacobi-preconditioned conjugate gradients on several right-hand sides at once (one sparse product
    with all of them per iteration is much cheaper than one product per column)."""
    inverse_diagonal = 1.0 / hessian.diagonal()[:, None]
    x = rhs * inverse_diagonal
    r = rhs - hessian @ x
    z = r * inverse_diagonal
    p = z.copy()
    rz = (r * z).sum(axis=0)
    target = rtol * np.linalg.norm(rhs, axis=0)
    for _ in range(10 * hessian.shape[0]):
        if np.all(np.linalg.norm(r, axis=0) <= target):
            break
        hp = hessian @ p
        curvature = (p * hp).sum(axis=0)
        alpha = np.divide(rz, curvature, out=np.zeros_like(rz), where=curvature > 0)
        x += alpha * p
        r -= alpha * hp
        z = r * inverse_diagonal
        rz_next = (r * z).sum(axis=0)
        beta = np.divide(rz_next, rz, out=np.zeros_like(rz), where=rz > 0)
        rz = rz_next
        p = z + beta * p
    return x


def _lifted(hessian) -> np.ndarray:
    """H + 11ᵀ/n, dense: the same inverse on mean-zero vectors, and no near-zero eigenvalue when the prior is weak."""
    n = hessian.shape[0]
    return hessian.toarray() + 1.0 / n


def _dispersion(design: sparse.csr_matrix, score: np.ndarray, weight: np.ndarray, p: np.ndarray,
                units) -> float:
    """The Pearson statistic of the units over its degrees of freedom; 1 when there are too few units.

    A unit's score vector is u = Σ w·(s − p)·x over its rows. Were its comparisons independent, E[uᵀu] would
    be Σ w·p(1 − p)·xᵀx; the unit's Pearson term is the ratio. It is the usual w(s − p)²/(p(1 − p)) when the
    unit is one row, as for a two-sided match, so the per-row statistic is the special case. In a k-seat
    match the comparisons share their seats' fortunes (the winner won them all) and the ratio is about
    (k + 1)/3; the pooled ratio is the sandwich's meat J as a multiple of the Fisher information.

    Degrees of freedom: a unit holds r = min(rows, versions − 1) independent comparisons (one for a
    two-sided match or a duplicate pair, k − 1 for a k-seat match); the n fitted ratings absorb n of the
    Σr, each unit's Pearson term losing its share n/Σr (its leverage, if every comparison carries the same
    information). One row per unit gives the familiar units − n.
    """
    n = design.shape[1]
    rows = len(score)
    if units is None:
        unit = np.arange(rows)
    else:
        if len(units) != rows:
            raise ValueError(f"units: {len(units)} labels for {rows} outcome rows")
        unit = np.unique(np.asarray(units), return_inverse=True)[1].ravel()
    count = int(unit.max()) + 1 if rows else 0
    member = sparse.csr_matrix((np.ones(rows), (unit, np.arange(rows))), shape=(count, rows))
    comparisons = np.minimum(np.bincount(unit, minlength=count), np.diff((member @ abs(design)).indptr) - 1)
    df = count * (1 - n / max(comparisons.sum(), 1))
    if df < MIN_DISPERSION_DF:
        return 1.0
    u = member @ sparse.diags(weight * (score - p)) @ design
    squared = np.asarray(u.multiply(u).sum(axis=1)).ravel()
    row_norm = np.asarray(design.multiply(design).sum(axis=1)).ravel()
    expected = np.bincount(unit, weights=weight * np.maximum(p * (1 - p), 1e-12) * row_norm, minlength=count)
    pearson = float((squared / expected).sum())
    low, high = DISPERSION_BOUNDS
    return min(max(pearson / df, low), high)


def _approximate_variance(hessian) -> np.ndarray:
    """diag(H⁻¹) to second order: 1/Hᵢᵢ + Σⱼ Hᵢⱼ² / (Hᵢᵢ² Hⱼⱼ) (a version's own games, then its opponents').

    These are the first terms of a series of non-negative terms (H's off-diagonal is ≤ 0), so a lower bound:
    close in a well-mixed pool, too small where versions met only near neighbours (a chain of ratings).
    """
    d = hessian.diagonal()
    off = hessian - sparse.diags(d)
    return 1.0 / d + (off.multiply(off) @ (1.0 / d)) / d**2


def _calibrated_variance(hessian, theta: np.ndarray, prior: float) -> np.ndarray:
    """The lower bound plus what it misses, interpolated along the table from versions solved exactly.

    What the bound misses is the uncertainty of the table's large-scale shape: how far the top sits from the
    bottom. It is shared by versions of similar rating, so it is measured exactly at CALIBRATION_SAMPLE
    versions evenly spread over the rating order and interpolated between them. The exact variance of
    θᵢ − mean θ is (H⁻¹)ᵢᵢ − 1/(nλ) (H·1 = λ·1): one conjugate-gradient solve per sampled version.
    """
    n = len(theta)
    bound = _approximate_variance(hessian)
    order = np.argsort(theta, kind="stable")
    positions = np.unique(np.linspace(0, n - 1, CALIBRATION_SAMPLE).astype(int))
    sampled = order[positions]
    columns = np.zeros((n, len(sampled)))
    columns[sampled, np.arange(len(sampled))] = 1.0
    exact = _solve_many(hessian, columns, rtol=1e-5)[sampled, np.arange(len(sampled))] - 1.0 / (n * prior)
    missing = np.maximum(exact - bound[sampled], 0.0)
    rank = np.empty(n)
    rank[order] = np.arange(n)
    return bound + np.interp(rank, positions, missing)
