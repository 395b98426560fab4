"""Simulated matches with a known truth: do `shell_envs.bench.sequential`'s tests keep promises?

    python benchmarks/sprt_check.py --reps 2000 --coverage-reps 2000 --seed 0 \\
        --out benchmarks/results/sprt_check

**What the Shell.**  A game pair is two games from one opening with the seats swapped.  The
opening favours one seat by ``b`` (score units), drawn per pair uniformly with RMS ``r``; A's
expected score is ``s + b`` in the first game and ``s - b`` in the second, ``s = L(elo)`` the
true logistic Elo of A over B.  A game is drawn with probability ``d`` (the draw ratio), won
with ``s ± b - d/2`` and lost with the rest.  The two games of a pair are therefore
correlated through ``b`` (the opening bias cancels in the pair, the reason for pentanomial
statistics), the expected score of every pair is exactly ``s``, and the per-game variance of
the pair mean is ``s - d/4 - s^2 - r^2``: at ``s = 1/2`` fishtest's SPRT calculator's model
(``server/fishtest/static/js/sprt.js``: ``variance = (1 - draw_ratio)/4 - rms_bias_score^2``,
``rms_bias_score = L(rms_bias) - 1/2``).

* SPRT: ``--reps`` tests at true Elo = ELO0 and as many at ELO1, each pair by pair with
  :class:`~shell_envs.bench.sequential.SPRT`'s decision checked after every pair.  The false
  positives (H1 accepted at ELO0) must stay within alpha and the false negatives (H0 at ELO1)
  within beta; each rate has its Wilson 95 % interval.  The mean number of games to a
  decision is compared with fishtest's expectation (``sprt.js``'s ``Sprt.characteristics``:
  the Brownian approximation, ``games = T / w2`` with ``w2 = (s1 - s0)^2 / variance``,
  ``T = 2/h (LB P + LA (1 - P))``, ``h = (2 s - s0 - s1) / (s1 - s0)``).
* Elo interval: ``--coverage-reps`` matches of a fixed number of pairs per setting (true Elo,
  draw ratio, pairs); the share of :func:`~shell_envs.bench.sequential.elo_from_pentanomial`'s
  95 % intervals that hold the true Elo (target: at least 94 %), beside fishtest's
  ``get_elo`` interval (normal quantile, variance over ``pairs``; not used).

**Scorpion.**  Both agents play the same deals; a deal's outcome is ``+1`` (only A won), ``0``
(both or neither) or ``-1`` (only B won).  Deals are independent, so whatever makes one deal
hard for both agents (the correlation the pairing removes) acts only through the three
probabilities of ``x``, which the simulation sets directly: the discordance rate ``D`` (the
chance exactly one agent wins) and the win-rate difference ``delta``.

* PairedSPRT: false positives at ``delta = P0`` and false negatives at ``P1`` as above, and
  the mean number of deals against the same Brownian formula with the variance of ``x``.
* ``paired_wins``: coverage of its exact interval for several win rates and deal counts,
  beside the interval that maps ``q``'s Clopper–Pearson interval with the observed
  discordance alone (exact only conditionally on it, not used).
* ``score_difference``: coverage of the paired t interval for scores ``Binomial(52, p)`` with
  a deal difficulty shared by both agents.

Writes ``OUT.json`` and ``OUT.md`` and prints the markdown.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import beta as beta_dist
from scipy.stats import binomtest

from shell_envs.bench.sequential import (
    SPRT,
    PairedSPRT,
    elo_from_pentanomial,
    logistic_score,
    paired_wins,
    score_difference,
)

RESULTS = Path(__file__).with_name("results")
SPRT_BOUNDS = ((0.0, 5.0), (0.0, 10.0), (0.0, 50.0))
SPRT_DRAW_RATIO = 0.3
RMS_BIAS_ELO = 60.0
COVERAGE_ELOS = (0.0, 20.0, 100.0, 300.0)
COVERAGE_DRAWS = (0.0, 0.3, 0.6)
COVERAGE_PAIRS = (20, 100, 1000)
PAIRED_BOUNDS = ((0.0, 0.05), (0.0, 0.10))
PAIRED_DISCORDANCE = 0.3
WIN_CASES = (  # (P(only A wins), P(only B wins), deals)
    (0.10, 0.10, 100),
    (0.10, 0.10, 500),
    (0.40, 0.40, 300),
    (0.20, 0.05, 200),
    (0.30, 0.03, 500),
    (0.05, 0.00, 100),
    (0.02, 0.01, 50),
    (0.50, 0.10, 1000),
)
SCORE_DEALS = (20, 100, 500)
SCORE_SHIFTS = (0.0, 0.05)
BLOCK = 128


@dataclass(frozen=True)
class PairModel:
    """Game pairs from one opening, seats swapped: true Elo, draw ratio and RMS opening bias."""

    elo: float
    draw: float
    bias: float  # RMS of the opening bias, score units

    @property
    def score(self) -> float:
        """A's expected score per game, ``L(elo)``."""
        return logistic_score(self.elo)

    def check(self) -> None:
        """The win and loss chances of every game must lie in [0, 1]."""
        reach = math.sqrt(3.0) * self.bias + abs(self.score - 0.5)
        if reach > 0.5 - self.draw / 2 + 1e-12:
            raise ValueError(f"{self}: a game's win or loss chance would be negative")

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Half-points A scored in each pair (0..4), array of ``shape``."""
        b = rng.uniform(-math.sqrt(3.0) * self.bias, math.sqrt(3.0) * self.bias, size=shape)
        total = np.zeros(shape, dtype=np.int64)
        for expected in (self.score + b, self.score - b):
            u = rng.random(shape)
            win = u < expected - self.draw / 2
            draw = ~win & (u < expected + self.draw / 2)
            total += 2 * win + draw
        return total

    def game_variance(self) -> float:
        """Per-game variance of A's mean score over a pair, times 2: ``s - d/4 - s^2 - r^2``."""
        s = self.score
        return s - self.draw / 4 - s * s - self.bias**2


def fishtest_expectation(
    score: float, s0: float, s1: float, variance: float, alpha: float, beta: float
) -> tuple[float, float]:
    """(pass probability, expected samples) by fishtest's ``sprt.js`` (Brownian approximation)."""
    la, lb = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    h = (2 * score - (s0 + s1)) / (s1 - s0)
    if abs(h * (la - lb)) < 1e-6:
        p, t = -la / (lb - la), -la * lb
    else:
        exp_a, exp_b = math.exp(-h * la), math.exp(-h * lb)
        p = (1 - exp_a) / (exp_b - exp_a)
        t = (2 / h) * (lb * p + la * (1 - p))
    return p, t / ((s1 - s0) ** 2 / variance)


def sequential_run(
    llr_batch: Any,
    sample: Any,
    bounds: tuple[float, float],
    reps: int,
    width: int,
    max_steps: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Run ``reps`` sequential tests step by step; (decision +1 H1 / -1 H0 / 0 none, steps).

    ``sample(rng, shape)`` draws outcome indices in ``0..width-1``; ``llr_batch`` maps counts
    of shape ``(..., width)`` to log-likelihood ratios.  Blocks of steps are drawn at once, the
    LLR evaluated after every step, and a test stops at its first bound crossing.
    """
    counts = np.zeros((reps, width), dtype=np.int64)
    decision = np.zeros(reps, dtype=np.int64)
    steps = np.full(reps, max_steps, dtype=np.int64)
    active = np.arange(reps)
    done_steps = 0
    while active.size and done_steps < max_steps:
        outcome = sample(rng, (active.size, BLOCK))
        onehot = np.eye(width, dtype=np.int64)[outcome]
        cumulative = counts[active][:, None, :] + np.cumsum(onehot, axis=1)
        llr = llr_batch(cumulative)
        upper, lower = llr >= bounds[1], llr <= bounds[0]
        hit = upper | lower
        stopped = hit.any(axis=1)
        first = np.argmax(hit, axis=1)
        rows = active[stopped]
        at = first[stopped]
        decision[rows] = np.where(upper[stopped, at], 1, -1)
        steps[rows] = done_steps + at + 1
        counts[active] = cumulative[:, -1, :]
        active = active[~stopped]
        done_steps += BLOCK
    return decision, steps


def wilson(k: int, n: int) -> list[float]:
    """Wilson 95 % interval of ``k`` in ``n``."""
    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    return [float(ci.low), float(ci.high)]


def check_sprt(reps: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """False-positive and false-negative rates and durations of the pentanomial SPRT."""
    rows = []
    bias = logistic_score(RMS_BIAS_ELO) - 0.5
    for elo0, elo1 in SPRT_BOUNDS:
        test = SPRT(elo0, elo1)
        s0, s1 = logistic_score(elo0), logistic_score(elo1)
        variance = PairModel(0.0, SPRT_DRAW_RATIO, bias).game_variance()  # sprt.js: at s = 1/2
        for truth, wrong in ((elo0, 1), (elo1, -1)):
            model = PairModel(truth, SPRT_DRAW_RATIO, bias)
            model.check()
            p_pass, games = fishtest_expectation(model.score, s0, s1, variance, 0.05, 0.05)
            start = time.perf_counter()
            decision, pairs = sequential_run(
                test.llr_batch,
                model.sample,
                test.bounds(),
                reps,
                5,
                max_steps=int(50 * games / 2) + BLOCK,
                rng=rng,
            )
            errors = int(np.sum(decision == wrong))
            rows.append(
                {
                    "elo0": elo0,
                    "elo1": elo1,
                    "true_elo": truth,
                    "error": "false positive" if wrong == 1 else "false negative",
                    "reps": reps,
                    "errors": errors,
                    "rate": errors / reps,
                    "rate_wilson": wilson(errors, reps),
                    "limit": 0.05,
                    "undecided": int(np.sum(decision == 0)),
                    "mean_games": float(2 * pairs.mean()),
                    "median_games": float(2 * np.median(pairs)),
                    "fishtest_games": games,
                    "fishtest_error": p_pass if wrong == 1 else 1 - p_pass,
                    "seconds": time.perf_counter() - start,
                }
            )
    return rows


def check_elo_coverage(reps: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """How often the Elo interval holds the true Elo after a fixed number of pairs."""
    rows = []
    for elo in COVERAGE_ELOS:
        for draw in COVERAGE_DRAWS:
            s = logistic_score(elo)
            room = 0.5 - draw / 2 - abs(s - 0.5)
            if room <= 0:
                continue
            bias = min(logistic_score(RMS_BIAS_ELO) - 0.5, room / math.sqrt(3.0))
            model = PairModel(elo, draw, bias)
            model.check()
            for pairs in COVERAGE_PAIRS:
                points = model.sample(rng, (reps, pairs))
                counts = np.stack([np.sum(points == k, axis=1) for k in range(5)], axis=1)
                estimates = [elo_from_pentanomial(c) for c in counts]
                hold = sum(e.lower <= elo <= e.upper for e in estimates)
                widths = [e.upper - e.lower for e in estimates]
                mean = points.mean(axis=1) / 4
                half = 1.959964 * points.std(axis=1) / 4 / math.sqrt(pairs)
                normal = np.mean((mean - half <= model.score) & (model.score <= mean + half))
                rows.append(
                    {
                        "true_elo": elo,
                        "draw_ratio": draw,
                        "rms_bias_elo": -400 * math.log10(1 / (0.5 + bias) - 1),
                        "pairs": pairs,
                        "reps": reps,
                        "covered": hold,
                        "coverage": hold / reps,
                        "coverage_wilson": wilson(hold, reps),
                        "median_width": float(np.median(widths)),
                        "fishtest_normal_coverage": float(normal),
                    }
                )
    return rows


def trinomial_sampler(a_only: float, b_only: float) -> Any:
    """Per-deal outcome indices 0 (only B won), 1 (tie), 2 (only A won)."""
    cut = np.array([b_only, 1.0 - a_only])

    def sample(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return np.searchsorted(cut, rng.random(shape), side="right")

    return sample


def check_paired_sprt(reps: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """False-positive and false-negative rates and durations of the paired SPRT."""
    rows = []
    for p0, p1 in PAIRED_BOUNDS:
        test = PairedSPRT(p0, p1)
        for truth, wrong in ((p0, 1), (p1, -1)):
            a_only = (PAIRED_DISCORDANCE + truth) / 2
            b_only = (PAIRED_DISCORDANCE - truth) / 2
            variance = PAIRED_DISCORDANCE - truth**2
            p_pass, deals = fishtest_expectation(truth, p0, p1, variance, 0.05, 0.05)
            start = time.perf_counter()
            decision, used = sequential_run(
                test.llr_batch,
                trinomial_sampler(a_only, b_only),
                test.bounds(),
                reps,
                3,
                max_steps=int(50 * deals) + BLOCK,
                rng=rng,
            )
            errors = int(np.sum(decision == wrong))
            rows.append(
                {
                    "p0": p0,
                    "p1": p1,
                    "true_difference": truth,
                    "discordance": PAIRED_DISCORDANCE,
                    "error": "false positive" if wrong == 1 else "false negative",
                    "reps": reps,
                    "errors": errors,
                    "rate": errors / reps,
                    "rate_wilson": wilson(errors, reps),
                    "limit": 0.05,
                    "undecided": int(np.sum(decision == 0)),
                    "mean_deals": float(used.mean()),
                    "median_deals": float(np.median(used)),
                    "fishtest_deals": deals,
                    "fishtest_error": p_pass if wrong == 1 else 1 - p_pass,
                    "seconds": time.perf_counter() - start,
                }
            )
    return rows


def conditional_only(a: int, b: int, deals: int) -> tuple[float, float]:
    """q's 95 % Clopper–Pearson interval mapped with the observed discordance (not used)."""
    n = a + b
    if n == 0:
        return (0.0, 0.0)
    low = 0.0 if a == 0 else float(beta_dist.ppf(0.025, a, n - a + 1))
    high = 1.0 if a == n else float(beta_dist.ppf(0.975, a + 1, n - a))
    return (n / deals * (2 * low - 1), n / deals * (2 * high - 1))


def check_paired_coverage(reps: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Coverage of paired_wins' exact interval, beside the conditional-only mapping."""
    rows = []
    for a_only, b_only, deals in WIN_CASES:
        truth = a_only - b_only
        counts = rng.multinomial(deals, [a_only, b_only, 1 - a_only - b_only], size=reps)
        hold = hold_cond = 0
        widths, widths_cond = [], []
        for a, b, _ in counts:
            a_won = np.zeros(deals, dtype=bool)
            b_won = np.zeros(deals, dtype=bool)
            a_won[:a] = True
            b_won[a : a + b] = True
            result = paired_wins(a_won, b_won)
            hold += result.lower <= truth <= result.upper
            widths.append(result.upper - result.lower)
            low, high = conditional_only(int(a), int(b), deals)
            hold_cond += low <= truth <= high
            widths_cond.append(high - low)
        rows.append(
            {
                "a_only": a_only,
                "b_only": b_only,
                "deals": deals,
                "difference": truth,
                "reps": reps,
                "covered": int(hold),
                "coverage": hold / reps,
                "coverage_wilson": wilson(int(hold), reps),
                "mean_width": float(np.mean(widths)),
                "conditional_coverage": hold_cond / reps,
                "conditional_mean_width": float(np.mean(widths_cond)),
            }
        )
    return rows


def check_score_coverage(reps: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Coverage of score_difference's paired t interval: scores Binomial(52, p) per deal.

    A deal's difficulty ``p ~ Beta(2, 3)`` is shared by both agents; A plays it with ``p + shift``
    (clipped to [0, 1]), so the true mean difference is computed on a large sample.
    """
    rows = []
    for shift in SCORE_SHIFTS:
        difficulty = rng.beta(2, 3, size=2_000_000)
        truth = 52 * float(np.mean(np.clip(difficulty + shift, 0, 1) - difficulty))
        for deals in SCORE_DEALS:
            hold = 0
            widths = []
            for _ in range(reps):
                p = rng.beta(2, 3, size=deals)
                a = rng.binomial(52, np.clip(p + shift, 0, 1))
                b = rng.binomial(52, p)
                result = score_difference(a, b)
                assert result.lower is not None and result.upper is not None  # scores vary
                hold += result.lower <= truth <= result.upper
                widths.append(result.upper - result.lower)
            rows.append(
                {
                    "shift": shift,
                    "true_difference": truth,
                    "deals": deals,
                    "reps": reps,
                    "covered": int(hold),
                    "coverage": hold / reps,
                    "coverage_wilson": wilson(int(hold), reps),
                    "mean_width": float(np.mean(widths)),
                }
            )
    return rows


def rate_verdict(r: dict[str, Any]) -> str:
    """An error rate against its limit: within it, within simulation noise of it, or above."""
    if r["rate"] <= r["limit"]:
        return "within"
    return "within noise" if r["rate_wilson"][0] <= r["limit"] else "ABOVE"


def coverage_verdict(r: dict[str, Any], target: float) -> str:
    """A coverage against its target: reached, within simulation noise of it, or below."""
    if r["coverage"] >= target:
        return "reached"
    return "within noise" if r["coverage_wilson"][1] >= target else "BELOW"


def summary(data: dict[str, Any]) -> str:
    """One paragraph: the ranges of every checked rate and coverage."""
    errors = [r["rate"] for r in data["sprt"] + data["paired_sprt"]]
    above = sum(rate_verdict(r) == "ABOVE" for r in data["sprt"] + data["paired_sprt"])
    elo = [r["coverage"] for r in data["elo_coverage"]]
    paired = [r["coverage"] for r in data["paired_coverage"]]
    conditional = [r["conditional_coverage"] for r in data["paired_coverage"]]
    score = [r["coverage"] for r in data["score_coverage"]]
    return (
        f"Summary: SPRT and paired SPRT error rates {pct(min(errors))}–{pct(max(errors))} "
        f"(alpha = beta = 5%; {above} significantly above); Elo interval coverage "
        f"{pct(min(elo))}–{pct(max(elo))} (target at least 94%); exact paired win-rate "
        f"interval {pct(min(paired))}–{pct(max(paired))} (target at least 95%; the "
        f"conditional-only mapping {pct(min(conditional))}–{pct(max(conditional))}); paired t "
        f"interval of the score difference {pct(min(score))}–{pct(max(score))}."
    )


def pct(x: float) -> str:
    """A rate as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def interval(ci: list[float]) -> str:
    """A Wilson interval as percentages."""
    return f"[{pct(ci[0])}, {pct(ci[1])}]"


def markdown(data: dict[str, Any]) -> str:
    """The results as markdown tables."""
    out = [
        "# Sequential tests and head-to-head intervals, checked by simulation",
        "",
        f"Command: `{data['command']}`  ",
        f"Date: {data['date']}; Python {data['python']}, numpy {data['numpy']}; "
        f"{data['seconds']:.0f} s.",
        "",
        "Model and method: `benchmarks/sprt_check.py`'s docstring.  What the Shell SPRT: draw "
        f"ratio {SPRT_DRAW_RATIO}, RMS opening bias {RMS_BIAS_ELO:g} Elo, alpha = beta = 0.05, "
        "decision after every pair.  fishtest's columns: its SPRT calculator's Brownian "
        "approximation (`server/fishtest/static/js/sprt.js`) for the same draw ratio and bias.",
        "",
        summary(data),
        "",
        "## What the Shell: SPRT error rates and games to a decision",
        "",
        "| [ELO0, ELO1] | true Elo | error | rate | Wilson 95% | limit | fishtest's | "
        "mean games | median games | fishtest's games | undecided | verdict |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in data["sprt"]:
        out.append(
            f"| [{r['elo0']:g}, {r['elo1']:g}] | {r['true_elo']:g} | {r['error']} | "
            f"{pct(r['rate'])} | {interval(r['rate_wilson'])} | {pct(r['limit'])} | "
            f"{pct(r['fishtest_error'])} | {r['mean_games']:,.0f} | {r['median_games']:,.0f} | "
            f"{r['fishtest_games']:,.0f} | {r['undecided']} | {rate_verdict(r)} |"
        )
    out += [
        "",
        "## What the Shell: coverage of the 95% Elo interval after a fixed number of pairs",
        "",
        "`elo_from_pentanomial` (Student's t) beside fishtest's `get_elo` interval (normal "
        "quantile; not used).",
        "",
        "| true Elo | draw ratio | RMS opening bias (Elo) | pairs | coverage | Wilson 95% | "
        "median width (Elo) | fishtest's normal interval | at least 94% |",
        "|---:|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    for r in data["elo_coverage"]:
        out.append(
            f"| {r['true_elo']:g} | {r['draw_ratio']:g} | {r['rms_bias_elo']:.0f} | "
            f"{r['pairs']} | {pct(r['coverage'])} | {interval(r['coverage_wilson'])} | "
            f"{r['median_width']:.1f} | {pct(r['fishtest_normal_coverage'])} | "
            f"{coverage_verdict(r, 0.94)} |"
        )
    out += [
        "",
        "## Scorpion: paired SPRT error rates and deals to a decision",
        "",
        f"Discordance (exactly one agent wins a deal) {PAIRED_DISCORDANCE}.",
        "",
        "| [P0, P1] | true difference | error | rate | Wilson 95% | limit | fishtest's | "
        "mean deals | median deals | Brownian deals | undecided | verdict |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in data["paired_sprt"]:
        out.append(
            f"| [{r['p0']:g}, {r['p1']:g}] | {r['true_difference']:g} | {r['error']} | "
            f"{pct(r['rate'])} | {interval(r['rate_wilson'])} | {pct(r['limit'])} | "
            f"{pct(r['fishtest_error'])} | {r['mean_deals']:,.0f} | {r['median_deals']:,.0f} | "
            f"{r['fishtest_deals']:,.0f} | {r['undecided']} | {rate_verdict(r)} |"
        )
    out += [
        "",
        "## Scorpion: coverage of the exact 95% win-rate-difference interval",
        "",
        "`paired_wins`'s interval beside q's Clopper–Pearson interval mapped with the observed "
        "discordance only (exact conditionally on it; not used).",
        "",
        "| P(only A) | P(only B) | deals | coverage | Wilson 95% | mean width | "
        "conditional-only coverage | its mean width | at least 95% |",
        "|---:|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    for r in data["paired_coverage"]:
        out.append(
            f"| {r['a_only']:g} | {r['b_only']:g} | {r['deals']} | {pct(r['coverage'])} | "
            f"{interval(r['coverage_wilson'])} | {r['mean_width']:.3f} | "
            f"{pct(r['conditional_coverage'])} | {r['conditional_mean_width']:.3f} | "
            f"{coverage_verdict(r, 0.95)} |"
        )
    out += [
        "",
        "## Scorpion: coverage of the paired t interval of the mean score difference",
        "",
        "| A's shift | true difference (cards) | deals | coverage | Wilson 95% | mean width | "
        "95% |",
        "|---:|---:|---:|---:|---|---:|---|",
    ]
    for r in data["score_coverage"]:
        out.append(
            f"| {r['shift']:g} | {r['true_difference']:.3f} | {r['deals']} | "
            f"{pct(r['coverage'])} | {interval(r['coverage_wilson'])} | {r['mean_width']:.2f} | "
            f"{coverage_verdict(r, 0.95)} |"
        )
    return "\n".join(out) + "\n"


def main() -> None:
    """Run every check and write OUT.json and OUT.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=2000, help="sequential tests per truth")
    parser.add_argument("--coverage-reps", type=int, default=2000, help="matches per setting")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS / "sprt_check")
    args = parser.parse_args()
    if args.reps < 1 or args.coverage_reps < 1:
        parser.error("--reps and --coverage-reps must be at least 1")
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    data: dict[str, Any] = {
        "command": "python benchmarks/sprt_check.py "
        f"--reps {args.reps} --coverage-reps {args.coverage_reps} --seed {args.seed}",
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sprt": check_sprt(args.reps, rng),
        "elo_coverage": check_elo_coverage(args.coverage_reps, rng),
        "paired_sprt": check_paired_sprt(args.reps, rng),
        "paired_coverage": check_paired_coverage(args.coverage_reps, rng),
        "score_coverage": check_score_coverage(args.coverage_reps, rng),
    }
    data["seconds"] = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    text = markdown(data)
    args.out.with_suffix(".md").write_text(text, encoding="utf-8")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
