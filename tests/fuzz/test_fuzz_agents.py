"""Fuzzing the agents' inputs: observations, views and masks no game can produce.

The compiled search plays what it is given, so every agent entry point checks its inputs: a
bad one gets a ``ValueError`` naming the problem, never a crash.  The crash-prone sweeps run
in a subprocess, so a segfault fails the test instead of killing the run.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import shell_envs  # noqa: F401  (registers the envs)
from shell_envs import what_the_shell_v0
from shell_envs.agents import make_agent
from shell_envs.agents.scorpion import HIDDEN, ScorpionView
from shell_envs.agents.what_the_shell import WhatTheShellView
from tests.fuzz.helpers import run_python


@pytest.fixture(scope="module")
def scorpion():
    env = gym.make("shell_envs/Scorpion-v0")
    obs, info = env.reset(seed=2)
    return env, obs, info["action_mask"]


def test_lookahead_refuses_impossible_observations(scorpion):
    env, obs, mask = scorpion
    agent = make_agent("scorpion", "lookahead", seed=0, samples=2)
    cases = []
    bad = obs.copy()
    bad[5] = 99
    cases.append((bad, "tableau entries 0–363 .* got 99"))
    bad = obs.copy()
    bad[60] = 53  # a face-down card in the middle of column 2
    cases.append((bad, "view"))
    bad = obs.copy()
    bad[364] = 2
    cases.append((bad, "entry 364"))
    cases.append((obs.astype(float) + 0.5, "whole numbers"))
    cases.append((np.zeros(10), "cannot read a Scorpion position"))
    for observation, fragment in cases:
        with pytest.raises(ValueError, match=fragment):
            agent.act(observation, mask)
    assert mask[agent.act(obs, mask)]


def test_scorpion_agents_refuse_masks_the_position_does_not_allow(scorpion):
    env, obs, mask = scorpion
    view = ScorpionView.from_env(env)
    for name in ("greedy", "lookahead"):
        agent = make_agent("scorpion", name, seed=0)
        everything = np.ones_like(mask)
        with pytest.raises(ValueError, match="marks action 0 legal, but the position"):
            agent.act_with_state(view, everything)
        with pytest.raises(ValueError, match="365 or 366 entries"):
            agent.act_with_state(view, mask[:100])
        with pytest.raises(ValueError, match="ScorpionView"):
            agent.act_with_state("a view", mask)


def test_scorpion_views_built_by_hand_are_checked(scorpion):
    env, _, mask = scorpion
    view = ScorpionView.from_env(env)
    agent = make_agent("scorpion", "lookahead", seed=0, samples=2)
    short = ScorpionView(view.tab, view.lens, view.fd, view.reserve, view.meta, view.unseen[:-1])
    with pytest.raises(ValueError, match="view.unseen lists 14 cards for 15 hidden places"):
        agent.act_with_state(short, mask)
    tab = view.tab.copy()
    tab[6, 3] = HIDDEN
    with pytest.raises(ValueError, match="column 7: exactly its 0 face-down cards"):
        agent.act_with_state(ScorpionView(tab, *[getattr(view, f) for f in FIELDS[1:]]), mask)
    same = ScorpionView(*[getattr(view, f) for f in FIELDS])
    assert mask[agent.act_with_state(same, mask)]


FIELDS = ("tab", "lens", "fd", "reserve", "meta", "unseen")


def test_what_the_shell_agents_refuse_impossible_views_and_masks():
    env = what_the_shell_v0.parallel_env()
    observations, _ = env.reset(seed=0)
    env.step({"black": 40, "white": 41})
    view = WhatTheShellView.from_env(env, "black")
    mask = env.action_mask()
    board = view.board.copy()
    board[3] = 9
    for name in ("greedy", "mcts"):
        agent = make_agent(
            "what_the_shell", name, seed=0, **({"iterations": 20} if name == "mcts" else {})
        )
        with pytest.raises(ValueError, match="board holds 9"):
            agent.act_with_state(WhatTheShellView(board, view.eggs, view.meta, 1), mask)
        with pytest.raises(ValueError, match="81 entries"):
            agent.act_with_state(view, mask[:5])
        with pytest.raises(ValueError, match="marks cell 40 legal, but it is occupied"):
            agent.act_with_state(view, np.ones(81, np.int8))
        with pytest.raises(ValueError, match="WhatTheShellView"):
            agent.act_with_state(board, mask)
        assert mask[agent.act_with_state(view, mask)]
    with pytest.raises(ValueError, match="meta egg count is 5 but the board has 0 eggs"):
        WhatTheShellView.of(view.board, view.eggs, np.array([5, 0, 1, 0], np.int32), 1)
    with pytest.raises(ValueError, match="int8 values"):
        WhatTheShellView.of(view.board.astype(float), view.eggs, view.meta, 1)
    with pytest.raises(ValueError, match="player must be"):
        WhatTheShellView.of(view.board, view.eggs, view.meta, True)


def test_agent_input_fuzz_never_crashes_the_process():
    """Random corruptions of observations, views and masks: refused or a legal answer."""
    out = run_python(
        """
        import gymnasium as gym, numpy as np, shell_envs
        from shell_envs import what_the_shell_v0
        from shell_envs.agents import make_agent
        from shell_envs.agents.scorpion import ScorpionView
        from shell_envs.agents.what_the_shell import WhatTheShellView
        rng = np.random.default_rng(0)
        counts = [0, 0]
        la = make_agent("scorpion", "lookahead", seed=0, samples=1, depth=5)
        gr = make_agent("scorpion", "greedy", seed=0)
        for trial in range(150):
            env = gym.make("shell_envs/Scorpion-v0", obs_encoder=["tableau", "cards"][trial % 2])
            obs, info = env.reset(seed=trial)
            mask = info["action_mask"].copy()
            obs = obs.copy()
            corrupt = trial % 4 != 0  # every fourth input is left valid: it must be answered
            for _ in range(int(rng.integers(1, 4)) if corrupt else 0):
                if rng.integers(2):
                    obs[int(rng.integers(obs.size))] = int(rng.integers(-3, 60))
                else:
                    mask[int(rng.integers(mask.size))] = True
            for agent in (la, gr):
                try:
                    a = agent.act(obs, mask)
                    assert mask[a], a
                    counts[1] += 1
                except ValueError:
                    assert corrupt
                    counts[0] += 1
        g = make_agent("what_the_shell", "greedy", seed=0)
        m = make_agent("what_the_shell", "mcts", seed=0, iterations=10)
        for trial in range(150):
            env = what_the_shell_v0.parallel_env()
            env.reset()
            for _ in range(int(rng.integers(0, 8))):
                mask = env.action_mask()
                legal = np.flatnonzero(mask)
                env.step({"black": int(rng.choice(legal)), "white": int(rng.choice(legal))})
                if not env.agents:
                    env.reset()
            board, eggs, meta = env.board.copy(), env.eggs.copy(), env.meta.copy()
            corrupt = trial % 4 != 0
            array = (board, eggs, meta)[int(rng.integers(3))]
            if corrupt:
                array[int(rng.integers(array.size))] = int(rng.integers(-5, 90))
            mask = env.action_mask().copy()
            if corrupt and rng.integers(3) == 0:
                mask[int(rng.integers(81))] = 1
            view = WhatTheShellView(board, eggs, meta, 1)
            for agent in (g, m):
                try:
                    a = agent.act_with_state(view, mask)
                    assert mask[a], a
                    counts[1] += 1
                except ValueError:
                    assert corrupt
                    counts[0] += 1
        print(*counts)
        """
    )
    refused, answered = map(int, out.split())
    assert refused > 200 and answered > 150
