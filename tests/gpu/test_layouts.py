"""The layouts of the GPU envs' arrays (`shell_envs.core.cuda`): one state spec per game from
which both layouts derive, and each kernel pair built from one per-game body."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from shell_envs.core import cuda
from shell_envs.scorpion import gpu as scorpion_gpu
from shell_envs.scorpion import kernels as scorpion_kernels
from shell_envs.scorpion import rules as scorpion_rules
from shell_envs.what_the_shell import gpu as wts_gpu
from shell_envs.what_the_shell import kernels as wts_kernels


def test_fresh_batches_are_fresh_games_in_either_layout():
    for spec, one in zip(scorpion_kernels.STATE, scorpion_rules.new_arrays(), strict=True):
        rows = cuda.fresh_batch(spec, 3)
        np.testing.assert_array_equal(rows, np.repeat(one[None], 3, axis=0))
        soa = cuda.fresh_batch(spec, 3, "soa")
        assert soa.shape == cuda.batch_shape(3, spec.shape, "soa") == (*one.shape, 3)
        np.testing.assert_array_equal(np.moveaxis(soa, -1, 0), rows)
        for array in (rows, soa):
            assert array.flags.c_contiguous and array.flags.writeable and array.flags.owndata
    eggs = next(s for s in wts_kernels.STATE if s.name == "eggs")
    assert (cuda.fresh_batch(eggs, 2) == -1).all() and cuda.fresh_batch(eggs, 2).dtype == np.int8


@pytest.mark.parametrize("layout", cuda.LAYOUTS)
def test_a_games_part_is_the_same_in_either_layout(layout):
    rows = np.arange(4 * 3 * 5).reshape(4, 3, 5)  # 4 games
    array = np.ascontiguousarray(np.moveaxis(rows, 0, -1)) if layout == "soa" else rows
    players = np.stack([array, array + 100])  # (player, ...) before the games, as masks are
    part = cuda.game_rows(layout)
    for i in range(4):
        np.testing.assert_array_equal(part(array, i), rows[i])
        np.testing.assert_array_equal(part(players[1], i), rows[i] + 100)


def test_each_kernel_pair_comes_from_one_body():
    pairs = [scorpion_gpu.STEP_KERNELS, scorpion_gpu.RESET_KERNELS, scorpion_gpu.CHECK_KERNELS,
             scorpion_gpu.SAMPLE_KERNELS, wts_gpu.STEP_KERNELS, wts_gpu.SAMPLE_KERNELS]  # fmt: skip
    for kernels in pairs:
        assert set(kernels) == set(cuda.LAYOUTS)
        soa, rows = kernels["soa"], kernels["game_major"]
        assert soa.body.__code__ is rows.body.__code__  # one body, two parts accessors
        assert inspect.signature(soa.body) == inspect.signature(rows.body)
        assert soa.name.replace("_soa_", "_game_major_") == rows.name
