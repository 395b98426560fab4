"""Compiled sampling of random legal actions for batched environments and benchmarks."""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from shell_envs.core.jit import jit, jit_inline

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_UNIT = 2.0**-53
_PROBES = 8
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH = np.uint64(0x8080808080808080)


@jit
def seed_compiled(seed):
    """Seed the generator of compiled code on the calling thread."""
    np.random.seed(seed)


@jit
def _splitmix(state):
    """One step of splitmix64: ``(new_state, 64 random bits)``, a few cycles per draw."""
    state += _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return state, z ^ (z >> np.uint64(31))


@jit
def _below(bits, n):
    """A uniform integer in ``[0, n)`` from 64 random bits (53 of them: bias below 1e-15)."""
    return int(float(bits >> np.uint64(11)) * _UNIT * n)


@jit_inline
def _any_nonzero(masks, i, a):
    """Whether any of the 8 bytes ``masks[i, a:a + 8]`` is nonzero, from one 64-bit load.

    The bytes are assembled into a word (compiled into a single load) and tested with a bit
    trick that sets the high bit of every nonzero byte; a plain ``word != 0`` would let the
    compiler split the test back into 8 byte loads.
    """
    word = np.uint64(0)
    for b in range(8):
        word |= np.uint64(masks[i, a + b]) << np.uint64(8 * b)
    return ((((word & _LOW7) + _LOW7) | word) & _HIGH) != np.uint64(0)


@jit_inline
def _legal_indices(masks, i, legal):
    """Write the indices of the nonzero bytes of row ``i`` into ``legal``; returns how many.

    A 64-bit word (8 bytes) at a time: a sparse row has few nonzero words, and only those are
    looked into, without branches (each index is stored, and kept by advancing the count).
    """
    width = masks.shape[1]
    count = 0
    a = 0
    while a + 8 <= width:
        if _any_nonzero(masks, i, a):
            for b in range(a, a + 8):
                legal[count] = b
                count += masks[i, b] != 0
        a += 8
    for b in range(a, width):
        legal[count] = b
        count += masks[i, b] != 0
    return count


def _as_bytes(masks):
    """``masks`` as C-contiguous ``uint8`` (a view of byte masks, else ``masks != 0``)."""
    rows = np.asarray(masks)
    if rows.dtype.itemsize != 1:
        rows = rows != 0
    return np.ascontiguousarray(rows).view(np.uint8)


@overload(_as_bytes)
def _as_bytes_compiled(masks):
    """Compiled `_as_bytes`: chosen by the type of ``masks`` when compiling."""
    dtype = masks.dtype
    byte = isinstance(dtype, types.Boolean) or getattr(dtype, "bitwidth", 0) == 8
    if byte and masks.layout == "C":
        return lambda masks: masks.view(np.uint8)
    return lambda masks: (masks != 0).view(np.uint8)


@jit
def _sample(masks):
    """[`random_legal_actions`][] over a C-contiguous ``uint8`` view of the masks."""
    n, width = masks.shape
    out = np.empty(n, np.int64)
    legal = np.empty(width, np.int64)
    state = np.uint64(np.random.randint(0, 2**62))
    sparse_run = 0  # consecutive listed rows found under a quarter legal
    for i in range(n):
        out[i] = -1
        if width > 0 and sparse_run < 2:
            for _ in range(_PROBES):
                state, bits = _splitmix(state)
                a = _below(bits, width)
                if masks[i, a]:
                    out[i] = a
                    break
            if out[i] >= 0:
                continue
        count = _legal_indices(masks, i, legal)
        sparse_run = sparse_run + 1 if 4 * count < width else 0
        if count > 0:
            state, bits = _splitmix(state)
            out[i] = legal[_below(bits, count)]
    return out


@jit
def random_legal_actions(masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (``int64[N]``, -1 for none).

    ``masks`` is ``(N, A)``, nonzero where an action is legal.  Per row, a few uniform draws
    accepted only on a legal index (exactly uniform over the legal ones, and fast while the
    mask is not sparse), else one pass that lists the legal indices, 8 mask bytes at a time,
    and picks one of them uniformly.  Once two consecutive rows needed that pass and found
    under a quarter of the actions legal, the next rows go straight to it (draws would mostly
    miss) until a row is found denser again; every row stays exactly uniform either way.  The
    draws come from a splitmix64 stream seeded by numba's generator (so [`seed_compiled`][]
    makes it repeatable); 53-bit uniforms keep any bias below 1e-15.  Serial on purpose: a
    row costs a few nanoseconds, less than waking worker threads.
    """
    return _sample(_as_bytes(masks))


@jit_inline
def draw_below(states, i, n):
    """A uniform integer in ``[0, n)`` from game ``i``'s splitmix64 stream ``states[i]``
    (``uint64``, advanced in place): per-game generators for device code, where each GPU
    thread owns one game (:func:`shell_envs.core.cuda.random_states` seeds them)."""
    state, bits = _splitmix(states[i])
    states[i] = state
    return _below(bits, n)


@jit_inline
def random_legal(mask, states, i):
    """A uniformly random index of a nonzero entry of the 1-D ``mask`` (-1 if none), drawn from
    ``states[i]`` (:func:`draw_below`): one game's random legal action, on either target."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a] != 0
    if count == 0:
        return -1
    k = draw_below(states, i, count)
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            if k == 0:
                return a
            k -= 1
    return -1
