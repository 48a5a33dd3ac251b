"""The order-free batch fit and its confidence: Bradley–Terry over every
pair of opponents, with a cluster-robust covariance over resampling units.

Model. Each bot i has a strength theta_i; in any match, bot i finishes
ahead of an opponent j with probability ``1 / (1 + exp(-(theta_i - theta_j)))``
(Bradley–Terry). Every rated match contributes one comparison per pair of
opponents (a tie is half a win each way; see :mod:`tournaments.outcomes`),
weighted by the match's rating weight. For finishing orders drawn from a
Plackett–Luce model these pairwise probabilities are exactly
Bradley–Terry's, so the fit estimates the same strengths. The estimate is
the maximum a posteriori under an independent normal prior
``N(0, PRIOR_SD^2)`` per bot: it keeps a bot that lost every match finite
and centres the ratings (they sum to 0: 0 is the average bot of the
tournament). The log-posterior is strictly concave, so Newton's method finds
the unique optimum in a handful of steps; the answer depends only on the
multiset of results, never on the order matches were scheduled or finished in.

Ratings are shown on the Elo scale (``ELO_PER_UNIT`` = 400 / ln 10 points
per unit of theta): 100 points means finishing ahead 64% of the time,
200 points 76%.

Cost. The results arrive as :class:`Comparisons`, one row per match (M
matches, k seats). The C = M × (opponent pairs per match) comparisons are
summed once into the P <= min(C, N²/2) pairs of bots that met (O(C + N²));
each Newton pass then costs O(P) plus one dense N × N solve (O(N³), 0.05 s
for N = 1,000). Memory is O(C + N²): no structure grows with matches × N.

Confidence. A bot's rating comes with a covariance from the **sandwich**
(cluster-robust, "Godambe") estimator ``V = H⁻¹ J H⁻¹``: ``H`` is the
negative Hessian of the log-posterior at the optimum; ``J`` is the spread
of the score (the gradient of the log-likelihood) over *units*, the groups
of matches whose results are not independent: a match, or for a
``duplicate`` schedule every match one set of bots played on the same deals
(their seat orders), so the luck of the cards stays paired. ``J`` is
centred and scaled by U / (U - 1) for U units, and ``V`` by (t/z)², Student's
t with U - 1 degrees of freedom over the normal quantile: the usual
correction when units are few (it vanishes as U grows). Why not the plain Hessian
(Laplace) covariance ``H⁻¹``: the comparisons of one finishing order are
not independent (who beat A and who beat B come from the same ranking),
and duplicate deals pair matches on purpose; ``H⁻¹`` ignores both (in the
coverage simulation its 95% intervals held the truth only 91% of the time).
The sandwich accounts for both with one pass over the matches after the
fit: O(M k² + M log M + N³), no refit.

**Never less uncertainty than the model implies.** ``J`` is *measured*:
when every unit has the same result (three bots, six matches, always the
same finishing order), every unit has the same score, the centred spread is
0, and so is ``V``: the board would print ±0 and P = 1 after six matches.
That is the known failure of empirical variances when the outcomes do not
vary (separation). So every quantity shown, a bot's rating (``x = e_a``)
or a difference (``x = e_a - e_b``), gets the variance ``max(xᵀ V x, xᵀ L x)``
with ``L`` the model-based (Laplace) covariance: ``H⁻¹``, the posterior
covariance if every comparison were independent (``H`` includes the prior),
over the bots that played, centred as the ratings are (a bot without a
match keeps no interval). ``V`` can fall below ``L`` for a pair or a bot
for reasons other than separation too, e.g. many ties (a tie is half a win
and varies less than a win or a loss); the floor then is what the fitted
model itself claims, never less. ``L`` is not scaled by Student's t:
nothing in it is estimated from the spread of few units. Why not a
different estimate of ``J`` instead: any spread measured from the units is
0 when they all agree, whatever its weighting; the model's own
information is the one figure that does not depend on the results varying.
On ordinary tournaments ``V``
exceeds ``L`` almost everywhere and nothing changes (the coverage
simulation's median half-width is the same); where results barely vary it
is what keeps the board honest. Cost: the ``H⁻¹`` the sandwich already
needs, centred in O(N²); no refit.

A bot's 95% interval is its rating ± 1.96 standard deviations; the
probability that bot a is really better than bot b is
``Φ((θa - θb) / sd(θa - θb))`` under the same rule
(:meth:`BatchFit.variance`), so the intervals and P>next always agree.
``bench/rating_coverage.py`` measures how often the intervals hold the
true rating.

The **bootstrap** over units (``confidence="bootstrap"``: 1,000 refits on
units drawn with replacement, seeded from the tournament seed) is kept as a
cross-check for small tournaments: its replicates' covariance takes the
place of ``V`` and the same rule applies (intervals ± 1.96 standard
deviations, P from Φ; not the share of replicates in which a rates above
b, which is 1 when every replicate agrees, the same failure as above). It
costs 1,000 fits, so :func:`batch_fit` refuses it (:class:`TooLarge`)
above :data:`BOOTSTRAP_LIMIT` comparison-refits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

PRIOR_SD = 2.0
ELO_PER_UNIT = 400.0 / math.log(10.0)
BOOTSTRAP = 1000
#: confidence methods of :func:`batch_fit`
METHODS = ("sandwich", "bootstrap")
#: names how intervals and P are made from a fit (:meth:`BatchFit.variance`); a fit
#: kept in a store under another name is recomputed (:func:`tournaments.rating.store_fit`)
CONFIDENCE_RULE = "measured, floored by laplace"
#: the bootstrap is refused when replicates × comparisons exceeds this (about a minute of CPU)
BOOTSTRAP_LIMIT = 200_000_000
#: pair totals are summed in one slot per pair of bots up to this many bots (memory O(N²)), else sorted
DENSE_PAIRS = 2_000
#: the dense N × N solve is refused above this many bots (memory O(N²))
MAX_BOTS = 20_000


class TooLarge(ValueError):
    """A confidence method too costly for this tournament; the message says
    how large it is and what to use instead."""


@dataclass
class Comparisons:
    """The rated matches of a tournament as arrays, one row per match.

    ``n_bots``: N, bots are numbered 0..N-1; ``unit`` (M,) int64: the
    resampling unit of each match (equal keys: the same unit);
    ``weight`` (M,) float64: the match's rating weight (> 0);
    ``bots`` (M, k) int64: the bot in each seat; ``places`` (M, k) int64:
    the place of each seat's team (0 = best, equal = tied); ``opponents``:
    the seat pairs ``(p, q)``, p < q, that sit on different teams (every
    pair in a free-for-all game)."""

    n_bots: int
    unit: np.ndarray
    weight: np.ndarray
    bots: np.ndarray
    places: np.ndarray
    opponents: tuple[tuple[int, int], ...]

    @classmethod
    def empty(cls, n_bots: int, players: int, opponents: tuple[tuple[int, int], ...]) -> "Comparisons":
        return cls(n_bots, np.zeros(0, np.int64), np.zeros(0), np.zeros((0, players), np.int64),
                   np.zeros((0, players), np.int64), opponents)

    @property
    def matches(self) -> int:
        return len(self.unit)

    def pairwise(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every comparison as arrays of length C: ``(a, b, score of a, weight,
        match row)``, one per match and opponent seat pair (score 1 = a
        finished ahead of b, 0.5 tied, 0 behind)."""
        a, b, s, w, m = [], [], [], [], []
        rows = np.arange(self.matches)
        for p, q in self.opponents:
            pp, pq = self.places[:, p], self.places[:, q]
            a.append(self.bots[:, p])
            b.append(self.bots[:, q])
            s.append(np.where(pp < pq, 1.0, np.where(pp == pq, 0.5, 0.0)))
            w.append(self.weight)
            m.append(rows)
        if not a:
            z = np.zeros(0)
            return z.astype(np.int64), z.astype(np.int64), z, z, z.astype(np.int64)
        return (np.concatenate(a), np.concatenate(b), np.concatenate(s), np.concatenate(w), np.concatenate(m))


@dataclass
class PairTotals:
    """Comparisons summed per pair of bots that met (P pairs, ``a < b``):
    ``n`` the weighted comparisons, ``wins`` how many of them a won."""

    a: np.ndarray
    b: np.ndarray
    n: np.ndarray
    wins: np.ndarray

    @classmethod
    def of(cls, n_bots: int, a: np.ndarray, b: np.ndarray, score: np.ndarray, weight: np.ndarray) -> "PairTotals":
        """Sum comparisons ``(a, b, score of a, weight)`` per pair: O(C + N²)
        up to :data:`DENSE_PAIRS` bots (one slot per pair), O(C log C) above."""
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        s = np.where(a < b, score, 1.0 - score)
        key = lo * n_bots + hi
        if n_bots <= DENSE_PAIRS:
            n = np.bincount(key, weight, minlength=n_bots * n_bots)
            keys = np.flatnonzero(n)
            wins = np.bincount(key, weight * s, minlength=n_bots * n_bots)[keys]
            return cls(keys // n_bots, keys % n_bots, n[keys], wins)
        keys, inv = np.unique(key, return_inverse=True)
        return cls(keys // n_bots, keys % n_bots, np.bincount(inv, weight), np.bincount(inv, weight * s))


def fit_pairs(n_bots: int, pairs: PairTotals, prior_sd: float = PRIOR_SD) -> tuple[np.ndarray, np.ndarray]:
    """MAP Bradley–Terry strengths (natural units, sum 0) from pair totals,
    and the negative Hessian of the log-posterior there (N × N, positive
    definite). Damped Newton: O(P + N³) per pass, at most 100 passes
    (typically 5-8)."""
    n = n_bots
    inv_var = 1.0 / (prior_sd * prior_sd)
    theta = np.zeros(n)
    hess = np.eye(n) * inv_var
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(theta[pairs.b] - theta[pairs.a]))  # P(a ahead of b)
        r = pairs.wins - pairs.n * p
        grad = np.bincount(pairs.a, r, minlength=n) - np.bincount(pairs.b, r, minlength=n) - theta * inv_var
        hess = information(n, pairs, p) + np.eye(n) * inv_var
        step = np.linalg.solve(hess, grad)
        big = float(np.abs(step).max(initial=0.0))
        step *= min(1.0, 2.0 / max(big, 1e-300))  # no strength moves more than 2 units in one step
        theta = theta + step
        if big < 1e-10:
            break
    return theta, hess


def information(n_bots: int, pairs: PairTotals, p: np.ndarray) -> np.ndarray:
    """The Fisher information of the comparisons (the negative Hessian of the
    log-likelihood, a graph Laplacian) for ``p`` = P(a ahead of b) per pair. N × N."""
    n = n_bots
    h = pairs.n * p * (1.0 - p)
    off = np.bincount(pairs.a * n + pairs.b, h, minlength=n * n).reshape(n, n)
    info = -(off + off.T)
    info[np.diag_indices(n)] = np.bincount(pairs.a, h, minlength=n) + np.bincount(pairs.b, h, minlength=n)
    return info


def fit(wins: np.ndarray, prior_sd: float = PRIOR_SD) -> np.ndarray:
    """MAP Bradley–Terry strengths (natural units, sum 0) from ``wins``, an
    N × N matrix where ``wins[i, j]`` is how often i finished ahead of j
    (halves for ties). Raises ``ValueError`` for a matrix that is not square."""
    w = np.asarray(wins, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    i, j = np.nonzero(w)
    return fit_pairs(w.shape[0], PairTotals.of(w.shape[0], i, j, np.ones(len(i)), w[i, j]), prior_sd)[0]


def unit_scores(c: Comparisons, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The score (gradient of the log-likelihood at ``theta``) of every unit:
    ``(bots, values)``, both U × k, each unit's bots in ascending order (every
    match of a unit seats the same bots, in some order: see
    :func:`tournaments.aggregates.unit_key`). O(M k² + M log M). Raises
    ``ValueError`` for matches of one unit that seat different bots."""
    g = np.zeros(c.bots.shape)
    for p, q in c.opponents:
        a, b, pp, pq = c.bots[:, p], c.bots[:, q], c.places[:, p], c.places[:, q]
        r = c.weight * (np.where(pp < pq, 1.0, np.where(pp == pq, 0.5, 0.0))
                        - 1.0 / (1.0 + np.exp(theta[b] - theta[a])))
        g[:, p] += r
        g[:, q] -= r
    within = np.argsort(c.bots, axis=1, kind="stable")
    bots, g = np.take_along_axis(c.bots, within, axis=1), np.take_along_axis(g, within, axis=1)
    by_unit = np.argsort(c.unit, kind="stable")
    units, bots, g = c.unit[by_unit], bots[by_unit], g[by_unit]
    starts = np.flatnonzero(np.r_[True, units[1:] != units[:-1]]) if len(units) else np.zeros(0, np.int64)
    unit_bots = bots[starts]
    if not np.array_equal(bots, np.repeat(unit_bots, np.diff(np.r_[starts, len(units)]), axis=0)):
        raise ValueError("the matches of one rating unit seat different bots")
    return unit_bots, (np.add.reduceat(g, starts, axis=0) if len(starts) else g[:0])


def score_spread(n_bots: int, unit_bots: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``J``: the centred sum over the U units of the outer products of their
    scores (:func:`unit_scores`), times U / (U - 1). O(U k² + N²)."""
    n = n_bots
    units = len(g)
    spread = np.zeros(n * n)
    if units < 2:
        return spread.reshape(n, n)
    k = g.shape[1]
    for x in range(k):
        for y in range(k):
            spread += np.bincount(unit_bots[:, x] * n + unit_bots[:, y], g[:, x] * g[:, y], minlength=n * n)
    mean = np.bincount(unit_bots.ravel(), g.ravel(), minlength=n) / units
    return (spread.reshape(n, n) - units * np.outer(mean, mean)) * units / (units - 1)


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (Cornish–Fisher expansion, Abramowitz & Stegun
    26.7.5: within 0.1% of the exact value from 3 degrees of freedom, within
    1% at 2)."""
    z = NormalDist().inv_cdf(p)
    v = float(max(df, 1))
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / v + g2 / v ** 2 + g3 / v ** 3 + g4 / v ** 4


@dataclass
class BatchFit:
    """Result of :func:`batch_fit`; ratings in Elo points, in ``bots`` order.

    ``cov``: the ratings' covariance measured from the results (N × N, Elo
    points²): the sandwich, or for the bootstrap the covariance of its
    ``replicates`` (B × N, Elo points). ``floor``: the model-based (Laplace)
    covariance (N × N, Elo points²). Every variance shown is the larger of
    the two (:meth:`variance`)."""

    bots: list[str]
    elo: list[float]
    low: list[float]
    high: list[float]
    comparisons: list[float]  # per bot, the weighted pairwise comparisons it took part in
    method: str = "sandwich"
    cov: np.ndarray | None = field(default=None, repr=False)
    floor: np.ndarray | None = field(default=None, repr=False)
    replicates: np.ndarray | None = field(default=None, repr=False)

    def variance(self, a: int, b: int | None = None) -> float:
        """The variance (Elo points²) of bot ``a``'s rating, or with ``b`` of
        the difference ``a - b``: the larger of what ``cov`` and ``floor``
        say (0 without a covariance)."""
        def var(m: np.ndarray | None) -> float:
            if m is None:
                return 0.0
            return float(m[a, a] if b is None else m[a, a] + m[b, b] - 2.0 * m[a, b])
        return max(var(self.cov), var(self.floor), 0.0)

    def p_better(self, a: int, b: int) -> float:
        """Probability that bot ``a`` is really better than bot ``b``:
        ``Φ(difference / its standard deviation)`` (:meth:`variance`); 0.5
        when nothing tells them apart."""
        d = self.elo[a] - self.elo[b]
        var = self.variance(a, b)
        if var <= 1e-18:
            return 0.5 if abs(d) < 1e-9 else float(d > 0)
        return NormalDist().cdf(d / math.sqrt(var))


def batch_fit(bots: list[str], comps: Comparisons, seed: int = 0, confidence: str = "sandwich",
              replicates: int = BOOTSTRAP, level: float = 0.95) -> BatchFit:
    """Point estimate and confidence of the Bradley–Terry ratings of ``bots``
    (``comps.n_bots`` of them) from their rated matches, in any order.
    ``confidence``: ``"sandwich"`` (default) or ``"bootstrap"`` (seeded
    by ``seed``). Raises :class:`TooLarge` for a bootstrap above
    :data:`BOOTSTRAP_LIMIT` or more than :data:`MAX_BOTS` bots, ``ValueError``
    for an unknown method."""
    if confidence not in METHODS:
        raise ValueError(f"confidence must be one of {', '.join(METHODS)}, got {confidence!r}")
    n = comps.n_bots
    if n > MAX_BOTS:
        raise TooLarge(f"{n:,} bots: the fit solves an N x N system and is limited to {MAX_BOTS:,} bots")
    a, b, s, w, row = comps.pairwise()  # C comparisons
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    pairs = PairTotals.of(n, a, b, s, w)
    theta, hess = fit_pairs(n, pairs)
    elo = theta * ELO_PER_UNIT
    per_bot = np.bincount(a, w, minlength=n) + np.bincount(b, w, minlength=n)
    out = BatchFit(list(bots), [float(x) for x in elo], [float(x) for x in elo], [float(x) for x in elo],
                   [float(x) for x in per_bot], confidence)
    inv = np.linalg.inv(hess)
    if confidence == "bootstrap":
        reps = _bootstrap(comps, a, b, s, w, row, seed, replicates)
        out.replicates = reps
        out.cov = np.cov(reps, rowvar=False) if reps.shape[0] > 1 else np.zeros((n, n))
    else:
        unit_bots, g = unit_scores(comps, theta)
        cov = inv @ score_spread(n, unit_bots, g) @ inv * (ELO_PER_UNIT ** 2)
        if len(g) > 1:  # few units: Student's t with U - 1 degrees of freedom, as a variance factor
            cov *= (t_quantile(0.5 + level / 2.0, len(g) - 1) / z) ** 2
        out.cov = cov
    out.floor = laplace_floor(inv, per_bot > 0)
    half = z * np.sqrt([out.variance(i) for i in range(n)])
    out.low = [float(x) for x in elo - half]
    out.high = [float(x) for x in elo + half]
    return out


def laplace_floor(inv_hess: np.ndarray, played: np.ndarray) -> np.ndarray:
    """The model-based (Laplace) covariance of the centred ratings, in Elo
    points² (N × N): ``H⁻¹`` (``inv_hess``, natural units; overwritten)
    over the bots that took part in a comparison (``played``, N booleans),
    centred over them as the ratings are (they sum to 0), and 0 for the
    others (a bot without a match has no interval). O(N²)."""
    if not played.any():
        return np.zeros_like(inv_hess)
    block = inv_hess if played.all() else inv_hess[np.ix_(played, played)]
    block -= block.mean(axis=0)
    block -= block.mean(axis=1, keepdims=True)
    block *= ELO_PER_UNIT ** 2
    if block is inv_hess:
        return block
    out = np.zeros_like(inv_hess)
    out[np.ix_(played, played)] = block
    return out


def _bootstrap(comps: Comparisons, a: np.ndarray, b: np.ndarray, s: np.ndarray, w: np.ndarray, row: np.ndarray,
               seed: int, replicates: int) -> np.ndarray:
    """Replicate ratings (B × N, Elo points): units drawn with replacement, refitted."""
    n = comps.n_bots
    cost = replicates * max(1, len(a))
    if cost > BOOTSTRAP_LIMIT:
        raise TooLarge(f"a bootstrap of {replicates:,} refits over {len(a):,} comparisons is too large "
                       f"({cost:,} comparison-refits, the limit is {BOOTSTRAP_LIMIT:,}); the default "
                       "confidence (sandwich: a cluster-robust covariance) needs no refit")
    unit_no = np.unique(comps.unit, return_inverse=True)[1].reshape(-1)
    units = int(unit_no.max()) + 1 if len(unit_no) else 0
    if units == 0 or replicates <= 0:
        return np.zeros((0, n))
    rng = np.random.default_rng(seed)
    reps = np.zeros((replicates, n))
    unit_of = unit_no[row]
    for k in range(replicates):
        draws = np.bincount(rng.integers(0, units, units), minlength=units).astype(float)
        ww = w * draws[unit_of]
        keep = ww > 0
        reps[k] = fit_pairs(n, PairTotals.of(n, a[keep], b[keep], s[keep], ww[keep]))[0] * ELO_PER_UNIT
    return reps
