"""The batched envs' deal numbers (`shell_envs.scorpion.deals`): what each env's numpy
generator would draw, compiled and as plain Python, for the CPU batch loop and the GPU kernels
alike (the generator itself: ``tests/test_pcg64.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding

from shell_envs.core.pcg64 import G_HAS32, generator_columns
from shell_envs.scorpion.deals import (
    MAX_POOL,
    deal_pool,
    draw_deals,
    next_deal,
    pcg64_deal_number,
)


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 5, 2**63 - 1])
def test_device_deal_numbers_are_numpys_draws(seed):
    # the CPU env draws rng.integers(0, 2**62) and, with a deal pool, rng.integers(len(pool))
    # from seeding.np_random(seed); the device functions must give the same, interleaved
    rng = seeding.np_random(seed)[0]
    gen = generator_columns([seed])[:, 0].copy()
    for k in [1, 2, 3, 5, 52, 1000, 7] * 4:
        for _ in range(3):
            assert pcg64_deal_number(gen) == rng.integers(0, 2**62)
        assert next_deal(gen, np.arange(k, dtype=np.int64), True) == rng.integers(k), k
        assert next_deal(gen, np.zeros(1, np.int64), False) == rng.integers(0, 2**62)
    assert gen[G_HAS32] in (0, 1)


def test_device_deal_numbers_as_plain_python_too():
    gen_compiled = generator_columns([3])[:, 0].copy()
    gen_plain = gen_compiled.copy()
    pool = np.arange(100, 140, dtype=np.int64)
    for k in range(2, 40):
        assert pcg64_deal_number(gen_compiled) == pcg64_deal_number.py_func(gen_plain)
        assert next_deal(gen_compiled, pool[:k], True) == next_deal.py_func(gen_plain, pool[:k],
                                                                            True)  # fmt: skip
    np.testing.assert_array_equal(gen_compiled, gen_plain)


def test_draw_deals_draws_for_the_flagged_games_only():
    seeds = [11, 12, 13]
    gen = np.ascontiguousarray(generator_columns(seeds).T)
    deals = np.full(3, -1, np.int64)
    draw_deals(np.array([True, False, True]), gen, np.zeros(1, np.int64), False, deals)
    assert deals[1] == -1
    for i in (0, 2):
        assert deals[i] == seeding.np_random(seeds[i])[0].integers(0, 2**62)


def test_deal_pool_checks_its_numbers():
    assert deal_pool([3, 1]).tolist() == [3, 1]
    assert MAX_POOL == 2**31 - 1  # a pick is drawn by numpy's 32-bit bounded draw
    with pytest.raises(ValueError, match="at least one"):
        deal_pool([])
    with pytest.raises(ValueError):
        deal_pool([-1])
