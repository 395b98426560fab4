"""Observation encoders for What the Shell, each from one player's point of view.

An encoder has a ``space`` (a gymnasium ``Box``) and ``encode(board, eggs, meta, player)``
returning a fresh array in that space; ``player`` is ``rules.BLACK`` or ``rules.WHITE``.
An encoder may also define ``encode_pair(board, eggs, meta)`` returning ``(black_obs,
white_obs)``; the env then makes one native call per round for both observations (the
built-in encoders do), and ``encode_batch(board, eggs, meta)`` over arrays shaped ``(N, ...)``
for the batched env.
Register your own with :func:`register_encoder`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from shell_envs.core.encoders import EncoderRegistry
from shell_envs.core.jit import jit, jit_parallel, prange
from shell_envs.what_the_shell import rules

PLANE_NAMES = ("own_turtles", "opponent_turtles", "eggs", "egg_order", "sudden_death")
N_PLANES = len(PLANE_NAMES)
FLAT_SIZE = 4 * rules.CELLS + 1


@jit
def _fill(board, eggs, meta, player, out):
    """Write the five planes, flattened to ``(5, 81)``, into ``out`` (zeroed first)."""
    out[:] = 0.0
    for cell in range(rules.CELLS):
        v = board[cell]
        if v == player:
            out[0, cell] = 1.0
        elif v == rules.EGG:
            out[2, cell] = 1.0
        elif v != rules.EMPTY:
            out[1, cell] = 1.0
    for i in range(meta[rules.N_EGGS]):
        out[3, eggs[i]] = 1.0 - i / rules.CELLS
    if meta[rules.SUDDEN_DEATH]:
        out[4, :] = 1.0


@jit
def encode_planes(board, eggs, meta, player):
    """Planes ``float32[5, 9, 9]``; see :class:`PlanesEncoder`."""
    out = np.empty((N_PLANES, rules.CELLS), dtype=np.float32)
    _fill(board, eggs, meta, player, out)
    return out.reshape((N_PLANES, rules.SIZE, rules.SIZE))


@jit
def encode_flat(board, eggs, meta, player):
    """Flat ``float32[325]``; see :class:`FlatEncoder`."""
    out = np.empty((N_PLANES, rules.CELLS), dtype=np.float32)
    _fill(board, eggs, meta, player, out)
    flat = np.empty(FLAT_SIZE, dtype=np.float32)
    flat[: 4 * rules.CELLS] = out[:4].ravel()
    flat[4 * rules.CELLS] = out[4, 0]
    return flat


@jit
def encode_planes_pair(board, eggs, meta):
    """Planes for black and for white in one native call (white's swaps channels 0 and 1)."""
    black = encode_planes(board, eggs, meta, rules.BLACK)
    white = black.copy()
    white[0] = black[1]
    white[1] = black[0]
    return black, white


@jit
def encode_flat_pair(board, eggs, meta):
    """Flat observations for black and for white in one native call."""
    black = encode_flat(board, eggs, meta, rules.BLACK)
    white = black.copy()
    white[: rules.CELLS] = black[rules.CELLS : 2 * rules.CELLS]
    white[rules.CELLS : 2 * rules.CELLS] = black[: rules.CELLS]
    return black, white


@jit_parallel
def encode_planes_batch(board, eggs, meta):
    """Planes for black and for white of ``N`` games: two ``float32[N, 5, 9, 9]`` arrays."""
    n = board.shape[0]
    black = np.empty((n, N_PLANES, rules.CELLS), dtype=np.float32)
    white = np.empty((n, N_PLANES, rules.CELLS), dtype=np.float32)
    for i in prange(n):
        _fill(board[i], eggs[i], meta[i], rules.BLACK, black[i])
        _fill(board[i], eggs[i], meta[i], rules.WHITE, white[i])
    shape = (n, N_PLANES, rules.SIZE, rules.SIZE)
    return black.reshape(shape), white.reshape(shape)


@jit_parallel
def encode_flat_batch(board, eggs, meta):
    """Flat observations for black and for white of ``N`` games: two ``float32[N, 325]``."""
    n = board.shape[0]
    black = np.empty((n, FLAT_SIZE), dtype=np.float32)
    white = np.empty((n, FLAT_SIZE), dtype=np.float32)
    for i in prange(n):
        planes = np.empty((N_PLANES, rules.CELLS), dtype=np.float32)
        for player, out in ((rules.BLACK, black[i]), (rules.WHITE, white[i])):
            _fill(board[i], eggs[i], meta[i], player, planes)
            for k in range(4):
                out[k * rules.CELLS : (k + 1) * rules.CELLS] = planes[k]
            out[4 * rules.CELLS] = planes[4, 0]
    return black, white


class PlanesEncoder:
    """``float32[5, 9, 9]`` planes (channels first, for CNNs), all values in [0, 1].

    0. own turtles (1 where the observing player has a turtle)
    1. opponent turtles
    2. eggs
    3. egg order: ``1 - i/81`` on the ``i``-th oldest egg (the oldest egg is 1.0 and hatches
       first), 0 elsewhere
    4. sudden death: all ones while the game is in sudden death, else all zeros
    """

    space = spaces.Box(0.0, 1.0, (N_PLANES, rules.SIZE, rules.SIZE), np.float32)
    encode = staticmethod(encode_planes)
    encode_pair = staticmethod(encode_planes_pair)
    encode_batch = staticmethod(encode_planes_batch)


class FlatEncoder:
    """``float32[325]`` for MLPs: planes 0–3 of :class:`PlanesEncoder` flattened row-major
    (81 values each, cell index order), then one sudden-death flag."""

    space = spaces.Box(0.0, 1.0, (FLAT_SIZE,), np.float32)
    encode = staticmethod(encode_flat)
    encode_pair = staticmethod(encode_flat_pair)
    encode_batch = staticmethod(encode_flat_batch)


ENCODERS = EncoderRegistry("What the Shell")
ENCODERS.register("planes", PlanesEncoder)
ENCODERS.register("flat", FlatEncoder)


def register_encoder(name: str, factory: Callable[[], Any], *, overwrite: bool = False) -> None:
    """Make ``obs_encoder=name`` build ``factory()`` (an object with ``space`` and ``encode``)."""
    ENCODERS.register(name, factory, overwrite=overwrite)
