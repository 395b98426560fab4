"""The learned Scorpion agent: a move-scoring network trained with MaskablePPO, played fair.

The network ([`shell_envs.scorpion.network`][], trained by ``examples/train_scorpion.py``)
scores each candidate move from features of the player's view; the agent plays the best one.
It keeps the memory of positions seen that ``greedy`` keeps, and the same candidates the
network was trained on: no pointless king shuffles, no move back into a position already
seen while any other move is left.  It never reads the hidden cards: it decides from a
`ScorpionView`.  No search, no torch.
"""

from __future__ import annotations

import numpy as np

from shell_envs.agents.scorpion.common import FairAgent
from shell_envs.core.weights import check_temperature, check_top_p, pick
from shell_envs.scorpion import network
from shell_envs.scorpion.actions import N_ACTIONS
from shell_envs.scorpion.view import ScorpionView


class LearnedAgent(FairAgent):
    """The learned network's policy: the candidate move with the highest score.

    Args:
        weights: an ``.npz`` network file (default: the one shipped with the package).
        temperature: 0 plays the best-scored move (ties at random, seeded); above 0, sample
            from the softmax of the scores divided by it.
        top_p: when sampling, only from the most likely moves whose probabilities first sum
            to at least this (nucleus sampling; 1: every candidate).
        net: a network (tuple of arrays) instead of a file, for training code.
        seed: seeds the sampling and the tie-breaking.
        rules: the rule assumed when deciding from an observation (views carry their own).
    """

    name = "learned"

    def __init__(
        self,
        weights: str | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        net: network.Network | None = None,
        seed: int | None = None,
        rules: str = "classic",
    ) -> None:
        super().__init__(seed, rules)
        self.temperature = check_temperature(temperature)
        self.top_p = check_top_p(top_p)
        self.net = network.FORMAT.choose(weights, net)
        self._feats = np.empty((N_ACTIONS, network.N_FEATURES), np.float32)
        self._moves = np.empty(N_ACTIONS, np.int64)

    def act_with_state(self, state: ScorpionView, action_mask: np.ndarray) -> int:
        """The network's move for ``state`` among the candidates (see the module doc)."""
        legal, visited = self._legal_and_seen(state, action_mask)
        if legal.size == 1:
            return int(legal[0])
        moves = legal.astype(np.int64)
        n, _ = network.move_features(
            state.state_arrays(), moves, moves.size, visited, visited.size, self._feats, self._moves
        )
        logits = network.scores(self.net, self._feats[:n]).astype(np.float64)
        return pick(self.rng, self._moves[:n], logits, self.temperature, self.top_p)
