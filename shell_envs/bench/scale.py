"""What the Shell's fixed rating scale: anchor agents with shipped ratings, and fits against them.

The anchors (``random``, ``greedy``, ``mcts`` at 100, 400 and 1600 iterations a move, and the
learned agents ``learned`` and ``mcts-learned`` with the network weights shipped) were rated
once by a large round robin (``benchmarks/wts_anchors.py``), ``random`` = 0 on the Elo scale;
the table ships as ``shell_envs/data/wts_anchors.json`` with the date, the package
version and the games behind it.  A new agent plays games against each anchor and gets a
Bradley–Terry rating with the anchors held at their table values: the maximum-likelihood
solution of one equation (`scipy.optimize.brentq`), with one virtual draw per anchor so
that a clean sweep stays finite, and a percentile-bootstrap interval
(`scipy.stats.bootstrap`) from resampling the games against each anchor.  Ratings from
different runs, machines and papers are therefore on one scale.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
from scipy.optimize import brentq

from shell_envs.agents.spec import AgentSpec, parse_spec
from shell_envs.bench.tournament import ELO_SCALE, percentile_bootstrap

ANCHORS_FILE = "wts_anchors.json"
ANCHOR_SPECS = (
    "random",
    "greedy",
    "mcts-100=mcts:iterations=100",
    "mcts-400=mcts:iterations=400",
    "mcts-1600=mcts:iterations=1600",
    "learned",
    "mcts-learned",
)
RATING_BOUND = 10_000.0  # no rating beyond ±this many Elo points is ever fitted


@dataclass(frozen=True)
class Anchor:
    """One anchor of the scale: its label, spec, rating, 95% interval and games in the fit."""

    label: str
    spec: str
    rating: float
    ci: tuple[float, float]
    games: int

    @property
    def agent(self) -> AgentSpec:
        """The anchor's agent spec, labelled as in the table."""
        return parse_spec(f"{self.label}={self.spec}")


@dataclass(frozen=True)
class AnchorTable:
    """The shipped scale: anchors in rating order and how they were fitted."""

    anchors: tuple[Anchor, ...]
    reference: str
    date: str
    version: str
    games_per_pair: int
    seed: int
    max_rounds: int

    def __getitem__(self, label: str) -> Anchor:
        for anchor in self.anchors:
            if anchor.label == label:
                return anchor
        raise KeyError(f"no anchor {label!r}; anchors: {', '.join(self.labels)}")

    @property
    def labels(self) -> list[str]:
        """The anchors' labels, weakest first."""
        return [a.label for a in self.anchors]

    def to_dict(self) -> dict[str, Any]:
        """The table as JSON data (the shipped file's layout)."""
        return {
            "reference": self.reference,
            "date": self.date,
            "version": self.version,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "max_rounds": self.max_rounds,
            "anchors": {
                a.label: {"spec": a.spec, "rating": a.rating, "ci": list(a.ci), "games": a.games}
                for a in self.anchors
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnchorTable:
        """A table from its JSON data."""
        anchors = tuple(
            Anchor(
                label,
                a["spec"],
                float(a["rating"]),
                (float(a["ci"][0]), float(a["ci"][1])),
                int(a["games"]),
            )
            for label, a in data["anchors"].items()
        )
        return cls(
            tuple(sorted(anchors, key=lambda a: a.rating)),
            str(data["reference"]),
            str(data["date"]),
            str(data["version"]),
            int(data["games_per_pair"]),
            int(data["seed"]),
            int(data["max_rounds"]),
        )


@cache
def anchor_table() -> AnchorTable:
    """The shipped anchor table."""
    text = resources.files("shell_envs.data").joinpath(ANCHORS_FILE).read_text(encoding="utf-8")
    return AnchorTable.from_dict(json.loads(text))


def expected_score(rating: float | np.ndarray, opponent: float | np.ndarray) -> Any:
    """The Bradley–Terry expected score of ``rating`` against ``opponent`` (Elo scale)."""
    return 1.0 / (1.0 + np.exp(-(np.asarray(rating) - np.asarray(opponent)) / ELO_SCALE))


def fit_rating(
    scores: Mapping[str, np.ndarray], ratings: Mapping[str, float], prior: float = 1.0
) -> float:
    """The maximum-likelihood rating of an agent with per-game ``scores`` against anchors.

    ``scores[label]`` holds the agent's score in each game against that anchor (1 win, ½
    draw, 0 loss); ``ratings`` are the anchors' fixed ratings.  ``prior`` virtual draws per
    anchor keep a clean sweep (or a clean loss) finite.
    """
    labels = [k for k in scores if len(scores[k])]
    if not labels:
        raise ValueError("a rating needs at least one game against an anchor")
    won = np.array([float(np.sum(scores[k])) + prior / 2 for k in labels])
    played = np.array([len(scores[k]) + prior for k in labels], float)
    against = np.array([ratings[k] for k in labels], float)

    def surplus(r: float) -> float:
        return float(np.sum(won - played * expected_score(r, against)))

    low, high = -RATING_BOUND, RATING_BOUND
    if surplus(low) <= 0:
        return low
    if surplus(high) >= 0:
        return high
    return float(brentq(surplus, low, high, xtol=1e-6))


def rate_on_scale(
    scores: Mapping[str, np.ndarray],
    table: AnchorTable | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, tuple[float, float]]:
    """An agent's rating on the fixed scale and its percentile-bootstrap interval.

    Games are resampled within each anchor's set (the anchors' own uncertainty is the
    table's, reported beside it).  With a single game against some anchor the interval
    collapses to the rating.
    """
    table = table or anchor_table()
    ratings = {a.label: a.rating for a in table.anchors}
    keys = [k for k in scores if len(scores[k])]
    rating = fit_rating(scores, ratings)

    def statistic(*samples: np.ndarray) -> float:
        return fit_rating(dict(zip(keys, samples, strict=True)), ratings)

    low, high = percentile_bootstrap(
        [scores[k] for k in keys], statistic, rating, confidence, n_resamples, seed
    )
    return rating, (float(low), float(high))


def candidate_scores(records: list[dict[str, Any]], candidate: str) -> dict[str, np.ndarray]:
    """Per anchor, ``candidate``'s score in each of its games (records in schedule order)."""
    scores: dict[str, list[float]] = {}
    for r in records:
        pairing = r["pairing"]
        if pairing["candidate"] != candidate:
            continue
        black_score = (r["outcome"] + 1) / 2
        mine = black_score if pairing["candidate_seat"] == "black" else 1 - black_score
        scores.setdefault(pairing["anchor"], []).append(mine)
    return {k: np.array(v) for k, v in scores.items()}


def summarize(
    records: list[dict[str, Any]],
    candidates: list[str],
    move_seconds: Mapping[str, float],
    table: AnchorTable | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    examples: int = 5,
) -> dict[str, Any]:
    """The What the Shell section of the results: ratings on the scale, pairs, problems.

    ``ratings[name]`` has the rating, its interval, the games and the mean seconds per move;
    ``pairs`` one row per candidate and anchor (``a`` the candidate, ``b`` the anchor);
    ``illegal`` and ``errors`` count per agent and show the first ``examples`` cases.
    """
    from shell_envs.bench.tournament import wilson_interval

    table = table or anchor_table()
    ratings: dict[str, Any] = {}
    pairs = []
    for name in candidates:
        scores = candidate_scores(records, name)
        if not scores:
            continue
        rating, ci = rate_on_scale(scores, table, confidence, n_resamples, seed)
        games = int(sum(len(s) for s in scores.values()))
        ratings[name] = {
            "rating": rating,
            "ci": list(ci),
            "games": games,
            "score": float(sum(np.sum(s) for s in scores.values()) / games),
            "move_seconds": float(move_seconds.get(name, 0.0)),
        }
        for anchor in table.labels:
            s = scores.get(anchor)
            if s is None:
                continue
            wins, draws = int(np.sum(s == 1.0)), int(np.sum(s == 0.5))
            pairs.append(
                {
                    "a": name,
                    "b": anchor,
                    "games": len(s),
                    "wins_a": wins,
                    "draws": draws,
                    "wins_b": len(s) - wins - draws,
                    "win_rate_a": wins / len(s),
                    "ci": list(wilson_interval(wins, len(s), confidence)),
                    "score_a": float(np.mean(s)),
                }
            )
    return {
        "scale": {
            "reference": table.reference,
            "date": table.date,
            "version": table.version,
            "anchors": {
                a.label: {"rating": a.rating, "ci": list(a.ci), "games": a.games}
                for a in table.anchors
            },
        },
        "confidence": confidence,
        "games": len(records),
        "ratings": ratings,
        "pairs": pairs,
        **problems(records, examples),
    }


def problems(records: list[dict[str, Any]], examples: int = 5) -> dict[str, Any]:
    """Illegal actions and errors of a set of game records: counts per agent, first cases."""
    out: dict[str, Any] = {}
    for key in ("illegal", "errors"):
        counts: dict[str, int] = {}
        cases = []
        for r in records:
            for case in r[key]:
                counts[case["agent"]] = counts.get(case["agent"], 0) + 1
                if len(cases) < examples:
                    cases.append({"record": r["index"], **case})
        out[key] = {"counts": counts, "first": cases}
    return out
