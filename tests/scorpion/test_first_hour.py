"""Scorpion's first hour (issue 51): every env form asks for ``reset()`` before it plays, the
unwrapped class as ``gym.make``'s order enforcing does, and a refused reset changes nothing."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import shell_envs  # noqa: F401  (registers the ids)
from shell_envs.scorpion.env import ScorpionEnv
from shell_envs.scorpion.vector import ScorpionVectorEnv

NEEDS_RESET = r"before reset\(\): no game has started; call reset\(\) first"


def test_the_unwrapped_env_refuses_step_before_reset():
    env = ScorpionEnv()
    with pytest.raises(ResetNeeded, match=r"step\(\) " + NEEDS_RESET):
        env.step(0)
    assert env.message == "" and env.deal_number is None  # nothing was played or dealt
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    assert env.step(legal)[4]["illegal"] is False


def test_gym_make_and_the_unwrapped_env_raise_the_same_type():
    with pytest.raises(ResetNeeded):
        gym.make("shell_envs/Scorpion-v0").step(0)
    with pytest.raises(ResetNeeded):
        gym.make("shell_envs/Scorpion-v0").unwrapped.step(0)


@pytest.mark.parametrize("call", ["action_masks", "render"])
def test_masks_and_render_before_reset_ask_for_a_reset(call):
    env = ScorpionEnv(render_mode="ansi")
    with pytest.raises(ResetNeeded, match=call + r"\(\) " + NEEDS_RESET):
        getattr(env, call)()
    env.reset(seed=0)
    assert getattr(env, call)() is not None


def test_a_refused_first_reset_still_asks_for_a_reset():
    env = ScorpionEnv()
    with pytest.raises(ValueError, match=r"'dael' \(did you mean 'deal'\?\)"):
        env.reset(options={"dael": 3})
    with pytest.raises(ResetNeeded):
        env.step(0)


def test_set_state_starts_a_game():
    source = ScorpionEnv()
    source.reset(seed=4)
    env = ScorpionEnv()
    env.set_state(source.get_state())
    np.testing.assert_array_equal(env.action_masks(), source.action_masks())
    legal = int(np.flatnonzero(env.action_masks())[0])
    assert env.step(legal)[4]["illegal"] is False


@pytest.mark.parametrize(
    "make",
    [
        lambda: ScorpionVectorEnv(2),
        lambda: gym.make_vec("shell_envs/Scorpion-v0", num_envs=2),
    ],
    ids=["class", "make_vec"],
)
def test_the_batched_env_asks_for_a_reset(make):
    env = make()
    for call, args in (
        ("step", (np.zeros(2, np.int64),)),
        ("action_masks", ()),
        ("redeal", ([0],)),
    ):
        with pytest.raises(ResetNeeded, match=call + r"\(\) " + NEEDS_RESET):
            getattr(env, call)(*args)
    env.reset(seed=0)
    masks = env.action_masks()
    env.step(np.array([np.flatnonzero(row)[0] for row in masks]))
    env.redeal([0])


def test_the_batched_env_refuses_a_misspelt_option_and_changes_nothing():
    env = ScorpionVectorEnv(2)
    env.reset(seed=0)
    before = [a.copy() for a in env.arrays]
    with pytest.raises(
        ValueError, match=r"options: 'deal' \(did you mean 'deals'\?\); accepted: 'deals'"
    ):
        env.reset(seed=5, options={"deal": [1, 2]})
    for a, b in zip(before, env.arrays, strict=True):
        np.testing.assert_array_equal(a, b)
