"""N simultaneous What the Shell games stepped by one compiled, parallel loop.

The batch kernel calls :func:`shell_envs.what_the_shell.rules.step` on each game's rows of
the ``(N, ...)`` state arrays, the very function the single environment calls, so there is
one implementation of the rules.  Autoreset follows Gymnasium 1.x's ``NEXT_STEP`` mode: the
step after a game ends resets that game (its actions are ignored) and returns the fresh
observation with reward 0 and both flags False.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from shell_envs.core.errors import IllegalMove
from shell_envs.core.jit import jit_parallel, prange
from shell_envs.core.validation import choice, flag, positive_int
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import ENCODERS
from shell_envs.what_the_shell.env import AGENTS, DEFAULT_MAX_ROUNDS, ILLEGAL_ACTION_MODES
from shell_envs.what_the_shell.position import cell_name

RESET = -1  # kernel outcome of a game that was reset in this step
BLACK_ILLEGAL, WHITE_ILLEGAL = 1, 2
INFO_FIELDS = (
    "collision",
    "captures_black",
    "captures_white",
    "hatched_black",
    "hatched_white",
    "eggs_vanished",
    "turtles_lost_black",
    "turtles_lost_white",
    "eggs_captured",
    "waves",
    "winning_turtles_black",
    "winning_turtles_white",
)


@jit_parallel
def batch_step(board, eggs, meta, info, black, white, autoreset, outcome, illegal):
    """Step every game: reset the ones flagged in ``autoreset``, check both actions, play.

    Fills ``outcome`` (``RESET``, or the rules' outcome) and ``illegal`` (bit 1 black, bit 2
    white); a game with an illegal action is not played.
    """
    for i in prange(board.shape[0]):
        illegal[i] = 0
        if autoreset[i]:
            board[i, :] = rules.EMPTY
            eggs[i, :] = -1
            meta[i, :] = 0
            info[i, :] = 0
            outcome[i] = RESET
            continue
        b = black[i]
        w = white[i]
        if not rules.is_legal(board[i], b):
            illegal[i] |= BLACK_ILLEGAL
        if not rules.is_legal(board[i], w):
            illegal[i] |= WHITE_ILLEGAL
        if illegal[i]:
            info[i, :] = 0
            outcome[i] = rules.ONGOING
            continue
        outcome[i] = rules.step(board[i], eggs[i], meta[i], b, w, info[i])


class WhatTheShellVectorEnv:
    """``num_envs`` games at once; every array is shaped ``(num_envs, ...)``.

    ``reset`` and ``step`` use dicts keyed by agent (``"black"``, ``"white"``) like the
    parallel env, with batched values: observations ``{"observation": (N, ...),
    "action_mask": (N, 81) int8}``, rewards ``float32[N]``, flags ``bool[N]``, and infos a dict
    of arrays (:data:`INFO_FIELDS` plus ``round``, ``sudden_death`` and ``illegal``).
    ``illegal_action="lose"`` ends only the offending games; ``"raise"`` raises before any game
    moves.  With ``copy=False`` the observations are buffers that the next ``step`` overwrites
    (as Gymnasium's vector envs do with ``copy=False``), which saves a copy per step.
    """

    metadata = {"name": "what_the_shell_v0_vector", "autoreset_mode": "NextStep"}

    def __init__(
        self,
        num_envs: int,
        obs_encoder: Any = "planes",
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        illegal_action: str = "lose",
        copy: bool = True,
    ) -> None:
        self.num_envs = positive_int("num_envs", num_envs)
        self.max_rounds = positive_int("max_rounds", max_rounds)
        self.illegal_action = choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.copy = flag("copy", copy)
        self.encoder = ENCODERS.create(obs_encoder)
        self.possible_agents = list(AGENTS)
        n = self.num_envs
        self.board = np.zeros((n, rules.CELLS), dtype=np.int8)
        self.eggs = np.full((n, rules.CELLS), -1, dtype=np.int8)
        self.meta = np.zeros((n, rules.META_SIZE), dtype=np.int32)
        self.info = np.zeros((n, rules.INFO_SIZE), dtype=np.int32)
        self._autoreset = np.zeros(n, dtype=np.bool_)
        self._outcome = np.zeros(n, dtype=np.int64)
        self._illegal = np.zeros(n, dtype=np.int64)
        shape, dtype = (n, *self.encoder.space.shape), self.encoder.space.dtype
        self._obs_black = np.zeros(shape, dtype)
        self._obs_white = np.zeros(shape, dtype)
        mask_space = spaces.Box(0, 1, (rules.CELLS,), np.int8)
        self.single_observation_space = spaces.Dict(
            {"observation": self.encoder.space, "action_mask": mask_space}
        )
        self.single_action_space = spaces.Discrete(rules.CELLS)
        self.action_space = spaces.MultiDiscrete(np.full(n, rules.CELLS))
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    np.broadcast_to(self.encoder.space.low, (n, *self.encoder.space.shape)),
                    np.broadcast_to(self.encoder.space.high, (n, *self.encoder.space.shape)),
                    dtype=self.encoder.space.dtype,
                ),
                "action_mask": spaces.Box(0, 1, (n, rules.CELLS), np.int8),
            }
        )

    def reset(
        self, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every game to the empty board; ``seed`` (int or one per game) seeds sampling."""
        if seed is not None:
            seeds = [seed + i for i in range(self.num_envs)] if np.isscalar(seed) else list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset() got {len(seeds)} seeds for {self.num_envs} games")
            self.seeds = seeds
            self.action_space.seed(int(seeds[0]))
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; the batched env takes none")
        self.board[:] = rules.EMPTY
        self.eggs[:] = -1
        self.meta[:] = 0
        self.info[:] = 0
        self._autoreset[:] = False
        return self._observations(), self._infos(np.zeros(self.num_envs, dtype=np.int64))

    def step(self, actions: dict[str, Any]):
        """One round in every game: ``actions = {"black": int[N], "white": int[N]}``."""
        if not isinstance(actions, dict) or set(actions) != set(AGENTS):
            raise ValueError(
                "step() takes a dict with an array of N actions for each of 'black' and "
                f"'white', got {actions!r}"
            )
        black = self._as_actions(actions["black"], "black")
        white = self._as_actions(actions["white"], "white")
        if self.illegal_action == "raise":
            self._raise_if_illegal(black, white)
        batch_step(
            self.board,
            self.eggs,
            self.meta,
            self.info,
            black,
            white,
            self._autoreset,
            self._outcome,
            self._illegal,
        )
        outcome, illegal = self._outcome, self._illegal
        played = outcome != RESET
        black_bad = (illegal & BLACK_ILLEGAL) != 0
        white_bad = (illegal & WHITE_ILLEGAL) != 0
        any_bad = black_bad | white_bad
        rewards_b = np.zeros(self.num_envs, dtype=np.float32)
        rewards_b[outcome == rules.BLACK_WINS] = 1.0
        rewards_b[outcome == rules.WHITE_WINS] = -1.0
        rewards_w = -rewards_b
        rewards_b[any_bad] = np.where(black_bad[any_bad], -1.0, 1.0)
        rewards_w[any_bad] = np.where(white_bad[any_bad], -1.0, 1.0)
        terminated = played & ((outcome != rules.ONGOING) | any_bad)
        truncated = played & ~terminated & (self.meta[:, rules.ROUNDS] >= self.max_rounds)
        self._autoreset[:] = terminated | truncated
        observations = self._observations()
        infos = self._infos(illegal)
        return (
            observations,
            {"black": rewards_b, "white": rewards_w},
            {"black": terminated, "white": terminated.copy()},
            {"black": truncated, "white": truncated.copy()},
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """``int8[N, 81]``: 1 on the empty cells of each game (both players' legal actions)."""
        return np.logical_not(self.board).view(np.int8)

    def _as_actions(self, values: Any, agent: str) -> np.ndarray:
        """The actions of one agent as ``int64[N]``, or a clear error."""
        array = np.asarray(values)
        if array.shape != (self.num_envs,) or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(
                f"{agent} actions must be {self.num_envs} integer cell indices (shape "
                f"({self.num_envs},)), got shape {array.shape} of {array.dtype}"
            )
        return array.astype(np.int64, copy=False)

    def _raise_if_illegal(self, black: np.ndarray, white: np.ndarray) -> None:
        """``illegal_action="raise"``: name the first illegal action, before any game moves."""
        live = ~self._autoreset
        for agent, acts in (("black", black), ("white", white)):
            in_range = (acts >= 0) & (acts < rules.CELLS)
            cells = np.where(in_range, acts, 0)
            empty = self.board[np.arange(self.num_envs), cells] == rules.EMPTY
            bad = np.flatnonzero(live & ~(in_range & empty))
            if bad.size:
                i = int(bad[0])
                why = (
                    f"cell {cell_name(acts[i])} ({int(acts[i])}) is occupied"
                    if in_range[i]
                    else f"action {int(acts[i])} is out of range 0-80"
                )
                raise IllegalMove(f"game {i}, {agent}: {why} ({bad.size} illegal in all)")

    def _observations(self) -> dict[str, Any]:
        """Batched observations of both players (fresh arrays unless ``copy=False``)."""
        if self.copy:
            black, white = np.empty_like(self._obs_black), np.empty_like(self._obs_white)
        else:
            black, white = self._obs_black, self._obs_white
        fill = getattr(self.encoder, "fill_batch", None)
        if fill is not None:
            fill(self.board, self.eggs, self.meta, black, white)
        else:
            for i in range(self.num_envs):
                black[i] = self.encoder.encode(*self._game(i), rules.BLACK)
                white[i] = self.encoder.encode(*self._game(i), rules.WHITE)
        mask = np.logical_not(self.board).view(np.int8)
        return {
            "black": {"observation": black, "action_mask": mask},
            "white": {"observation": white, "action_mask": mask.copy()},
        }

    def _game(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The state arrays of game ``i``."""
        return self.board[i], self.eggs[i], self.meta[i]

    def _infos(self, illegal: np.ndarray) -> dict[str, Any]:
        """What happened in each game this step, as arrays."""
        infos = {name: self.info[:, k].copy() for k, name in enumerate(INFO_FIELDS)}
        infos["collision"] = infos["collision"].astype(np.bool_)
        infos["round"] = self.meta[:, rules.ROUNDS].copy()
        infos["sudden_death"] = self.meta[:, rules.SUDDEN_DEATH].astype(np.bool_)
        infos["illegal"] = illegal.copy()
        return infos

    def close(self) -> None:
        """Nothing to release; present for API symmetry."""
