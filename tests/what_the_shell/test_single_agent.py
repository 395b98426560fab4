"""The single-agent What the Shell env: Gymnasium checks, seats, opponents and bad settings."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.utils.passive_env_checker import env_render_passive_checker

import shell_envs  # noqa: F401  (registers the environment ids)
from shell_envs.agents import RandomAgent, WhatTheShellView
from shell_envs.agents.single_agent import WhatTheShellSingleEnv
from shell_envs.core.errors import IllegalMove
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import FLAT_SIZE
from shell_envs.what_the_shell.env import AGENTS
from shell_envs.what_the_shell.messages import OUTCOMES
from shell_envs.what_the_shell.position import cell_index

ENV_ID = "shell_envs/WhatTheShell-v0"


class Scripted:
    """An opponent that records what it was given and plays the last legal cell."""

    name = "scripted"

    def __init__(self) -> None:
        self.seeds: list[int | None] = []
        self.observations: list[np.ndarray] = []

    def reset(self, seed: int | None = None) -> None:
        self.seeds.append(seed)

    def act(self, observation, action_mask) -> int:
        self.observations.append(np.array(observation))
        return int(np.flatnonzero(action_mask)[-1])


class Seer(Scripted):
    """A scripted opponent that prefers the full position when the env offers it."""

    def __init__(self) -> None:
        super().__init__()
        self.views: list[WhatTheShellView] = []

    def act_with_state(self, state, action_mask) -> int:
        self.views.append(state)
        return int(np.flatnonzero(action_mask)[0])


def play_out(env: gym.Env, seed: int) -> tuple[float, dict]:
    """Play the lowest legal cell until the game ends; returns the last reward and info."""
    env.reset(seed=seed)
    while True:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return reward, info


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"opponent": "greedy", "seat": "white", "obs_encoder": "flat"},
        {"opponent": "mcts", "opponent_kwargs": {"iterations": 10}, "mask_in_obs": True},
    ],
)
def test_passes_gymnasium_check_env(kwargs):
    # the render modes are checked below without opening the "human" window
    check_env(WhatTheShellSingleEnv(**kwargs), skip_render_check=True)


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_render_modes_pass_gymnasiums_render_checks(render_mode):
    env = WhatTheShellSingleEnv(render_mode=render_mode)
    env.reset(seed=0)
    env.step(40)
    env_render_passive_checker(env)
    env.close()


def test_gym_make_builds_it_with_its_kwargs():
    env = gym.make(ENV_ID, opponent="greedy", seat="black", obs_encoder="flat")
    assert isinstance(env.unwrapped, WhatTheShellSingleEnv)
    assert env.observation_space.shape == (FLAT_SIZE,)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["seat"] == 0  # AGENTS.index("black")
    masks = env.get_wrapper_attr("action_masks")()
    assert masks.dtype == np.bool_ and masks.shape == (rules.CELLS,) and masks.all()


def test_mask_in_obs_gives_a_dict_observation():
    env = WhatTheShellSingleEnv(mask_in_obs=True)
    obs, _ = env.reset(seed=1)
    assert set(obs) == {"observation", "action_mask"}
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(40)
    assert obs["action_mask"][40] == 0
    np.testing.assert_array_equal(obs["action_mask"].astype(bool), env.action_masks())


@pytest.mark.parametrize("seat", ["black", "white"])
def test_fixed_seat_and_rewards_from_the_learners_seat(seat):
    other = "white" if seat == "black" else "black"
    position = {seat: ["a1", "b1", "c1", "d1"], other: ["a9", "c9", "e9"]}
    env = WhatTheShellSingleEnv(opponent=Scripted(), seat=seat)
    _, info = env.reset(seed=0, options={"position": position})
    assert info["seat"] == AGENTS.index(seat) and env.opponent_seat == other
    _, reward, terminated, truncated, info = env.step(cell_index("e1"))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert OUTCOMES[info["outcome"]] == "win" and info["seat"] == AGENTS.index(seat)
    assert info["opponent_action"] == cell_index("i9")


def test_a_loss_is_minus_one_for_the_learner():
    position = {"white": ["a1", "b1", "c1", "d1"], "black": ["a9", "c9", "e9"]}
    env = WhatTheShellSingleEnv(opponent="greedy", seat="black")
    env.reset(seed=0, options={"position": position})
    _, reward, terminated, _, info = env.step(cell_index("i9"))
    assert (reward, terminated, OUTCOMES[info["outcome"]]) == (-1.0, True, "loss")
    assert info["opponent_action"] == cell_index("e1")


def test_random_seat_is_drawn_from_the_seed():
    env = WhatTheShellSingleEnv(seat="random")
    seats = [env.reset(seed=s)[1]["seat"] for s in range(20)]
    assert set(seats) == {0, 1}  # AGENTS.index(seat)
    assert [env.reset(seed=s)[1]["seat"] for s in range(20)] == seats
    assert env.seat in ("black", "white")


def test_the_opponent_sees_its_own_side():
    opponent = Scripted()
    env = WhatTheShellSingleEnv(opponent=opponent, seat="black")
    env.reset(seed=3)
    env.step(40)
    own, theirs = opponent.observations[-1][0], opponent.observations[-1][1]
    assert own.sum() == 0 and theirs.sum() == 0
    env.step(41)
    own, theirs = opponent.observations[-1][0], opponent.observations[-1][1]
    assert own.reshape(-1)[80] == 1 and own.sum() == 1
    assert theirs.reshape(-1)[40] == 1 and theirs.sum() == 1


def test_search_opponents_get_the_full_position():
    opponent = Seer()
    env = WhatTheShellSingleEnv(opponent=opponent, seat="white")
    env.reset(seed=0)
    _, _, _, _, info = env.step(80)
    view = opponent.views[-1]
    assert view.player == rules.BLACK and not view.board.any()
    assert info["opponent_action"] == 0
    env.step(79)
    assert opponent.views[-1].board[80] == rules.WHITE
    assert opponent.views[-1].board[0] == rules.BLACK


def test_opponent_object_is_reseeded_from_the_env_seed():
    first, second = Scripted(), Scripted()
    WhatTheShellSingleEnv(opponent=first).reset(seed=9)
    WhatTheShellSingleEnv(opponent=second).reset(seed=9)
    assert first.seeds == second.seeds and first.seeds[0] is not None


def test_seeded_episodes_repeat_against_a_random_opponent():
    def trajectory() -> list[int]:
        env = WhatTheShellSingleEnv(opponent=RandomAgent())
        env.reset(seed=5)
        moves = []
        for _ in range(10):
            *_, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            moves.append(info["opponent_action"])
            if not env.game.agents:
                break
        return moves

    assert trajectory() == trajectory()


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_whole_games_end_with_a_result(opponent):
    env = gym.make(ENV_ID, opponent=opponent)
    reward, info = play_out(env, seed=2)
    assert reward in (-1.0, 0.0, 1.0)
    assert info["outcome"] != 0 or info["round"] == 200


def test_truncation_after_max_rounds():
    env = WhatTheShellSingleEnv(max_rounds=1)
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(40)
    assert (reward, terminated, truncated) == (0.0, False, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(41)


def test_illegal_learner_action_loses_or_raises():
    env = WhatTheShellSingleEnv(opponent=Scripted(), seat="white")
    env.reset(seed=0, options={"position": {"black": ["e5"]}})
    _, reward, terminated, _, info = env.step(cell_index("e5"))
    assert (reward, terminated) == (-1.0, True)
    assert info["illegal"] and not info["opponent_illegal"]
    strict = WhatTheShellSingleEnv(illegal_action="raise")
    strict.reset(seed=0, options={"position": {"black": ["e5"]}})
    with pytest.raises(IllegalMove, match="e5"):
        strict.step(cell_index("e5"))


def test_numpy_actions_are_accepted():
    env = WhatTheShellSingleEnv(opponent=Scripted(), seat="black")
    env.reset(seed=0)
    *_, info = env.step(np.array(40))
    assert env.game.board[40] == rules.BLACK and info["round"] == 1


def test_render_passes_through():
    env = WhatTheShellSingleEnv(render_mode="ansi", seat="black")
    env.reset(seed=0)
    env.step(40)
    assert isinstance(env.render(), str) and env.render() == env.game.render()
    env.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": "red"}, "seat"),
        ({"opponent": "alphazero"}, "unknown opponent"),
        ({"opponent": 42}, "opponent must be"),
        ({"opponent": Scripted(), "opponent_kwargs": {"iterations": 5}}, "opponent_kwargs"),
        ({"opponent_kwargs": [1]}, "opponent_kwargs"),
        ({"opponent": "mcts", "opponent_kwargs": {"iterations": 0}}, "iterations"),
        ({"mask_in_obs": "yes"}, "mask_in_obs"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"obs_encoder": "pixels"}, "obs_encoder"),
        ({"render_mode": "3d"}, "render_mode"),
    ],
)
def test_bad_kwargs_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        WhatTheShellSingleEnv(**kwargs)
