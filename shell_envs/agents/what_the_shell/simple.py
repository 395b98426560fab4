"""The simple What the Shell agents: ``random`` (uniform over the legal cells) and ``greedy``
(the best cell by a one-ply heuristic, `shell_envs.what_the_shell.search`)."""

from __future__ import annotations

import numpy as np

from shell_envs.agents.base import RandomAgent as BaseRandomAgent
from shell_envs.agents.what_the_shell.common import PositionAgent, checked_view
from shell_envs.what_the_shell import rules, search
from shell_envs.what_the_shell.view import WhatTheShellView


class RandomAgent(BaseRandomAgent):
    """Uniform over the legal cells."""


class GreedyAgent(PositionAgent):
    """One-ply heuristic: complete a five, block the opponent's, capture, extend lines.

    Every empty cell is scored by `search.score_cells`: what the turtle adds to its
    five-cell windows, the captures it makes and the eggs they hatch (oldest first), what the
    cell denies the opponent, minus a penalty when the turtle could be captured next round.
    Ties are broken at random (seeded).
    """

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._scores = np.empty(rules.CELLS, dtype=np.float64)

    def act_with_state(self, state: WhatTheShellView, action_mask: np.ndarray) -> int:
        """The best legal cell for ``state.player``."""
        legal = checked_view(state).legal(action_mask)
        board, eggs, meta = state.state.copy()
        search.score_cells(board, eggs, meta, state.player, self._scores)
        scores = self._scores[legal]
        best = legal[scores >= scores.max() - 1e-9]
        return int(self.rng.choice(best))
