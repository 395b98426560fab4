"""Round-robin statistics: schedules with seats swapped, Wilson intervals, Bradley–Terry.

Each pair of agents plays the same number of games, half with each agent as black.  A game's
seeds derive from the tournament seed, the pair and the game number alone, so results do not
depend on how games are spread over worker processes.  The anchors of the fixed rating scale
(`shell_envs.bench.scale`) are fitted from such a round robin.  Statistics come from libraries:
Wilson intervals from `scipy.stats.binomtest`, the Bradley–Terry fit from
`choix.ilsr_pairwise_dense` and its intervals from `scipy.stats.bootstrap`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import choix
import numpy as np
from scipy.stats import binomtest, bootstrap

from shell_envs.bench.openings import OpeningBook

ELO_SCALE = 400.0 / math.log(10.0)
BLACK_WINS, DRAW, WHITE_WINS = 1, 0, -1


@dataclass(frozen=True)
class Match:
    """One scheduled game: agent indices for each seat, the seed of both agents and the
    opening it starts from (an index into the opening book; ``None``: the empty board)."""

    black: int
    white: int
    seed: int
    opening: int | None = None


@dataclass(frozen=True)
class GameResult:
    """A played game: the seats, ``outcome`` (+1 black won, 0 draw, -1 white won) and rounds."""

    black: int
    white: int
    outcome: int
    rounds: int


def schedule(
    n_agents: int, games_per_pair: int, seed: int = 0, book: OpeningBook | None = None
) -> list[Match]:
    """Every pair plays ``games_per_pair`` games, alternating who is black.

    With an opening ``book``, games ``2k`` and ``2k + 1`` of every pair start from the same
    opening, ``book.schedule(seed, ...)[k]``, seats swapped: every pair plays the same
    openings.
    """
    if n_agents < 2 or games_per_pair < 1:
        raise ValueError("a round robin needs at least 2 agents and 1 game per pair")
    starts = opening_starts(book, seed, games_per_pair)
    matches = []
    for i in range(n_agents):
        for j in range(i + 1, n_agents):
            for g in range(games_per_pair):
                black, white = (i, j) if g % 2 == 0 else (j, i)
                game_seed = np.random.SeedSequence([seed, i, j, g]).generate_state(1)[0]
                matches.append(Match(black, white, int(game_seed), starts[g]))
    return matches


def opening_starts(book: OpeningBook | None, seed: int, games: int) -> list[int | None]:
    """The opening of each of ``games`` games played in seat-swapped pairs (game ``g`` in
    pair ``g // 2``, the book shuffled by ``seed``); all ``None`` without a book."""
    if book is None:
        return [None] * games
    pairs = book.schedule(seed, (games + 1) // 2)
    return [pairs[g // 2] for g in range(games)]


def start_position(book: OpeningBook | None, opening: int | None) -> dict[str, Any] | None:
    """The position a game starts from: opening ``opening`` of ``book`` (a fresh dict, for
    ``reset(options={"position": ...})``), or ``None`` for the empty board."""
    return None if book is None or opening is None else book[opening]


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion (scipy); ``(0, 1)`` when there are no trials."""
    if trials == 0:
        return (0.0, 1.0)
    ci = binomtest(int(successes), int(trials)).proportion_ci(confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def pair_scores(results: Sequence[GameResult]) -> dict[tuple[int, int], np.ndarray]:
    """For each pair ``(i, j)``, ``i < j``: agent ``i``'s score per game (1 win, ½ draw, 0 loss)."""
    scores: dict[tuple[int, int], list[float]] = {}
    for r in results:
        i, j = sorted((r.black, r.white))
        score_black = (r.outcome + 1) / 2
        scores.setdefault((i, j), []).append(score_black if r.black == i else 1 - score_black)
    return {pair: np.array(s) for pair, s in sorted(scores.items())}


def fit_bradley_terry(
    n_agents: int, pairs: Mapping[tuple[int, int], np.ndarray], anchor: int, prior: float = 1.0
) -> np.ndarray:
    """Elo-scale Bradley–Terry ratings, agent ``anchor`` at 0 (draws count half a win each way).

    ``prior`` virtual draws are added to every pair that played, so a clean sweep gets a large
    but finite gap instead of an infinite one.  Maximum likelihood by choix's iterative LSR.
    """
    comp = np.zeros((n_agents, n_agents))
    for (i, j), s in pairs.items():
        comp[i, j] += float(np.sum(s)) + prior / 2
        comp[j, i] += float(len(s) - np.sum(s)) + prior / 2
    theta = choix.ilsr_pairwise_dense(comp)
    return ELO_SCALE * (theta - theta[anchor])


@dataclass
class Ratings:
    """Bradley–Terry ratings on the Elo scale with bootstrap confidence intervals."""

    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray


def bradley_terry(
    n_agents: int,
    results: Sequence[GameResult],
    anchor: int,
    prior: float = 1.0,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> Ratings:
    """Fit ratings and their percentile-bootstrap intervals (games resampled within each pair)."""
    pairs = pair_scores(results)
    keys = list(pairs)
    elo = fit_bradley_terry(n_agents, pairs, anchor, prior)

    def statistic(*samples: np.ndarray) -> np.ndarray:
        return fit_bradley_terry(n_agents, dict(zip(keys, samples, strict=True)), anchor, prior)

    low, high = percentile_bootstrap(
        [pairs[k] for k in keys], statistic, elo, confidence, n_resamples, seed
    )
    return Ratings(elo, low, high)


def percentile_bootstrap(
    samples: Sequence[np.ndarray],
    statistic: Any,
    estimate: Any,
    confidence: float,
    n_resamples: int,
    seed: int,
) -> tuple[Any, Any]:
    """The percentile-bootstrap interval of ``statistic(*samples)``, each sample resampled on
    its own (`scipy.stats.bootstrap`), widened to hold ``estimate``; collapsed onto
    ``estimate`` when a sample has a single value (nothing to resample)."""
    estimate = np.asarray(estimate, float)
    if not all(len(s) > 1 for s in samples):
        return estimate.copy(), estimate.copy()
    boot = bootstrap(
        tuple(np.asarray(s, float) for s in samples),
        statistic,
        vectorized=False,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    low = np.asarray(boot.confidence_interval.low, float)
    high = np.asarray(boot.confidence_interval.high, float)
    return np.minimum(low, estimate), np.maximum(high, estimate)
