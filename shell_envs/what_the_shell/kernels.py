"""One What the Shell game's part of a batched step: the body both targets run.

The CPU batch loop (`shell_envs.what_the_shell.vector`) and the GPU kernels
(`shell_envs.what_the_shell.gpu`) call `step_game` on each game's arrays (its rows or
columns, views in any layout), so the CPU and the GPU play the same games; it calls the rules
(`rules.play_round`) and the encoders.  `STATE` says once what a game's state arrays are.
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.cuda import StateArray
from shell_envs.core.jit import jit_inline
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import fill_planes

__all__ = [
    "BLACK_ILLEGAL",
    "FLAT",
    "OTHER",
    "PLANES",
    "PLANES_UINT8",
    "STATE",
    "WHITE_ILLEGAL",
    "step_game",
]

# the encoders the kernels fill themselves, by kind (FLAT: on the GPU only), and -1 for others
OTHER, PLANES, PLANES_UINT8, FLAT = -1, 0, 1, 2
BLACK_ILLEGAL, WHITE_ILLEGAL = 1, 2  # bits of the report's "illegal" row
# the state arrays, in the rule functions' order: one game's shape, dtype and fresh value
# (work: the rules' scratch, kept zeroed where they need it)
STATE = (
    StateArray("board", (rules.CELLS,), np.int8, rules.EMPTY),
    StateArray("eggs", (rules.CELLS,), np.int8, -1),
    StateArray("meta", (rules.META_SIZE,), np.int32),
    StateArray("info", (rules.INFO_SIZE,), np.int32),
    StateArray("work", rules.WORK_SHAPE, np.int8),
)


@jit_inline
def _observe(kind, board, eggs, meta, obs_b, obs_w, mask_b, mask_w):
    """One game's observations (built-in encoder ``kind``; -1: none) and both masks."""
    if kind == PLANES:
        fill_planes(board, eggs, meta, rules.BLACK, obs_b, 1.0)
        fill_planes(board, eggs, meta, rules.WHITE, obs_w, 1.0)
    elif kind == PLANES_UINT8:
        fill_planes(board, eggs, meta, rules.BLACK, obs_b, np.uint8(255))
        fill_planes(board, eggs, meta, rules.WHITE, obs_w, np.uint8(255))
    for cell in range(rules.CELLS):
        empty = board[cell] == rules.EMPTY
        mask_b[cell] = empty
        mask_w[cell] = empty


@jit_inline
def step_game(
    i: int,
    s: tuple[np.ndarray, ...],
    black: np.ndarray,
    white: np.ndarray,
    autoreset: np.ndarray,
    max_rounds: int,
    kind: int,
    out: tuple[np.ndarray, ...],
    rewards: np.ndarray,
    flags: np.ndarray,
    report: np.ndarray,
) -> None:
    """Step game ``i`` (or reset it, if flagged in ``autoreset``) and observe it.

    ``s`` is game ``i``'s state, its own rows of the `STATE` arrays as one plain tuple
    ``(board, eggs, meta, info, work)``, and ``out`` its own rows of the observations and masks,
    ``(obs_b, obs_w, mask_b, mask_w)``; the other arrays are the batch's, indexed by ``i`` (see
    `shell_envs.what_the_shell.vector.batch_step`, which says what each row holds).  The
    CPU batch loop and the GPU kernels (`shell_envs.what_the_shell.gpu`) both run this.
    """
    board, eggs, meta, info, work = s
    obs_b, obs_w, mask_b, mask_w = out
    illegal = 0
    reward_b = 0.0
    reward_w = 0.0
    terminated = False
    truncated = False
    if autoreset[i]:
        for cell in range(rules.CELLS):
            board[cell] = rules.EMPTY
            eggs[cell] = -1
        for k in range(rules.META_SIZE):
            meta[k] = 0
        for k in range(rules.INFO_SIZE):
            info[k] = 0
        autoreset[i] = False
    else:
        if not rules.is_legal(board, black[i]):
            illegal |= BLACK_ILLEGAL
        if not rules.is_legal(board, white[i]):
            illegal |= WHITE_ILLEGAL
        if illegal:
            for k in range(rules.INFO_SIZE):
                info[k] = 0
            reward_b = -1.0 if illegal & BLACK_ILLEGAL else 1.0
            reward_w = -1.0 if illegal & WHITE_ILLEGAL else 1.0
            terminated = True
        else:
            outcome = rules.play_round(board, eggs, meta, black[i], white[i], info, work)
            if outcome == rules.BLACK_WINS:
                reward_b = 1.0
                reward_w = -1.0
            elif outcome == rules.WHITE_WINS:
                reward_b = -1.0
                reward_w = 1.0
            terminated = outcome != rules.ONGOING
            truncated = not terminated and meta[rules.ROUNDS] >= max_rounds
        autoreset[i] = terminated or truncated
    rewards[0, i] = reward_b
    rewards[1, i] = reward_w
    flags[0, i] = terminated
    flags[1, i] = terminated
    flags[2, i] = truncated
    flags[3, i] = truncated
    for k in range(rules.INFO_SIZE):
        report[k, i] = info[k]
    report[rules.INFO_SIZE, i] = meta[rules.ROUNDS]
    report[rules.INFO_SIZE + 1, i] = meta[rules.SUDDEN_DEATH]
    report[rules.INFO_SIZE + 2, i] = illegal
    flags[4, i] = info[rules.I_COLLISION] != 0
    flags[5, i] = meta[rules.SUDDEN_DEATH] != 0
    _observe(kind, board, eggs, meta, obs_b, obs_w, mask_b, mask_w)
    if autoreset[i]:  # the next step resets this game and ignores its actions: any will do
        for cell in range(rules.CELLS):
            mask_b[cell] = 1
            mask_w[cell] = 1
