"""The exact Scorpion solver: wins replay in the env, losses are proofs, budgets are exact."""

from __future__ import annotations

import gymnasium as gym
import pytest

import shell_envs  # noqa: F401  (registers the env)
from shell_envs.scorpion.cards import card_code
from shell_envs.scorpion.solver import LOST, UNKNOWN, WON, action_text, solve, solve_command
from shell_envs.scorpion.state import deck_of

WON_SEEDS = {"classic": (0, 14, 16), "relaxed": (3, 9, 10)}


def replay(rules: str, moves: list[int], **reset: object) -> bool:
    """Play ``moves`` in a fresh env; True when every move is legal and the game ends won."""
    env = gym.make("shell_envs/Scorpion-v0", rules=rules, max_moves=None)
    env.reset(**reset)
    info: dict = {}
    for action in moves:
        _, _, _, _, info = env.step(action)
        if info["illegal"]:
            return False
    return bool(info.get("won"))


def dead_deal() -> list[str]:
    """A deal with no move before or after the reserve deal: aces and threes on top, twos
    and sixes face down, the reserve 3C 7S 7H (their predecessors are all hidden)."""
    down = ["2S", "2H", "2D", "2C", "6S", "6H", "6D", "6C"]
    tops = ["3S", "3H", "3D", "AS", "AH", "AD", "AC"]
    reserve = ["3C", "7S", "7H"]
    used = set(down + tops + reserve)
    filler = [card_code(i) for i in range(52) if card_code(i) not in used]
    down += filler[:4]
    filler = filler[4:]
    deal: list[str] = []
    for col in range(7):
        if col < 4:
            deal += down[col * 3 : col * 3 + 3]
        n_up = 3 if col < 4 else 6
        deal += filler[:n_up] + [tops[col]]
        filler = filler[n_up:]
    return deal + reserve


@pytest.mark.parametrize("rules", ["classic", "relaxed"])
def test_solutions_replay_to_wins(rules: str) -> None:
    for seed in WON_SEEDS[rules]:
        result = solve(seed, rules=rules, max_nodes=300_000)
        assert result.verdict == WON, seed
        assert result.readable == [action_text(a) for a in result.moves]
        assert replay(rules, result.moves, seed=seed), seed


def test_explicit_deal_solution_replays() -> None:
    codes = [card_code(int(c)) for c in deck_of(0)]
    result = solve(codes, rules="classic")
    assert result.verdict == WON
    assert replay("classic", result.moves, options={"deal": codes})


@pytest.mark.parametrize("rules", ["classic", "relaxed"])
def test_constructed_deal_is_proven_lost(rules: str) -> None:
    result = solve(dead_deal(), rules=rules, max_nodes=1000)
    assert result.verdict == LOST
    assert result.moves == []


def test_real_deal_proven_lost_after_search() -> None:
    result = solve(15, rules="classic", max_nodes=100_000)
    assert result.verdict == LOST
    assert result.nodes > 10


def test_verdict_is_deterministic_for_a_node_budget() -> None:
    first = solve(19, rules="classic", max_nodes=20_000)
    second = solve(19, rules="classic", max_nodes=20_000)
    assert first.verdict == second.verdict == UNKNOWN
    assert first.nodes == second.nodes == 20_000
    again = [solve(3, rules="relaxed", max_nodes=50_000) for _ in range(2)]
    assert again[0].verdict == again[1].verdict == WON
    assert again[0].moves == again[1].moves and again[0].nodes == again[1].nodes


def test_time_budget_stops_the_search() -> None:
    result = solve(19, rules="classic", max_nodes=10**7, max_seconds=0.0)
    assert result.verdict == UNKNOWN


def test_solve_command_text(tmp_path) -> None:
    text = solve_command(0, None, "classic", 100_000, None)
    assert text.splitlines()[0] == "Scorpion (classic), deal 0: won"
    assert "solution (" in text and "→" in text
    deal_file = tmp_path / "deal.txt"
    deal_file.write_text(", ".join(dead_deal()), encoding="utf-8")
    text = solve_command(None, str(deal_file), "relaxed", 1000, None)
    assert ": lost" in text.splitlines()[0]


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="rules"):
        solve(0, rules="wasp")
    with pytest.raises(ValueError, match="max_nodes"):
        solve(0, max_nodes=0)
    with pytest.raises(ValueError, match="52 cards"):
        solve(["AS", "2S"])
    with pytest.raises(ValueError, match="exactly one"):
        solve_command(None, None, "classic", 10, None)
