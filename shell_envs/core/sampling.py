"""Compiled sampling of random legal actions for batched environments and benchmarks."""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit


@jit
def seed_compiled(seed):
    """Seed the generator of compiled code on the calling thread."""
    np.random.seed(seed)


@jit
def random_legal_action(mask):
    """A uniformly random index where ``mask`` is non-zero, or -1 if there is none.

    A few uniform draws accepted only on a legal index (exactly uniform over the legal ones,
    and fast while the mask is not sparse), then a count-and-pick pass for sparse masks.
    """
    n = mask.shape[0]
    for _ in range(8):
        a = int(np.random.random() * n)  # 53-bit uniform: bias below 1e-15 for any mask size
        if mask[a]:
            return a
    count = 0
    for a in range(n):
        count += mask[a] != 0
    if count == 0:
        return -1
    k = np.random.randint(count)
    seen = 0
    for a in range(n):
        seen += mask[a] != 0
        if seen > k:
            return a
    return -1


@jit
def random_legal_actions(masks):
    """One uniformly random legal action per row of ``masks`` (``int64[N]``, -1 for none).

    Serial on purpose: a row costs tens of nanoseconds, less than waking worker threads.
    """
    n = masks.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = random_legal_action(masks[i])
    return out
