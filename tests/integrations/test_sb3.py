"""The SB3 adapters: the batched Scorpion VecEnv, masks for MaskablePPO, models as agents.

Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch); skipped without it.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the SB3 adapters need the train extra")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecMonitor

from shell_envs.agents import make_agent
from shell_envs.bench.evaluation import evaluate_scorpion as play_scorpion
from shell_envs.bench.evaluation import play_match
from shell_envs.bench.scale import ANCHOR_SPECS
from shell_envs.integrations.sb3 import (
    ScorpionVecEnv,
    WhatTheShellModelAgent,
    WhatTheShellSelfPlayVecEnv,
    evaluate_scorpion_model,
    load_agent,
)
from shell_envs.scorpion.env import ScorpionEnv


def first_legal(masks: np.ndarray) -> np.ndarray:
    """The first legal action of every game."""
    return masks.argmax(axis=1)


def test_reset_deals_the_seeded_games_with_list_infos():
    env = ScorpionVecEnv(3)
    env.seed(40)
    obs = env.reset()
    assert obs.shape == (3, *env.observation_space.shape)
    assert [info["deal"] for info in env.reset_infos] == [40, 41, 42]
    single = ScorpionEnv()
    for i, deal in enumerate((40, 41, 42)):
        expected, _ = single.reset(seed=deal)
        np.testing.assert_array_equal(obs[i], expected)


def test_set_options_plays_given_deals_and_rejects_other_options():
    env = ScorpionVecEnv(2)
    env.set_options([{"deal": 7}, {"deal": 9}])
    env.reset()
    assert [info["deal"] for info in env.reset_infos] == [7, 9]
    env.set_options({"position": None})
    with pytest.raises(ValueError, match="deal"):
        env.reset()


def test_ended_games_restart_with_terminal_observation_and_truncation_flag():
    env = ScorpionVecEnv(2, max_moves=5)
    env.seed(3)
    env.reset()
    singles = [ScorpionEnv(max_moves=5) for _ in range(2)]
    for i, single in enumerate(singles):
        single.reset(seed=3 + i)
    for _ in range(5):
        actions = first_legal(env.action_masks())
        obs, rewards, dones, infos = env.step(actions)
        for i, single in enumerate(singles):
            expected, reward, terminated, truncated, info = single.step(int(actions[i]))
            assert rewards[i] == reward
            assert dones[i] == (terminated or truncated)
            if dones[i]:
                np.testing.assert_array_equal(infos[i]["terminal_observation"], expected)
                assert infos[i]["TimeLimit.truncated"] == (truncated and not terminated)
                assert infos[i]["score"] == info["score"] and infos[i]["deal"] == 3 + i
            else:
                assert "terminal_observation" not in infos[i]
                np.testing.assert_array_equal(obs[i], expected)
    assert dones.all() and all(info["TimeLimit.truncated"] for info in infos)
    assert all(info["moves"] == 5 for info in infos)
    assert {info["deal"] for info in env.reset_infos} == {3, 4}


def test_dict_observations_keep_their_keys_in_the_terminal_observation():
    env = ScorpionVecEnv(2, max_moves=1, mask_in_obs=True)
    env.reset()
    obs, _, dones, infos = env.step(first_legal(env.action_masks()))
    assert set(obs) == {"observation", "action_mask"} and dones.all()
    terminal = infos[0]["terminal_observation"]
    assert set(terminal) == {"observation", "action_mask"}
    assert terminal["observation"].shape == env.observation_space["observation"].shape


def test_masks_reach_maskable_ppo_through_env_method():
    env = ScorpionVecEnv(4)
    env.reset()
    assert is_masking_supported(env)
    masks = get_action_masks(env)
    assert masks.shape == (4, env.action_space.n) and masks.dtype == bool
    np.testing.assert_array_equal(masks, env.action_masks())
    np.testing.assert_array_equal(env.env_method("action_masks", indices=[2])[0], masks[2])
    illegal = int(np.flatnonzero(~masks[0])[0])
    assert env.env_method("explain", illegal, indices=0)[0] == env.venv.explain(0, illegal)
    assert env.get_attr("rules") == ["classic"] * 4
    with pytest.raises(AttributeError, match="action_masks"):
        env.env_method("render")


def test_maskable_ppo_learns_on_the_batched_env_and_plays_legal_moves():
    env = VecMonitor(ScorpionVecEnv(4, max_moves=100))
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs = env.reset()
    for _ in range(20):
        masks = get_action_masks(env)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(4), actions].all()
        obs, _, _, infos = env.step(actions)
        assert not any(info["illegal"] for info in infos)
    result = evaluate_scorpion_model(model, [5, 6, 7], max_moves=30)
    assert result.games == 3 and 0 <= result.win_rate <= 1 and result.mean_score >= 0
    assert set(result.as_dict()) >= {"win_rate", "win_ci95", "mean_score", "score_ci95"}


def test_a_saved_scorpion_model_plays_as_an_agent(tmp_path):
    env = ScorpionVecEnv(2, max_moves=50)
    MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, device="cpu", seed=0).save(
        tmp_path / "scorpion.zip"
    )
    agent = load_agent(tmp_path / "scorpion.zip", game="scorpion", deterministic=False)
    result = play_scorpion(agent, [1, 2], max_moves=40)
    assert result.games == 2 and result.agent == "ppo:scorpion.zip"


def test_a_what_the_shell_model_plays_in_any_encoder(tmp_path):
    import gymnasium as gym

    env = gym.make("shell_envs/WhatTheShell-v0", opponent="random", obs_encoder="flat")
    MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, device="cpu", seed=0).save(
        tmp_path / "wts.zip"
    )
    agent = load_agent(tmp_path / "wts.zip", seed=1)
    assert isinstance(agent, WhatTheShellModelAgent)
    planes = gym.make("shell_envs/WhatTheShell-v0", opponent="random", obs_encoder="planes")
    obs, _ = planes.reset(seed=0)
    mask = planes.unwrapped.action_masks()
    assert mask[agent.act(obs, mask)]
    result = play_match(agent, make_agent("what_the_shell", "greedy", seed=0), games=2)
    assert result.games == 2 and result.opponent == "greedy"
    with pytest.raises(ValueError, match="game must be"):
        load_agent(tmp_path / "wts.zip", game="chess")


def test_wilson_intervals_and_match_summaries():
    from shell_envs.bench.evaluation import MatchResult

    result = MatchResult("a", "b", wins=30, draws=10, losses=60)
    assert result.games == 100 and result.score == pytest.approx(0.35)
    lo, hi = result.win_interval()
    assert 0.2 < lo < 0.3 < hi < 0.4
    row = result.as_dict()
    assert row["loss_rate"] == 0.6 and row["win_ci95"] == [lo, hi]
    assert "30 W / 10 D / 60 L of 100" in str(result)


def test_self_play_rows_are_both_seats_of_each_game_with_their_masks():
    env = WhatTheShellSelfPlayVecEnv(3, obs_encoder="flat", max_rounds=4)
    assert env.num_envs == 6 and is_masking_supported(env)
    obs = env.reset()
    assert obs.shape == (6, 325)
    assert [info["seat"] for info in env.reset_infos] == [0, 1] * 3
    rng = np.random.default_rng(0)
    for _ in range(4):
        masks = get_action_masks(env)
        assert masks.shape == (6, 81) and masks.dtype == bool
        np.testing.assert_array_equal(masks, env.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = env.step(actions)
        for g in range(3):
            black, white = obs[2 * g], obs[2 * g + 1]
            if not dones[2 * g]:  # each row sees its own turtles as "own" (planes 0 and 1 swap)
                np.testing.assert_array_equal(black[:81], white[81:162])
                info = infos[2 * g]
                assert black[actions[2 * g]] == 1 or info["collision"] or info["turtles_lost"]
            assert rewards[2 * g] == -rewards[2 * g + 1]
    # max_rounds=4: every game was cut at round 4 and restarted
    assert dones.all() and all(info["TimeLimit.truncated"] for info in infos)
    assert all(info["terminal_observation"].shape == (325,) for info in infos)
    assert all(game.position()["black"] == [] for game in env.games)


def test_a_learner_seat_against_an_opponent_is_one_row_per_game():
    env = WhatTheShellSelfPlayVecEnv(2, learner="white", opponent="greedy", obs_encoder="flat")
    assert env.num_envs == 2
    env.reset()
    _, _, _, infos = env.step(get_action_masks(env).argmax(axis=1))
    assert [info["seat"] for info in infos] == [1, 1]
    assert all(int(np.sum(game.board != 0)) >= 1 for game in env.games)
    with pytest.raises(ValueError, match="needs one"):
        WhatTheShellSelfPlayVecEnv(2, learner="black")
    with pytest.raises(ValueError, match="takes no opponent"):
        WhatTheShellSelfPlayVecEnv(2, opponent="greedy")


def test_maskable_ppo_self_plays_on_the_vec_env():
    env = VecMonitor(WhatTheShellSelfPlayVecEnv(4, obs_encoder="flat", max_rounds=40))
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs = env.reset()
    for _ in range(30):
        masks = get_action_masks(env)
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(8), actions].all()
        obs, _, _, infos = env.step(actions)
        assert not any(info["illegal"] for info in infos)


def test_maskable_ppo_models_join_the_bench_in_both_games(tmp_path):
    """Smoke-trained MaskablePPO models, one per game, benchmarked by ``ppo:PATH``."""
    import json

    from click.testing import CliRunner

    from shell_envs.cli import main

    wts = MaskablePPO(
        "MlpPolicy",
        WhatTheShellSelfPlayVecEnv(2, obs_encoder="flat"),
        n_steps=32,
        batch_size=32,
        seed=0,
    )
    wts.learn(64)
    wts.save(tmp_path / "wts")
    cards = MaskablePPO(
        "MlpPolicy", ScorpionVecEnv(2, obs_encoder="cards"), n_steps=32, batch_size=32, seed=0
    )
    cards.learn(64)
    cards.save(tmp_path / "cards")
    small = [
        "--games",
        "1",
        "--deals",
        "2",
        "--workers",
        "1",
        "--no-progress",
        "--rules",
        "relaxed",
    ]
    for game, spec in (
        ("what-the-shell", "ppo:wts.zip"),
        ("scorpion", "ppo:cards.zip?encoder=cards"),
    ):
        out = tmp_path / game
        path_spec = spec.replace("ppo:", f"ppo:{tmp_path}/")
        chosen = ["--game", game] if game == "scorpion" else []  # a model finds its game
        result = CliRunner().invoke(
            main, ["bench", *chosen, "--agent", path_spec, "--out", str(out), *small]
        )
        assert result.exit_code == 0, result.output
        data = json.loads((out / "results.json").read_text())
        records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
        assert all(not r["illegal"] and not r["errors"] for r in records)
        if game == "what-the-shell":
            assert data["what_the_shell"]["ratings"]["ppo-wts"]["games"] == len(ANCHOR_SPECS)
            assert "scorpion" not in data
        else:
            assert data["scorpion"]["relaxed"]["agents"]["ppo-cards"]["deals"] == 2
    wrong = CliRunner().invoke(
        main,
        [
            "bench",
            "--game",
            "scorpion",
            "--agent",
            f"ppo:{tmp_path}/cards.zip?encoder=tableau",
            "--out",
            str(tmp_path / "x"),
            *small,
        ],
    )
    assert wrong.exit_code == 2 and "does not give the model's observation shape" in wrong.output
