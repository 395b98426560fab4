"""The ``learned`` What the Shell agent: a learned policy alone, no search (its first moves of
a game sampled, then its argmax)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shell_envs.agents.what_the_shell.common import PositionAgent, checked_view
from shell_envs.core.validation import positive_int
from shell_envs.core.weights import check_temperature, check_top_p, pick
from shell_envs.what_the_shell import network, policy_network, search
from shell_envs.what_the_shell.view import WhatTheShellView


class LearnedAgent(PositionAgent):
    """A learned policy alone, no search: its first moves of a game sampled, then its argmax.

    The default network is the shipped policy network
    ([`shell_envs.what_the_shell.policy_network`][], a small convolutional network distilled
    from ``mcts`` by ``examples/train_what_the_shell_policy.py``); a file or arrays of the
    search's perceptron (`shell_envs.what_the_shell.network`, as the expert-iteration
    example writes them) play by that network's own-move head instead.  The network reads the
    position from the player's point of view; no torch.  With ``temperature`` > 0 a move is
    drawn from the softmax of the logits divided by it (seeded; with ``top_p``, from its
    nucleus), at every move or, with ``sample_moves``, only at the first moves of each game (as
    AlphaZero's self-play varies its openings); then the legal cell with the highest own-move
    logit is played.  By default the first 8 moves are drawn (temperature 1, top_p 0.5): games
    branch early, so an opponent cannot replay one winning line (the argmax alone lost every
    game to a best response trained for 300,000 steps, this default none), and the rest is
    played at full strength; ``temperature=0`` plays the argmax throughout.

    Args:
        weights: an ``.npz`` file of either network (default: the shipped policy network).
        temperature: 0 plays the argmax; above 0, sample (default 1).
        top_p: when sampling, only from the most likely cells whose probabilities first sum
            to at least this (nucleus sampling; 1: every legal cell; default 0.5).
        sample_moves: sample only this many moves after each `reset` (a game), then
            play the argmax (default 8; None: sample at every move).
        net: a network (tuple of arrays) instead of a file, for training code.
        seed: seeds the sampling and the tie-breaking.
    """

    name = "learned"

    def __init__(
        self,
        weights: str | None = None,
        temperature: float = 1.0,
        top_p: float = 0.5,
        sample_moves: int | None = 8,
        net: network.Network | None = None,
        seed: int | None = None,
    ) -> None:
        self.temperature = check_temperature(temperature)
        self.top_p = check_top_p(top_p)
        self.sample_moves = positive_int("sample_moves", sample_moves, allow_none=True)
        self.moves_played = 0  # since the last reset
        self.net, self._forward = _policy(weights, net)
        self.rng = np.random.default_rng(seed)
        self._x = np.empty(network.N_FEATURES, dtype=np.float32)
        self._logits = np.empty(network.N_LOGITS, dtype=np.float32)

    def act_with_state(self, state: WhatTheShellView, action_mask: np.ndarray) -> int:
        """The policy's cell for ``state.player`` among the legal cells."""
        legal = checked_view(state).legal(action_mask)
        search.net_features(*state.state.copy(), state.player, self._x)
        self._forward(self.net, self._x, self._logits)
        logits = self._logits[legal].astype(np.float64)
        late = self.sample_moves is not None and self.moves_played >= self.sample_moves
        self.moves_played += 1
        return pick(self.rng, legal, logits, 0.0 if late else self.temperature, self.top_p)

    def reset(self, seed: int | None = None) -> None:
        """A new game: count moves from 0 again; reseed (a None seed keeps the generator)."""
        super().reset(seed)
        self.moves_played = 0


def _policy(weights: str | None, net: network.Network | None) -> tuple[network.Network, Any]:
    """``learned``'s network and its forward pass: the policy network unless ``net`` or the
    ``weights`` file is the search's perceptron (told apart by their arrays)."""
    if net is not None:
        conv = len(net) == len(policy_network.WEIGHT_NAMES) and np.ndim(net[0]) == 4
    elif weights is not None:
        with np.load(weights) as data:
            conv = policy_network.WEIGHT_NAMES[0] in data
    else:
        return policy_network.shipped(), policy_network.forward
    if conv:
        return policy_network.FORMAT.choose(weights, net), policy_network.forward
    return network.FORMAT.choose(weights, net), network.forward
