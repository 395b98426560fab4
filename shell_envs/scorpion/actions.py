"""Scorpion's action encoding, its one home: every module encodes and decodes through here.

A card move is ``card * N_COLUMNS + column``: the card (index ``suit * 13 + rank - 1``),
with every card above it, goes onto ``column`` (0–6).  After the 364 card moves come the
reserve deal (`RESERVE_ACTION`, 364) and, where undo is allowed, `UNDO_ACTION` (365).
The codec is compiled and inlined, so rule functions and GPU kernels call it for free;
Python code calls the same functions uncompiled (`encode_move_plain`, `decode_move_plain`).
"""

from __future__ import annotations

from shell_envs.core.jit import jit_inline

N_COLUMNS = 7
N_CARDS = 52
N_MOVES = N_CARDS * N_COLUMNS  # the card moves, actions 0–363
RESERVE_ACTION = N_MOVES
UNDO_ACTION = N_MOVES + 1
N_ACTIONS = N_MOVES + 1  # without undo
N_ACTIONS_UNDO = N_MOVES + 2  # with undo

__all__ = [
    "N_ACTIONS",
    "N_ACTIONS_UNDO",
    "N_CARDS",
    "N_COLUMNS",
    "N_MOVES",
    "RESERVE_ACTION",
    "UNDO_ACTION",
    "decode_move",
    "decode_move_plain",
    "encode_move",
    "encode_move_plain",
]


@jit_inline
def encode_move(card: int, column: int) -> int:
    """The action that moves ``card`` (and every card above it) onto ``column``."""
    return card * N_COLUMNS + column


@jit_inline
def decode_move(action: int) -> tuple[int, int]:
    """``(card, column)`` of a card-move action (``0 <= action < N_MOVES``)."""
    return action // N_COLUMNS, action % N_COLUMNS


# The same two functions uncompiled, for callers in Python (messages, the reference engine):
# a call then compiles nothing, even while a background compile covers the rules, and costs a
# quarter of a compiled function's dispatch.
encode_move_plain = getattr(encode_move, "py_func", encode_move)
decode_move_plain = getattr(decode_move, "py_func", decode_move)
