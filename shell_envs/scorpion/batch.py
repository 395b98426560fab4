"""What the CPU and the GPU batched Scorpion envs share, on the host: their keywords, options,
spaces, reset requests, ``explain``, ``set_deal_pool`` and ``redeal``.

`BatchedScorpionEnv` builds both from one checked `ScorpionOptions`; each subclass allocates
its buffers (`_allocate`) and runs its own batch loops (`vector`) or kernels (`gpu`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from shell_envs.core.validation import (
    action_index,
    choice,
    integer,
    mapping,
    positive_int,
    reset_needed,
)
from shell_envs.core.validation import seed as seed_value
from shell_envs.scorpion import rules as engine
from shell_envs.scorpion.deals import deal_pool
from shell_envs.scorpion.encoders import CARDS, TABLEAU, CardsEncoder, TableauEncoder
from shell_envs.scorpion.messages import refusal
from shell_envs.scorpion.options import DEFAULT_MAX_MOVES, ScorpionOptions
from shell_envs.scorpion.state import MAX_DEAL_NUMBER

__all__ = ["AUTORESET_MODES", "BatchedScorpionEnv"]

AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


class BatchedScorpionEnv(VectorEnv, ABC):
    """``num_envs`` Scorpion games: the keywords of ``Scorpion-v0`` plus ``autoreset_mode``,
    checked once into ``options``; a subclass allocates its buffers in `_allocate`."""

    def __init__(
        self,
        num_envs: int,
        rules: str = "classic",
        obs_encoder: Any = "tableau",
        illegal_action: str = "reject",
        allow_undo: bool = False,
        lang: str = "en",
        max_moves: int | None = DEFAULT_MAX_MOVES,
        reward: str = "score",
        mask_in_obs: bool = False,
        autoreset_mode: str | AutoresetMode = "next_step",
        render_mode: str | None = None,
    ) -> None:
        self.options = options = ScorpionOptions(
            rules=rules,
            obs_encoder=obs_encoder,
            illegal_action=illegal_action,
            allow_undo=allow_undo,
            lang=lang,
            max_moves=max_moves,
            reward=reward,
            mask_in_obs=mask_in_obs,
        )
        if isinstance(autoreset_mode, AutoresetMode):
            autoreset_mode = {v: k for k, v in AUTORESET_MODES.items()}.get(autoreset_mode, "")
        choice("autoreset_mode", autoreset_mode, tuple(AUTORESET_MODES))
        if render_mode is not None:
            raise ValueError("the batched Scorpion env does not render; use the single env")
        self.num_envs = n = positive_int("num_envs", num_envs)
        self.autoreset_mode = AUTORESET_MODES[autoreset_mode]
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.rules = options.rules
        self.illegal_action = options.illegal_action
        self.lang = options.lang
        self.reward_mode = options.reward
        self.allow_undo = options.allow_undo
        self.mask_in_obs = options.mask_in_obs
        self.max_moves = options.max_moves or 0
        self.encoder = options.encoder
        self.n_actions = options.n_actions
        self._rule = options.rule_index
        # the built-in encoder the kernels run, or -1 for a custom one, encoded outside them
        self._kind = {TableauEncoder: TABLEAU, CardsEncoder: CARDS}.get(type(self.encoder), -1)
        self.single_observation_space = options.observation_space
        self.single_action_space = options.action_space
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = spaces.MultiDiscrete(np.full(n, self.n_actions))
        self._use_pool = False  # set_deal_pool's pool, which each subclass keeps, is in use
        self._started = False  # step, action_masks and redeal need a reset first
        self._allocate()

    @abstractmethod
    def _allocate(self) -> None:
        """The subclass's state and result buffers, once the shared options are set."""

    @abstractmethod
    def _game_arrays(self, index: int) -> engine.StateArrays:
        """Game ``index``'s state arrays on the host (``index`` checked)."""

    @abstractmethod
    def _redeal(self, which: np.ndarray) -> None:
        """Deal the next game in every env flagged in ``which`` (host bools, one at least)."""

    def _reset_request(
        self, seed: Any, options: dict[str, Any] | None
    ) -> tuple[list[int | None], np.ndarray, list[int] | None]:
        """The checked arguments of ``reset``: each env's seed (None: unseeded), which envs are
        seeded, and the deal numbers of ``options["deals"]`` (None when not given).  Everything
        is checked before anything changes, so a refused reset leaves every env as it was."""
        n = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            first = seed_value("seed", seed, MAX_DEAL_NUMBER - n + 1)
            seeds = [first + i for i in range(n)]
        else:
            if isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__"):
                raise ValueError(f"seed must be an integer, None or a list of {n}; got {seed!r}")
            if len(seed) != n:
                raise ValueError(f"reset() got {len(seed)} seeds for {n} envs")
            seeds = [seed_value(f"seed[{i}]", s, MAX_DEAL_NUMBER) for i, s in enumerate(seed)]
        options = mapping("options", options, ("deals",), "reset option")
        numbers = options.get("deals")
        if numbers is not None:
            if isinstance(numbers, (str, bytes)) or not hasattr(numbers, "__len__"):
                raise ValueError(f"options['deals'] must be a list of {n} deal numbers")
            if len(numbers) != n:
                raise ValueError(f"options['deals'] has {len(numbers)} deal numbers for {n} envs")
            numbers = [
                integer(f"options['deals'][{i}]", x, 0, MAX_DEAL_NUMBER)
                for i, x in enumerate(numbers)
            ]
        seeded = np.array([s is not None for s in seeds], np.bool_)
        return seeds, seeded, numbers

    def explain(self, index: int, action: int) -> str | None:
        """Why ``action`` is illegal in game ``index`` now (None when legal), in ``lang``: the
        single env's words for the same game (the GPU env copies the game to the host)."""
        arrays = self._game_arrays(integer("index", index, 0, self.num_envs - 1))
        a = action_index(action, self.n_actions)
        n_legal = engine.legal_mask(arrays, self.allow_undo, np.zeros(self.n_actions, np.bool_))
        return refusal(arrays, action, a, self.n_actions, self.allow_undo, n_legal, self.lang)

    def set_deal_pool(self, numbers: Sequence[int] | None) -> None:
        """Draw every later deal from ``numbers``, uniformly (None: from all deal numbers again).

        For curricula: e.g. the shipped winnable deals
        ([`winnable_seeds`][shell_envs.scorpion.winnable.winnable_seeds]) first, then every
        deal.  Each env draws with its own generator, so seeded runs stay reproducible; explicit
        deals (``options={"deals": ...}``) and seeds given to ``reset`` still come first.
        """
        if numbers is None:
            self._use_pool = False
        else:
            self._pool = self._pool_array(deal_pool(numbers))
            self._use_pool = True
        self._deal_pool_changed()

    def _pool_array(self, pool: np.ndarray) -> Any:
        """The deal pool where the batch loops read it (the host array itself)."""
        return pool

    def _deal_pool_changed(self) -> None:
        """Called once ``set_deal_pool`` has set the pool (nothing to do on the host)."""

    def redeal(self, envs: Sequence[int] | np.ndarray) -> None:
        """End the games of ``envs`` now and deal each its next game, as an autoreset does.

        For a learner that gives up on a game the env would let run on (e.g. one left with
        nothing but moves back into positions it has seen).  The new observations and masks
        are those the env returns next; no step is counted.  Before the first ``reset`` there
        are no games to end: ``ResetNeeded``.
        """
        if not self._started:
            raise reset_needed("redeal()")
        which = np.zeros(self.num_envs, np.bool_)
        for i in envs:
            which[integer("env index", i, 0, self.num_envs - 1)] = True
        if which.any():
            self._redeal(which)
