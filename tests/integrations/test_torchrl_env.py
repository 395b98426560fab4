"""The native TorchRL envs: specs, the same games as the batched envs, no copies, resets.

Needs the ``clients`` extra (torchrl, with torch); skipped without it.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("torchrl", reason="the native TorchRL envs need the clients extra")

import torch
from torchrl.envs.utils import check_env_specs

import shell_envs  # noqa: F401  (registers the ids)
from shell_envs import what_the_shell_v0
from shell_envs.core.sampling import random_legal_actions
from shell_envs.integrations.torchrl import (
    SEATS,
    ScorpionTorchEnv,
    WhatTheShellTorchEnv,
    make_env,
)
from tests.gpu.helpers import needs_numba_cuda, run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_torchrl_ppo.py"


def _scorpion(n: int, **kwargs):
    return gym.make_vec(
        "shell_envs/Scorpion-v0", num_envs=n, vectorization_mode="vector_entry_point", **kwargs
    )


@pytest.mark.parametrize("game", ["what_the_shell", "scorpion"])
def test_check_env_specs_passes_on_the_cpu(game):
    env = make_env(game, 16)
    check_env_specs(env)
    rollout = env.rollout(60, break_when_any_done=False)
    assert rollout.batch_size == (16, 60)


@pytest.mark.parametrize("game", ["what_the_shell", "scorpion"])
def test_check_env_specs_passes_on_a_gpu(game):
    pytest.importorskip("numba_cuda", reason='needs the cuda extra: pip install "shell-envs[cuda]"')
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU (the GPU envs' simulator tests run everywhere)")
    env = make_env(game, 256, device="cuda")
    check_env_specs(env)
    rollout = env.rollout(60, break_when_any_done=False)
    assert rollout.batch_size == (256, 60)
    assert rollout.device.type == "cuda"
    assert all(leaf.device.type == "cuda" for leaf in rollout.values(True, True))


def _torchrl_checks(tmp_path, simulator: bool) -> None:
    """tests/gpu/torchrl_checks.py in a fresh process: TorchRL over the GPU envs plays the
    games it plays over the CPU envs, keeps each step's tensors, and runs the PPO example."""
    needs_numba_cuda()
    script = Path(__file__).resolve().parents[1] / "gpu" / "torchrl_checks.py"
    assert run([str(script), str(tmp_path)], simulator=simulator).splitlines()[-1] == "ok"


def test_the_gpu_envs_play_the_cpu_envs_games_through_torchrl_under_the_simulator(tmp_path):
    _torchrl_checks(tmp_path, simulator=True)


def test_the_gpu_envs_play_the_cpu_envs_games_through_torchrl_on_a_gpu(tmp_path):
    pytest.importorskip("numba_cuda", reason='needs the cuda extra: pip install "shell-envs[cuda]"')
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU (the simulator test above runs the same checks)")
    _torchrl_checks(tmp_path, simulator=False)


def test_a_batched_env_made_with_copy_false_is_refused():
    with pytest.raises(ValueError, match="made with copy=False: its next step overwrites"):
        WhatTheShellTorchEnv(what_the_shell_v0.vector_env(4, copy=False))


class _Spy:
    """A batched env that records what it returned, to see whether the wrapper copied it."""

    def __init__(self, env, to_torch: bool = False) -> None:
        self.env, self.to_torch, self.returned = env, to_torch, []

    def __getattr__(self, name):
        return getattr(self.env, name)

    def _out(self, value):
        if isinstance(value, tuple):
            return tuple(self._out(v) for v in value)
        if isinstance(value, dict):
            return {k: self._out(v) for k, v in value.items()}
        if isinstance(value, np.ndarray) and self.to_torch:
            value = torch.from_numpy(value)  # stands in for a GPU env's device tensors
        if isinstance(value, (np.ndarray, torch.Tensor)):
            self.returned.append(value)
        return value

    def reset(self, **kwargs):
        return self._out(self.env.reset(**kwargs))

    def step(self, actions):
        if self.to_torch:  # a GPU env takes tensors: the wrapper must not hand it numpy
            assert all(isinstance(a, torch.Tensor) for a in actions.values())
            actions = {k: a.numpy() for k, a in actions.items()}
        return self._out(self.env.step(actions))


def _pointer(value) -> int:
    return value.data_ptr() if isinstance(value, torch.Tensor) else value.ctypes.data


@pytest.mark.parametrize("to_torch", [False, True])
def test_observations_and_masks_are_the_batched_envs_own_memory(to_torch):
    spy = _Spy(what_the_shell_v0.vector_env(8, obs_encoder="planes_uint8"), to_torch)
    env = WhatTheShellTorchEnv(spy)
    td = env.reset()
    td = env.rand_step(td)
    pointers = {_pointer(v) for v in spy.returned}
    for seat in SEATS:
        assert td["next", seat, "observation"].data_ptr() in pointers
        assert td["next", seat, "action_mask"].data_ptr() in pointers


def test_what_the_shell_plays_the_batched_envs_games():
    n, steps = 32, 120
    env = make_env("what_the_shell", n, obs_encoder="planes_uint8")
    env.set_seed(3)
    reference = what_the_shell_v0.vector_env(n, obs_encoder="planes_uint8")
    obs, _ = reference.reset(seed=3)
    td = env.reset()
    resets = 0
    for _ in range(steps):
        for seat in SEATS:
            np.testing.assert_array_equal(td[seat, "observation"].numpy(), obs[seat]["observation"])
            np.testing.assert_array_equal(
                td[seat, "action_mask"].numpy(), obs[seat]["action_mask"].astype(bool)
            )
            td[seat, "action"] = torch.from_numpy(random_legal_actions(obs[seat]["action_mask"]))
        actions = {seat: td[seat, "action"].numpy() for seat in SEATS}
        obs, rewards, terminated, truncated, _ = reference.step(actions)
        td, root = env.step_and_maybe_reset(td)
        for seat in SEATS:
            np.testing.assert_array_equal(
                td["next", seat, "reward"].squeeze(-1).numpy(), rewards[seat]
            )
        ended = terminated["black"] | truncated["black"]
        np.testing.assert_array_equal(td["next", "done"].squeeze(-1).numpy(), ended)
        # the ended games come back flagged: their next transition is the env's reset step
        np.testing.assert_array_equal(root["autoreset"].squeeze(-1).numpy(), ended)
        resets += int(ended.sum())
        td = root
    assert resets >= 5


def test_after_an_autoreset_comes_a_fresh_scorpion_deal_with_no_reward():
    env = ScorpionTorchEnv(_scorpion(16, max_moves=25))
    env.set_seed(0)
    rollout = env.rollout(80, break_when_any_done=False)
    flagged = rollout["autoreset"].squeeze(-1)
    done = rollout["next", "done"].squeeze(-1)
    assert flagged.any()
    assert torch.equal(flagged[:, 1:], done[:, :-1] & ~done[:, :-1].all(0))
    fresh = rollout["next", "observation"][flagged]
    assert (fresh[:, 364] == 3).all()  # the reserve is back: a new deal
    assert (rollout["next", "reward"][flagged] == 0).all()
    assert not rollout["next", "done"][flagged].any()
    assert rollout["action_mask"][flagged].all()  # any action will do: it is ignored


def test_unknown_game_is_refused():
    with pytest.raises(ValueError, match="unknown game"):
        make_env("chess", 2)


def _example():
    spec = importlib.util.spec_from_file_location("train_torchrl_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", ["what_the_shell", "scorpion"])
def test_ppo_example_runs_and_writes_its_curve(game, tmp_path):
    args = ["--game", game, "--num-envs", "8", "--steps", "16", "--minutes", "0",
            "--eval-games", "4", "--eval-every", "1", "--hidden", "16", "--max-moves", "12",
            "--torch-threads", "1", "--out", str(tmp_path)]  # fmt: skip
    results = _example().main(args)
    assert results["env_steps"] == 128 and results["steps_per_s"] > 0
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["curve"] and (tmp_path / "learning_curve.png").stat().st_size > 0
    assert [row["env_steps"] for row in saved["curve"]] == [0, 128]  # untrained, then trained
    for row in saved["curve"]:
        point = row["eval"]
        if game == "what_the_shell":
            assert point["wins"] + point["draws"] + point["losses"] == 4
        else:
            assert point["games"] == 4 and 0 <= point["mean_score"] <= point["best_score"]
    if game == "scorpion":
        assert saved["curve"][1]["train_episodes"] >= 8  # every game ends by move 12
