"""The Scorpion player view in its game package: decoding env observations, the encoders' layout
read from one home, and the old import paths giving the same objects as the new ones."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import shell_envs  # noqa: F401  (registers the env)
from shell_envs.scorpion import encoders, rules, view
from shell_envs.scorpion.encoders import CardsEncoder, TableauEncoder
from shell_envs.scorpion.state import ScorpionState
from shell_envs.scorpion.view import HIDDEN, ScorpionView

AGENTS = Path(__file__).resolve().parents[2] / "shell_envs" / "agents"


def play(encoder: str, rule: str, seed: int, moves: int):
    """The observations and states of ``moves`` random legal moves in a fresh env."""
    env = gym.make("shell_envs/Scorpion-v0", obs_encoder=encoder, rules=rule)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    yield obs, env.unwrapped.get_state()
    for _ in range(moves):
        obs, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        yield obs, env.unwrapped.get_state()
        if terminated or truncated:
            break
    env.close()


@pytest.mark.parametrize("encoder", ["tableau", "cards"])
@pytest.mark.parametrize("rule", ["classic", "relaxed", "traditional"])
def test_decoded_observation_is_the_env_state(encoder: str, rule: str) -> None:
    for obs, state in play(encoder, rule, seed=3, moves=40):
        decoded = ScorpionView.from_observation(obs, rule)
        assert np.array_equal(decoded.lens, state.lens)
        assert np.array_equal(decoded.fd, state.fd)
        for c in range(rules.N_COLUMNS):
            n, down = int(state.lens[c]), int(state.fd[c])
            assert np.all(decoded.tab[c, :down] == HIDDEN)
            assert np.array_equal(decoded.tab[c, down:n], state.tab[c, down:n])
            assert np.all(decoded.tab[c, n:] == -1)
        assert np.array_equal(decoded.reserve == HIDDEN, state.reserve >= 0)
        assert decoded.rules == state.rules and decoded.relaxed == state.relaxed
        assert int(decoded.meta[rules.M_RUNS]) == state.runs
        removed = int(state.meta[rules.M_REMOVED])
        assert int(decoded.meta[rules.M_REMOVED]) == removed
        truth = ScorpionView.from_state(state)
        for name in ("tab", "lens", "fd", "reserve", "unseen"):
            assert np.array_equal(getattr(decoded, name), getattr(truth, name)), name


def test_layout_constants_are_the_encoders_layout() -> None:
    assert view.TABLEAU_RESERVE is encoders.TABLEAU_RESERVE  # the view reads the one home
    state = ScorpionState.from_number(5)
    tableau, cards = TableauEncoder(), CardsEncoder()
    assert tableau.space.shape == (encoders.TABLEAU_REMOVED + 1,) == (TableauEncoder.size,)
    assert cards.space.shape == (encoders.CARDS_REMOVED + 1,) == (CardsEncoder.size,)
    t, k = tableau.encode(state), cards.encode(state)
    assert t[encoders.TABLEAU_RESERVE] == k[encoders.CARDS_RESERVE] == 3
    assert t[encoders.TABLEAU_REMOVED] == k[encoders.CARDS_REMOVED] == 0
    assert np.array_equal(k[encoders.CARDS_FACE_DOWN : encoders.CARDS_RESERVE], state.fd)
    top = int(state.tab[0, int(state.lens[0]) - 1])
    assert t[int(state.lens[0]) - 1] == top + 1
    assert k[top * encoders.CARD_FIELDS + encoders.CARD_FACE_UP] == 1
    assert k[top * encoders.CARD_FIELDS + encoders.CARD_LOCATION] == 0
    assert k[top * encoders.CARD_FIELDS + encoders.CARD_DEPTH] == int(state.lens[0]) - 1
    assert k[top * encoders.CARD_FIELDS + encoders.CARD_ABOVE] == 0


@pytest.mark.parametrize(
    ("index", "value", "message"),
    [
        (0, 54, "tableau entries 0–363 (0 empty, 1–52 a card, 53 down) must be 0–53; got 54"),
        (364, 2, "tableau entry 364 (cards in the reserve) must be 0 or 3; got 2"),
        (365, 5, "tableau entry 365 (sequences removed) must be 0–4; got 5"),
    ],
)
def test_tableau_decoder_messages_name_the_entries(index: int, value: int, message: str) -> None:
    obs = TableauEncoder().encode(ScorpionState.from_number(1)).astype(np.int64)
    obs[index] = value
    with pytest.raises(ValueError) as error:
        ScorpionView.from_observation(obs)
    assert str(error.value) == f"observation {message}"


@pytest.mark.parametrize(
    ("index", "value", "message"),
    [
        (0, 9, "cards locations (0–6 a column, 7 hidden, 8 removed) must be 0–8; got 9"),
        (208, 4, "cards entries 208–214 (face-down counts) must be 0–3; got 4"),
        (215, 1, "cards entry 215 (cards in the reserve) must be 0 or 3; got 1"),
        (216, 5, "cards entry 216 (sequences removed) must be 0–4; got 5"),
    ],
)
def test_cards_decoder_messages_name_the_entries(index: int, value: int, message: str) -> None:
    obs = CardsEncoder().encode(ScorpionState.from_number(1)).astype(np.int64)
    obs[index] = value
    with pytest.raises(ValueError) as error:
        ScorpionView.from_observation(obs)
    assert str(error.value) == f"observation {message}"


def test_old_import_paths_give_the_same_objects() -> None:
    old = importlib.import_module("shell_envs.agents.scorpion")
    homes = {
        "shell_envs.scorpion.view": ["HIDDEN", "ScorpionView", "check_view"],
        "shell_envs.agents.scorpion.simple": ["TIE_NOISE", "GreedyAgent", "RandomAgent"],
        "shell_envs.agents.scorpion.search": [
            "CLASSIC_SAMPLES",
            "MAX_EXACT",
            "MAX_PLAN",
            "MAX_SEARCH",
            "PIMC_DEFAULTS",
            "RELAXED_SAMPLES",
            "TIE_BREAK",
            "UNSOLVED",
            "LookaheadAgent",
            "PimcAgent",
            "turns_a_card",
        ],
        "shell_envs.agents.scorpion.learned": ["LearnedAgent"],
    }
    for module, names in homes.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(old, name) is getattr(home, name), f"{module}.{name}"
    with pytest.warns(DeprecationWarning, match="RULE_SETS"):
        assert old.RULES == rules.RULE_SETS
    assert set(old.__all__) <= set(dir(old))


def test_agent_modules_import_one_way() -> None:
    """The agents' modules never import the package that registers them (no cycle)."""
    for game in ("scorpion", "what_the_shell"):
        for path in sorted((AGENTS / game).glob("*.py")):
            if path.name == "__init__.py":
                continue
            tree = ast.parse(path.read_text())
            imported = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    imported.add(node.module)
                elif isinstance(node, ast.Import):
                    imported.update(alias.name for alias in node.names)
            assert f"shell_envs.agents.{game}" not in imported, path.name
    tree = ast.parse((AGENTS.parent / "scorpion" / "view.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert not node.module.startswith("shell_envs.agents"), node.module


def test_playable_actions_leave_undo_out_unless_alone() -> None:
    mask = np.zeros(rules.N_ACTIONS_UNDO, bool)
    mask[[3, rules.RESERVE_ACTION, rules.UNDO_ACTION]] = True
    assert view.playable_actions(mask).tolist() == [3, rules.RESERVE_ACTION]
    mask[[3, rules.RESERVE_ACTION]] = False
    assert view.playable_actions(mask).tolist() == [rules.UNDO_ACTION]
    with pytest.raises(ValueError, match="no legal action"):
        view.playable_actions(np.zeros(rules.N_ACTIONS_UNDO, bool))
