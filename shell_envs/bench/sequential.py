"""Head-to-head statistics: pentanomial Elo, fishtest's GSPRT, and paired tests for Scorpion.

**What the Shell** matches are played in colour-swapped pairs from one opening; a pair is
summarised by the half-points player A scored in it, 0 (lost both) … 4 (won both), and a
match by the *pentanomial* counts of those five results.  From them:

* [`elo_from_pentanomial`][]: the logistic Elo difference of A over B, its interval and the
  likelihood of superiority (LOS), as fishtest's ``stat_util.get_elo``: an interval on A's
  mean score with the variance *between pairs* (so the correlation of the two games of a pair
  is accounted for), mapped through ``elo = -400 log10(1/s - 1)``; Student's t where fishtest
  takes the normal quantile.
* [`SPRT`][]: fishtest's generalized sequential probability ratio test (GSPRT) of
  ``elo = elo0`` against ``elo = elo1``.  Its log-likelihood ratio is
  ``sum_i n_i log(p1_i / p0_i)``, where ``p0`` and ``p1`` are the maximum-likelihood pentanomial
  distributions whose expected score is ``L(elo0)`` and ``L(elo1)`` (``LLRcalc.MLE_expected``:
  ``p_i = phat_i / (1 + lambda (a_i - s))``, ``lambda`` the root of the secular equation
  ``sum_i phat_i (a_i - s) / (1 + lambda (a_i - s)) = 0``), or, for the ``normalized`` model,
  whose t-value ``(mu - 1/2) / sigma`` is fixed (``LLRcalc.MLE_t_value``).  Zero counts are
  replaced by 1e-3 first, as fishtest's ``LLRcalc.regularize`` does.  The test stops at Wald's
  bounds ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``.

**Scorpion** matches play both agents on the same deals, so outcomes are paired per deal:

* [`paired_wins`][]: the win-rate difference ``(a_only - b_only) / deals`` with an exact
  interval.  Conditional on the ``n`` discordant deals (one agent won, the other lost), A's
  share of them is ``Binomial(n, q)``, and the difference is ``pi_d (2 q - 1)`` with ``pi_d``
  the discordance rate.  Both get a Clopper–Pearson interval (``q`` at level ``1 - 4 alpha/5``,
  ``pi_d`` at ``1 - alpha/5``); the interval is the range of ``pi_d (2 q - 1)`` over both, so it
  holds the true difference with probability at least ``1 - alpha`` (Bonferroni).  Mapping
  ``q``'s interval with the *observed* ``n / deals`` alone is exact only conditionally: it
  covers the difference far less often than nominal when one agent wins most discordant deals
  (``benchmarks/sprt_check.py`` measures both).
* [`score_difference`][]: the mean per-deal score difference with the paired t interval
  (open when every deal gave the same difference).
* [`PairedSPRT`][]: the same GSPRT on per-deal outcomes ``+1`` (only A won), ``0`` (tie),
  ``-1`` (only B won), testing the win-rate difference ``E[x] = p0`` against ``p1``.

The GSPRT for both games is one function, [`gsprt_llr`][], vectorised for simulation.
Followed: fishtest ``server/fishtest/stats/LLRcalc.py`` and ``stat_util.py`` at
official-stockfish/fishtest commit b8eecff220b562a0dc2c4e68d1fa02521e06d72c (the files as
last changed in 93fe81eb8256b870ab759ec4470f6251fe985827).  Not followed: fishtest's dynamic
overshoot correction of the bounds, which corrects for LLR updates in batches; here the
decision is taken after every pair.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.stats import beta as beta_dist
from scipy.stats import t as t_dist

__all__ = [
    "PENTANOMIAL_SCORES",
    "EloEstimate",
    "MeanDifference",
    "PairedSPRT",
    "PairedWins",
    "SPRT",
    "elo_from_pentanomial",
    "elo_from_score",
    "gsprt_llr",
    "logistic_score",
    "paired_wins",
    "pentanomial",
    "score_difference",
]

PENTANOMIAL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # A's mean score per game in a pair
PAIRED_OUTCOMES = np.array([-1.0, 0.0, 1.0])  # per deal: only B won, tie, only A won
REGULARIZATION = 1e-3  # fishtest's LLRcalc.regularize: what a zero count becomes in the LLR
NELO_PER_T = 800.0 / math.log(10.0)  # normalized Elo per unit of t-value (LLRcalc)
MAX_ELO = 1000.0  # SPRT bounds beyond this are scores within 0.3 % of 0 or 1
_SECULAR_ITERATIONS = 200
_T_VALUE_ITERATIONS = 10  # LLRcalc.MLE_t_value's fixed-point iterations


def logistic_score(elo: float) -> float:
    """Expected score per game of one ``elo`` (logistic) stronger: ``1/(1+10^(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """Logistic Elo of a mean score per game, ``-400 log10(1/s - 1)``; ``±inf`` at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no -0.0 at a score of 1/2


def _shown_number(value: object) -> str:
    """A number as a user typed it (``0.7``, not ``np.float64(0.7)``), anything else as repr."""
    return f"{value:g}" if isinstance(value, Real) else repr(value)


def _check_confidence(confidence: float) -> None:
    if not (isinstance(confidence, Real) and 0.0 < confidence < 1.0):
        raise ValueError(
            f"confidence ({_shown_number(confidence)}) must be a number between 0 and 1"
        )


def _shown(arr: np.ndarray) -> str:
    """A count vector as a list, or a batch by its worst entry, for an error message."""
    return str(arr.tolist()) if arr.ndim == 1 else f"an entry {arr.min()!r}"


def _check_counts(counts: object, size: int, what: str) -> np.ndarray:
    """``counts`` as an int64 array of shape ``(..., size)``, or a ValueError naming the problem."""
    arr = np.asarray(counts)
    if arr.ndim == 0 or arr.shape[-1] != size:
        raise ValueError(f"{what} must have {size} entries, got shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.integer):
        values = arr.astype(np.int64, copy=False)
    elif np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{what} must be whole numbers, got {_shown(arr)}")
        values = arr.astype(np.int64)
    else:
        raise ValueError(f"{what} must be whole numbers, got {arr.dtype} values")
    if np.any(values < 0):
        raise ValueError(f"{what} must not be negative, got {_shown(arr)}")
    return values


def pentanomial(pair_points: Sequence[int]) -> np.ndarray:
    """Counts of game pairs in which A scored 0, 1, 2, 3 and 4 half-points (shape ``(5,)``)."""
    points = np.asarray(pair_points)
    if points.size == 0:
        return np.zeros(5, dtype=np.int64)
    if points.ndim != 1 or not np.issubdtype(points.dtype, np.integer):
        raise ValueError(
            "pair points must be a flat list of whole half-points 0..4, "
            f"got {points.dtype} values of shape {points.shape}"
        )
    bad = np.flatnonzero((points < 0) | (points > 4))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"pair points must be half-points 0..4 that A scored in a pair, got {points[i]} "
            f"at position {i}"
        )
    return np.bincount(points, minlength=5).astype(np.int64)


def _secular_root(phat: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The root ``x`` of ``sum_i phat_i c_i / (1 + x c_i) = 0`` along the last axis.

    ``phat > 0`` everywhere and each row of ``c`` straddles zero; the root is unique in
    ``(-1/max c, -1/min c)``, where the sum decreases from +inf to -inf.  Newton's method,
    kept inside a shrinking bracket by bisection (``LLRcalc.secular`` uses Brent's method).
    """
    lo = -1.0 / c.max(axis=-1)
    hi = -1.0 / c.min(axis=-1)
    x = np.zeros(lo.shape)
    for _ in range(_SECULAR_ITERATIONS):
        denom = 1.0 + x[..., None] * c
        f = np.sum(phat * c / denom, axis=-1)
        slope = -np.sum(phat * (c / denom) ** 2, axis=-1)
        lo = np.where(f > 0, x, lo)
        hi = np.where(f > 0, hi, x)
        new = x - f / slope
        new = np.where((new >= lo) & (new <= hi), new, 0.5 * (lo + hi))
        done = np.abs(new - x) <= 1e-13 * (1.0 + np.abs(x))
        x = new
        if np.all(done):
            break
    return x


def _regularized(counts: np.ndarray) -> np.ndarray:
    return np.where(counts == 0, REGULARIZATION, counts.astype(np.float64))


def _mle_log_ratio(phat: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``log(phat_i / p_i)`` for the constrained MLE ``p_i = phat_i / (1 + x c_i)``."""
    if np.any(c.max(axis=-1) <= 0) or np.any(c.min(axis=-1) >= 0):
        raise ValueError("the hypothesised mean lies outside the range of the possible outcomes")
    x = _secular_root(phat, c)
    return np.log1p(x[..., None] * c)


def gsprt_llr(counts: object, values: object, mean0: float, mean1: float) -> np.ndarray:
    """Generalized log-likelihood ratio of mean ``mean1`` against ``mean0`` (vectorised).

    ``counts[..., i]`` is how often outcome ``values[i]`` was seen.  Each hypothesis's
    distribution is the maximum-likelihood one over ``values`` with that mean (fishtest's
    ``LLRcalc.MLE_expected``); zero counts count as 1e-3 (``LLRcalc.regularize``).  Rows with
    no observations give 0.  Returns an array of ``counts.shape[:-1]``.
    """
    vals = np.asarray(values, dtype=np.float64)
    n = _check_counts(counts, vals.size, "outcome counts")
    if not (vals.min() < mean0 < vals.max() and vals.min() < mean1 < vals.max()):
        raise ValueError(
            f"means {mean0:g} and {mean1:g} must lie strictly between the smallest and largest "
            f"outcome ({vals.min():g}, {vals.max():g})"
        )
    reg = _regularized(n)
    total = reg.sum(axis=-1, keepdims=True)
    phat = reg / total
    shape = phat.shape
    log0 = _mle_log_ratio(phat, np.broadcast_to(vals - mean0, shape))
    log1 = _mle_log_ratio(phat, np.broadcast_to(vals - mean1, shape))
    llr = np.sum(reg * (log0 - log1), axis=-1)
    return np.where(n.sum(axis=-1) == 0, 0.0, llr)


def _t_value_llr(counts: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """GSPRT for the t-value ``(mu - 1/2) / sigma`` of the pair score (``LLRcalc.MLE_t_value``)."""
    reg = _regularized(counts)
    total = reg.sum(axis=-1, keepdims=True)
    phat = reg / total
    a = PENTANOMIAL_SCORES
    logs = []
    for t in (t0, t1):
        p = np.full(phat.shape, 1.0 / a.size)
        for _ in range(_T_VALUE_ITERATIONS):
            mu = np.sum(p * a, axis=-1, keepdims=True)
            sigma = np.sqrt(np.sum(p * (a - mu) ** 2, axis=-1, keepdims=True))
            c = a - 0.5 - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0
            log_ratio = _mle_log_ratio(phat, c)
            new = phat / np.exp(log_ratio)
            change = np.max(np.abs(new - p))
            p = new
            if change < 1e-9:
                break
        logs.append(np.log(phat / p))
    llr = np.sum(reg * (logs[0] - logs[1]), axis=-1)
    return np.where(counts.sum(axis=-1) == 0, 0.0, llr)


def _check_error_rates(alpha: float, beta: float) -> None:
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(value, Real) and 0.0 < value <= 0.5):
            raise ValueError(
                f"{name} ({_shown_number(value)}) must be above 0 and at most 0.5: it is "
                "the largest acceptable chance of a wrong decision"
            )


def _wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    return (math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))


def _decide(llr: float, bounds: tuple[float, float]) -> str | None:
    if llr >= bounds[1]:
        return "H1"
    if llr <= bounds[0]:
        return "H0"
    return None


@dataclass(frozen=True)
class EloEstimate:
    """Logistic Elo of A over B with its interval, LOS, pairs played and A's mean score."""

    elo: float
    lower: float
    upper: float
    los: float
    pairs: int
    score: float


def _same_every_pair(score: float, pairs: int, alpha: float) -> tuple[float, float]:
    """Score interval when all ``pairs`` pairs scored ``score``, for any pair-score distribution.

    A sweep (every pair won, or every pair lost) has probability at most ``mu^pairs`` (Markov:
    ``P(X = 1) <= E[X]`` on [0, 1]), so mean scores ``mu`` below ``(alpha/2)^(1/pairs)`` are
    excluded; otherwise Hoeffding's interval ``score ± sqrt(log(2/alpha) / (2 pairs))``.
    """
    if score == 1.0:
        return ((alpha / 2) ** (1.0 / pairs), 1.0)
    if score == 0.0:
        return (0.0, 1.0 - (alpha / 2) ** (1.0 / pairs))
    half = math.sqrt(math.log(2.0 / alpha) / (2.0 * pairs))
    return (max(score - half, 0.0), min(score + half, 1.0))


def elo_from_pentanomial(counts: object, confidence: float = 0.95) -> EloEstimate:
    """Elo difference, interval and LOS from pentanomial counts (fishtest's ``get_elo``).

    The interval is on A's mean score with the between-pairs variance, mapped to Elo (a score
    of 0 or 1 maps to ∓inf / ±inf).  Unlike fishtest it uses Student's t quantile on
    ``pairs - 1`` degrees of freedom and the unbiased variance (LOS likewise): the same for
    long matches, but it keeps its coverage with few pairs, where the normal quantile's falls to
    91–94 % at 20 pairs (``benchmarks/results/sprt_check.md``).  If every pair scored the same
    (one pair included) that interval would be a point; then the interval is one valid for any
    distribution of pair scores (``_same_every_pair``), and LOS is 1, 0 or 1/2 by the score.
    """
    _check_confidence(confidence)
    n = _check_counts(counts, 5, "pentanomial counts")
    if n.ndim != 1:
        raise ValueError(f"pentanomial counts must be one list of 5 counts, got shape {n.shape}")
    pairs = int(n.sum())
    if pairs == 0:
        raise ValueError("no finished game pairs: an Elo estimate needs at least one")
    weights = n / pairs
    score = float(np.dot(weights, PENTANOMIAL_SCORES))
    variance = float(np.dot(weights, (PENTANOMIAL_SCORES - score) ** 2))
    if variance > 0:
        se = math.sqrt(variance / (pairs - 1))
        half = float(t_dist.ppf(0.5 + confidence / 2, pairs - 1)) * se
        low, high = max(score - half, 0.0), min(score + half, 1.0)
        los = float(t_dist.cdf((score - 0.5) / se, pairs - 1))
    else:
        low, high = _same_every_pair(score, pairs, 1.0 - confidence)
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return EloEstimate(
        elo=elo_from_score(score),
        lower=elo_from_score(low),
        upper=elo_from_score(high),
        los=los,
        pairs=pairs,
        score=score,
    )


@dataclass(frozen=True)
class SPRT:
    """fishtest's GSPRT on pentanomial counts: H1 ``elo = elo1`` against H0 ``elo = elo0``.

    ``model="logistic"`` takes logistic Elo bounds (expected score ``L(elo)``);
    ``"normalized"`` takes normalized Elo (fishtest's ``LLR_normalized``).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        """Reject bounds in the wrong order, error rates outside (0, 0.5], unknown models."""
        for name, value in (("ELO0", self.elo0), ("ELO1", self.elo1)):
            if not isinstance(value, Real) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
            if abs(value) > MAX_ELO:
                raise ValueError(f"{name} ({value:g}) must lie within ±{MAX_ELO:g} Elo")
        if not self.elo0 < self.elo1:
            raise ValueError(f"ELO0 ({self.elo0:g}) must be below ELO1 ({self.elo1:g})")
        _check_error_rates(self.alpha, self.beta)
        if self.model not in ("logistic", "normalized"):
            raise ValueError(f"unknown SPRT model {self.model!r}: use 'logistic' or 'normalized'")

    def bounds(self) -> tuple[float, float]:
        """Wald's stopping bounds ``(log(beta/(1-alpha)), log((1-beta)/alpha))``."""
        return _wald_bounds(self.alpha, self.beta)

    def llr_batch(self, counts: object) -> np.ndarray:
        """The log-likelihood ratio of many pentanomial count vectors (shape ``(..., 5)``)."""
        n = _check_counts(counts, 5, "pentanomial counts")
        if self.model == "logistic":
            s0, s1 = logistic_score(self.elo0), logistic_score(self.elo1)
            return gsprt_llr(n, PENTANOMIAL_SCORES, s0, s1)
        t0, t1 = (elo / NELO_PER_T * math.sqrt(2.0) for elo in (self.elo0, self.elo1))
        return _t_value_llr(n, t0, t1)

    def llr(self, counts: object) -> float:
        """The generalized log-likelihood ratio of the pentanomial counts (0 before any pair)."""
        n = _check_counts(counts, 5, "pentanomial counts")
        if n.ndim != 1:
            raise ValueError(f"pentanomial counts must be one list of 5 counts, got {n.shape}")
        return float(self.llr_batch(n))

    def decision(self, counts: object) -> str | None:
        """``"H1"`` (A is better by ``elo1``), ``"H0"`` (not better by ``elo0``) or ``None``."""
        return _decide(self.llr(counts), self.bounds())


@dataclass(frozen=True)
class PairedWins:
    """Scorpion deals both agents played: who won, and A's win rate minus B's with its interval."""

    deals: int
    a_only: int
    b_only: int
    both: int
    neither: int
    difference: float
    lower: float
    upper: float


def _bools(values: Sequence[bool], name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a flat list of won/lost flags, got shape {arr.shape}")
    if arr.size and not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must hold only True/False (won/lost) per deal")
    return arr.astype(bool)


def _clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Exact two-sided ``1 - alpha`` interval of a binomial proportion; ``(0, 1)`` if no trials."""
    if trials == 0:
        return (0.0, 1.0)
    failures = trials - successes
    low = 0.0 if successes == 0 else float(beta_dist.ppf(alpha / 2, successes, failures + 1))
    high = 1.0 if failures == 0 else float(beta_dist.ppf(1 - alpha / 2, successes + 1, failures))
    return (low, high)


def paired_wins(
    a_won: Sequence[bool], b_won: Sequence[bool], confidence: float = 0.95
) -> PairedWins:
    """Win-rate difference A − B over the same deals, with an exact interval (module docstring)."""
    _check_confidence(confidence)
    a = _bools(a_won, "a_won")
    b = _bools(b_won, "b_won")
    if a.size != b.size:
        raise ValueError(f"a_won has {a.size} deals but b_won has {b.size}: pair them per deal")
    deals = int(a.size)
    if deals == 0:
        raise ValueError("no deals played: a win-rate difference needs at least one")
    a_only = int(np.sum(a & ~b))
    b_only = int(np.sum(b & ~a))
    discordant = a_only + b_only
    alpha = 1.0 - confidence
    q_low, q_high = _clopper_pearson(a_only, discordant, 4.0 * alpha / 5.0)
    d_low, d_high = _clopper_pearson(discordant, deals, alpha / 5.0)
    low_edge, high_edge = 2.0 * q_low - 1.0, 2.0 * q_high - 1.0
    return PairedWins(
        deals=deals,
        a_only=a_only,
        b_only=b_only,
        both=int(np.sum(a & b)),
        neither=int(np.sum(~a & ~b)),
        difference=(a_only - b_only) / deals,
        lower=(d_high if low_edge < 0 else d_low) * low_edge,
        upper=(d_high if high_edge > 0 else d_low) * high_edge,
    )


@dataclass(frozen=True)
class MeanDifference:
    """Mean of paired differences A − B with its interval, over ``n`` pairs; ``lower`` and
    ``upper`` are ``None`` when every difference was the same (no spread to size it by)."""

    mean: float
    lower: float | None
    upper: float | None
    n: int


def score_difference(
    a_scores: Sequence[float], b_scores: Sequence[float], confidence: float = 0.95
) -> MeanDifference:
    """Mean score difference A − B per deal with the paired t interval (Student's t on the
    per-deal differences).  When every deal gave the same difference the t interval would
    have no width, which the data cannot support: the interval is then left open (``None``)."""
    _check_confidence(confidence)
    a = np.asarray(a_scores, dtype=np.float64)
    b = np.asarray(b_scores, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("a_scores and b_scores must be flat lists of one score per deal")
    if a.size != b.size:
        raise ValueError(f"a_scores has {a.size} deals but b_scores has {b.size}: pair them")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("scores must be finite numbers")
    if a.size < 2:
        raise ValueError(f"a paired interval needs at least 2 deals, got {a.size}")
    diff = a - b
    mean = float(diff.mean())
    if np.all(diff == diff[0]):
        return MeanDifference(mean=mean, lower=None, upper=None, n=int(diff.size))
    half = float(t_dist.ppf(0.5 + confidence / 2, diff.size - 1)) * float(
        diff.std(ddof=1) / math.sqrt(diff.size)
    )
    return MeanDifference(mean=mean, lower=mean - half, upper=mean + half, n=int(diff.size))


@dataclass(frozen=True)
class PairedSPRT:
    """GSPRT on per-deal outcomes (+1 only A won, 0 tie, -1 only B won): H1 ``E = p1`` vs H0 ``p0``.

    ``p0`` and ``p1`` are win-rate differences as fractions (0.05 = five points).
    """

    p0: float
    p1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        """Reject bounds in the wrong order or outside (-1, 1), and error rates outside (0, 0.5]."""
        for name, value in (("P0", self.p0), ("P1", self.p1)):
            if not isinstance(value, Real) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
            if not -1.0 < value < 1.0:
                raise ValueError(
                    f"{name} ({value:g}) must be a win-rate difference strictly between -1 and 1"
                )
        if not self.p0 < self.p1:
            raise ValueError(f"P0 ({self.p0:g}) must be below P1 ({self.p1:g})")
        _check_error_rates(self.alpha, self.beta)

    def bounds(self) -> tuple[float, float]:
        """Wald's stopping bounds ``(log(beta/(1-alpha)), log((1-beta)/alpha))``."""
        return _wald_bounds(self.alpha, self.beta)

    def llr_batch(self, counts: object) -> np.ndarray:
        """Log-likelihood ratios of many ``(b_only, ties, a_only)`` counts, shape ``(..., 3)``."""
        return gsprt_llr(counts, PAIRED_OUTCOMES, self.p0, self.p1)

    def llr(self, a_only: int, b_only: int, ties: int) -> float:
        """The generalized log-likelihood ratio of the deals so far (0 before any deal)."""
        return float(self.llr_batch(np.array([b_only, ties, a_only])))

    def decision(self, a_only: int, b_only: int, ties: int) -> str | None:
        """``"H1"`` (A's win rate is ahead by ``p1``), ``"H0"`` (not by ``p0``) or ``None``."""
        return _decide(self.llr(a_only, b_only, ties), self.bounds())
