"""The ``shell-envs`` command line driven through piped input, bad input included."""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import pytest
from click.testing import CliRunner

import shell_envs  # noqa: F401  (registers the environments)
from shell_envs.cli import main
from shell_envs.scorpion.cards import card_code
from shell_envs.scorpion.messages import MESSAGES
from shell_envs.scorpion.rules import E_NOTHING_TO_UNDO, E_RESERVE_DEALT, E_SAME_SUIT


def run(args: list[str], text: str = "") -> str:
    """Invoke the CLI with ``text`` as standard input; the command must exit cleanly."""
    result = CliRunner().invoke(main, args, input=text)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 0, result.output
    return result.output


def test_help_lists_every_command() -> None:
    output = run(["--help"])
    for command in ("bench", "play", "speed", "solve"):
        assert command in output
    assert "what-the-shell" in run(["play", "--help"])


def test_what_the_shell_against_an_agent_survives_bad_input() -> None:
    moves = "zz\nj9\n\ne5\ne5\na1\nq\n"
    output = run(["play", "what-the-shell", "--opponent", "random", "--seed", "3"], moves)
    assert "unknown cell name 'zz'" in output
    assert "unknown cell name 'j9'" in output
    assert "Round 1: you (black) played e5" in output
    assert "Illegal: cell e5 (40) is occupied" in output or "Round 2" in output
    assert "Game abandoned." in output
    assert "Traceback" not in output


def test_what_the_shell_two_people_play_a_whole_game() -> None:
    black = ["a1", "a2", "a3", "a4", "a5"]
    white = ["i1", "i3", "i5", "i7", "i9"]
    moves = "".join(f"{b}\n{w}\n" for b, w in zip(black, white, strict=True))
    output = run(["play", "what-the-shell", "--opponent", "human"], moves)
    assert "black (X), your cell:" in output and "white (O), your cell:" in output
    assert "Black wins!" in output


def test_what_the_shell_as_white_against_greedy_ends_at_end_of_input() -> None:
    output = run(["play", "what-the-shell", "--seat", "white"], "e5\n")
    assert "white (O), your cell:" in output
    assert "Round 1: greedy (black) played" in output
    assert output.rstrip().endswith("Game abandoned.")


def test_scorpion_refuses_bad_and_illegal_moves_with_the_rules_messages() -> None:
    moves = "zz 9\n4H 9\nhello\nu\nd\nd\nh\nu\nq\n"
    output = run(["play", "scorpion", "--seed", "1"], moves)
    assert "Deal #1 (Classic)" in output and "score 0" in output
    assert "Could not read 'zz 9'" in output
    assert "There is no column 9" in output
    assert "Could not read 'hello'" in output
    assert MESSAGES["en"][E_NOTHING_TO_UNDO] in output
    assert "Played: the reserve dealt, +0 points." in output
    assert MESSAGES["en"][E_RESERVE_DEALT].split(":")[0] in output
    assert "Hint: " in output
    assert "Undone." in output
    assert "Game over.  Score 0." in output
    assert "Traceback" not in output


def test_scorpion_in_hungarian_with_relaxed_rules() -> None:
    output = run(["play", "scorpion", "--seed", "1", "--rules", "relaxed", "--lang", "hu"], "u\n")
    assert "Deal #1 (Relaxed)" in output
    assert MESSAGES["hu"][E_NOTHING_TO_UNDO] in output
    assert output.rstrip().endswith("Score 0.")


def same_suit_violation(deal: int) -> str:
    """A move of deal ``deal`` that Classic refuses only because the suits differ, as typed."""
    env = gym.make("shell_envs/Scorpion-v0")
    env.reset(seed=deal)
    for a in range(364):
        if env.unwrapped.explain(a) == MESSAGES["en"][E_SAME_SUIT]:
            return f"{card_code(a // 7)} {a % 7 + 1}"
    raise AssertionError(f"deal {deal} has no same-suit violation to try")


def test_scorpion_same_suit_rule_in_both_languages_and_relaxed() -> None:
    move = same_suit_violation(1)
    output = run(["play", "scorpion", "--seed", "1"], f"{move}\n")
    assert f"Refused: {MESSAGES['en'][E_SAME_SUIT]}." in output
    output = run(["play", "scorpion", "--seed", "1", "--lang", "hu"], f"{move}\n")
    assert f"Refused: {MESSAGES['hu'][E_SAME_SUIT]}." in output
    assert "Szabály: a lapoknak azonos színűnek kell lenniük" in output
    output = run(["play", "scorpion", "--seed", "1", "--rules", "relaxed"], f"{move}\n")
    assert "Played: " in output and "Refused" not in output


def test_scorpion_hint_is_a_legal_move_that_can_be_typed() -> None:
    output = run(["play", "scorpion", "--seed", "7"], "h\n")
    hint = output.split("(type '")[1].split("'")[0]
    output = run(["play", "scorpion", "--seed", "7"], f"{hint}\nq\n")
    assert "Played: " in output and "points." in output and "Refused" not in output


def test_solve_and_speed_commands() -> None:
    output = run(["solve", "--seed", "0", "--max-nodes", "2000"])
    assert "Scorpion (classic), deal 0:" in output
    result = CliRunner().invoke(main, ["solve"])
    assert result.exit_code != 0 and "--seed" in result.output
    output = run(["speed", "--game", "scorpion", "--seconds", "0.02", "--repeats", "1"])
    assert "Scorpion-v0 env" in output and "compiled random playout" in output


def test_solve_without_the_solver_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    result = CliRunner().invoke(main, ["solve", "--seed", "0"])
    assert result.exit_code == 1
    assert "solver" in result.output and "not part of this installation" in result.output
