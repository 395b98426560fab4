"""The player view of What the Shell: a read-only game state for one player, and its decoder.

A [`WhatTheShellView`][] is what search agents read (``act_with_state``); it lives beside the
observation encoders (`shell_envs.what_the_shell.encoders`) because
[`WhatTheShellView.from_observation`][] decodes what they encode: the ``"planes"`` and
``"flat"`` layouts (egg order, sudden-death flag) are read back here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import FLAT_SIZE, N_PLANES
from shell_envs.what_the_shell.position import check_arrays
from shell_envs.what_the_shell.state import GameState

__all__ = ["WhatTheShellView"]


@dataclass(frozen=True)
class WhatTheShellView:
    """A read-only view of a What the Shell game for one player.

    ``board``, ``eggs`` and ``meta`` are read-only copies of the rules' arrays (see
    `shell_envs.what_the_shell.rules`); ``player`` is ``rules.BLACK`` or ``rules.WHITE``.
    """

    board: np.ndarray
    eggs: np.ndarray
    meta: np.ndarray
    player: int
    checked: bool = field(default=False, repr=False, compare=False)

    @classmethod
    def of(
        cls, board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, player: int, check: bool = True
    ) -> WhatTheShellView:
        """A view over read-only copies of the arrays, as seen by ``player``.

        The arrays are checked ([`check_arrays`][]): a
        state no game can have gets a ``ValueError`` (``check=False``: the caller vouches).
        """
        if isinstance(player, (bool, np.bool_)) or player not in (rules.BLACK, rules.WHITE):
            raise ValueError(f"player must be rules.BLACK (1) or rules.WHITE (2), got {player!r}")
        arrays = []
        for array, dtype in ((board, np.int8), (eggs, np.int8), (meta, np.int32)):
            if check and not _fits(array, dtype):
                raise ValueError(
                    f"the view's arrays must hold {np.dtype(dtype).name} values; got {array!r:.60}"
                )
            copy = np.array(array, dtype=dtype)
            copy.flags.writeable = False
            arrays.append(copy)
        if check:
            check_arrays(*arrays)
        return cls(arrays[0], arrays[1], arrays[2], int(player), True)

    @classmethod
    def from_state(cls, state: GameState, player: int, check: bool = True) -> WhatTheShellView:
        """[`of`][] the arrays of a [`GameState`][shell_envs.what_the_shell.state.GameState]."""
        return cls.of(*state, player, check=check)

    @property
    def state(self) -> GameState:
        """The viewed arrays as a `GameState` (read-only; ``.copy()`` for writable ones)."""
        return GameState(self.board, self.eggs, self.meta)

    @classmethod
    def from_env(cls, env: Any, agent: str) -> WhatTheShellView:
        """The view of ``agent`` (``"black"`` or ``"white"``) in ``env``.

        ``env`` is a [`WhatTheShellEnv`][shell_envs.what_the_shell.env.WhatTheShellEnv].
        """
        player = {"black": rules.BLACK, "white": rules.WHITE}.get(agent)
        if player is None:
            raise ValueError(f"agent must be 'black' or 'white', got {agent!r}")
        return cls.of(env.board, env.eggs, env.meta, player, check=False)  # env states are valid

    @classmethod
    def from_observation(cls, observation: Any) -> WhatTheShellView:
        """Decode a ``"planes"`` or ``"flat"`` observation (or its Dict) into a view.

        The observer becomes black: the rules treat both colours alike, so nothing is lost.
        """
        if isinstance(observation, dict):
            observation = observation["observation"]
        obs = np.asarray(observation, dtype=np.float32)
        if obs.shape == (N_PLANES, rules.SIZE, rules.SIZE):
            planes = obs.reshape(N_PLANES, rules.CELLS)
            sudden = bool(planes[4, 0] > 0.5)
        elif obs.shape == (FLAT_SIZE,):
            planes = obs[: 4 * rules.CELLS].reshape(4, rules.CELLS)
            sudden = bool(obs[-1] > 0.5)
        else:
            raise ValueError(
                f"cannot read a position from an observation of shape {obs.shape}: use the "
                "'planes' or 'flat' encoder, or call act_with_state with a WhatTheShellView"
            )
        board, eggs, meta = GameState.new()
        board[planes[0] > 0.5] = rules.BLACK
        board[planes[1] > 0.5] = rules.WHITE
        board[planes[2] > 0.5] = rules.EGG
        egg_cells = np.flatnonzero(planes[2] > 0.5)
        order = egg_cells[np.argsort(-planes[3, egg_cells], kind="stable")]
        eggs[: order.size] = order
        meta[rules.N_EGGS] = order.size
        meta[rules.SUDDEN_DEATH] = int(sudden)
        return cls.of(board, eggs, meta, rules.BLACK, check=False)  # valid by construction

    def legal(self, action_mask: Any) -> np.ndarray:
        """The legal cells of ``action_mask`` after checking the view and the mask.

        A view built directly (not through [`of`][]) is checked here; a mask that is not 81
        entries or marks an occupied cell legal gets a ``ValueError``.
        """
        if not self.checked:
            WhatTheShellView.of(self.board, self.eggs, self.meta, self.player)
        mask = np.asarray(action_mask)
        if mask.shape != (rules.CELLS,):
            raise ValueError(f"action_mask must have 81 entries; got shape {mask.shape}")
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("the action mask has no legal action")
        occupied = legal[self.board[legal] != rules.EMPTY]
        if occupied.size:
            raise ValueError(
                f"action_mask marks cell {int(occupied[0])} legal, but it is occupied in the view"
            )
        return legal


def _fits(array: Any, dtype: type) -> bool:
    """Whether ``array`` holds integers that ``dtype`` represents exactly (no silent wrap)."""
    values = np.asarray(array)
    if values.dtype.kind not in "iu":
        return False
    info = np.iinfo(dtype)
    return values.size == 0 or (info.min <= values.min() and values.max() <= info.max)
