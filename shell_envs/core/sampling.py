"""Compiled sampling of random legal actions for batched environments and benchmarks."""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit, jit_parallel, prange


@jit
def seed_compiled(seed):
    """Seed the generator of compiled code on the calling thread."""
    np.random.seed(seed)


@jit
def random_legal_action(mask):
    """A uniformly random index where ``mask`` is non-zero, or -1 if there is none."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a] != 0
    if count == 0:
        return -1
    k = np.random.randint(count)
    seen = 0
    for a in range(mask.shape[0]):
        seen += mask[a] != 0
        if seen > k:
            return a
    return -1


@jit_parallel
def random_legal_actions(masks):
    """One uniformly random legal action per row of ``masks`` (``int64[N]``, -1 for none)."""
    n = masks.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in prange(n):
        out[i] = random_legal_action(masks[i])
    return out
