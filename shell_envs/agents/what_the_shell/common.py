"""The parts every What the Shell agent that reads the whole position shares, in one place: the
check of the view it is given, and the base class that decodes that view from an observation."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from shell_envs.what_the_shell.view import WhatTheShellView


def checked_view(state: Any) -> WhatTheShellView:
    """``state`` if it is a [`WhatTheShellView`][], else a ``ValueError``."""
    if not isinstance(state, WhatTheShellView):
        raise ValueError(f"state must be a WhatTheShellView; got {type(state).__name__}")
    return state


class PositionAgent(ABC):
    """What the agents that read the whole position share: a seeded generator, and ``act`` on
    the position decoded from a ``"planes"`` or ``"flat"`` observation (each subclass defines
    ``act_with_state``)."""

    rng: np.random.Generator

    def reset(self, seed: int | None = None) -> None:
        """Reseed (a None seed keeps the current generator)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """`act_with_state` on the position decoded from ``observation``."""
        return self.act_with_state(WhatTheShellView.from_observation(observation), action_mask)

    @abstractmethod
    def act_with_state(self, state: WhatTheShellView, action_mask: np.ndarray) -> int:
        """A legal cell for the position ``state``."""
