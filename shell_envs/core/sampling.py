"""Compiled sampling of random legal actions for batched environments and benchmarks."""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_UNIT = 2.0**-53


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


@jit
def _pick_kth(masks, i, k):
    """The index of the ``k``-th legal entry of row ``i`` (0-based), or -1."""
    seen = 0
    for a in range(masks.shape[1]):
        seen += masks[i, a] != 0
        if seen > k:
            return a
    return -1


@jit
def random_legal_actions(masks):
    """One uniformly random legal action per row of ``masks`` (``int64[N]``, -1 for none).

    Per row, a few uniform draws accepted only on a legal index (exactly uniform over the
    legal ones, and fast while the mask is not sparse), then a count-and-pick pass for sparse
    rows.  The draws come from a splitmix64 stream seeded by numba's generator (so
    :func:`seed_compiled` makes it repeatable); 53-bit uniforms keep any bias below 1e-15.
    Serial on purpose: a row costs a few nanoseconds, less than waking worker threads.
    """
    n, width = masks.shape
    out = np.empty(n, dtype=np.int64)
    state = np.uint64(np.random.randint(0, 2**62))
    for i in range(n):
        out[i] = -1
        for _ in range(8):
            state, bits = _splitmix(state)
            a = _below(bits, width)
            if masks[i, a]:
                out[i] = a
                break
        if out[i] >= 0:
            continue
        count = 0
        for a in range(width):
            count += masks[i, a] != 0
        if count > 0:
            state, bits = _splitmix(state)
            out[i] = _pick_kth(masks, i, _below(bits, count))
    return out
