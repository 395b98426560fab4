"""The batched What the Shell env runs the same rules as the single env, game for game."""

from __future__ import annotations

import numpy as np
import pytest

from shell_envs import what_the_shell_v0
from shell_envs.core.errors import IllegalMove


def lockstep(num_envs: int, steps: int, seed: int, encoder: str, illegal_every: int = 0):
    """Drive a batched env and ``num_envs`` single envs with the same actions; compare all."""
    batch = what_the_shell_v0.vector_env(num_envs, obs_encoder=encoder, max_rounds=40)
    singles = [
        what_the_shell_v0.parallel_env(obs_encoder=encoder, max_rounds=40) for _ in range(num_envs)
    ]
    rng = np.random.default_rng(seed)
    b_obs, _ = batch.reset(seed=seed)
    for i, env in enumerate(singles):
        env.reset(seed=seed + i)
    pending_reset = [False] * num_envs
    finished = 0
    for _ in range(steps):
        actions = {"black": np.zeros(num_envs, np.int64), "white": np.zeros(num_envs, np.int64)}
        for i in range(num_envs):
            legal = np.flatnonzero(b_obs["black"]["action_mask"][i])
            for agent in ("black", "white"):
                actions[agent][i] = rng.choice(legal)
            if illegal_every and rng.integers(illegal_every) == 0:
                actions["white"][i] = 81
        b_obs, b_rew, b_term, b_trunc, b_info = batch.step(actions)
        for i, env in enumerate(singles):
            if pending_reset[i]:
                obs, _ = env.reset()
                rew = {"black": 0.0, "white": 0.0}
                term = trunc = {"black": False, "white": False}
                pending_reset[i] = False
            else:
                obs, rew, term, trunc, info = env.step(
                    {a: int(actions[a][i]) for a in ("black", "white")}
                )
                pending_reset[i] = not env.agents
                finished += not env.agents
                if not (info["black"]["illegal"] or info["white"]["illegal"]):
                    assert b_info["captures_black"][i] == info["black"]["captures"]
                    assert b_info["hatched_white"][i] == info["white"]["hatched"]
                    assert b_info["round"][i] == info["black"]["round"]
            for agent in ("black", "white"):
                np.testing.assert_array_equal(
                    b_obs[agent]["observation"][i], obs[agent]["observation"]
                )
                # a game that just ended: the next step resets it and ignores its actions
                mask = obs[agent]["action_mask"]
                expected = np.ones_like(mask) if pending_reset[i] else mask
                np.testing.assert_array_equal(b_obs[agent]["action_mask"][i], expected)
                assert b_rew[agent][i] == rew[agent]
                assert b_term[agent][i] == term[agent]
                assert b_trunc[agent][i] == trunc[agent]
            np.testing.assert_array_equal(batch.board[i], env.board)
            np.testing.assert_array_equal(batch.eggs[i], env.eggs)
            np.testing.assert_array_equal(batch.meta[i], env.meta)
    return finished


@pytest.mark.parametrize("encoder", ["planes", "flat", "planes_uint8"])
def test_batch_and_single_envs_play_identical_trajectories(encoder):
    finished = lockstep(num_envs=8, steps=150, seed=1, encoder=encoder)
    assert finished >= 8  # games ended (won, drawn or truncated) and were autoreset


def test_batch_and_single_agree_on_illegal_actions():
    finished = lockstep(num_envs=6, steps=60, seed=2, encoder="planes", illegal_every=15)
    assert finished >= 6


def test_illegal_action_raise_leaves_every_game_unchanged():
    env = what_the_shell_v0.vector_env(3, illegal_action="raise")
    env.reset()
    env.step({"black": np.array([0, 1, 2]), "white": np.array([3, 4, 5])})
    board = env.board.copy()
    with pytest.raises(IllegalMove, match=r"game 1, white: cell b1 \(1\) is occupied"):
        env.step({"black": np.array([10, 11, 12]), "white": np.array([13, 1, 14])})
    np.testing.assert_array_equal(env.board, board)


def test_batched_actions_are_validated():
    env = what_the_shell_v0.vector_env(4)
    env.reset()
    with pytest.raises(ValueError, match=r"must be 4 integer cell indices"):
        env.step({"black": np.zeros(3, np.int64), "white": np.zeros(4, np.int64)})
    with pytest.raises(ValueError, match="one of 'black' and 'white'|for each of"):
        env.step({"black": np.zeros(4, np.int64)})
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        what_the_shell_v0.vector_env(0)


def test_per_env_seeds():
    env = what_the_shell_v0.vector_env(3)
    env.reset(seed=[5, 6, 7])
    assert env.seeds == [5, 6, 7]
    with pytest.raises(ValueError, match="got 2 seeds for 3 games"):
        env.reset(seed=[1, 2])


def test_returned_observations_are_never_overwritten_while_held():
    env = what_the_shell_v0.vector_env(8)
    obs, _ = env.reset(seed=0)
    held = [obs["black"]["observation"], obs["white"]["observation"][2]]  # an array and a view
    snapshots = [a.copy() for a in held]
    rng = np.random.default_rng(0)
    for _ in range(12):
        masks = obs["black"]["action_mask"]
        actions = {
            agent: np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            for agent in ("black", "white")
        }
        obs, *_ = env.step(actions)
    for array, snapshot in zip(held, snapshots, strict=True):
        np.testing.assert_array_equal(array, snapshot)


def test_no_returned_array_is_overwritten_while_held():
    # masks, rewards, flags and infos come from recycled buffers too: held ones stay as they were
    env = what_the_shell_v0.vector_env(8)
    obs, infos = env.reset(seed=0)
    rng = np.random.default_rng(1)
    held: list[np.ndarray] = []
    for step in range(18):
        masks = obs["black"]["action_mask"]
        actions = {
            agent: np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            for agent in ("black", "white")
        }
        obs, rewards, terminations, truncations, infos = env.step(actions)
        if step < 6:
            held += [obs[a][k] for a in ("black", "white") for k in ("observation", "action_mask")]
            held += [*rewards.values(), *terminations.values(), *truncations.values()]
            held += [*infos.values(), obs["white"]["action_mask"][3]]
        if step == 6:
            snapshots = [a.copy() for a in held]
    for array, snapshot in zip(held, snapshots, strict=True):
        np.testing.assert_array_equal(array, snapshot)
    assert len(env._results) <= 4


def test_observation_buffers_are_recycled_once_released():
    env = what_the_shell_v0.vector_env(8)
    obs, _ = env.reset(seed=0)
    for _ in range(10):
        previous = obs
        obs, *_ = env.step({"black": np.arange(8), "white": np.arange(8) + 40})
        assert any(obs["black"]["observation"] is held[4] for held in env._results._sets)
        assert previous["black"]["observation"] is not obs["black"]["observation"]
        del previous
        env.reset()
    assert len(env._results) <= 3  # released arrays came back instead of new ones


@pytest.mark.parametrize(
    ("white", "words"),
    [
        (0, "cell a1 (0) is occupied by a black turtle"),
        (3, "cell d1 (3) is occupied by a white turtle"),
        (81, "action 81 is out of range: actions are cell indices 0-80 (a1=0 ... i9=80)"),
        (-1, "action -1 is out of range: actions are cell indices 0-80 (a1=0 ... i9=80)"),
    ],
)
def test_batch_and_single_refuse_with_the_same_words(white, words):
    single = what_the_shell_v0.parallel_env(illegal_action="raise")
    single.reset(seed=0)
    single.step({"black": 0, "white": 3})
    with pytest.raises(IllegalMove) as refused:
        single.step({"black": 10, "white": white})
    assert str(refused.value) == f"white: {words}"
    batch = what_the_shell_v0.vector_env(2, illegal_action="raise")
    batch.reset(seed=0)
    batch.step({"black": np.array([0, 0]), "white": np.array([3, 3])})
    with pytest.raises(IllegalMove) as refused:
        batch.step({"black": np.array([10, 10]), "white": np.array([4, white])})
    assert str(refused.value) == f"game 1, white: {words} (1 illegal in all)"
