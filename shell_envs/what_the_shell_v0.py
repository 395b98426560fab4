"""What the Shell, version 0, in PettingZoo's module layout.

``parallel_env()`` is the native simultaneous-move form, ``env()`` the AEC form (players act
in turn, the round resolves once both have acted), ``raw_env`` the unwrapped class and
``vector_env(num_envs)`` the natively batched form (``device="cuda"``: on a GPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils import wrappers
from pettingzoo.utils.agent_selector import AgentSelector
from pettingzoo.utils.conversions import parallel_to_aec_wrapper

from shell_envs.core import validation
from shell_envs.what_the_shell.encoders import register_encoder
from shell_envs.what_the_shell.env import WhatTheShellEnv
from shell_envs.what_the_shell.messages import ILLEGAL_REASONS, INFO_KEYS, OUTCOMES, quiet_infos
from shell_envs.what_the_shell.state import GameState
from shell_envs.what_the_shell.vector import WhatTheShellVectorEnv

raw_env = WhatTheShellEnv


def parallel_env(**kwargs: Any) -> WhatTheShellEnv:
    """The PettingZoo ``ParallelEnv``; keyword arguments as for [`WhatTheShellEnv`][]."""
    return WhatTheShellEnv(**kwargs)


class WhatTheShellAEC(parallel_to_aec_wrapper):
    """PettingZoo's parallel-to-AEC conversion, refusing a bad action at the step that sent it.

    Each player's action is checked when it is sent ([`WhatTheShellEnv.check_action`][]): a
    value that is not an integer, or an illegal cell under ``illegal_action="raise"``, raises
    there and then, and the game stays as it was, so the same player may simply try again.
    """

    env: WhatTheShellEnv  # the wrapped parallel env

    def step(self, action: Any) -> None:
        """Record (or, for the last player of the round, play) ``action`` of the current agent
        (before the first ``reset``: ``ResetNeeded``)."""
        if not hasattr(self, "agent_selection"):  # set by the first accepted reset
            raise validation.reset_needed("step()")
        agent = self.agent_selection
        if not (self.terminations.get(agent) or self.truncations.get(agent)):
            self.env.check_action(agent, action)
        super().step(action)

    def action_masks(self) -> np.ndarray:
        """``int8[81]``: 1 on the empty cells, the legal actions of either player
        ([`WhatTheShellEnv.action_masks`][])."""
        return self.env.action_masks()

    def get_state(self) -> GameState:
        """A copy of the game state ([`WhatTheShellEnv.get_state`][])."""
        return self.env.get_state()

    def set_state(self, state: GameState) -> None:
        """Continue from a copy of ``state`` at the start of a round (black to act), as after a
        reset; a choice already sent this round is dropped.  A bad state gets the
        ``ValueError`` of [`WhatTheShellEnv.set_state`][] and changes nothing.  The wrapper's
        books are set as PettingZoo's ``parallel_to_aec_wrapper.reset`` sets them (a test
        compares every attribute, so a PettingZoo that keeps more books is caught)."""
        self.env.set_state(state)
        env = self.env
        self._observations = env._observations()
        self.agents = env.agents[:]
        self._live_agents = self.agents[:]
        self._actions = dict.fromkeys(self.agents)
        self._agent_selector = AgentSelector(self._live_agents)
        self.agent_selection = self._agent_selector.reset()
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.rewards = dict.fromkeys(self.agents, 0)
        infos = quiet_infos(env.meta)
        self.infos = {agent: infos[agent] for agent in self.agents}
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.new_agents: list[str] = []
        self.new_values: dict[str, Any] = {}


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, counting only an accepted reset: PettingZoo's marks the
    env reset before it calls ``reset``, so after a refused first reset ``step`` ran on no game."""

    _has_reset: bool
    _has_updated: bool

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset as PettingZoo's wrapper does; a refused reset leaves the wrapper as it was."""
        was = self._has_reset, self._has_updated
        try:
            super().reset(seed=seed, options=options)
        except Exception:
            self._has_reset, self._has_updated = was
            raise

    def set_state(self, state: GameState) -> None:
        """Continue from ``state`` ([`WhatTheShellAEC.set_state`][]); a game to play then
        counts as a reset, so ``step`` may follow at once."""
        self.env.set_state(state)
        self._has_reset = True
        self._has_updated = True


def env(**kwargs: Any) -> _OrderEnforcing:
    """The AEC form, wrapped like PettingZoo's own games (order enforcing)."""
    return _OrderEnforcing(WhatTheShellAEC(WhatTheShellEnv(**kwargs)))


def vector_env(num_envs: int, device: Any = "cpu", **kwargs: Any) -> Any:
    """``num_envs`` games stepped together (arrays ``(N, ...)``): on ``device="cpu"`` by one
    compiled parallel loop (numpy arrays), on ``"cuda"`` (or ``"cuda:N"``, a ``torch.device``)
    one GPU thread per game (torch tensors on the device; needs the ``cuda`` extra and a
    GPU)."""
    if validation.device("device", device)[0] == "cuda":
        from shell_envs.what_the_shell.gpu import WhatTheShellGpuVectorEnv

        return WhatTheShellGpuVectorEnv(num_envs, device=device, **kwargs)
    return WhatTheShellVectorEnv(num_envs, **kwargs)


__all__ = [
    "ILLEGAL_REASONS",
    "INFO_KEYS",
    "OUTCOMES",
    "WhatTheShellAEC",
    "env",
    "parallel_env",
    "raw_env",
    "register_encoder",
    "vector_env",
]
