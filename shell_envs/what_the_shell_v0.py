"""What the Shell, version 0, in PettingZoo's module layout.

``parallel_env()`` is the native simultaneous-move form, ``env()`` the AEC form (players act
in turn, the round resolves once both have acted) and ``raw_env`` the unwrapped class.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_to_aec

from shell_envs.what_the_shell.encoders import register_encoder
from shell_envs.what_the_shell.env import WhatTheShellEnv

raw_env = WhatTheShellEnv


def parallel_env(**kwargs: Any) -> WhatTheShellEnv:
    """The PettingZoo ``ParallelEnv``; keyword arguments as for :class:`WhatTheShellEnv`."""
    return WhatTheShellEnv(**kwargs)


def env(**kwargs: Any):
    """The AEC form, wrapped like PettingZoo's own games (order enforcing)."""
    return wrappers.OrderEnforcingWrapper(parallel_to_aec(WhatTheShellEnv(**kwargs)))


__all__ = ["env", "parallel_env", "raw_env", "register_encoder"]
