"""Evaluate agent objects, trained ones included, in the formats of ``shell-envs bench``.

``shell-envs bench`` builds its agents by name; these helpers take agent objects (a trained
model from [`shell_envs.integrations.sb3`][] or [`shell_envs.integrations.rllib`][], or a
built-in agent by name) and play them with the benchmark's own game functions: What the Shell
matches with the tournament's seat-alternating schedule and seeds
(`shell_envs.bench.tournament`), from the empty board or the opening book; Scorpion deals
with its end rules (`shell_envs.bench.patience`).  Rates come with Wilson 95% intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shell_envs.agents.base import Agent
from shell_envs.agents.spec import make_agent
from shell_envs.bench.tournament import wilson_interval


def _resolve(game: str, agent: Agent | str, seed: int) -> Agent:
    """An agent object: ``agent`` itself, or the built-in agent of that name."""
    return make_agent(game, agent, seed=seed) if isinstance(agent, str) else agent


@dataclass(frozen=True)
class MatchResult:
    """Wins, draws and losses of ``agent`` against ``opponent`` over a match."""

    agent: str
    opponent: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        """Share of games won."""
        return self.wins / self.games if self.games else 0.0

    @property
    def loss_rate(self) -> float:
        """Share of games lost."""
        return self.losses / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        """Tournament score per game: a win counts 1, a draw 1/2."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def win_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games, confidence)

    def loss_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Wilson interval of the loss rate."""
        return wilson_interval(self.losses, self.games, confidence)

    def as_dict(self) -> dict[str, Any]:
        """The counts, rates and 95% intervals, ready for JSON."""
        return {
            "agent": self.agent,
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": self.win_rate,
            "win_ci95": list(self.win_interval()),
            "loss_rate": self.loss_rate,
            "loss_ci95": list(self.loss_interval()),
            "score": self.score,
        }

    def __str__(self) -> str:
        win_lo, win_hi = self.win_interval()
        loss_lo, loss_hi = self.loss_interval()
        return (
            f"{self.agent} vs {self.opponent}: {self.wins} W / {self.draws} D / {self.losses} L "
            f"of {self.games}; win rate {self.win_rate:.3f} [{win_lo:.3f}, {win_hi:.3f}], "
            f"loss rate {self.loss_rate:.3f} [{loss_lo:.3f}, {loss_hi:.3f}], "
            f"score {self.score:.3f}"
        )


def play_match(
    agent: Agent | str,
    opponent: Agent | str,
    games: int = 100,
    seed: int = 0,
    max_rounds: int = 200,
    openings: bool = False,
) -> MatchResult:
    """Play ``games`` What the Shell games between two agents, seats alternating.

    The games, seats and seeds are those of `shell_envs.bench.tournament.schedule` for a
    pair; truncation counts as a draw.  Games start from the empty board, or with
    ``openings`` in seat-swapped pairs from the shipped opening book, as the bench's games
    against its anchors do (varied positions for agents that break few ties).  Both agents
    get the full position when they can use it.  Names are built with ``make_agent``.
    """
    from shell_envs.agents.what_the_shell import GAME
    from shell_envs.bench.games import play_what_the_shell
    from shell_envs.bench.openings import load
    from shell_envs.bench.tournament import schedule, start_position

    if games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    players = (_resolve(GAME, agent, seed), _resolve(GAME, opponent, seed + 1))
    book = load() if openings else None
    outcomes = {1: 0, 0: 0, -1: 0}
    for match in schedule(2, games, seed, book):
        black, white = players[match.black], players[match.white]
        position = start_position(book, match.opening)
        record, _ = play_what_the_shell(black, white, match.seed, max_rounds, True, 0, position)
        outcome = record["outcome"]
        outcomes[outcome if match.black == 0 else -outcome] += 1
    return MatchResult(
        agent=getattr(players[0], "name", "agent"),
        opponent=getattr(players[1], "name", "opponent"),
        wins=outcomes[1],
        draws=outcomes[0],
        losses=outcomes[-1],
    )


@dataclass(frozen=True)
class ScorpionResult:
    """Wins and final scores of one player over a list of Scorpion deals."""

    agent: str
    won: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False)

    @property
    def games(self) -> int:
        """Deals played."""
        return int(self.won.size)

    @property
    def wins(self) -> int:
        """Deals won."""
        return int(self.won.sum())

    @property
    def win_rate(self) -> float:
        """Share of deals won."""
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """Mean final score."""
        return float(self.scores.mean()) if self.games else 0.0

    @property
    def score_sem(self) -> float:
        """Standard error of the mean score."""
        return float(self.scores.std(ddof=1) / math.sqrt(self.games)) if self.games > 1 else 0.0

    def win_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games, confidence)

    def as_dict(self) -> dict[str, Any]:
        """Counts, rates, mean score and 95% intervals, ready for JSON."""
        half = 1.96 * self.score_sem
        return {
            "agent": self.agent,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_ci95": list(self.win_interval()),
            "mean_score": self.mean_score,
            "score_ci95": [self.mean_score - half, self.mean_score + half],
        }

    def __str__(self) -> str:
        lo, hi = self.win_interval()
        return (
            f"{self.agent}: {self.wins} of {self.games} deals won, win rate {self.win_rate:.3f} "
            f"[{lo:.3f}, {hi:.3f}], mean score {self.mean_score:.1f} ± {1.96 * self.score_sem:.1f}"
        )


def evaluate_scorpion(
    agent: Agent | str, deals: Sequence[int], rules: str = "classic", max_moves: int | None = None
) -> ScorpionResult:
    """Play each deal number once with ``agent`` under the bench's end rules: its win rate and
    mean score (was ``integrations.evaluation.play_scorpion``).

    Each game is `shell_envs.bench.patience.play_deal`: it also ends when no progress is
    possible any more or after a long run of moves without progress, and at ``max_moves``
    (the bench's cap by default).  A trained model plays the env's default ``"tableau"``
    observations.
    """
    from shell_envs.agents.scorpion import GAME
    from shell_envs.bench.patience import MAX_MOVES, play_deal

    player = _resolve(GAME, agent, 0)
    won = np.zeros(len(deals), np.bool_)
    scores = np.zeros(len(deals), np.float64)
    for i, deal in enumerate(deals):
        won[i], scores[i], _, _ = play_deal(
            player, int(deal), rules, MAX_MOVES if max_moves is None else max_moves
        )
    return ScorpionResult(getattr(player, "name", "agent"), won, scores)
