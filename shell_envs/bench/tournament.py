"""What the Shell tournaments: round robin with seats swapped, W/D/L, Wilson, Bradley–Terry.

Each pair of agents plays the same number of games, half with each agent as black.  A game's
seeds derive from the tournament seed, the pair and the game number alone, so results do not
depend on how games are spread over worker processes.  Statistics come from libraries:
Wilson intervals from :func:`scipy.stats.binomtest`, the Bradley–Terry fit from
:func:`choix.ilsr_pairwise_dense` and its intervals from :func:`scipy.stats.bootstrap`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import choix
import numpy as np
from scipy.stats import binomtest, bootstrap

from shell_envs.agents import WhatTheShellView, choose_action, make_agent
from shell_envs.agents.base import Agent

GAME = "what_the_shell"
ELO_SCALE = 400.0 / math.log(10.0)
BLACK_WINS, DRAW, WHITE_WINS = 1, 0, -1


@dataclass(frozen=True)
class AgentSpec:
    """A benchmarked agent: the label it is reported under, its registered name and kwargs."""

    label: str
    name: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def make(self, game: str, seed: int | None = None) -> Agent:
        """Build the agent for ``game`` (a registered game name) and seed it."""
        return make_agent(game, self.name, seed=seed, **dict(self.kwargs))


@dataclass(frozen=True)
class Match:
    """One scheduled game: agent indices for each seat and the seed of both agents."""

    black: int
    white: int
    seed: int


@dataclass(frozen=True)
class GameResult:
    """A played game: the seats, ``outcome`` (+1 black won, 0 draw, -1 white won) and rounds."""

    black: int
    white: int
    outcome: int
    rounds: int


def schedule(n_agents: int, games_per_pair: int, seed: int = 0) -> list[Match]:
    """Every pair plays ``games_per_pair`` games, alternating who is black."""
    if n_agents < 2 or games_per_pair < 1:
        raise ValueError("a round robin needs at least 2 agents and 1 game per pair")
    matches = []
    for i in range(n_agents):
        for j in range(i + 1, n_agents):
            for g in range(games_per_pair):
                black, white = (i, j) if g % 2 == 0 else (j, i)
                game_seed = np.random.SeedSequence([seed, i, j, g]).generate_state(1)[0]
                matches.append(Match(black, white, int(game_seed)))
    return matches


def play_game(black: Agent, white: Agent, seed: int, max_rounds: int = 200) -> tuple[int, int]:
    """Play one game of What the Shell; returns ``(outcome, rounds)`` (truncation is a draw)."""
    from shell_envs import what_the_shell_v0
    from shell_envs.what_the_shell import rules

    env = what_the_shell_v0.parallel_env(max_rounds=max_rounds)
    observations, _ = env.reset(seed=seed)
    black.reset(seed)
    white.reset(seed + 1)
    players = {"black": black, "white": white}
    rewards = {"black": 0.0}
    while env.agents:
        actions = {
            seat: choose_action(
                players[seat],
                observations[seat]["observation"],
                observations[seat]["action_mask"],
                WhatTheShellView.from_env(env, seat),
            )
            for seat in env.agents
        }
        observations, rewards, _, _, _ = env.step(actions)
    return int(np.sign(rewards["black"])), int(env.meta[rules.ROUNDS])


def play_matches(
    specs: Sequence[AgentSpec], matches: Sequence[Match], max_rounds: int = 200
) -> list[GameResult]:
    """Play ``matches`` (a worker's share of a tournament), building each agent once."""
    agents: dict[int, Agent] = {}
    results = []
    for m in matches:
        if m.black == m.white:
            raise ValueError("an agent cannot play itself in a round robin")
        for i in (m.black, m.white):
            if i not in agents:
                agents[i] = specs[i].make(GAME)
        outcome, rounds = play_game(agents[m.black], agents[m.white], m.seed, max_rounds)
        results.append(GameResult(m.black, m.white, outcome, rounds))
    return results


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

    if all(len(pairs[k]) > 1 for k in keys):
        boot = bootstrap(
            tuple(pairs[k] for k in keys),
            statistic,
            vectorized=False,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
        low = np.asarray(boot.confidence_interval.low, float)
        high = np.asarray(boot.confidence_interval.high, float)
    else:
        low, high = elo.copy(), elo.copy()
    return Ratings(elo, np.minimum(low, elo), np.maximum(high, elo))


def summarize(
    labels: Sequence[str],
    results: Sequence[GameResult],
    anchor: str,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Everything a report needs: per-pair W/D/L with intervals and verdicts, and ratings.

    Each pair is reported from the side of the agent that won more of its games (``a``).
    ``a beats b`` when the Wilson interval of a's share of the decisive games (draws left
    out) lies above one half.
    """
    n = len(labels)
    pairs_out = []
    for (i, j), s in pair_scores(results).items():
        if np.sum(s == 0.0) > np.sum(s == 1.0):
            i, j, s = j, i, 1.0 - s
        wins, draws = int(np.sum(s == 1.0)), int(np.sum(s == 0.5))
        games = len(s)
        losses = games - wins - draws
        decisive = wins + losses
        low, high = wilson_interval(wins, decisive, confidence)
        verdict = f"{labels[i]} beats {labels[j]}" if low > 0.5 else "no significant difference"
        pairs_out.append(
            {
                "a": labels[i],
                "b": labels[j],
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "win_rate": wins / games,
                "win_ci": wilson_interval(wins, games, confidence),
                "draw_rate": draws / games,
                "draw_ci": wilson_interval(draws, games, confidence),
                "loss_rate": losses / games,
                "loss_ci": wilson_interval(losses, games, confidence),
                "decisive_share": wins / decisive if decisive else 0.5,
                "decisive_ci": (low, high),
                "verdict": verdict,
                "a_as_black": _seat_record(results, i, j),
                "a_as_white": _seat_record(results, j, i, black_side=False),
                "mean_rounds": float(np.mean([r.rounds for r in _between(results, i, j)])),
            }
        )
    ratings = bradley_terry(n, results, labels.index(anchor), 1.0, confidence, n_resamples, seed)
    order = np.argsort(-ratings.elo, kind="stable")
    return {
        "agents": list(labels),
        "anchor": anchor,
        "confidence": confidence,
        "games": len(results),
        "pairs": pairs_out,
        "ratings": [
            {
                "agent": labels[k],
                "elo": float(ratings.elo[k]),
                "ci": (float(ratings.low[k]), float(ratings.high[k])),
            }
            for k in order
        ],
    }


def _between(results: Sequence[GameResult], i: int, j: int) -> list[GameResult]:
    """The games between agents ``i`` and ``j``."""
    return [r for r in results if {r.black, r.white} == {i, j}]


def _seat_record(
    results: Sequence[GameResult], black: int, white: int, black_side: bool = True
) -> dict[str, int]:
    """Wins, draws and losses of the ``black`` agent (or of ``white``) in their games."""
    games = [r for r in results if r.black == black and r.white == white]
    win, loss = (BLACK_WINS, WHITE_WINS) if black_side else (WHITE_WINS, BLACK_WINS)
    return {
        "games": len(games),
        "wins": sum(r.outcome == win for r in games),
        "draws": sum(r.outcome == DRAW for r in games),
        "losses": sum(r.outcome == loss for r in games),
    }
