"""Shipped winnable deals: the lists load, their stored lines win, and the env serves them."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import shell_envs  # noqa: F401  (registers the env)
from shell_envs.scorpion.solver import solve
from shell_envs.scorpion.winnable import (
    deal_verdicts,
    pick_winnable_seed,
    stored_solution,
    winnable_seeds,
)

RULES = ("classic", "relaxed", "traditional")


def play(env: gym.Env, moves: tuple[int, ...]) -> bool:
    """Play ``moves`` from the env's current game; True when all are legal and it ends won."""
    info: dict = {}
    for action in moves:
        _, _, _, _, info = env.step(action)
        if info["illegal"]:
            return False
    return bool(info.get("won"))


@pytest.mark.parametrize("rules", RULES)
def test_lists_ship_hundreds_of_distinct_seeds(rules: str) -> None:
    seeds = winnable_seeds(rules)
    assert len(seeds) >= 300
    assert len(set(seeds)) == len(seeds)
    assert all(stored_solution(rules, s) for s in seeds)


@pytest.mark.parametrize("rules", RULES)
def test_stored_solutions_replay_to_wins(rules: str) -> None:
    env = gym.make("shell_envs/Scorpion-v0", rules=rules, max_moves=None)
    seeds = winnable_seeds(rules)
    for seed in seeds[:: max(1, len(seeds) // 25)]:
        env.reset(seed=seed)
        assert play(env, stored_solution(rules, seed)), seed


@pytest.mark.parametrize("rules", RULES)
def test_verdict_files_cover_the_study_and_match_the_lists(rules: str) -> None:
    verdicts = deal_verdicts(rules)
    assert sorted(verdicts) == list(range(10_000))
    assert {v.verdict for v in verdicts.values()} == {"won", "lost"}
    won = [s for s, v in verdicts.items() if v.verdict == "won"]
    assert list(winnable_seeds(rules)) == won[: len(winnable_seeds(rules))]
    for seed in winnable_seeds(rules):
        assert len(stored_solution(rules, seed)) == verdicts[seed].line_length
    assert all(v.line_length == 0 for v in verdicts.values() if v.verdict == "lost")


@pytest.mark.parametrize("rules", RULES)
def test_shipped_verdicts_are_what_the_solver_says(rules: str) -> None:
    verdicts = deal_verdicts(rules)
    cheap = [s for s, v in verdicts.items() if v.nodes <= 5_000]
    for seed in cheap[:: max(1, len(cheap) // 40)]:
        result = solve(seed, rules=rules, max_nodes=20_000_000)
        assert (result.verdict, result.nodes) == (verdicts[seed].verdict, verdicts[seed].nodes)


def test_pick_is_reproducible_and_from_the_list() -> None:
    a = [pick_winnable_seed(np.random.default_rng(7), "relaxed") for _ in range(3)]
    assert len(set(a)) == 1 and a[0] in winnable_seeds("relaxed")
    rng = np.random.default_rng(1)
    picks = {pick_winnable_seed(rng, "classic") for _ in range(50)}
    assert picks <= set(winnable_seeds("classic")) and len(picks) > 10
    with pytest.raises(ValueError, match="rules"):
        winnable_seeds("wasp")


# The tests below need the env patch (winnable_only keyword and reset option).


@pytest.mark.parametrize("rules", RULES)
def test_env_keyword_serves_winnable_deals(rules: str) -> None:
    env = gym.make("shell_envs/Scorpion-v0", rules=rules, winnable_only=True, max_moves=None)
    _, info = env.reset(seed=11)
    deal = info["deal"]
    assert deal in winnable_seeds(rules)
    assert play(env, stored_solution(rules, deal))
    _, again = env.reset(seed=11)
    assert again["deal"] == deal
    deals = {env.reset()[1]["deal"] for _ in range(20)}
    assert deals <= set(winnable_seeds(rules)) and len(deals) > 5


def test_reset_option_serves_winnable_deals() -> None:
    env = gym.make("shell_envs/Scorpion-v0", max_moves=None)
    _, info = env.reset(seed=5, options={"winnable_only": True})
    assert info["deal"] in winnable_seeds("classic")
    assert play(env, stored_solution("classic", info["deal"]))
    _, info = env.reset(seed=5)
    assert info["deal"] == 5
    with pytest.raises(ValueError, match="winnable_only"):
        env.reset(options={"winnable_only": "yes"})


def test_explicit_deal_wins_over_winnable_only() -> None:
    env = gym.make("shell_envs/Scorpion-v0", winnable_only=True)
    _, info = env.reset(options={"deal": 1})
    assert info["deal"] == 1
