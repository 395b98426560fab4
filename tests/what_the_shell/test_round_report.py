"""What a round changed, by cell: the report ``shell-envs play what-the-shell`` prints."""

from __future__ import annotations

from shell_envs import what_the_shell_v0
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.position import cell_index, round_changes, winning_cells


def play(position: dict, black: str, white: str) -> tuple[dict, dict]:
    """One round from ``position``: the changes by cell and black's info."""
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": position})
    before = env.board.copy()
    b, w = cell_index(black), cell_index(white)
    _, _, _, _, infos = env.step({"black": b, "white": w})
    return round_changes(before, env.board, b, w), infos["black"]


def test_a_capture_names_both_pieces_and_counts_one_enclosure() -> None:
    changed, info = play({"black": ["a5"], "white": ["b5", "c5"]}, "d5", "i9")
    assert info["captures"] == 1 and info["opponent_turtles_lost"] == 2
    assert changed["white_captured"] == ["b5", "c5"]
    assert not changed["black_captured"] and not changed["eggs_removed"]


def test_a_turtle_captured_as_it_lands_is_named_too() -> None:
    changed, info = play({"black": ["a5"], "white": ["b5"]}, "d5", "c5")  # pre-emptive
    assert changed["white_captured"] == ["b5", "c5"]


def test_eggs_captured_and_hatched_by_cell() -> None:
    # black encloses b5 (white) and c5 (an egg); the capture hatches the oldest egg, a1
    position = {"black": ["a5"], "white": ["b5"], "eggs": ["a1", "c5"]}
    changed, info = play(position, "d5", "i9")
    assert changed["white_captured"] == ["b5"] and changed["eggs_removed"] == ["c5"]
    assert changed["hatched_black"] == ["a1"] and info["hatched"] == 1


def test_a_collision_changes_nothing_but_the_new_egg() -> None:
    changed, info = play({"black": ["a5"], "white": ["b5"]}, "e5", "e5")
    assert info["collision"] and not any(changed.values())


def test_the_winning_line_by_cell() -> None:
    env = what_the_shell_v0.parallel_env()
    env.reset(options={"position": {"black": ["a1", "a2", "a3", "a4"], "white": ["i1"]}})
    env.step({"black": cell_index("a5"), "white": cell_index("i2")})
    assert [cell_index(c) for c in ("a1", "a2", "a3", "a4", "a5")] == winning_cells(
        env.board, rules.BLACK
    )
    assert winning_cells(env.board, rules.WHITE) == []
