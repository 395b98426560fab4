"""The keywords every What the Shell env takes, checked once: the parallel, batched and GPU envs
each build one `WhatTheShellOptions` from their keywords and read their encoder and spaces
from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces

from shell_envs.core.validation import choice, positive_int
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import ENCODERS

DEFAULT_MAX_ROUNDS = 200
ILLEGAL_ACTION_MODES = ("lose", "raise")


@dataclass(frozen=True)
class WhatTheShellOptions:
    """A What the Shell env's options (the keywords of ``what_the_shell_v0``), checked on
    creation.

    A bad keyword gets the ``ValueError`` the envs give; ``encoder`` is the encoder object
    ``obs_encoder`` names (or is), and each player's spaces derive from it.
    """

    obs_encoder: Any = "planes"
    max_rounds: int = DEFAULT_MAX_ROUNDS
    illegal_action: str = "lose"
    encoder: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        checked = {
            "max_rounds": positive_int("max_rounds", self.max_rounds, high=2**31 - 1),
            "illegal_action": choice("illegal_action", self.illegal_action, ILLEGAL_ACTION_MODES),
        }
        checked["encoder"] = ENCODERS.create(self.obs_encoder)
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @property
    def n_actions(self) -> int:
        """The size of a player's action space: one action per cell (81)."""
        return rules.CELLS

    @property
    def action_space(self) -> spaces.Discrete:
        """A fresh ``Discrete(81)`` for one player (each player seeds its own)."""
        return spaces.Discrete(rules.CELLS)

    @property
    def observation_space(self) -> spaces.Dict:
        """A fresh space of one player's observation: a Dict of the encoder's ``"observation"``
        and the ``"action_mask"`` (``int8``, one per cell)."""
        mask_space = spaces.Box(0, 1, (rules.CELLS,), np.int8)
        return spaces.Dict({"observation": self.encoder.space, "action_mask": mask_space})
