"""The output-array pool: an array is reused only once no caller refers to it."""

from __future__ import annotations

import numpy as np

from shell_envs.core.buffers import PARALLEL_BYTES, BufferPool, BufferSets


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


def test_a_buffer_set_is_reused_only_once_none_of_its_arrays_is_held():
    sets = BufferSets([((3,), np.int8), ((2, 2), np.float32)])
    first = sets.take()
    ids = [id(a) for a in first]
    assert [a.shape for a in first] == [(3,), (2, 2)] and first[1].dtype == np.float32
    assert [id(a) for a in sets.take()] != ids  # the set itself is held
    masks, values = first
    del first
    assert [id(a) for a in sets.take()] != ids  # both arrays are held
    view = values[0]
    del masks, values
    assert [id(a) for a in sets.take()] != ids  # a view holds its base
    del view
    assert [id(a) for a in sets.take()] == ids  # nothing outside refers to it any more
    assert len(sets) <= 4


def test_buffer_sets_stop_growing_at_their_size():
    sets = BufferSets([((4,), np.int64)], size=2)
    held = [sets.take() for _ in range(5)]
    assert len(sets) == 2 and len({id(s[0]) for s in held}) == 5
