"""`ScorpionOptions`: the keywords the single, batched and GPU Scorpion envs share, checked in
one place, with the action count and spaces derived from them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from shell_envs.scorpion.env import ScorpionEnv
from shell_envs.scorpion.options import ScorpionOptions
from shell_envs.scorpion.vector import ScorpionVectorEnv

BAD = [
    {"rules": "klondike"},
    {"illegal_action": "ignore"},
    {"allow_undo": 1},
    {"lang": "fr"},
    {"max_moves": 0},
    {"reward": "points"},
    {"mask_in_obs": "yes"},
    {"obs_encoder": "pixels"},
]


@pytest.mark.parametrize("bad", BAD, ids=lambda kw: next(iter(kw)))
def test_every_env_refuses_a_bad_keyword_with_the_options_own_words(bad):
    with pytest.raises(ValueError) as expected:
        ScorpionOptions(**bad)
    for make in (lambda: ScorpionEnv(**bad), lambda: ScorpionVectorEnv(2, **bad)):
        with pytest.raises(ValueError) as got:
            make()
        assert str(got.value) == str(expected.value)


def test_the_options_are_frozen_and_checked_values_are_plain():
    options = ScorpionOptions(allow_undo=np.bool_(True), max_moves=np.int64(7))
    assert options.allow_undo is True and type(options.max_moves) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.rules = "relaxed"


@pytest.mark.parametrize("mask_in_obs", [False, True])
@pytest.mark.parametrize("allow_undo", [False, True])
def test_the_envs_take_their_options_spaces_and_action_count_from_one_object(
    allow_undo, mask_in_obs
):
    keywords = {"rules": "relaxed", "obs_encoder": "cards", "allow_undo": allow_undo, "lang": "hu",
                "mask_in_obs": mask_in_obs, "reward": "win", "max_moves": None}  # fmt: skip
    options = ScorpionOptions(**keywords)
    assert options.n_actions == (366 if allow_undo else 365)
    single, batched = ScorpionEnv(**keywords), ScorpionVectorEnv(3, **keywords)
    assert single.options == options and batched.options == options
    assert single.n_actions == batched.n_actions == options.n_actions
    assert single.action_space == batched.single_action_space == options.action_space
    assert single.observation_space == options.observation_space
    assert batched.single_observation_space == options.observation_space
    assert (single.rules, single.reward_mode, single.max_moves) == ("relaxed", "win", None)
    assert (batched.rules, batched.reward_mode, batched.max_moves) == ("relaxed", "win", 0)
    assert single.action_space is not ScorpionEnv(**keywords).action_space  # each seeds its own
