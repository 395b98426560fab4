"""``gym.make_vec("shell_envs/Scorpion-v0")`` plays exactly the games of the single env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

import shell_envs  # noqa: F401  (registers the ids)
from shell_envs.core.errors import IllegalMove
from shell_envs.scorpion import ScorpionState, rules
from shell_envs.scorpion.rules import M_MOVES
from shell_envs.scorpion.vector import ScorpionVectorEnv
from tests.scorpion.helpers import STUCK_AFTER_ONE_MOVE, STUCK_AT_THE_START, action


def lockstep(n: int, steps: int, seed: int, illegal_every: int = 0, **kwargs):
    """Drive a batched env and ``n`` single envs with the same actions and compare everything."""
    mode = kwargs.pop("autoreset_mode", "next_step")
    batch = gym.make_vec("shell_envs/Scorpion-v0", num_envs=n, autoreset_mode=mode, **kwargs)
    singles = [gym.make("shell_envs/Scorpion-v0", **kwargs) for _ in range(n)]
    rng = np.random.default_rng(seed)
    b_obs, b_info = batch.reset(seed=seed)
    for i, env in enumerate(singles):
        env.reset(seed=seed + i)
    pending = [False] * n
    ended = 0
    for _ in range(steps):
        masks = batch.action_masks()
        assert masks.any(axis=1).all()  # never empty, even for a game stuck at its end
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)
        if illegal_every:
            actions[rng.random(n) < 1 / illegal_every] = 0
        b_obs, b_rew, b_term, b_trunc, b_info = batch.step(actions)
        for i, env in enumerate(singles):
            if pending[i]:
                obs, info = env.reset()
                rew, term, trunc = 0.0, False, False
                pending[i] = False
            else:
                obs, rew, term, trunc, info = env.step(int(actions[i]))
                if term or trunc:
                    ended += 1
                    if mode == "same_step":
                        # Gymnasium's layout: one observation per env, None where none ended
                        assert b_info["final_obs"].dtype == object
                        assert [o is not None for o in b_info["final_obs"]] == list(
                            b_info["_final_obs"]
                        )
                        final_obs = b_info["final_obs"][i]
                        np.testing.assert_array_equal(final_obs, obs)
                        assert b_info["_final_obs"][i]
                        obs, _ = env.reset()
                    else:
                        pending[i] = True
                assert b_info["illegal"][i] == info["illegal"]
            np.testing.assert_array_equal(b_obs[i], obs)
            # a game that just ended (next_step): the next step ignores its action, any will do
            expected = np.ones_like(masks[i]) if pending[i] else env.unwrapped.action_masks()
            np.testing.assert_array_equal(batch.action_masks()[i], expected)
            assert b_rew[i] == rew
            assert b_term[i] == term
            assert b_trunc[i] == trunc
            assert b_info["score"][i] == env.unwrapped.position()["score"]
    return ended


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_batch_and_single_envs_play_identical_games(mode):
    assert lockstep(6, 120, seed=3, autoreset_mode=mode, max_moves=40) >= 6


@pytest.mark.parametrize("encoder", ["tableau", "cards"])
@pytest.mark.parametrize("rule_set", ["relaxed", "traditional"])  # classic: the tests above
def test_batch_matches_single_for_each_encoder_and_rule_set(encoder, rule_set):
    lockstep(4, 60, seed=5, obs_encoder=encoder, rules=rule_set, max_moves=30)


def test_batch_matches_single_with_illegal_actions_undo_and_win_reward():
    lockstep(4, 60, seed=9, illegal_every=4, allow_undo=True, reward="win", max_moves=25)


def batch_at(pos: dict, **kwargs) -> gym.vector.VectorEnv:
    """A batched env of two games, game 0 set to ``pos`` (game 1 plays deal 1)."""
    env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=2, **kwargs)
    env.reset(seed=0)
    u = env.unwrapped
    for batched, own in zip(u.arrays, ScorpionState.from_position(pos).arrays, strict=True):
        batched[0] = own
    rules.legal_mask(tuple(x[0] for x in u.arrays), u.allow_undo, u.masks[0])
    return env


def step_game_0(env: gym.vector.VectorEnv, a: int) -> tuple:
    """Step game 0 with ``a`` (game 1 with a legal action): game 0's reward, flags and info."""
    actions = np.array([a, np.flatnonzero(env.action_masks()[1])[0]])
    _, rewards, terminated, truncated, info = env.step(actions)
    return rewards[0], terminated[0], truncated[0], {k: v[0] for k, v in info.items()}


def test_batch_stuck_with_a_move_to_take_back_goes_on_with_undo_its_only_action():
    env = batch_at(STUCK_AFTER_ONE_MOVE, allow_undo=True)
    assert np.flatnonzero(env.action_masks()[0]).tolist() == [action("3C", 4)]
    reward, terminated, truncated, _ = step_game_0(env, action("3C", 4))
    assert reward == 5 and not terminated and not truncated
    assert np.flatnonzero(env.action_masks()[0]).tolist() == [rules.UNDO_ACTION]
    assert env.unwrapped.explain(0, rules.UNDO_ACTION) is None
    reward, terminated, _, info = step_game_0(env, 366)  # out of range: refused, still going
    assert info["illegal"] and reward == 0 and not terminated
    reward, terminated, truncated, info = step_game_0(env, rules.UNDO_ACTION)
    assert not info["illegal"] and reward == -5 and not terminated and not truncated
    assert np.flatnonzero(env.action_masks()[0]).tolist() == [action("3C", 4)]
    reward, terminated, _, info = step_game_0(env, action("3C", 4))
    assert not info["illegal"] and reward == 5 and not terminated


def test_batch_stuck_without_undo_ends_the_game():
    env = batch_at(STUCK_AFTER_ONE_MOVE)
    reward, terminated, truncated, _ = step_game_0(env, action("3C", 4))
    assert reward == 5 and terminated and not truncated


def test_batch_stuck_with_undo_but_nothing_to_take_back_ends_the_game():
    env = batch_at(STUCK_AT_THE_START, allow_undo=True)
    assert not env.unwrapped.masks[0].any()
    reward, terminated, _, info = step_game_0(env, rules.UNDO_ACTION)
    assert info["illegal"] and reward == 0 and terminated


class ScoreAndHidden:
    """A user's encoder (not compiled): score, removed sequences and face-down counts."""

    space = gym.spaces.Box(-10_000, 10_000, (9,), np.int32)

    def encode(self, state):
        return np.array([state.score, state.removed, *state.arrays[2]], np.int32)


def test_batch_matches_single_with_a_custom_encoder():
    lockstep(3, 40, seed=11, obs_encoder=ScoreAndHidden(), max_moves=20)


def test_make_vec_uses_the_native_batched_env():
    env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=3)
    assert isinstance(env.unwrapped, ScorpionVectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=[10, 20, 30])
    assert obs.shape == (3, 366) and env.observation_space.contains(obs)
    assert list(info["deal"]) == [10, 20, 30]
    assert env.action_masks().shape == (3, 365)


def test_mask_in_obs_batches_the_mask():
    env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=2, mask_in_obs=True)
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"].shape == (2, 365)
    np.testing.assert_array_equal(obs["action_mask"].astype(bool), env.action_masks())


def test_illegal_action_raise_names_the_env_and_changes_nothing():
    env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=2, illegal_action="raise")
    env.reset(seed=0)
    before = env.unwrapped.tab.copy()
    legal = [int(np.flatnonzero(m)[0]) for m in env.action_masks()]
    with pytest.raises(IllegalMove, match=r"env 1: "):
        env.step(np.array([legal[0], 364 + 1], dtype=np.int64))
    np.testing.assert_array_equal(env.unwrapped.tab, before)


def test_bad_arguments_are_rejected_clearly():
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        ScorpionVectorEnv(0)
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        ScorpionVectorEnv(2, autoreset_mode="sometimes")
    env = ScorpionVectorEnv(2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions must be 2 integers"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="got 1 seeds for 2 envs"):
        env.reset(seed=[1])


def test_explain_uses_the_rules_messages():
    env = ScorpionVectorEnv(1, lang="hu")
    env.reset(seed=0)
    king = next(a for a in range(364) if a // 7 % 13 == 12)
    text = env.explain(0, king)
    assert text is None or isinstance(text, str)
    assert env.explain(0, int(np.flatnonzero(env.action_masks()[0])[0])) is None


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_returned_arrays_are_never_overwritten_while_held(mode):
    env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=4, max_moves=3, autoreset_mode=mode)
    obs, _ = env.reset(seed=3)
    masks = env.action_masks()
    held = [obs, obs[1:], masks]
    rng = np.random.default_rng(0)
    snapshots, finals = None, 0
    for step in range(12):
        if step == 6:
            snapshots = [a.copy() for a in held]
        m = env.action_masks()
        obs, _, _, _, info = env.step(
            np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in m])
        )
        if step < 6:
            held += [obs, m]
            if "final_obs" in info:
                held.extend(o for o in info["final_obs"] if o is not None)  # per ended env
                finals += 1
    assert (finals > 0) == (mode == "same_step")
    for array, snapshot in zip(held, snapshots, strict=True):
        np.testing.assert_array_equal(array, snapshot)


def test_many_autoresets_deal_what_single_envs_deal():
    # short games: every env resets far more often than it draws deal numbers at once
    assert lockstep(3, 128, seed=11, max_moves=2) > 96


def test_reseeding_restarts_each_envs_deals():
    env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=2, max_moves=1)
    runs = []
    for _ in range(2):  # the second reset comes with each generator's state drawn on
        env.reset(seed=4)
        infos = [env.step(np.zeros(2, np.int64))[4] for _ in range(96)]
        runs.append([info["deal"].tolist() for info in infos])
    assert runs[0] == runs[1]
    assert len({d for step in runs[0] for d in step}) > 32


def test_deal_pool_draws_every_later_deal_from_it():
    env = ScorpionVectorEnv(3, max_moves=1, autoreset_mode="same_step")
    env.set_deal_pool([7, 11])
    _, info = env.reset(seed=100)
    assert info["deal"].tolist() == [100, 101, 102]  # seeds still come first
    dealt = {int(d) for _ in range(20) for d in env.step(np.zeros(3, np.int64))[4]["deal"]}
    assert dealt == {7, 11}
    env.set_deal_pool(None)
    dealt = {int(d) for _ in range(5) for d in env.step(np.zeros(3, np.int64))[4]["deal"]}
    assert not dealt & {7, 11}
    for bad in ([], [-1], ["x"]):
        with pytest.raises(ValueError):
            env.set_deal_pool(bad)


def test_each_autoreset_draws_from_the_envs_own_generator_pool_or_not():
    # a pool set right after a seeded reset: each env's first pick is its generator's first
    # draw; then, without the pool, the draws go on
    pool = [5, 17, 2**40 + 3, 99, 8]
    env = ScorpionVectorEnv(3, max_moves=1)  # every game ends after one step
    env.reset(seed=20)
    env.set_deal_pool(pool)
    rngs = [seeding.np_random(20 + i)[0] for i in range(3)]
    ended, resets = np.zeros(3, np.bool_), 0
    for step in range(24):
        if step == 12:
            env.set_deal_pool(None)
        _, _, terminated, truncated, info = env.step(np.zeros(3, np.int64))
        for i in np.flatnonzero(ended):
            expected = pool[rngs[i].integers(len(pool))] if step < 12 else rngs[i].integers(2**62)
            assert info["deal"][i] == expected, (step, i)
            resets += 1
        ended = terminated | truncated
    assert resets >= 30


def test_redeal_starts_the_next_game_in_the_given_envs_only():
    env = ScorpionVectorEnv(3, obs_encoder="tableau")
    obs, info = env.reset(seed=5)
    actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()], np.int64)
    obs, _, _, _, info = env.step(actions)
    env.set_deal_pool([42])
    env.redeal([1])
    single = ScorpionVectorEnv(1)
    single.reset(seed=42)
    assert env.deals.tolist() == [5, 42, 7] and env.steps.tolist() == [1, 0, 1]
    for mine, fresh in zip(env.arrays, single.arrays, strict=True):
        np.testing.assert_array_equal(mine[1], fresh[0])  # game 1 is deal 42, just dealt
    assert env.meta[0, M_MOVES] == env.meta[2, M_MOVES] == 1  # the others played on
    np.testing.assert_array_equal(env.action_masks()[1], single.action_masks()[0])
    actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()], np.int64)
    _, _, _, _, info = env.step(actions)
    assert info["moves"].tolist()[1] == 1 and info["deal"].tolist() == [5, 42, 7]
    with pytest.raises(ValueError, match="env index"):
        env.redeal([3])
