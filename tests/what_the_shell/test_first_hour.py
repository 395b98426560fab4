"""What the Shell's first hour (issue 51): an unknown reset option is refused as Scorpion refuses
one, with the game unchanged, and every env form asks for ``reset()`` before it plays."""

from __future__ import annotations

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import shell_envs  # noqa: F401  (registers the Gymnasium ids)
from shell_envs import what_the_shell_v0
from shell_envs.agents.single_agent import WhatTheShellSingleEnv
from shell_envs.what_the_shell.state import GameState

TYPO = (
    r"unknown reset option\(s\) in options: 'positon' \(did you mean 'position'\?\); "
    r"accepted: 'position'"
)
POSITION = {"black": ["e5"], "white": ["d4"], "eggs": ["a1"]}
NEEDS_RESET = r"before reset\(\): no game has started; call reset\(\) first"


def _parallel():
    env = what_the_shell_v0.parallel_env()
    return env, env


def _aec():
    env = what_the_shell_v0.env()
    return env, env.unwrapped


def _single():
    env = gym.make("shell_envs/WhatTheShell-v0", opponent="greedy", seat="random")
    return env, env.unwrapped.game


FORMS = {"parallel": _parallel, "aec": _aec, "single": _single}


def _play(env, black: int = 20, white: int = 21) -> None:
    """One round of ``env``, whatever its form (the single env's opponent picks its own cell)."""
    if isinstance(env, what_the_shell_v0.WhatTheShellEnv):
        env.step({"black": black, "white": white})
    elif isinstance(env, gym.Env):
        env.step(black)
    else:
        env.step(black)
        env.step(white)


def _snapshot(game) -> tuple:
    """Everything of the parallel game a reset could change."""
    return (
        game.board.tolist(),
        game.eggs.tolist(),
        game.meta.tolist(),
        list(game.agents),
        [str(game.action_space(a).np_random.bit_generator.state) for a in ("black", "white")],
    )


@pytest.mark.parametrize("form", FORMS)
def test_a_misspelt_reset_option_is_refused_and_the_game_is_unchanged(form):
    env, game = FORMS[form]()
    env.reset(seed=3)
    _play(env)
    before = _snapshot(game)
    with pytest.raises(ValueError, match=TYPO):
        env.reset(seed=5, options={"positon": POSITION})
    assert _snapshot(game) == before
    _play(env, 30, 31)  # the game goes on from where it was
    assert game.meta.tolist() != before[2]


@pytest.mark.parametrize("form", FORMS)
def test_unknown_options_are_refused_even_beside_a_good_one(form):
    env, game = FORMS[form]()
    env.reset(seed=1)
    before = _snapshot(game)
    with pytest.raises(ValueError, match=r"'bogus'; accepted: 'position'") as got:
        env.reset(options={"position": POSITION, "bogus": 1})
    assert "did you mean" not in str(got.value)  # nothing resembles 'bogus'
    assert _snapshot(game) == before


def test_the_message_has_scorpions_shape():
    """The same error type and words as Scorpion's refusal of a misspelt reset option."""
    with pytest.raises(ValueError) as wts:
        what_the_shell_v0.parallel_env().reset(options={"positon": {}})
    with pytest.raises(ValueError) as scorpion:
        gym.make("shell_envs/Scorpion-v0").reset(options={"dael": 3})
    shape = r"unknown reset option\(s\) in options: '(\w+)' \(did you mean '(\w+)'\?\); accepted: "
    assert re.match(shape, str(wts.value)).groups() == ("positon", "position")
    assert re.match(shape, str(scorpion.value)).groups() == ("dael", "deal")


def test_no_warning_is_left_for_unknown_options():
    env = what_the_shell_v0.parallel_env()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError):
            env.reset(options={"positon": {}})


@pytest.mark.parametrize("form", FORMS)
def test_pettingzoos_checker_probe_is_accepted_and_ignored(form):
    """PettingZoo's api_test and parallel_api_test call ``reset(seed=0, options={"options": 1})``
    to see that reset takes the keyword: that one key changes nothing."""
    probed, _ = FORMS[form]()
    plain, _ = FORMS[form]()
    first = probed.reset(seed=0, options={"options": 1})
    second = plain.reset(seed=0)
    if first is None:  # the AEC form returns nothing
        first, second = probed.observe("black"), plain.observe("black")
    np.testing.assert_equal(first, second)


def test_the_batched_env_refuses_any_option_by_name():
    env = what_the_shell_v0.vector_env(2)
    env.reset(seed=0)
    env.step({"black": np.array([40, 40]), "white": np.array([41, 41])})
    before = (env.board.tolist(), env.meta.tolist())
    with pytest.raises(ValueError, match=r"options: 'positon'; accepted: none"):
        env.reset(options={"positon": {}})
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options=["position"])
    assert (env.board.tolist(), env.meta.tolist()) == before
    env.reset(options={})  # nothing asked, nothing refused


# --- step before reset ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, action",
    [
        (what_the_shell_v0.parallel_env, {"black": 40, "white": 41}),
        (lambda: what_the_shell_v0.WhatTheShellAEC(what_the_shell_v0.raw_env()), 40),
        (lambda: WhatTheShellSingleEnv(opponent="random"), 40),
        (lambda: gym.make("shell_envs/WhatTheShell-v0"), 40),
        (
            lambda: what_the_shell_v0.vector_env(2),
            {"black": np.array([40, 40]), "white": np.array([41, 41])},
        ),
    ],
    ids=["parallel", "aec-unwrapped", "single", "single-gym-make", "vector"],
)
def test_step_before_reset_asks_for_a_reset(make, action):
    env = make()
    with pytest.raises(ResetNeeded, match=r"before (calling env\.)?reset\(\)"):
        env.step(action)
    env.reset(seed=0)
    env.step(action)  # and plays once reset


def test_the_wrapped_aec_form_keeps_pettingzoos_order_enforcing():
    env = what_the_shell_v0.env()
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(40)


@pytest.mark.parametrize(
    "make",
    [
        lambda: what_the_shell_v0.parallel_env(render_mode="ansi"),
        lambda: what_the_shell_v0.WhatTheShellAEC(what_the_shell_v0.raw_env(render_mode="ansi")),
        lambda: WhatTheShellSingleEnv(render_mode="ansi"),
        lambda: what_the_shell_v0.vector_env(2),
    ],
    ids=["parallel", "aec-unwrapped", "single", "vector"],
)
def test_masks_and_render_before_reset_ask_for_a_reset(make):
    env = make()
    with pytest.raises(ResetNeeded, match=r"action_masks\(\) " + NEEDS_RESET):
        env.action_masks()
    if hasattr(env, "render"):
        with pytest.raises(ResetNeeded, match=r"render\(\) " + NEEDS_RESET):
            env.render()
    env.reset(seed=0)
    assert env.action_masks().sum() == 81 * getattr(env, "num_envs", 1)
    if hasattr(env, "render"):
        assert "a" in env.render()


def test_a_refused_first_reset_still_asks_for_a_reset():
    env = what_the_shell_v0.parallel_env()
    with pytest.raises(ValueError, match="did you mean 'position'"):
        env.reset(options={"positon": POSITION})
    with pytest.raises(ResetNeeded):
        env.step({"black": 40, "white": 41})


def test_set_state_starts_a_game_and_the_end_still_says_game_over():
    env = what_the_shell_v0.parallel_env()
    env.set_state(GameState.new())
    env.step({"black": 40, "white": 81})  # white's cell is off the board: the game ends
    with pytest.raises(RuntimeError, match="the game is over") as got:
        env.step({"black": 41, "white": 42})
    assert not isinstance(got.value, ResetNeeded)
