"""The RLlib adapter: RLlib's env checks, the masking layout, the masked module, a PPO run.

Needs the ``rllib`` extra (ray[rllib], torch); skipped without it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the RLlib adapter needs the rllib extra")

import torch
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

from shell_envs.bench.evaluation import play_match
from shell_envs.bench.scale import ANCHOR_SPECS
from shell_envs.integrations.rllib import (
    MASK_KEY,
    OBS_KEY,
    MaskedPPOTorchRLModule,
    RLModuleAgent,
    WhatTheShellMultiAgentEnv,
    policy_mapping,
)
from tests.examples.helpers import load_example


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module's tests (starting Ray takes seconds)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def play_out(env: WhatTheShellMultiAgentEnv, seed: int) -> tuple[dict, int]:
    """Random legal moves until the game ends; checks every observation on the way."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    for rounds in range(1, 500):
        for agent, seen in obs.items():
            assert env.observation_spaces[agent].contains(seen)
            np.testing.assert_array_equal(seen[MASK_KEY] > 0, env.game.board == 0)
        actions = {a: int(rng.choice(np.flatnonzero(obs[a][MASK_KEY]))) for a in env.agents}
        obs, rewards, terminateds, truncateds, _ = env.step(actions)
        if terminateds["__all__"] or truncateds["__all__"]:
            return rewards, rounds
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("config", [{}, {"opponent": "greedy"}, {"obs_encoder": "planes"}])
def test_the_adapter_passes_rllibs_env_checks(config):
    env = WhatTheShellMultiAgentEnv(config)
    check_multiagent_environments(env)
    assert env.possible_agents == ["black", "white"]
    space = env.observation_spaces["black"]
    assert set(space.spaces) == {OBS_KEY, MASK_KEY} and space[MASK_KEY].dtype == np.float32


def test_self_play_games_end_for_both_colours_with_opposite_rewards():
    env = WhatTheShellMultiAgentEnv()
    rewards, _ = play_out(env, seed=1)
    assert set(rewards) == {"black", "white"}
    assert rewards["black"] == -rewards["white"]


def test_with_an_opponent_one_seat_per_game_is_an_rllib_agent():
    env = WhatTheShellMultiAgentEnv({"opponent": "random"})
    seats = set()
    for seed in range(6):
        rewards, _ = play_out(env, seed)
        assert len(rewards) == 1
        seats.update(rewards)
    assert seats == {"black", "white"}


def test_policy_mapping():
    assert policy_mapping("shared")("white", None) == "shared"
    assert policy_mapping("two")("white", None) == "white"
    with pytest.raises(ValueError, match="shared"):
        policy_mapping("three")


def test_the_masked_module_never_chooses_an_illegal_cell():
    env = WhatTheShellMultiAgentEnv()
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.observation_spaces["black"],
        action_space=env.action_spaces["black"],
        model_config={"fcnet_hiddens": [32]},
    ).build()
    obs, _ = env.reset(seed=0)
    mask = np.zeros(81, np.float32)
    mask[[3, 40, 77]] = 1.0
    batch = {
        "obs": {
            OBS_KEY: torch.as_tensor(obs["black"][OBS_KEY][None].repeat(64, 0)),
            MASK_KEY: torch.as_tensor(mask[None].repeat(64, 0)),
        }
    }
    logits = module.forward_exploration(batch)["action_dist_inputs"]
    sampled = torch.distributions.Categorical(logits=logits).sample().numpy()
    assert set(sampled.tolist()) <= {3, 40, 77}
    with pytest.raises(ValueError, match="Dict observation space"):
        RLModuleSpec(
            module_class=MaskedPPOTorchRLModule,
            observation_space=gym.spaces.Box(0, 1, (325,)),
            action_space=env.action_spaces["black"],
        ).build()
    agent = RLModuleAgent(module, name="untrained")
    assert play_match(agent, "random", games=2).games == 2


def test_a_saved_module_joins_the_bench_as_rllib_checkpoint(tmp_path):
    from shell_envs.bench import evaluate

    env = WhatTheShellMultiAgentEnv({"obs_encoder": "flat"})
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.observation_spaces["black"],
        action_space=env.action_spaces["black"],
        model_config={"fcnet_hiddens": [16]},
    ).build()
    module.save_to_path(str(tmp_path / "module"))
    report = evaluate(f"rllib:{tmp_path / 'module'}", game="what_the_shell", games_per_anchor=1)
    rating = report.to_dict()["what_the_shell"]["ratings"]["rllib-module"]
    assert rating["games"] == len(ANCHOR_SPECS)
    assert all(not r["illegal"] for r in report.records)
    with pytest.raises(ValueError, match="single module's checkpoint"):
        evaluate(f"rllib:{tmp_path / 'module'}?module=shared", game="what_the_shell")


def test_the_example_trains_checkpoints_and_evaluates(local_ray, tmp_path):
    example = load_example("rllib_what_the_shell")
    results = example.main(["--smoke", "--out", str(tmp_path)])
    assert results["env_steps"] >= 512 and len(results["history"]) == 2
    assert Path(results["checkpoint"]).is_dir()
    for point in results["history"]:  # self-play: each game's returns sum to 0 over the seats
        seats = point["seat_returns"]
        if point["episodes"]:
            assert set(seats) == {"black", "white"}, point
            assert abs(seats["black"] + seats["white"]) < 1e-9
    assert (tmp_path / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    line = example.describe(results["history"][-1])
    assert re.fullmatch(r"iter +2: [\d,]+ env steps, [\d,]+ games, mean length "
                        r"(\d+\.\d|-) rounds, mean return (black [+-]\d+\.\d\d, "
                        r"white [+-]\d+\.\d\d|-) \(\d+ s\)",
                        line), line  # fmt: skip
    from shell_envs.bench import evaluate

    report = evaluate(f"rllib:{results['checkpoint']}", game="what_the_shell", games_per_anchor=1)
    rating = report.to_dict()["what_the_shell"]["ratings"]["rllib-checkpoint"]
    assert rating["games"] == len(ANCHOR_SPECS)
    saved = json.loads((tmp_path / "results.json").read_text())
    for opponent in ("random", "greedy"):
        match = saved["evaluation"][f"shared_vs_{opponent}"]
        assert match["games"] == 4 and 0.0 <= match["win_rate"] <= 1.0
