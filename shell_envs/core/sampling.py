"""Compiled sampling of random legal actions for batched environments and benchmarks."""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit, jit_inline, jit_parallel, prange

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_UNIT = 2.0**-53
_PROBES = 8
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH = np.uint64(0x8080808080808080)
PARALLEL_ROWS = 1024  # from this many rows up, blocks of rows are sampled on all cores
BLOCK_ROWS = 512  # rows of one block: fixed, so the samples do not depend on the threads
_JUMP = np.uint64(0x9E3779B97F4A7C15 << 32 & 0xFFFFFFFFFFFFFFFF)  # 2**32 splitmix draws


@jit
def seed_compiled(seed: int) -> None:
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


@jit
def _sample_rows(masks, out, legal, start, stop, state):
    """Sample rows ``start:stop`` of ``masks`` into ``out`` from the splitmix ``state``."""
    width = masks.shape[1]
    sparse_run = 0  # consecutive listed rows found under a quarter legal
    for i in range(start, stop):
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


@jit_parallel
def _sample_blocks(masks, out, state):
    """`_sample_rows` over blocks of `BLOCK_ROWS` rows in parallel.

    Block ``b`` starts its stream ``b * 2**32`` draws after block 0's (a splitmix jump), so
    the blocks' streams never overlap (a row takes at most 9 draws) and the samples are the
    same whatever the number of threads.
    """
    n, width = masks.shape
    base = np.uint64(state)  # a Python int would be typed int64, and int64 + uint64 is float
    for b in prange((n + BLOCK_ROWS - 1) // BLOCK_ROWS):
        legal = np.empty(width, np.int64)
        start = b * BLOCK_ROWS
        stop = min(n, start + BLOCK_ROWS)
        _sample_rows(masks, out, legal, start, stop, base + np.uint64(b) * _JUMP)


@jit
def _sample(masks):
    """[`random_legal_actions`][] over a C-contiguous ``uint8`` view of the masks, serially."""
    n, width = masks.shape
    out = np.empty(n, np.int64)
    _sample_rows(masks, out, np.empty(width, np.int64), 0, n, _draw_state())
    return out


@jit
def _draw_state():
    """A splitmix state drawn from numba's generator (seeded by [`seed_compiled`][])."""
    return np.uint64(np.random.randint(0, 2**62))


def random_legal_actions(masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (``int64[N]``, -1 for none).

    ``masks`` is ``(N, A)``, nonzero where an action is legal.  Per row, a few uniform draws
    accepted only on a legal index (exactly uniform over the legal ones, and fast while the
    mask is not sparse), else one pass that lists the legal indices, 8 mask bytes at a time,
    and picks one of them uniformly.  Once two consecutive rows needed that pass and found
    under a quarter of the actions legal, the next rows go straight to it (draws would mostly
    miss) until a row is found denser again; every row stays exactly uniform either way.  The
    draws come from a splitmix64 stream seeded by numba's generator (so [`seed_compiled`][]
    makes it repeatable); 53-bit uniforms keep any bias below 1e-15.  A row costs a few
    nanoseconds, so batches under `PARALLEL_ROWS` rows are sampled serially (cheaper than
    waking worker threads); larger ones in blocks on all cores, which at N = 16,384 would
    otherwise be serial time that caps how a batched env's random-play loop scales with cores.
    A Python function: compiled code calling the parallel loop crashed when loaded from numba's
    cache.
    """
    rows = _as_bytes(masks)
    if len(rows) < PARALLEL_ROWS:
        return _sample(rows)
    out = np.empty(len(rows), np.int64)
    _sample_blocks(rows, out, _draw_state())
    return out


@jit_inline
def draw_below(states: np.ndarray, i: int, n: int) -> int:
    """A uniform integer in ``[0, n)`` from game ``i``'s splitmix64 stream ``states[i]``
    (``uint64``, advanced in place): per-game generators for device code, where each GPU
    thread owns one game (`shell_envs.core.cuda.random_states` seeds them)."""
    state, bits = _splitmix(states[i])
    states[i] = state
    return _below(bits, n)


@jit_inline
def random_legal(mask: np.ndarray, states: np.ndarray, i: int) -> int:
    """A uniformly random index of a nonzero entry of the 1-D ``mask`` (-1 if none), drawn from
    ``states[i]`` ([`draw_below`][]): one game's random legal action, on either target."""
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
