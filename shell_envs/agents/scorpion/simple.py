"""The simple Scorpion agents: ``random`` and ``greedy`` (one move ahead).

They decide from a [`ScorpionView`][shell_envs.scorpion.view.ScorpionView] (the position with
the hidden cards masked out), decoded from the observation in ``act`` or given to
``act_with_state``, never from the hidden cards themselves.  The heavy loop is compiled in
[`shell_envs.scorpion.search`][].
"""

from __future__ import annotations

import numpy as np

from shell_envs.agents.base import RandomAgent as BaseRandomAgent
from shell_envs.agents.scorpion.common import FairAgent
from shell_envs.scorpion import rules, search
from shell_envs.scorpion.view import ScorpionView, playable_actions

TIE_NOISE = 0.01  # greedy: random noise below any real difference in gain, to break ties


class RandomAgent(BaseRandomAgent):
    """Uniform over the legal actions (never undo unless it is the only one)."""

    def candidates(self, action_mask: np.ndarray) -> np.ndarray:
        """The legal actions, undo left out unless it is the only one."""
        return playable_actions(action_mask)


class GreedyAgent(FairAgent):
    """One move ahead: the move whose result scores best by `search.evaluate`.

    It prefers sequence removals, turning face-down cards and same-suit builds; it never
    shuffles a king-headed column between empty columns, never returns to a position it has
    already been in, and deals the reserve only when no move gains anything.  Ties are broken
    at random (seeded).
    """

    name = "greedy"

    def act_with_state(self, state: ScorpionView, action_mask: np.ndarray) -> int:
        """The greedy move for ``state``."""
        legal, visited = self._legal_and_seen(state, action_mask)
        if legal.size == 1:
            return int(legal[0])
        rng = np.zeros(1, np.int64)
        rules.rng_seed(rng, int(self.rng.integers(2**62)))
        moves = legal.astype(np.int64)
        n = len(visited)
        choice = search.greedy_choice(
            state.state_arrays(), moves, len(moves), rng, TIE_NOISE, visited, n
        )
        if choice == search.NO_MOVE:
            return int(self.rng.choice(legal))
        return int(choice)
