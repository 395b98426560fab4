"""Fuzzing What the Shell's public surface: parallel, AEC, batched and single-agent forms.

A refused input raises at once (``ValueError``; ``IllegalMove`` under ``illegal_action=
"raise"``), says what was wrong and leaves the game, the action spaces' generators and the
opponent's generator exactly as they were; play that follows is the game never sent it.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shell_envs  # noqa: F401  (registers the envs)
from shell_envs import what_the_shell_v0
from shell_envs.core.errors import IllegalMove
from tests.fuzz.helpers import NOT_AN_INTEGER, generator_state

FUZZ = settings(max_examples=60, deadline=None)


def parallel_snapshot(env) -> tuple:
    """Board, position, agents and both action spaces' generators."""
    return (
        env.board.tolist(),
        env.eggs.tolist(),
        env.meta.tolist(),
        env.position(),
        list(env.agents),
        [generator_state(env.action_space(a).np_random) for a in ("black", "white")],
    )


def started(**kwargs):
    env = what_the_shell_v0.parallel_env(**kwargs)
    env.reset(seed=3)
    env.step({"black": 40, "white": 41})
    return env


@FUZZ
@given(bad=NOT_AN_INTEGER, seat=st.sampled_from(["black", "white"]))
def test_parallel_non_integer_actions_raise_value_error_and_change_nothing(bad, seat):
    for mode in ("lose", "raise"):
        env = started(illegal_action=mode)
        before = parallel_snapshot(env)
        actions = {"black": 10, "white": 11}
        actions[seat] = bad
        with pytest.raises(ValueError, match=f"{seat}: action .* is not a cell index") as caught:
            env.step(actions)
        assert not isinstance(caught.value, IllegalMove)
        assert parallel_snapshot(env) == before


def test_parallel_illegal_cells_in_raise_mode_change_nothing():
    env = started(illegal_action="raise")
    before = parallel_snapshot(env)
    for actions, fragment in (
        ({"black": 40, "white": 12}, "black: cell e5 .* is occupied"),
        ({"black": 12, "white": 2**70}, "white: action .* is out of range"),
        ({"black": 12, "white": 10**5000}, "white: action an integer of about 5001 digits"),
        ({"black": -1, "white": 12}, "black: action -1 is out of range"),
    ):
        with pytest.raises(IllegalMove, match=fragment):
            env.step(actions)
        assert parallel_snapshot(env) == before
    for bad in ({"black": 1}, [1, 2], {"black": 1, "white": 2, "grey": 3}):
        with pytest.raises(ValueError, match="one action for each of 'black' and 'white'"):
            env.step(bad)
        assert parallel_snapshot(env) == before


@pytest.mark.parametrize(
    "seed, options, fragment",
    [
        (-1, None, "seed must be an integer ≥ 0; got -1"),
        (1.5, None, "seed must be an integer"),
        ("7", None, "seed must be an integer"),
        (None, {"position": {"black": ["z9"]}}, "unknown cell name 'z9'"),
        (None, {"position": {"black": ["a1"], "white": ["a1"]}}, "cell a1 is used twice"),
        (None, {"position": {"blak": ["a1"]}}, "unknown position keys"),
        (None, {"position": {"black": ["a1"], "sudden_death": "no"}}, "True or False"),
        (None, {"position": {"black": [1.0]}}, "cell names are strings"),
        (None, {"position": {"black": "a1"}}, "must be a list of cell names"),
        (None, {"position": {"black": ["a1", "b1", "c1", "d1", "e1"]}}, "already decided"),
        (None, {"position": None}, "a position is a dict"),
        (4, "position", "options must be a dict"),
    ],
)
def test_parallel_refused_resets_change_nothing(seed, options, fragment):
    env = started()
    before = parallel_snapshot(env)
    with pytest.raises(ValueError, match=fragment):
        env.reset(seed=seed, options=options)
    assert parallel_snapshot(env) == before


def test_huge_and_numpy_seeds():
    a, b = what_the_shell_v0.parallel_env(), what_the_shell_v0.parallel_env()
    a.reset(seed=2**70)  # big seeds are fine for generators
    b.reset(seed=np.int64(12))
    c = what_the_shell_v0.parallel_env()
    c.reset(seed=12)
    assert parallel_snapshot(b) == parallel_snapshot(c)


def aec_play(env, moves):
    for m in moves:
        env.step(m)
    return env.unwrapped.board.tolist(), dict(env.rewards), dict(env.terminations)


@pytest.mark.parametrize("mode", ["raise", "lose"])
def test_aec_refuses_at_the_offending_step_and_stays_playable(mode):
    env = what_the_shell_v0.env(illegal_action=mode)
    env.reset(seed=0)
    env.step(40)
    env.step(41)
    assert env.agent_selection == "black"
    bad_values = [3.5, "e5", None] + ([40, 41, 99] if mode == "raise" else [])
    for bad in bad_values:
        expected = ValueError if not isinstance(bad, int) else IllegalMove
        with pytest.raises(expected, match="black: "):
            env.step(bad)
        assert env.agent_selection == "black"  # black's turn still: the step was refused
    env.step(42)  # black, legal
    for bad in bad_values:
        with pytest.raises(ValueError, match="white: "):
            env.step(bad)
        assert env.agent_selection == "white"
    env.step(43)
    noisy = env.unwrapped.board.tolist()
    clean = what_the_shell_v0.env(illegal_action=mode)
    clean.reset(seed=0)
    assert aec_play(clean, [40, 41, 42, 43])[0] == noisy


def test_aec_illegal_cell_in_lose_mode_still_loses():
    env = what_the_shell_v0.env(illegal_action="lose")
    env.reset(seed=0)
    env.step(40)
    env.step(41)
    env.step(40)  # black picks an occupied cell: recorded, the round decides
    env.step(12)
    assert env.terminations == {"black": True, "white": True}
    assert env.rewards == {"black": -1.0, "white": 1.0}


def single_snapshot(env) -> tuple:
    u = env.unwrapped
    return (
        u.seat,
        generator_state(u.np_random) if u._np_random is not None else None,
        generator_state(getattr(u.opponent, "rng", None)),
        parallel_snapshot(u.game),
    )


@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize("mode", ["lose", "raise"])
def test_single_agent_refusal_leaves_the_opponent_untouched(opponent, mode):
    rng = np.random.default_rng(4)
    noisy = gym.make("shell_envs/WhatTheShell-v0", opponent=opponent, illegal_action=mode)
    clean = gym.make("shell_envs/WhatTheShell-v0", opponent=opponent, illegal_action=mode)
    noisy.reset(seed=8)
    clean.reset(seed=8)
    for _ in range(25):
        mask = clean.unwrapped.action_masks()
        before = single_snapshot(noisy)
        bad = [2.5, "a1", np.array([1, 2])][int(rng.integers(3))]
        with pytest.raises(ValueError):
            noisy.step(bad)
        if mode == "raise":
            occupied = np.flatnonzero(~mask)
            if occupied.size:
                with pytest.raises(IllegalMove):
                    noisy.step(int(occupied[0]))
        assert single_snapshot(noisy) == before
        a = int(rng.choice(np.flatnonzero(mask)))
        o1, r1, t1, u1, i1 = clean.step(a)
        o2, r2, t2, u2, i2 = noisy.step(a)
        np.testing.assert_array_equal(o1, o2)
        assert (r1, t1, u1, i1["opponent_action"]) == (r2, t2, u2, i2["opponent_action"])
        if t1 or u1:
            break


@pytest.mark.parametrize(
    "seed, options, fragment",
    [
        (None, {"position": {"black": ["j1"]}}, "unknown cell name"),
        (-3, None, "seed must be an integer"),
        (2.0, None, "seed must be an integer"),
        (None, {"position": {"black": ["a1", "b1", "c1", "d1", "e1"]}}, "already decided"),
    ],
)
def test_single_agent_refused_reset_keeps_seat_generators_and_board(seed, options, fragment):
    env = gym.make("shell_envs/WhatTheShell-v0", opponent="greedy", seat="random")
    env.reset(seed=5)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    before = single_snapshot(env)
    with pytest.raises(ValueError, match=fragment):
        env.reset(seed=seed, options=options)
    assert single_snapshot(env) == before


BAD_CELL = {"black": ["zz"], "white": [], "eggs": []}


@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize(
    "options",
    [
        {"position": BAD_CELL},
        {"position": {"black": ["a1"], "white": ["a1"], "eggs": []}},
        {"position": "zz"},
        {"position": BAD_CELL, "bogus": 1},
    ],
)
def test_single_agent_refused_reset_then_play_is_the_run_without_it(opponent, options):
    """After a refused ``reset(seed=s, options=bad)`` everything plays on as if it was never
    sent: the observation, seat, both generators, the next steps, and the next reset's draw."""
    runs = []
    for refuse in (False, True):
        env = gym.make("shell_envs/WhatTheShell-v0", opponent=opponent, seat="random")
        env.reset(seed=0)  # seed 0 draws white, seed 1 black: a redraw would show
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        if refuse:
            with pytest.raises(ValueError), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env.reset(seed=1, options=options)
        log = [single_snapshot(env)]
        for _ in range(3):
            obs, reward, terminated, truncated, info = env.step(
                int(np.flatnonzero(env.unwrapped.action_masks())[0])
            )
            log.append((obs.tolist(), reward, terminated, truncated, info, single_snapshot(env)))
        obs, info = env.reset()  # the seat and the opponent's seed come from the env's generator
        log.append((obs.tolist(), info, single_snapshot(env)))
        runs.append(log)
    assert runs[0] == runs[1]


def test_aec_refused_first_reset_still_asks_for_a_reset():
    env = what_the_shell_v0.env()
    with pytest.raises(ValueError, match="unknown cell name 'zz'"):
        env.reset(seed=3, options={"position": BAD_CELL})
    with pytest.raises(AssertionError, match="reset"):  # PettingZoo's order enforcing
        env.step(40)
    env.reset(seed=3)
    env.step(40)
    assert env.agent_selection == "white"


def test_single_agent_numpy_seed_is_the_same_game():
    a = gym.make("shell_envs/WhatTheShell-v0", seat="random")
    b = gym.make("shell_envs/WhatTheShell-v0", seat="random")
    _, ia = a.reset(seed=77)
    _, ib = b.reset(seed=np.int32(77))
    assert ia["seat"] == ib["seat"] and single_snapshot(a) == single_snapshot(b)


def vector_snapshot(env) -> tuple:
    return (
        env.board.tolist(),
        env.meta.tolist(),
        getattr(env, "seeds", None),
        generator_state(env.action_space.np_random),
    )


@pytest.mark.parametrize(
    "seed, options, fragment",
    [
        ([1, 2, -1], None, r"seed\[2\] must be an integer"),
        ([1, 2, "x"], None, r"seed\[2\] must be an integer"),
        ([1, 2], None, "got 2 seeds for 3 games"),
        (-5, None, "seed must be an integer ≥ 0"),
        (1.5, None, "seed must be an integer, None or a list"),
        (9, {"position": {}}, r"unknown reset option\(s\) in options: .position.; accepted: none"),
    ],
)
def test_vector_refused_resets_change_nothing(seed, options, fragment):
    env = what_the_shell_v0.vector_env(3)
    env.reset(seed=4)
    env.step({"black": np.array([40, 40, 40]), "white": np.array([41, 41, 41])})
    before = vector_snapshot(env)
    with pytest.raises(ValueError, match=fragment):
        env.reset(seed=seed, options=options)
    assert vector_snapshot(env) == before


def test_vector_bad_actions_change_nothing():
    env = what_the_shell_v0.vector_env(3, illegal_action="raise")
    env.reset(seed=np.int64(4))
    env.step({"black": np.array([40, 40, 40]), "white": np.array([41, 41, 41])})
    before = vector_snapshot(env)
    for bad in (
        {"black": np.array([1.0, 2, 3]), "white": np.array([4, 5, 6])},
        {"black": np.array([1, 2]), "white": np.array([4, 5, 6])},
        {"black": [True, False, True], "white": np.array([4, 5, 6])},
        {"black": np.array([1, 2, 3])},
    ):
        with pytest.raises(ValueError):
            env.step(bad)
        assert vector_snapshot(env) == before
    with pytest.raises(IllegalMove, match="game 0, black: cell e5 .* is occupied"):
        env.step({"black": np.array([40, 1, 2]), "white": np.array([4, 5, 6])})
    assert vector_snapshot(env) == before


@settings(max_examples=40, deadline=None)
@given(
    key=st.sampled_from(["black", "white", "eggs"]),
    value=st.one_of(
        st.integers(), st.floats(), st.none(), st.booleans(), st.lists(st.integers(), max_size=2)
    ),
)
def test_position_cells_that_are_not_names_are_refused(key, value):
    env = started()
    before = parallel_snapshot(env)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=rf"position\['{key}'\]"):
            env.reset(options={"position": {key: value if value is None else [value]}})
    assert parallel_snapshot(env) == before


CELL_NAMES = st.sampled_from([f"{c}{r}" for c in "abcdefghij" for r in range(0, 11)])


@settings(max_examples=150, deadline=None)
@given(
    black=st.lists(CELL_NAMES, max_size=8),
    white=st.lists(CELL_NAMES, max_size=8),
    eggs=st.lists(CELL_NAMES, max_size=8),
    sudden=st.one_of(st.none(), st.booleans()),
)
def test_any_position_accepted_is_a_possible_game(black, white, eggs, sudden):
    """Random cell lists: refused with a ValueError, or arrays check_arrays accepts."""
    from shell_envs.what_the_shell.position import check_arrays, position_to_arrays

    position = {"black": black, "white": white, "eggs": eggs}
    if sudden is not None:
        position["sudden_death"] = sudden
    try:
        arrays = position_to_arrays(position)
    except ValueError:
        return
    check_arrays(*arrays)
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": position})
    assert env.position()["eggs"] == [e.lower() for e in eggs]
