"""The PettingZoo environment: official API checks, options, infos, illegal actions, copies."""

from __future__ import annotations

import copy
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, parallel_api_test, render_test

from shell_envs import what_the_shell_v0
from shell_envs.core.errors import IllegalMove
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import ENCODERS, register_encoder
from shell_envs.what_the_shell.messages import ILLEGAL_REASONS, OUTCOMES
from shell_envs.what_the_shell.position import cell_index


def random_actions(env, rng):
    """A uniformly random legal action for each live agent."""
    legal = np.flatnonzero(env.action_mask())
    return {agent: int(rng.choice(legal)) for agent in env.agents}


def test_parallel_api_test():
    parallel_api_test(what_the_shell_v0.parallel_env(), num_cycles=300)


@pytest.mark.parametrize("encoder", ["planes", "flat"])
def test_aec_api_test(encoder):
    api_test(what_the_shell_v0.env(obs_encoder=encoder), num_cycles=300)


def test_render_test(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    render_test(lambda render_mode=None: what_the_shell_v0.env(render_mode=render_mode))


def test_metadata():
    env = what_the_shell_v0.parallel_env()
    assert env.metadata["name"] == "what_the_shell_v0"
    assert env.metadata["is_parallelizable"] is True
    assert set(env.metadata["render_modes"]) == {"ansi", "rgb_array", "human"}
    assert env.possible_agents == ["black", "white"]
    assert env.action_space("black") == spaces.Discrete(81)


def test_rgb_array_is_an_image():
    env = what_the_shell_v0.parallel_env(render_mode="rgb_array")
    env.reset(options={"position": {"black": ["e5"], "white": ["d4"], "eggs": ["a1"]}})
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.shape[0] > 400 and frame.shape[1] > 400
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10


def test_ansi_shows_coordinates_turtles_and_egg_ages():
    env = what_the_shell_v0.parallel_env(render_mode="ansi")
    env.reset(options={"position": {"black": ["a1"], "white": ["i9"], "eggs": ["e5", "b2"]}})
    text = env.render()
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefghi")
    assert lines[1].split() == ["1", "X", ".", ".", ".", ".", ".", ".", ".", "."]
    assert lines[2].split()[2] == "2"  # b2 is the second-oldest egg
    assert lines[5].split()[5] == "1"  # e5 is the oldest egg
    assert lines[9].split()[-1] == "O"
    assert "eggs oldest first: e5 b2" in text


def test_state_is_neutral():
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": {"black": ["a1"], "white": ["b1"]}})
    state = env.state()
    assert env.state_space.contains(state)
    assert state[0, 0, 0] == 1 and state[1, 0, 1] == 1


def test_observations_are_from_each_players_perspective():
    env = what_the_shell_v0.parallel_env()
    obs, _ = env.reset(options={"position": {"black": ["a1"], "white": ["b1"], "eggs": ["c1"]}})
    black, white = obs["black"]["observation"], obs["white"]["observation"]
    assert black[0, 0, 0] == 1 and black[1, 0, 1] == 1
    assert white[0, 0, 1] == 1 and white[1, 0, 0] == 1
    assert black[2, 0, 2] == white[2, 0, 2] == 1
    assert black[3, 0, 2] == 1.0  # the oldest egg
    assert obs["black"]["action_mask"].dtype == np.int8
    assert obs["black"]["action_mask"].sum() == 78


def test_flat_encoder_matches_planes():
    position = {"black": ["a1", "e5"], "white": ["b1"], "eggs": ["c1", "d1"]}
    planes = what_the_shell_v0.parallel_env(obs_encoder="planes")
    flat = what_the_shell_v0.parallel_env(obs_encoder="flat")
    p_obs, _ = planes.reset(options={"position": position})
    f_obs, _ = flat.reset(options={"position": position})
    p, f = p_obs["white"]["observation"], f_obs["white"]["observation"]
    assert f.shape == (325,)
    np.testing.assert_array_equal(f[:324], p[:4].reshape(-1))
    assert f[324] == p[4, 0, 0]


def test_custom_encoder_can_be_registered():
    class EmptyCells:
        space = spaces.Box(0, 1, (81,), np.int8)

        def encode(self, board, eggs, meta, player):
            return (board == rules.EMPTY).astype(np.int8)

    register_encoder("test_empty_cells", EmptyCells, overwrite=True)
    env = what_the_shell_v0.parallel_env(obs_encoder="test_empty_cells")
    obs, _ = env.reset()
    assert obs["black"]["observation"].sum() == 81
    assert "test_empty_cells" in ENCODERS.names()
    with pytest.raises(ValueError, match="already has an encoder"):
        register_encoder("test_empty_cells", EmptyCells)


def test_bad_constructor_arguments_are_rejected_clearly():
    with pytest.raises(ValueError, match="unknown What the Shell obs_encoder 'pixels'"):
        what_the_shell_v0.parallel_env(obs_encoder="pixels")
    with pytest.raises(
        ValueError, match="illegal_action must be one of 'lose', 'raise'; got 'ignore'"
    ):
        what_the_shell_v0.parallel_env(illegal_action="ignore")
    with pytest.raises(ValueError, match="max_rounds must be a positive integer"):
        what_the_shell_v0.parallel_env(max_rounds=0)
    with pytest.raises(ValueError, match="render_mode must be one of .*; got 'video'"):
        what_the_shell_v0.parallel_env(render_mode="video")


def test_win_rewards_and_infos():
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": {"black": ["a1", "b1", "c1", "d1"]}})
    _, rewards, terms, truncs, infos = env.step({"black": cell_index("e1"), "white": 80})
    assert rewards == {"black": 1.0, "white": -1.0}
    assert terms == {"black": True, "white": True}
    assert truncs == {"black": False, "white": False}
    assert OUTCOMES[infos["black"]["outcome"]] == "win"
    assert OUTCOMES[infos["white"]["outcome"]] == "loss"
    assert infos["black"]["winning_turtles"] == 5
    assert infos["white"]["opponent_winning_turtles"] == 5
    assert env.agents == []
    with pytest.raises(RuntimeError, match="call reset"):
        env.step({"black": 0, "white": 1})


def test_infos_say_what_happened():
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": {"black": ["a5"], "white": ["b5", "c5"], "eggs": ["h9"]}})
    _, rewards, _, _, infos = env.step({"black": cell_index("d5"), "white": cell_index("i1")})
    black = infos["black"]
    assert black["captures"] == 1 and black["hatched"] == 1
    assert infos["white"]["opponent_captures"] == 1
    assert infos["white"]["turtles_lost"] == 2
    assert black["collision"] is False and black["eggs_vanished"] == 0
    assert black["round"] == 1 and black["sudden_death"] is False
    assert rewards == {"black": 0.0, "white": 0.0}
    _, _, _, _, infos = env.step({"black": 0, "white": 0})
    assert infos["white"]["collision"] is True
    json.dumps(infos)


def test_truncation_at_max_rounds():
    env = what_the_shell_v0.parallel_env(max_rounds=3)
    env.reset()
    for cell in range(3):
        _, rewards, terms, truncs, _ = env.step({"black": cell, "white": cell})
    assert truncs == {"black": True, "white": True}
    assert terms == {"black": False, "white": False}
    assert rewards == {"black": 0.0, "white": 0.0}
    assert env.agents == []


def test_illegal_action_loses_and_leaves_the_board_unchanged():
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": {"black": ["e5"]}})
    before = env.position()
    _, rewards, terms, _, infos = env.step({"black": cell_index("e5"), "white": 3})
    assert rewards == {"black": -1.0, "white": 1.0}
    assert terms == {"black": True, "white": True}
    assert infos["black"]["illegal"] and infos["white"]["opponent_illegal"]
    assert not (infos["white"]["illegal"] or infos["black"]["opponent_illegal"])
    assert ILLEGAL_REASONS[infos["black"]["illegal_reason"]] == "occupied by a black turtle"
    assert infos["white"]["opponent_illegal_reason"] == infos["black"]["illegal_reason"]
    assert list(env.illegal_reasons) == ["black"] and "e5" in env.illegal_reasons["black"]
    assert "occupied by a black turtle" in env.illegal_reasons["black"]
    assert env.position() == before


def test_both_illegal_both_lose():
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": {"black": ["e5"]}})
    _, rewards, _, _, infos = env.step({"black": 81, "white": cell_index("e5")})
    assert rewards == {"black": -1.0, "white": -1.0}
    assert "out of range" in env.illegal_reasons["black"]
    assert ILLEGAL_REASONS[infos["black"]["illegal_reason"]] == "out of range"
    assert ILLEGAL_REASONS[infos["white"]["illegal_reason"]] == "occupied by a black turtle"
    assert OUTCOMES[infos["black"]["outcome"]] == OUTCOMES[infos["white"]["outcome"]] == "loss"


def test_illegal_action_raise_names_the_cell():
    env = what_the_shell_v0.parallel_env(illegal_action="raise")
    env.reset(options={"position": {"eggs": ["c3"]}})
    before = env.position()
    with pytest.raises(IllegalMove, match=r"white: cell c3 \(20\) is occupied by an egg"):
        env.step({"black": 0, "white": cell_index("c3")})
    assert env.position() == before
    assert env.agents == ["black", "white"]
    env.step({"black": 0, "white": 1})
    assert env.position()["black"] == ["a1"]


def test_malformed_actions_raise_value_errors():
    env = what_the_shell_v0.parallel_env()
    env.reset()
    with pytest.raises(ValueError, match="not a cell index"):
        env.step({"black": "e5", "white": 1})
    with pytest.raises(ValueError, match="one action for each"):
        env.step({"black": 0})
    assert env.agents == ["black", "white"]
    assert env.position()["black"] == []


def test_explain_says_why_an_action_is_illegal():
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": {"white": ["a1"]}})
    assert env.explain(1) is None
    assert env.explain(0) == "cell a1 (0) is occupied by a white turtle"


def test_reset_from_position_round_trips():
    env = what_the_shell_v0.parallel_env()
    position = {"black": ["e5", "a1"], "white": ["i9"], "eggs": ["c3", "b2"]}
    env.reset(options={"position": position})
    assert env.position() == {
        "black": ["a1", "e5"],
        "white": ["i9"],
        "eggs": ["c3", "b2"],
        "sudden_death": False,
    }
    env.reset(options={"position": env.position()})
    assert env.position()["eggs"] == ["c3", "b2"]


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ({"black": ["j1"]}, "unknown cell name 'j1'"),
        ({"black": ["a0"]}, "unknown cell name 'a0'"),
        ({"black": ["a1"], "eggs": ["a1"]}, "cell a1 is used twice"),
        ({"white": ["b2", "b2"]}, "cell b2 is used twice"),
        ({"black": ["a1", "b1", "c1", "d1", "e1"]}, "already decided: black has 5"),
        ({"eggs": [f"{c}{r}" for c in "abcdefghi" for r in range(1, 10)]}, "board is full"),
        ({"black": ["a1"], "sudden_death": True}, "sudden_death=True"),
        ({"blue": ["a1"]}, "unknown position keys"),
        ({"black": "a1"}, "must be a list of cell names"),
        (["a1"], "a position is a dict"),
    ],
)
def test_malformed_positions_are_rejected(position, message):
    env = what_the_shell_v0.parallel_env()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"position": position})


def test_sudden_death_position_is_accepted_and_reported():
    env = what_the_shell_v0.parallel_env()
    position = {"black": ["a1", "b1", "c1", "d1", "e1"], "white": ["a3", "b3", "c3", "d3", "e3"]}
    obs, infos = env.reset(options={"position": position})
    assert env.position()["sudden_death"] is True
    assert infos["black"]["sudden_death"] is True
    assert obs["white"]["observation"][4].min() == 1.0


def test_pickle_and_deepcopy_mid_game():
    env = what_the_shell_v0.parallel_env()
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        env.step(random_actions(env, rng))
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.position() == env.position()
        actions = random_actions(env, rng)
        a = env.__class__.step(copy.deepcopy(env), actions)
        b = clone.step(actions)
        np.testing.assert_array_equal(a[0]["black"]["observation"], b[0]["black"]["observation"])
        assert a[1:4] == b[1:4]


def test_deep_determinism_over_whole_games():
    envs = [what_the_shell_v0.parallel_env() for _ in range(2)]
    for game in range(3):
        observations = [env.reset(seed=game)[0] for env in envs]
        while envs[0].agents:
            masks = observations[0]["black"]["action_mask"]
            actions = {
                a: int(envs[0].action_space(a).sample(masks)) for a in envs[0].possible_agents
            }
            assert int(envs[1].action_space("black").sample(masks)) == actions["black"]
            assert int(envs[1].action_space("white").sample(masks)) == actions["white"]
            results = [env.step(actions) for env in envs]
            observations = [r[0] for r in results]
            for agent in ("black", "white"):
                for key in ("observation", "action_mask"):
                    np.testing.assert_array_equal(
                        observations[0][agent][key], observations[1][agent][key]
                    )
            assert results[0][1:] == results[1][1:]
        assert envs[0].position() == envs[1].position()


def test_uncompiled_rules_match_compiled():
    script = (
        "import json, numpy as np\n"
        "from shell_envs.what_the_shell import rules\n"
        "from shell_envs.what_the_shell.position import arrays_to_position\n"
        "b, e, m = rules.new_state(); info = np.zeros(rules.INFO_SIZE, np.int32)\n"
        "rng = np.random.default_rng(7)\n"
        "while m[rules.OUTCOME] == 0 and m[rules.ROUNDS] < 60:\n"
        "    legal = np.flatnonzero(b == 0)\n"
        "    x, y = rng.choice(legal), rng.choice(legal)\n"
        "    rules.step(b, e, m, x, y, info)\n"
        "print(json.dumps([arrays_to_position(b, e, m), int(m[rules.OUTCOME])]))\n"
    )
    outputs = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(json.loads(out.stdout))
    assert outputs[0] == outputs[1]


def test_huge_and_negative_actions_are_illegal_not_crashes():
    env = what_the_shell_v0.parallel_env()
    env.reset()
    _, rewards, _, _, infos = env.step({"black": 10**30, "white": -1})
    assert rewards == {"black": -1.0, "white": -1.0}
    assert "out of range" in env.illegal_reasons["black"]
    assert "out of range" in env.illegal_reasons["white"]
    assert infos["black"]["illegal_reason"] == infos["black"]["opponent_illegal_reason"] == 1
