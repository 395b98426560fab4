"""What the Shell, version 0, in PettingZoo's module layout.

``parallel_env()`` is the native simultaneous-move form, ``env()`` the AEC form (players act
in turn, the round resolves once both have acted), ``raw_env`` the unwrapped class and
``vector_env(num_envs)`` the natively batched form (``device="cuda"``: on a GPU).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_to_aec_wrapper

from shell_envs.core.validation import DEVICES, choice
from shell_envs.what_the_shell.encoders import register_encoder
from shell_envs.what_the_shell.env import ILLEGAL_REASONS, INFO_KEYS, OUTCOMES, WhatTheShellEnv
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

    def step(self, action: Any) -> None:
        """Record (or, for the last player of the round, play) ``action`` of the current agent."""
        agent = self.agent_selection
        if not (self.terminations.get(agent) or self.truncations.get(agent)):
            self.env.check_action(agent, action)
        super().step(action)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, counting only an accepted reset: PettingZoo's marks the
    env reset before it calls ``reset``, so after a refused first reset ``step`` ran on no game."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset as PettingZoo's wrapper does; a refused reset leaves the wrapper as it was."""
        was = self._has_reset, self._has_updated
        try:
            super().reset(seed=seed, options=options)
        except Exception:
            self._has_reset, self._has_updated = was
            raise


def env(**kwargs: Any):
    """The AEC form, wrapped like PettingZoo's own games (order enforcing)."""
    return _OrderEnforcing(WhatTheShellAEC(WhatTheShellEnv(**kwargs)))


def vector_env(num_envs: int, device: str = "cpu", **kwargs: Any) -> Any:
    """``num_envs`` games stepped together (arrays ``(N, ...)``): on ``device="cpu"`` by one
    compiled parallel loop (numpy arrays), on ``"cuda"`` one GPU thread per game (torch
    tensors on the device; needs the ``cuda`` extra and a GPU)."""
    if choice("device", device, DEVICES) == "cuda":
        from shell_envs.what_the_shell.gpu import WhatTheShellGpuVectorEnv

        return WhatTheShellGpuVectorEnv(num_envs, **kwargs)
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
