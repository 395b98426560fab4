"""What the Shell's fixed rating scale: anchor agents with shipped ratings, and fits against them.

The anchors (``random``, ``greedy``, ``mcts`` at 100, 400 and 1600 iterations a move, and the
learned agents ``learned`` and ``mcts-learned`` with the network weights shipped) were rated
once by a large round robin (``benchmarks/wts_anchors.py``), ``random`` = 0 on the Elo scale;
the table ships as ``shell_envs/data/wts_anchors.json`` with the date, the package
version, the games behind it and the opening book they started from.  A new agent plays
games against each anchor from the same book (`AnchorTable.book`) and is rated by
Bradley–Terry with the anchors held at their table values.  A draw counts half a win.  With
the anchors fixed, the agent's total score is all the games say about its rating, so both
the rating and its interval are functions of that score and the games against each anchor:

- the rating is the maximum-likelihood estimate (`scipy.optimize.brentq`): infinite,
  reported as missing, when the agent scored nothing or won every game;
- the interval is exact (the Clopper–Pearson construction): the ratings under which the
  score observed is not in either 2.5% tail of its distribution, a sum of binomials
  (`scipy.stats.binom`), with a draw counted as a loss for the lower end and as a win
  for the upper one.  Its coverage is at least 95% whatever the number of games; a score
  under one point has no lower end, one less than a point short of every game no upper end.

``benchmarks/rating_coverage.py`` checks the coverage by re-rating the anchors themselves.
Ratings from different runs, machines and papers are on one scale.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.signal import convolve
from scipy.stats import binom

from shell_envs.agents.spec import AgentSpec, parse_spec
from shell_envs.bench.openings import OpeningBook
from shell_envs.bench.openings import load as load_book
from shell_envs.bench.report import variety
from shell_envs.bench.tournament import ELO_SCALE, wilson_interval

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
RATING_BOUND = 10_000.0  # no rating or interval end is searched for beyond ±this many points
USEFUL_WIDTH = 300.0  # a wider interval (an expected score from 15% to 85%) is too wide to use
METHOD = (
    "Bradley–Terry, anchors held at their table ratings, a draw half a win; maximum-likelihood "
    "rating, exact (Clopper–Pearson) interval on the total score"
)


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
    """The shipped scale: anchors in rating order and how they were fitted.

    ``openings`` names the opening book the fit's games started from (its ``describe()``:
    version, size, checksum); ``None`` for a table fitted from the empty board.  Games rated
    against the table start the way the fit's did (`book`).
    """

    anchors: tuple[Anchor, ...]
    reference: str
    date: str
    version: str
    games_per_pair: int
    seed: int
    max_rounds: int
    openings: Mapping[str, Any] | None = None

    def __getitem__(self, label: str) -> Anchor:
        for anchor in self.anchors:
            if anchor.label == label:
                return anchor
        raise KeyError(f"no anchor {label!r}; anchors: {', '.join(self.labels)}")

    @property
    def labels(self) -> list[str]:
        """The anchors' labels, weakest first."""
        return [a.label for a in self.anchors]

    def book(self) -> OpeningBook | None:
        """The opening book the table's games started from (the shipped one), or ``None``
        for the empty board.

        Raises ``ValueError`` when the shipped book is not the one the table names: ratings
        against the table hold only for games from the same openings.
        """
        if self.openings is None:
            return None
        book = load_book()
        if dict(self.openings) != book.describe():
            raise ValueError(
                f"the anchor table was fitted from opening book {dict(self.openings)}, but the "
                f"book shipped is {book.describe()}: refit the table (benchmarks/wts_anchors.py)"
            )
        return book

    def to_dict(self) -> dict[str, Any]:
        """The table as JSON data (the shipped file's layout)."""
        return {
            "reference": self.reference,
            "date": self.date,
            "version": self.version,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "max_rounds": self.max_rounds,
            **({} if self.openings is None else {"openings": dict(self.openings)}),
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
            data.get("openings"),
        )


@cache
def anchor_table() -> AnchorTable:
    """The shipped anchor table."""
    text = resources.files("shell_envs.data").joinpath(ANCHORS_FILE).read_text(encoding="utf-8")
    return AnchorTable.from_dict(json.loads(text))


def expected_score(rating: float | np.ndarray, opponent: float | np.ndarray) -> Any:
    """The Bradley–Terry expected score of ``rating`` against ``opponent`` (Elo scale)."""
    return 1.0 / (1.0 + np.exp(-(np.asarray(rating) - np.asarray(opponent)) / ELO_SCALE))


def _evidence(
    scores: Mapping[str, np.ndarray], ratings: Mapping[str, float]
) -> tuple[np.ndarray, np.ndarray, float]:
    """The games against each anchor played, the anchors' ratings and the total score."""
    labels = [k for k in scores if len(scores[k])]
    if not labels:
        raise ValueError("a rating needs at least one game against an anchor")
    games = np.array([len(scores[k]) for k in labels])
    against = np.array([ratings[k] for k in labels], float)
    return games, against, float(sum(np.sum(scores[k]) for k in labels))


def fit_rating(scores: Mapping[str, np.ndarray], ratings: Mapping[str, float]) -> float:
    """The maximum-likelihood rating of an agent with per-game ``scores`` against anchors.

    ``scores[label]`` holds the agent's score in each game against that anchor (1 win, ½
    draw, 0 loss); ``ratings`` are the anchors' fixed ratings.  The rating is where the
    expected total score equals the one observed: ``-inf`` when the agent scored nothing,
    ``inf`` when it won every game (no finite rating explains those).
    """
    games, against, total = _evidence(scores, ratings)
    if total <= 0:
        return -math.inf
    if total >= games.sum():
        return math.inf

    def surplus(r: float) -> float:
        return float(np.sum(games * expected_score(r, against))) - total

    return float(brentq(surplus, -RATING_BOUND, RATING_BOUND, xtol=1e-6))


def win_distribution(rating: float, games: np.ndarray, against: np.ndarray) -> np.ndarray:
    """``P(W = w)`` for ``w = 0 … sum(games)``: the wins of an agent rated ``rating`` in
    ``games[k]`` games against an anchor rated ``against[k]`` (Bradley–Terry, no draws), a sum
    of binomials."""
    pmf = np.ones(1)
    for n, p in zip(games, np.atleast_1d(expected_score(rating, against)), strict=True):
        pmf = convolve(pmf, binom.pmf(np.arange(n + 1), n, p))  # by FFT when that is faster
    return np.clip(pmf, 0.0, None)


def rating_interval(
    scores: Mapping[str, np.ndarray], ratings: Mapping[str, float], confidence: float = 0.95
) -> tuple[float, float]:
    """The exact ``confidence`` interval of an agent's rating with the anchors held fixed.

    The ratings under which the total score observed lies in neither tail of its
    distribution (each tail ``(1 - confidence) / 2``), the Clopper–Pearson construction; a
    draw counts as a loss for the lower end and as a win for the upper end.  The low end is
    ``-inf`` when the agent scored less than a point (no win, at most one draw), the high end
    ``inf`` when it dropped less than a point (no loss, at most one draw).  Never of zero
    width; narrower with more games.
    """
    games, against, total = _evidence(scores, ratings)
    tail = (1 - confidence) / 2
    low_wins, high_wins = math.floor(total), math.ceil(total)

    def above(r: float) -> float:  # rises with r: P(W >= low_wins) - tail
        return float(win_distribution(r, games, against)[low_wins:].sum()) - tail

    def below(r: float) -> float:  # falls with r: P(W <= high_wins) - tail
        return float(win_distribution(r, games, against)[: high_wins + 1].sum()) - tail

    bound = (-RATING_BOUND, RATING_BOUND)
    low = -math.inf if low_wins == 0 else float(brentq(above, *bound, xtol=0.01))
    high = math.inf if high_wins == games.sum() else float(brentq(below, *bound, xtol=0.01))
    return low, high


def rate_on_scale(
    scores: Mapping[str, np.ndarray], table: AnchorTable | None = None, confidence: float = 0.95
) -> tuple[float, tuple[float, float]]:
    """An agent's rating on the fixed scale and its exact interval (infinite where the games
    give no bound: `fit_rating`, `rating_interval`)."""
    table = table or anchor_table()
    ratings = {a.label: a.rating for a in table.anchors}
    return fit_rating(scores, ratings), rating_interval(scores, ratings, confidence)


def too_few_games(ci: tuple[float, float]) -> bool:
    """Whether an interval is too wide to be useful: one end missing, or wider than
    `USEFUL_WIDTH` points (``benchmarks/rating_coverage.py`` shows how many games that
    takes)."""
    return not ci[1] - ci[0] <= USEFUL_WIDTH


def finite_or_none(x: float) -> float | None:
    """``x``, or ``None`` (JSON ``null``) when it is infinite: a missing end or rating."""
    return float(x) if math.isfinite(x) else None


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
    examples: int = 5,
) -> dict[str, Any]:
    """The What the Shell section of the results: ratings on the scale, pairs, problems.

    ``ratings[name]`` has the rating and its interval (``None`` where the games give no
    finite value: `rate_on_scale`), whether the interval is too wide to be useful, the
    games, the score and the mean seconds per move; ``pairs`` one row per candidate and
    anchor (``a`` the candidate, ``b`` the anchor), with how many of its games were distinct
    (`shell_envs.bench.report.variety`); ``illegal`` and ``errors`` count per agent and show
    the first ``examples`` cases.
    """
    table = table or anchor_table()
    ratings: dict[str, Any] = {}
    pairs = []
    by_pairing: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        by_pairing.setdefault((r["pairing"]["candidate"], r["pairing"]["anchor"]), []).append(r)
    for name in candidates:
        scores = candidate_scores(records, name)
        if not scores:
            continue
        rating, ci = rate_on_scale(scores, table, confidence)
        games = int(sum(len(s) for s in scores.values()))
        ratings[name] = {
            "rating": finite_or_none(rating),
            "ci": [finite_or_none(ci[0]), finite_or_none(ci[1])],
            "too_few_games": too_few_games(ci),
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
                    **variety(by_pairing[name, anchor]),
                }
            )
    return {
        "scale": {
            "reference": table.reference,
            "date": table.date,
            "version": table.version,
            **({} if table.openings is None else {"openings": dict(table.openings)}),
            "anchors": {
                a.label: {"rating": a.rating, "ci": list(a.ci), "games": a.games}
                for a in table.anchors
            },
        },
        "confidence": confidence,
        "method": METHOD,
        "useful_width": USEFUL_WIDTH,
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
        cases: list[dict[str, Any]] = []
        for r in records:
            for case in r[key]:
                counts[case["agent"]] = counts.get(case["agent"], 0) + 1
                if len(cases) < examples:
                    cases.append({"record": r["index"], **case})
        out[key] = {"counts": counts, "first": cases}
    return out
