"""Deal numbers of the batched envs: each env's next deal, drawn by its own generator.

Each env of a batched Scorpion env draws its next deal number from its own generator, as the
single env draws from its ``np_random``: numpy's PCG64 seeded with ``SeedSequence(seed)``,
which `shell_envs.core.pcg64` reproduces exactly for both targets.  So the CPU batch loop
and the GPU kernels draw the next deal inside the loop that resets the game (`next_deal`):
the same numbers as numpy's, with no Python call per env, and one implementation for both
targets.  The env keeps one generator (``GEN_ROWS`` int64) per game.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shell_envs.core.deprecation import moved_names
from shell_envs.core.jit import jit
from shell_envs.core.pcg64 import BELOW_LIMIT, pcg64_below, pcg64_next64
from shell_envs.core.validation import integer
from shell_envs.scorpion.state import MAX_DEAL_NUMBER

__all__ = [
    "MAX_POOL",
    "deal_pool",
    "draw_deals",
    "next_deal",
    "pcg64_deal_number",
]

MAX_POOL = BELOW_LIMIT - 1  # a pool's pick is drawn by pcg64_below


@jit
def pcg64_deal_number(gen: np.ndarray) -> int:
    """The next deal number, as the CPU env's ``rng.integers(0, 2**62)`` draws it (the top 62
    of 64 random bits: numpy's bounded draw takes ``(bits * 2**62) >> 64``)."""
    hi, lo = pcg64_next64(gen)
    return (hi << 30) | (lo >> 2)


@jit
def next_deal(gen: np.ndarray, pool: np.ndarray, use_pool: bool) -> int:
    """The next deal number from the generator ``gen`` (one game's, a 1-D view in any layout):
    a pick of ``pool`` if ``use_pool`` (as ``rng.integers(len(pool))`` picks), else
    ``rng.integers(0, 2**62)``."""
    if use_pool:
        return pool[pcg64_below(gen, pool.shape[0])]
    return pcg64_deal_number(gen)


@jit
def draw_deals(
    which: np.ndarray, gen: np.ndarray, pool: np.ndarray, use_pool: bool, deals: np.ndarray
) -> None:
    """``deals[i]``: the next deal number (`next_deal`) of every game ``i`` with ``which[i]``
    set; ``gen`` holds one generator row per game (the CPU env's layout)."""
    for i in range(which.shape[0]):
        if which[i]:
            deals[i] = next_deal(gen[i], pool, use_pool)


def deal_pool(numbers: Sequence[int]) -> np.ndarray:
    """The checked deal numbers of ``set_deal_pool`` (at least one, at most `MAX_POOL`)."""
    pool = [integer(f"numbers[{i}]", x, 0, MAX_DEAL_NUMBER) for i, x in enumerate(numbers)]
    if not pool:
        raise ValueError("the deal pool must hold at least one deal number")
    if len(pool) > MAX_POOL:
        raise ValueError(f"the deal pool holds at most {MAX_POOL} deal numbers")
    return np.array(pool, np.int64)


# generator_columns, moved to the core, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__, "0.5.0", {"generator_columns": ("shell_envs.core.pcg64", "generator_columns")}
)
