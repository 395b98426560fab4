"""The output-array pool: an array is reused only once no caller refers to it."""

from __future__ import annotations

import numpy as np

from shell_envs.core.buffers import PARALLEL_BYTES, BufferPool


def test_held_arrays_and_views_are_never_handed_out_again():
    pool = BufferPool((4, 3), np.float32, size=4)
    first = pool.take()
    view = pool.take()[1:]  # only a view of the second array is kept
    third = pool.take()
    assert first is not third and view.base is not third


def test_released_arrays_are_reused_and_the_pool_stays_bounded():
    pool = BufferPool((2,), np.int8, size=2)
    a = pool.take()
    ident = id(a)
    del a
    assert id(pool.take()) == ident
    held = [pool.take() for _ in range(5)]  # more than the pool holds: fresh ones beyond it
    assert len(pool) == 2 and len({id(x) for x in held}) == 5


def test_copy_of_fills_a_pooled_array():
    pool = BufferPool((3,), np.int64)
    source = np.array([1, 2, 3])
    out = pool.copy_of(source)
    np.testing.assert_array_equal(out, source)
    assert out is not source


def test_large_copies_are_exact_copies():
    source = np.random.default_rng(0).random((300, 1000)) < 0.5  # 300 kB: above the threshold
    pool = BufferPool(source.shape, source.dtype)
    for s in (source, np.asfortranarray(source)):
        np.testing.assert_array_equal(pool.copy_of(s), s)
    odd = np.arange(PARALLEL_BYTES // 8 + 3, dtype=np.int64)  # a block not full at the end
    np.testing.assert_array_equal(BufferPool(odd.shape, odd.dtype).copy_of(odd), odd)
