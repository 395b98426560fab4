"""Gymnasium's env checker, a MaskablePPO smoke run, and the engine as plain Python."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tests.scorpion.helpers import make

SCRIPT = """
import json, numpy as np, gymnasium as gym, shell_envs
from shell_envs.scorpion import ScorpionState, rules
env = gym.make("shell_envs/Scorpion-v0", obs_encoder="cards", allow_undo=True)
obs, info = env.reset(seed=31)
rng = np.random.default_rng(0)
rewards = []
for _ in range(60):
    a = int(rng.choice(np.flatnonzero(info["action_mask"])))
    obs, r, term, trunc, info = env.step(a)
    rewards.append(r)
    if term:
        break
state = ScorpionState()
games = rules.random_playout(state.arrays, 5, 300, 100, rules.RELAXED)
from shell_envs.core.sampling import random_legal_actions
vec = gym.make_vec("shell_envs/Scorpion-v0", num_envs=3)
vec_obs, _ = vec.reset(seed=5)
vec_rewards, sampled_legal = [], True
for _ in range(40):
    masks = vec.action_masks()
    sampled = random_legal_actions(masks)
    sampled_legal &= all(m[a] if a >= 0 else not m.any() for m, a in zip(masks, sampled))
    vec_obs, r, *_ = vec.step(masks.argmax(axis=1))
    vec_rewards += r.tolist()
print(json.dumps({"pos": env.unwrapped.position(), "obs": obs.tolist(), "rewards": rewards,
                  "games": int(games), "playout": state.position(),
                  "vec_obs": vec_obs.tolist(), "vec_rewards": vec_rewards,
                  "sampled_legal": sampled_legal, "jit": type(rules.move).__name__}))
"""


@pytest.mark.parametrize("encoder", ["tableau", "cards"])
@pytest.mark.parametrize("rule_set", ["classic", "relaxed", "traditional"])
def test_check_env(encoder, rule_set):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(make(obs_encoder=encoder, rules=rule_set).unwrapped)
        check_env(
            make(obs_encoder=encoder, rules=rule_set, mask_in_obs=True, allow_undo=True).unwrapped
        )


def test_check_env_with_rendering():
    for mode in ("ansi", "rgb_array"):
        check_env(make(render_mode=mode).unwrapped, skip_render_check=False)


def test_maskable_ppo_smoke_run():
    pytest.importorskip("sb3_contrib", reason="MaskablePPO needs the train extra")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = make(max_moves=100)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=3)
    for _ in range(20):
        masks = get_action_masks(env)
        a, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[int(a)]
        obs, _, terminated, truncated, info = env.step(a)
        assert not info["illegal"]
        if terminated or truncated:
            break


def test_maskable_ppo_with_the_mask_in_a_dict_observation():
    pytest.importorskip("sb3_contrib", reason="MaskablePPO needs the train extra")
    from sb3_contrib import MaskablePPO

    env = make(mask_in_obs=True, obs_encoder="cards", max_moves=50)
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=64)
    assert model.num_timesteps >= 64


def test_engine_runs_as_plain_python_with_numba_disabled():
    def run(disable: bool) -> dict:
        env = dict(os.environ, NUMBA_DISABLE_JIT="1" if disable else "0")
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    plain, compiled = run(True), run(False)
    assert plain.pop("jit") == "function" and compiled.pop("jit") == "CPUDispatcher"
    assert plain == compiled
    assert plain["sampled_legal"]
    assert np.sum(plain["rewards"]) == plain["pos"]["score"]
