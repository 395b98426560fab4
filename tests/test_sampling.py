"""The compiled sampler of random legal actions: legal, uniform, and -1 when none is legal."""

from __future__ import annotations

import numpy as np
from scipy.stats import chisquare

from shell_envs.core.sampling import random_legal_actions, seed_compiled


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
