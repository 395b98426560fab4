"""The keywords every Scorpion env takes, checked once: the single, batched and GPU envs each
build one `ScorpionOptions` from their keywords and read their rules, flags and spaces from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gymnasium import spaces

from shell_envs.core.validation import choice, flag, positive_int
from shell_envs.scorpion import rules as engine
from shell_envs.scorpion.encoders import ENCODERS
from shell_envs.scorpion.messages import LANGS
from shell_envs.scorpion.rules import RULE_SETS
from shell_envs.scorpion.state import rule_code

DEFAULT_MAX_MOVES = 1000
ILLEGAL_ACTIONS = ("reject", "raise")
REWARDS = ("score", "win")


@dataclass(frozen=True)
class ScorpionOptions:
    """A Scorpion env's options (the keywords of ``Scorpion-v0``), checked on creation.

    A bad keyword gets the ``ValueError`` the envs give; ``encoder`` is the encoder object
    ``obs_encoder`` names (or is), and the action count and spaces derive from the options.
    Only the single env takes ``winnable_only`` (the batched envs use ``set_deal_pool``).
    """

    rules: str = "classic"
    obs_encoder: Any = "tableau"
    illegal_action: str = "reject"
    allow_undo: bool = False
    lang: str = "en"
    max_moves: int | None = DEFAULT_MAX_MOVES
    reward: str = "score"
    mask_in_obs: bool = False
    winnable_only: bool = False
    encoder: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        checked = {
            "rules": choice("rules", self.rules, RULE_SETS),
            "illegal_action": choice("illegal_action", self.illegal_action, ILLEGAL_ACTIONS),
            "allow_undo": flag("allow_undo", self.allow_undo),
            "lang": choice("lang", self.lang, LANGS),
            "reward": choice("reward", self.reward, REWARDS),
            "mask_in_obs": flag("mask_in_obs", self.mask_in_obs),
            "winnable_only": flag("winnable_only", self.winnable_only),
            "max_moves": positive_int("max_moves", self.max_moves, allow_none=True),
        }
        checked["encoder"] = ENCODERS.create(self.obs_encoder)
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @property
    def n_actions(self) -> int:
        """The size of the action space: 365, or 366 with ``allow_undo`` (undo is 365)."""
        return engine.N_ACTIONS_UNDO if self.allow_undo else engine.N_ACTIONS

    @property
    def rule_index(self) -> int:
        """The compiled rules' number for ``rules`` (its index in `RULE_SETS`)."""
        return rule_code(self.rules)

    @property
    def action_space(self) -> spaces.Discrete:
        """A fresh ``Discrete(n_actions)`` (each env seeds its own)."""
        return spaces.Discrete(self.n_actions)

    @property
    def observation_space(self) -> spaces.Space:
        """The space of one game's observation: the encoder's, or with ``mask_in_obs`` a fresh
        Dict of it and the ``"action_mask"``."""
        if self.mask_in_obs:
            return spaces.Dict(
                {
                    "observation": self.encoder.space,
                    "action_mask": spaces.MultiBinary(self.n_actions),
                }
            )
        return self.encoder.space
