"""The ``shell-envs`` command line driven through piped input, bad input included."""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import pytest
from click.testing import CliRunner

import shell_envs  # noqa: F401  (registers the environments)
from shell_envs.cli import SCORPION_HELP, SOLVER_MAX_NODES, WTS_HELP, main
from shell_envs.cli.play import read_move
from shell_envs.scorpion import solver
from shell_envs.scorpion.cards import card_code, parse_card
from shell_envs.scorpion.messages import MESSAGES, action_text, hungarian_article, message
from shell_envs.scorpion.rules import (
    E_NOTHING_TO_UNDO,
    E_RESERVE_DEALT,
    E_SAME_COLUMN,
    E_SAME_SUIT,
    E_WRONG_RANK,
)


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
    assert "''" not in output  # the empty line was asked again, not called a cell name
    assert output.count(WTS_HELP) == 1  # the help line only with the first board


def test_what_the_shell_two_people_play_a_whole_game() -> None:
    black = ["a1", "a2", "a3", "a4", "a5"]
    white = ["i1", "i3", "i5", "i7", "i9"]
    moves = "".join(f"{b}\n{w}\n" for b, w in zip(black, white, strict=True))
    output = run(["play", "what-the-shell", "--opponent", "human"], moves)
    assert "black (X), your cell:" in output and "white (O), your cell:" in output
    assert "Black wins!  Winning line: a1 a2 a3 a4 a5." in output


def test_what_the_shell_names_the_cells_a_capture_changed() -> None:
    # row 5: black a5, white b5 and c5, then black d5 encloses the two white turtles
    moves = "a5\nb5\ni9\nc5\nd5\ni1\nq\n"
    output = run(["play", "what-the-shell", "--opponent", "human"], moves)
    assert (
        "Round 3: black (X) played d5, white (O) played i1.  Black captured 1 enclosure" in output
    )
    assert "of two; white turtles removed: b5 c5." in output


def test_what_the_shell_as_white_against_greedy_ends_at_end_of_input() -> None:
    output = run(["play", "what-the-shell", "--seat", "white"], "e5\n")
    assert "white (O), your cell:" in output
    assert "Round 1: greedy (black) played" in output
    assert output.rstrip().endswith("Game abandoned.")


def test_scorpion_refuses_bad_and_illegal_moves_with_the_rules_messages() -> None:
    moves = "zz 9\n4H 9\nhello\nu\nd\nd\nh\nu\nq\n"
    output = run(["play", "scorpion", "--seed", "1"], moves)
    assert "Deal #1 · Scorpion (Classic)  score 0" in output
    assert output.count("score ") == output.count("Your move: ")  # one score line a board
    assert output.count(SCORPION_HELP) == 1  # the help only on the first board
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
    assert "Deal #1 · Scorpion (Relaxed)" in output
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


def test_scorpion_under_the_traditional_rules_builds_by_suit_and_counts_runs() -> None:
    move = same_suit_violation(1)
    output = run(["play", "scorpion", "--seed", "1", "--rules", "traditional"], f"{move}\n")
    assert "Deal #1 · Scorpion (Traditional)" in output
    assert f"Refused: {MESSAGES['en'][E_SAME_SUIT]}." in output
    assert "runs 0/4" in output and "slots: none" in output


def test_scorpion_undo_reports_the_points_it_takes_back() -> None:
    env = gym.make("shell_envs/Scorpion-v0")
    env.reset(seed=1)
    earning = next(a for a in range(364) if env.unwrapped.explain(a) is None and _earns(a))
    output = run(["play", "scorpion", "--seed", "1"], f"{action_text(earning)}\nu\nq\n")
    assert "+5 points." in output
    assert "Undone (-5 points)." in output and output.rstrip().endswith("Score 0.")


def _earns(action: int) -> bool:
    """Whether ``action`` (legal on deal 1) scores points."""
    env = gym.make("shell_envs/Scorpion-v0")
    env.reset(seed=1)
    return env.step(action)[1] > 0


@pytest.mark.parametrize(
    ("number", "article"),
    [(1, "az"), (2, "a"), (3, "a"), (4, "a"), (5, "az"), (6, "a"), (7, "a"), (10, "a")]
    + [(11, "a"), (50, "az"), (100, "a"), (1000, "az"), (10_000, "a"), (1_000_000, "az")],
)
def test_hungarian_article_before_numbers(number: int, article: str) -> None:
    assert hungarian_article(number) == article


def test_hungarian_messages_say_az_before_columns_1_and_5() -> None:
    four, five = parse_card("4H"), parse_card("5H")
    assert "már az 1. oszlopban" in message(E_SAME_COLUMN, "hu", card=four, column=1)
    assert "már az 5. oszlopban" in message(E_SAME_COLUMN, "hu", card=four, column=5)
    assert "már a 2. oszlopban" in message(E_SAME_COLUMN, "hu", card=four, column=2)
    text = message(E_WRONG_RANK, "hu", card=four, column=5, top=five)
    assert "mint az 5. oszlop" in text


def test_play_reads_the_solver_notation_and_the_arrow_alike() -> None:
    assert read_move("4H 7") == read_move("4H→7") == read_move("4h -> 7")
    assert action_text(read_move("4H→7")[0]) == "4H 7"


def test_a_solution_from_solve_plays_to_a_win_in_play() -> None:
    output = run(["solve", "--seed", "14"])
    moves = [
        line.split(". ", 1)[1] for line in output.splitlines() if line[:5].strip().endswith(".")
    ]
    assert moves and all("→" not in m for m in moves)
    output = run(["play", "scorpion", "--seed", "14"], "\n".join(moves) + "\n")
    assert "You won!" in output and "Refused" not in output


def test_solve_shows_its_default_budget_and_every_option_has_help() -> None:
    assert SOLVER_MAX_NODES == solver.DEFAULT_MAX_NODES
    assert "[default: 2000000;" in run(["solve", "--help"])
    for command in (["solve"], ["speed"], ["play", "scorpion"], ["play", "what-the-shell"]):
        context = main.make_context("shell-envs", [*command, "--help"], resilient_parsing=True)
        group = main
        for name in command:
            group = group.get_command(context, name)
        for param in group.params:
            assert param.help, f"{' '.join(command)} {param.name} has no help text"


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
