"""Uncounted row views for compiled batch loops: the same rows as indexing, writable in place."""

from __future__ import annotations

import numpy as np
from numba import njit

from shell_envs.core.rows import row


@njit
def _bump_rows(batch):
    """Add each row's index to that row through ``row`` and return every row's sum."""
    sums = np.zeros(batch.shape[0], np.int64)
    for i in range(batch.shape[0]):
        r = row(batch, i)
        r += i
        sums[i] = r.sum()
    return sums


@njit
def _row_facts(batch, i):
    """Shape, strides and one element of ``row(batch, i)``."""
    r = row(batch, i)
    return r.shape, r.strides, r[1, 2]


def test_row_is_the_same_view_as_indexing_and_writes_through():
    batch = np.arange(24, dtype=np.int32).reshape(4, 6)
    expected = batch + np.arange(4)[:, None]
    np.testing.assert_array_equal(_bump_rows(batch), expected.sum(axis=1))
    np.testing.assert_array_equal(batch, expected)


def test_row_of_a_3d_array_keeps_shape_and_strides():
    batch = np.arange(2 * 3 * 4, dtype=np.int8).reshape(2, 3, 4)
    assert _row_facts(batch, 1) == (batch[1].shape, batch[1].strides, batch[1][1, 2])
