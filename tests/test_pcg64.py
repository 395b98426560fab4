"""The device-exact generator (`shell_envs.core.pcg64`): numpy's PCG64 and SeedSequence
reproduced, compiled and as plain Python, so compiled loops and GPU kernels draw what a numpy
generator would."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding

from shell_envs.core.pcg64 import (
    BELOW_LIMIT,
    G_HAS32,
    G_INC,
    G_UINT32,
    GEN_ROWS,
    generator_columns,
    pcg64_below,
    pcg64_next64,
)


def numpy_column(seed: int) -> np.ndarray:
    """The generator column of ``seeding.np_random(seed)``, read from numpy's own state."""
    state = seeding.np_random(seed)[0].bit_generator.state
    column = np.zeros(GEN_ROWS, np.int64)
    for k in range(8):
        column[k] = (state["state"]["state"] >> (16 * k)) & 0xFFFF
        column[G_INC + k] = (state["state"]["inc"] >> (16 * k)) & 0xFFFF
    column[G_HAS32] = state["has_uint32"]
    column[G_UINT32] = state["uinteger"]
    return column


def test_generators_are_seeded_as_numpy_seeds_them():
    seeds = [0, 1, 2**32 - 1, 2**32, 2**62, 2**63 - 1]
    seeds += [int(x) for x in np.random.default_rng(5).integers(0, 2**63 - 1, size=200)]
    seeds += [int(x) for x in np.random.default_rng(6).integers(0, 2**32, size=200)]
    columns = generator_columns([*seeds, None])
    for j, seed in enumerate(seeds):
        np.testing.assert_array_equal(columns[:, j], numpy_column(seed), err_msg=str(seed))


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 5, 2**63 - 1])
def test_draws_are_numpys_draws(seed):
    # 64 random bits as numpy's random_raw gives them, and integers(k) interleaved with them
    rng = seeding.np_random(seed)[0]
    gen = generator_columns([seed])[:, 0].copy()
    for k in [1, 2, 3, 5, 52, 1000, BELOW_LIMIT - 1, 7] * 4:
        assert pcg64_below(gen, k) == rng.integers(k), k
        assert pcg64_below(gen, k) == rng.integers(k), k  # the second half of a 64-bit draw
        assert gen[G_HAS32] in (0, 1)
    raw_rng = seeding.np_random(seed)[0]
    raw_gen = generator_columns([seed])[:, 0].copy()
    for _ in range(20):
        hi, lo = pcg64_next64(raw_gen)
        assert (hi << 32) | lo == int(raw_rng.bit_generator.random_raw())


def test_draws_as_plain_python_too():
    gen_compiled = generator_columns([3])[:, 0].copy()
    gen_plain = gen_compiled.copy()
    for k in range(2, 40):
        assert pcg64_next64(gen_compiled) == pcg64_next64.py_func(gen_plain)
        assert pcg64_below(gen_compiled, k) == pcg64_below.py_func(gen_plain, k)
    np.testing.assert_array_equal(gen_compiled, gen_plain)


def test_unseeded_generators_are_valid_and_distinct():
    gen = generator_columns([None, None])
    assert (gen[G_INC] & 1).all()  # PCG increments are odd
    assert not np.array_equal(gen[:, 0], gen[:, 1])
