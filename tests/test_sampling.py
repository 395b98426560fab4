"""The compiled sampler of random legal actions: legal, uniform, and -1 when none is legal."""

from __future__ import annotations

import numpy as np
from scipy.stats import chisquare

from shell_envs.core.sampling import (
    BLOCK_ROWS,
    PARALLEL_ROWS,
    random_legal_actions,
    seed_compiled,
)


def test_samples_only_legal_actions_uniformly():
    seed_compiled(1)
    masks = np.zeros((30000, 81), np.int8)
    masks[:, [0, 40, 80]] = 1  # sparse rows take the counting path
    dense = np.ones((30000, 81), np.bool_)
    dense[:, ::2] = False  # half legal: the rejection path
    sparse = random_legal_actions(masks)
    assert set(np.unique(sparse)) == {0, 40, 80}
    assert chisquare(np.bincount(sparse)[[0, 40, 80]]).pvalue > 1e-4
    half = random_legal_actions(dense)
    assert np.all(half % 2 == 1)
    assert chisquare(np.bincount(half, minlength=81)[1::2]).pvalue > 1e-4


def test_no_legal_action_gives_minus_one():
    assert list(random_legal_actions(np.zeros((3, 7), np.int8))) == [-1, -1, -1]


def test_sparse_wide_rows_are_uniform_over_their_legal_actions():
    seed_compiled(2)
    masks = np.zeros((40000, 365), np.bool_)
    legal = [3, 8, 63, 64, 200, 360, 364]  # inside and across 8-byte words, and in the tail
    masks[:, legal] = True
    picks = random_legal_actions(masks)
    assert set(np.unique(picks)) == set(legal)
    assert chisquare(np.bincount(picks, minlength=365)[legal]).pvalue > 1e-4


def test_rows_switching_between_sparse_and_dense_stay_uniform():
    seed_compiled(3)
    masks = np.zeros((60000, 40), np.int8)
    masks[0::3, 5] = 1  # one legal action: the next rows skip the draws
    masks[1::3, :] = 1  # all legal: this row goes back to the draws
    masks[2::3, [0, 39]] = 1
    picks = random_legal_actions(masks)
    assert np.all(picks[0::3] == 5)
    assert chisquare(np.bincount(picks[1::3], minlength=40)).pvalue > 1e-4
    assert chisquare(np.bincount(picks[2::3], minlength=40)[[0, 39]]).pvalue > 1e-4


def test_any_nonzero_entry_is_legal_whatever_the_dtype_or_layout():
    seed_compiled(4)
    base = np.zeros((500, 20), np.float64)
    base[:, 7] = 0.5
    base[:, 19] = 256
    for masks in (base, base.astype(np.int64), np.asfortranarray(base), base[:, ::-1]):
        expected = set(np.flatnonzero(masks[0]))
        assert set(np.unique(random_legal_actions(masks))) == expected


def test_seeded_sampling_repeats_exactly():
    masks = np.random.default_rng(0).random((300, 365)) < 0.02
    seed_compiled(9)
    first = random_legal_actions(masks)
    seed_compiled(9)
    np.testing.assert_array_equal(random_legal_actions(masks), first)


def test_rows_without_actions_give_minus_one():
    assert random_legal_actions(np.zeros((2, 0), np.bool_)).tolist() == [-1, -1]
    masks = np.zeros((3, 365), np.bool_)
    masks[1, 100] = True
    assert random_legal_actions(masks).tolist() == [-1, 100, -1]


def test_large_batches_sample_the_same_whatever_the_threads():
    import numba

    masks = np.random.default_rng(1).random((PARALLEL_ROWS + BLOCK_ROWS // 2, 81)) < 0.3
    draws = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        seed_compiled(5)
        draws.append(random_legal_actions(masks))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    np.testing.assert_array_equal(draws[0], draws[1])
    assert masks[np.arange(len(masks)), draws[0]].all()


def test_blocks_of_a_large_batch_draw_from_different_streams():
    seed_compiled(6)
    picks = random_legal_actions(np.ones((PARALLEL_ROWS, 81), np.int8))
    blocks = picks.reshape(-1, BLOCK_ROWS)
    assert all((blocks[0] != b).mean() > 0.9 for b in blocks[1:])
    assert chisquare(np.bincount(picks, minlength=81)).pvalue > 1e-4
