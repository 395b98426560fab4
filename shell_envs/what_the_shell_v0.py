"""What the Shell, version 0, in PettingZoo's module layout.

``parallel_env()`` is the native simultaneous-move form, ``env()`` the AEC form (players act
in turn, the round resolves once both have acted), ``raw_env`` the unwrapped class and
``vector_env(num_envs)`` the natively batched form.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_to_aec

from shell_envs.what_the_shell.encoders import register_encoder
from shell_envs.what_the_shell.env import ILLEGAL_REASONS, INFO_KEYS, OUTCOMES, WhatTheShellEnv
from shell_envs.what_the_shell.vector import WhatTheShellVectorEnv

raw_env = WhatTheShellEnv


def parallel_env(**kwargs: Any) -> WhatTheShellEnv:
    """The PettingZoo ``ParallelEnv``; keyword arguments as for :class:`WhatTheShellEnv`."""
    return WhatTheShellEnv(**kwargs)


def env(**kwargs: Any):
    """The AEC form, wrapped like PettingZoo's own games (order enforcing)."""
    return wrappers.OrderEnforcingWrapper(parallel_to_aec(WhatTheShellEnv(**kwargs)))


def vector_env(num_envs: int, **kwargs: Any) -> WhatTheShellVectorEnv:
    """``num_envs`` games stepped together by one compiled parallel loop (arrays ``(N, ...)``)."""
    return WhatTheShellVectorEnv(num_envs, **kwargs)


__all__ = [
    "ILLEGAL_REASONS",
    "INFO_KEYS",
    "OUTCOMES",
    "env",
    "parallel_env",
    "raw_env",
    "register_encoder",
    "vector_env",
]
