"""One info schema per environment: the same keys and types at reset and at every step.

Tensor-based learners (TorchRL, Tianshou's buffers) allocate their info storage from the first
info they see, so a key that appears later, a None, or a string in one step and a number in
another breaks them.  Every env form is played through ends, illegal actions and truncation.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import shell_envs  # noqa: F401  (registers the ids)
from shell_envs import what_the_shell_v0
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.messages import (
    BATCH_INFO_FIELDS,
    ILLEGAL_REASONS,
    INFO_KEYS,
    INFO_SCHEMA,
    OUTCOMES,
)


def schema(info: dict[str, Any]) -> dict[str, Any]:
    """Each key's type (arrays: dtype and shape; nested dicts: their schema); no None."""
    out = {}
    for key, value in info.items():
        assert value is not None, f"info[{key!r}] is None"
        if isinstance(value, dict):
            out[key] = schema(value)
        elif isinstance(value, np.ndarray):
            out[key] = ("array", value.dtype.str, value.shape)
        else:
            out[key] = type(value)
    return out


def random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("max_rounds", [200, 7])
def test_what_the_shell_parallel_infos_keep_one_schema(max_rounds):
    env = what_the_shell_v0.parallel_env(max_rounds=max_rounds)
    rng = np.random.default_rng(0)
    expected = None
    ends = {"terminated": 0, "truncated": 0, "illegal": 0}
    for game in range(12):
        obs, infos = env.reset(seed=game)
        expected = expected or schema(infos["black"])
        assert tuple(expected) == INFO_KEYS
        while env.agents:
            for agent in env.agents:
                assert schema(infos[agent]) == expected
            actions = {a: random_action(obs[a]["action_mask"], rng) for a in env.agents}
            if game % 3 == 2 and infos["black"]["round"] == 3:  # an occupied cell, or 81
                occupied = np.flatnonzero(obs["white"]["action_mask"] == 0)
                actions["white"] = int(occupied[0]) if occupied.size else 81
            obs, rewards, terms, truncs, infos = env.step(actions)
            for agent in ("black", "white"):
                assert schema(infos[agent]) == expected
        info_b, info_w = infos["black"], infos["white"]
        if info_w["illegal"]:
            ends["illegal"] += 1
            assert OUTCOMES[info_w["outcome"]] == "loss" and OUTCOMES[info_b["outcome"]] == "win"
            assert info_b["opponent_illegal"] and not info_b["illegal"]
            reason = ILLEGAL_REASONS[info_w["illegal_reason"]]
            assert reason and reason in env.illegal_reasons["white"]
            assert info_b["opponent_illegal_reason"] == info_w["illegal_reason"]
        elif terms["black"]:
            ends["terminated"] += 1
            assert {OUTCOMES[info_b["outcome"]], OUTCOMES[info_w["outcome"]]} in (
                {"win", "loss"},
                {"draw"},
            )
            assert not (info_b["illegal"] or info_w["illegal"]) and env.illegal_reasons == {}
        else:
            assert truncs["black"] and info_b["round"] == max_rounds
            ends["truncated"] += 1
            assert info_b["outcome"] == info_w["outcome"] == 0
    assert ends["illegal"] == 4
    assert ends["truncated" if max_rounds == 7 else "terminated"] > 0


def test_what_the_shell_aec_infos_keep_one_schema():
    env = what_the_shell_v0.env()
    rng = np.random.default_rng(1)
    expected = None
    for game in range(3):
        env.reset(seed=game)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            expected = expected or schema(info)
            assert schema(info) == expected
            action = None if terminated or truncated else random_action(obs["action_mask"], rng)
            env.step(action)
        assert all(schema(info) == expected for info in env.infos.values())


@pytest.mark.parametrize("illegal", [False, True])
def test_single_agent_what_the_shell_infos_keep_one_schema(illegal):
    env = gym.make("shell_envs/WhatTheShell-v0", opponent="random", max_rounds=30)
    rng = np.random.default_rng(2)
    _, info = env.reset(seed=0)
    expected = schema(info)
    assert info["seat"] in (0, 1) and info["opponent_action"] == -1
    for _ in range(6):
        done = False
        while not done:
            action = random_action(env.unwrapped.action_masks(), rng)
            if illegal and info["round"] == 2:
                action = 81
            _, _, terminated, truncated, info = env.step(action)
            assert schema(info) == expected
            done = terminated or truncated
        assert info["illegal"] == (illegal and info["round"] == 2)
        _, info = env.reset()
        assert schema(info) == expected


def test_what_the_shell_single_and_batched_infos_are_read_from_one_schema():
    """Each per-player info that the rules' info array reports equals the batched env's row
    of the same slot, for black and for white, round after round of the same game."""
    single = what_the_shell_v0.parallel_env()
    batched = what_the_shell_v0.vector_env(1)
    rng = np.random.default_rng(6)
    obs, _ = single.reset(seed=0)
    batched.reset(seed=0)
    reported = [k for k in INFO_SCHEMA if k.black < rules.INFO_SIZE]
    assert {BATCH_INFO_FIELDS[k.black] for k in reported} == set(BATCH_INFO_FIELDS)
    rounds = 0
    while single.agents:
        actions = {a: random_action(obs[a]["action_mask"], rng) for a in ("black", "white")}
        obs, _, _, _, infos = single.step(actions)
        _, _, _, _, batch = batched.step({a: np.array([c]) for a, c in actions.items()})
        rounds += 1
        for k in reported:
            assert infos["black"][k.key] == batch[BATCH_INFO_FIELDS[k.black]][0], k.key
            assert infos["white"][k.key] == batch[BATCH_INFO_FIELDS[k.white]][0], k.key
        for agent in ("black", "white"):
            assert infos[agent]["round"] == batch["round"][0] == rounds
            assert infos[agent]["sudden_death"] == batch["sudden_death"][0]
    assert rounds > 5


def test_what_the_shell_vector_infos_keep_one_schema_and_masks_after_an_end():
    env = what_the_shell_v0.vector_env(8, max_rounds=12)
    rng = np.random.default_rng(3)
    obs, infos = env.reset(seed=0)
    expected = schema(infos)
    ended = np.zeros(8, bool)
    for step in range(60):
        masks = obs["black"]["action_mask"]
        assert masks.any(axis=1).all(), "a row without a legal action"
        actions = {
            a: np.array([random_action(m, rng) for m in obs[a]["action_mask"]])
            for a in ("black", "white")
        }
        if step == 5:
            actions["black"][0] = 81  # an illegal action ends game 0
        obs, _, terms, truncs, infos = env.step(actions)
        assert schema(infos) == expected
        done = terms["black"] | truncs["black"]
        # a game that just ended: its next step resets it and ignores its actions
        assert (obs["black"]["action_mask"][done] == 1).all()
        assert (obs["white"]["action_mask"][done] == 1).all()
        ended |= done
    assert ended.all()
    assert env.autoreset_mode == env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP


@pytest.mark.parametrize("max_moves", [None, 6])
@pytest.mark.parametrize("mask_in_obs", [False, True])
def test_scorpion_infos_keep_one_schema(max_moves, mask_in_obs):
    env = gym.make("shell_envs/Scorpion-v0", max_moves=max_moves, mask_in_obs=mask_in_obs)
    rng = np.random.default_rng(4)
    _, info = env.reset(seed=0)
    expected = schema(info)
    assert info["deal"] == 0 and env.unwrapped.message == ""
    saw_illegal, truncations = False, 0
    for game in range(4):
        done, steps = False, 0
        while not done:
            mask = env.unwrapped.action_masks()
            if steps == 2 and not mask[0]:
                action, saw_illegal = 0, True
            else:
                action = random_action(mask, rng)
            _, _, terminated, truncated, info = env.step(action)
            steps += 1
            assert schema(info) == expected
            assert info["illegal"] == (info["code"] != 0) == (env.unwrapped.message != "")
            done = terminated or truncated
        truncations += truncated
        _, info = env.reset(options={"deal": list(range(52))} if game == 1 else None)
        assert schema(info) == expected
    assert saw_illegal
    assert (truncations > 0) == (max_moves is not None)


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_scorpion_vector_infos_keep_one_schema_and_masks_never_empty(mode):
    env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=4, autoreset_mode=mode, max_moves=40)
    modes = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
    assert env.autoreset_mode == env.metadata["autoreset_mode"] == modes[mode]
    rng = np.random.default_rng(5)
    _, infos = env.reset(seed=0)
    expected = schema(infos)
    ends = 0
    for _ in range(150):
        masks = env.unwrapped.action_masks()
        assert masks.any(axis=1).all(), "a row without a legal action"
        _, _, terms, truncs, infos = env.step(np.array([random_action(m, rng) for m in masks]))
        # same_step: Gymnasium's protocol adds its final_* keys to the steps where a game ended
        finals = {"final_obs", "_final_obs", "final_info", "_final_info"}
        assert set(infos) - set(expected) == (
            finals if mode == "same_step" and ended(infos) else set()
        )
        assert schema({k: v for k, v in infos.items() if k not in finals}) == expected
        ends += int((terms | truncs).sum())
        if mode == "same_step":
            assert ended(infos) == (terms | truncs).any()
            if ended(infos):
                assert schema(infos["final_info"]) == expected
    assert ends >= 4


def ended(infos: dict[str, Any]) -> bool:
    """Whether a same_step batch reported a game's end."""
    return "_final_obs" in infos and bool(infos["_final_obs"].any())
