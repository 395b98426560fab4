"""Observation encoders for What the Shell, each from one player's point of view.

An encoder has a ``space`` (a gymnasium ``Box``) and ``encode(board, eggs, meta, player)``
returning a fresh array in that space; ``player`` is ``rules.BLACK`` or ``rules.WHITE``.
An encoder may also define ``encode_pair(board, eggs, meta)`` returning ``(black_obs,
white_obs)``, and ``step_pair(board, eggs, meta, black_cell, white_cell, info)`` returning
``(outcome, black_obs, white_obs, mask)``: `rules.step_and_observe` given its
``encode_pair`` (outcome ``ILLEGAL`` and nothing played when a cell is illegal); the env then
makes a single native call per round (the built-in encoders do); ``fill_batch(board, eggs, meta,
black_out, white_out)`` writes ``N`` games' observations into ``(N, ...)`` buffers for the
batched env.
Register your own with [`register_encoder`][].
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from shell_envs.core.deprecation import moved_names
from shell_envs.core.encoders import EncoderRegistry
from shell_envs.core.jit import jit, jit_inline, jit_parallel, prange
from shell_envs.what_the_shell import rules

PLANE_NAMES = ("own_turtles", "opponent_turtles", "eggs", "egg_order", "sudden_death")
N_PLANES = len(PLANE_NAMES)
FLAT_SIZE = 4 * rules.CELLS + 1


@jit_inline
def fill_planes(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    player: int,
    out: np.ndarray,
    one: float | np.uint8,
) -> None:
    """Write ``player``'s five planes, flattened to ``(5, 81)``, into ``out``; ``one`` is full
    scale (1.0, or 255 for ``uint8``): the one observation writer of every encoder, batch loop
    and GPU kernel.

    Branch-free (comparisons times ``one``: boards are random, branches mispredict), one
    simple loop per plane so that each one compiles to vector instructions.
    """
    opponent = rules.BLACK + rules.WHITE - player
    sudden = one * (meta[rules.SUDDEN_DEATH] != 0)
    for cell in range(rules.CELLS):
        out[0, cell] = one * (board[cell] == player)
    for cell in range(rules.CELLS):
        out[1, cell] = one * (board[cell] == opponent)
    for cell in range(rules.CELLS):
        out[2, cell] = one * (board[cell] == rules.EGG)
    for cell in range(rules.CELLS):
        out[3, cell] = 0
        out[4, cell] = sudden
    for i in range(meta[rules.N_EGGS]):
        out[3, eggs[i]] = one * (1.0 - i / rules.CELLS)


@jit
def encode_planes(board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, player: int) -> np.ndarray:
    """Planes ``float32[5, 9, 9]``; see [`PlanesEncoder`][]."""
    out = np.empty((N_PLANES, rules.CELLS), dtype=np.float32)
    fill_planes(board, eggs, meta, player, out, 1.0)
    return out.reshape((N_PLANES, rules.SIZE, rules.SIZE))


@jit
def encode_flat(board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, player: int) -> np.ndarray:
    """Flat ``float32[325]``; see [`FlatEncoder`][]."""
    out = np.empty((N_PLANES, rules.CELLS), dtype=np.float32)
    fill_planes(board, eggs, meta, player, out, 1.0)
    flat = np.empty(FLAT_SIZE, dtype=np.float32)
    _flatten(out, flat)
    return flat


@jit_inline
def _with_white(black: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(black, white)``: black's observation and white's, a copy with the own and opponent
    turtles swapped (the first two blocks of 81 values, planes or flat alike)."""
    white = black.copy()
    flat_b, flat_w = black.reshape(black.size), white.reshape(white.size)
    # element loops: an array copy would compile numba's shape-mismatch error text, seconds
    # of first start
    for cell in range(rules.CELLS):
        flat_w[cell] = flat_b[rules.CELLS + cell]
        flat_w[rules.CELLS + cell] = flat_b[cell]
    return black, white


@jit
def encode_planes_pair(
    board: np.ndarray, eggs: np.ndarray, meta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Planes for black and for white in one native call (white's swaps channels 0 and 1)."""
    return _with_white(encode_planes(board, eggs, meta, rules.BLACK))


@jit
def encode_flat_pair(
    board: np.ndarray, eggs: np.ndarray, meta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Flat observations for black and for white in one native call."""
    return _with_white(encode_flat(board, eggs, meta, rules.BLACK))


@jit
def step_planes(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    black_cell: int,
    white_cell: int,
    info: np.ndarray,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """`rules.step_and_observe` with both players' planes, in one native call (the hot path)."""
    return rules.step_and_observe(
        board, eggs, meta, black_cell, white_cell, info, encode_planes_pair
    )


@jit
def step_flat(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    black_cell: int,
    white_cell: int,
    info: np.ndarray,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """`rules.step_and_observe` with both players' flat observations, in one native call."""
    return rules.step_and_observe(board, eggs, meta, black_cell, white_cell, info, encode_flat_pair)


@jit_parallel
def fill_planes_batch(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    black: np.ndarray,
    white: np.ndarray,
    one: float | np.uint8,
) -> None:
    """Planes of ``N`` games for black and for white into ``black``/``white`` ``(N, 5, 81)``."""
    for i in prange(board.shape[0]):
        fill_planes(board[i], eggs[i], meta[i], rules.BLACK, black[i], one)
        fill_planes(board[i], eggs[i], meta[i], rules.WHITE, white[i], one)


@jit
def _flatten(planes, out):
    """Planes 0–3 of ``(5, 81)`` planes, then the sudden-death flag, into ``out`` (325).

    Element loops, not slice copies, so that GPU kernels compile it too.
    """
    for k in range(4):
        for cell in range(rules.CELLS):
            out[k * rules.CELLS + cell] = planes[k, cell]
    out[4 * rules.CELLS] = planes[4, 0]


@jit_inline
def fill_flat_pair(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    planes: np.ndarray,
    black: np.ndarray,
    white: np.ndarray,
) -> None:
    """One game's flat observations for black and for white into ``black``/``white`` (325),
    through the scratch ``planes`` (``float32[5, 81]``); batch loops and GPU kernels share it."""
    fill_planes(board, eggs, meta, rules.BLACK, planes, 1.0)
    _flatten(planes, black)
    fill_planes(board, eggs, meta, rules.WHITE, planes, 1.0)
    _flatten(planes, white)


@jit_parallel
def fill_flat_batch(
    board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, black: np.ndarray, white: np.ndarray
) -> None:
    """Flat observations of ``N`` games for black and for white into ``(N, 325)`` arrays."""
    for i in prange(board.shape[0]):
        planes = np.empty((N_PLANES, rules.CELLS), dtype=np.float32)
        fill_flat_pair(board[i], eggs[i], meta[i], planes, black[i], white[i])


def _planes_batch_filler(one: float | np.uint8) -> Any:
    """The ``fill_batch`` of a planes encoder whose full cells hold ``one`` (a staticmethod):
    both players' planes of ``N`` games into ``black``/``white`` ``(N, 5, 9, 9)``."""

    def fill_batch(
        board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, black: np.ndarray, white: np.ndarray
    ) -> None:
        """Both players' planes of ``N`` games into ``black``/``white`` ``(N, 5, 9, 9)``."""
        shape = (board.shape[0], N_PLANES, rules.CELLS)
        fill_planes_batch(board, eggs, meta, black.reshape(shape), white.reshape(shape), one)

    return staticmethod(fill_batch)


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
    step_pair = staticmethod(step_planes)

    fill_batch = _planes_batch_filler(1.0)


class FlatEncoder:
    """``float32[325]`` for MLPs: planes 0–3 of [`PlanesEncoder`][] flattened row-major
    (81 values each, cell index order), then one sudden-death flag."""

    space = spaces.Box(0.0, 1.0, (FLAT_SIZE,), np.float32)
    encode = staticmethod(encode_flat)
    encode_pair = staticmethod(encode_flat_pair)
    step_pair = staticmethod(step_flat)
    fill_batch = staticmethod(fill_flat_batch)


@jit
def encode_planes_uint8(
    board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, player: int
) -> np.ndarray:
    """Planes ``uint8[5, 9, 9]``; see [`PlanesUint8Encoder`][]."""
    out = np.empty((N_PLANES, rules.CELLS), dtype=np.uint8)
    fill_planes(board, eggs, meta, player, out, np.uint8(255))
    return out.reshape((N_PLANES, rules.SIZE, rules.SIZE))


class PlanesUint8Encoder:
    """The planes of [`PlanesEncoder`][] as ``uint8`` scaled by 255 (egg order floored).

    A quarter of the bytes, for large batches and GPU transfers; image-aware learners (e.g.
    Stable-Baselines3's CNN policies) divide by 255 and see the float planes again.
    """

    space = spaces.Box(0, 255, (N_PLANES, rules.SIZE, rules.SIZE), np.uint8)
    encode = staticmethod(encode_planes_uint8)

    fill_batch = _planes_batch_filler(np.uint8(255))


ENCODERS = EncoderRegistry("What the Shell")
ENCODERS.register("planes", PlanesEncoder)
ENCODERS.register("flat", FlatEncoder)
ENCODERS.register("planes_uint8", PlanesUint8Encoder)


def register_encoder(name: str, factory: Callable[[], Any], *, overwrite: bool = False) -> None:
    """Make ``obs_encoder=name`` build ``factory()`` (an object with ``space`` and ``encode``)."""
    ENCODERS.register(name, factory, overwrite=overwrite)


# legal_mask, now a rule, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__, "0.5.0", {"legal_mask": ("shell_envs.what_the_shell.rules", "legal_mask")}
)
