"""One test per rule and per [resolved] case of What the Shell, on hand-made positions."""

from __future__ import annotations

import numpy as np
import pytest

from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.position import cell_index, cell_name, position_to_arrays
from tests.what_the_shell.helpers import play, same_cells

DIRECTIONS = {
    "north": (-1, 0),
    "south": (1, 0),
    "west": (0, -1),
    "east": (0, 1),
    "north_west": (-1, -1),
    "north_east": (-1, 1),
    "south_west": (1, -1),
    "south_east": (1, 1),
}


def at(row: int, col: int) -> str:
    """Cell name from 0-based row and column."""
    return cell_name(row * 9 + col)


# --- capture ---------------------------------------------------------------------------------


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_capture_in_each_of_8_directions(direction):
    dr, dc = DIRECTIONS[direction]
    enclosed = [at(4 + dr, 4 + dc), at(4 + 2 * dr, 4 + 2 * dc)]
    far = at(4 + 3 * dr, 4 + 3 * dc)
    result = play({"black": [far], "white": enclosed}, black="e5", white="i9")
    assert result[rules.I_CAPTURES_B] == 1
    assert result[rules.I_REMOVED_W] == 2
    assert same_cells(result.position["black"], [far, "e5"])
    assert result.position["white"] == ["i9"]


def test_exactly_two_one_enemy_captures_nothing():
    result = play({"black": ["a5"], "white": ["b5"]}, black="c5", white="i9")
    assert result[rules.I_CAPTURES_B] == 0
    assert same_cells(result.position["white"], ["b5", "i9"])


def test_exactly_two_three_enemies_capture_nothing():
    result = play({"black": ["a5"], "white": ["b5", "c5", "d5"]}, black="e5", white="i9")
    assert result[rules.I_CAPTURES_B] == 0
    assert same_cells(result.position["white"], ["b5", "c5", "d5", "i9"])


def test_capture_needs_the_far_end_to_be_own_turtle():
    result = play({"white": ["b5", "c5"], "eggs": ["a5"]}, black="d5", white="i9")
    assert result[rules.I_CAPTURES_B] == 0
    assert same_cells(result.position["white"], ["b5", "c5", "i9"])


def test_eggs_are_captured_and_leave_the_queue():
    result = play({"black": ["a5"], "eggs": ["b5", "c5", "h8"]}, black="d5", white="i9")
    assert result[rules.I_CAPTURES_B] == 1
    assert result[rules.I_REMOVED_EGGS] == 2
    # the captured eggs leave the queue first, so the claim hatches h8, the oldest left
    assert result.position["eggs"] == []
    assert same_cells(result.position["black"], ["a5", "d5", "h8"])


def test_a_turtle_and_an_egg_are_captured_together():
    result = play({"black": ["a5"], "white": ["b5"], "eggs": ["c5"]}, black="d5", white="i9")
    assert result[rules.I_CAPTURES_B] == 1
    assert result.position["eggs"] == []
    assert result.position["white"] == ["i9"]


def test_walking_into_a_trap_is_safe():
    result = play({"black": ["a5", "d5"], "white": ["b5"]}, black="i1", white="c5")
    assert result[rules.I_CAPTURES_B] == 0
    assert result[rules.I_CAPTURES_W] == 0
    assert same_cells(result.position["white"], ["b5", "c5"])


def test_hatched_turtle_between_enemies_is_safe():
    # white's a8 captures b8, c8 and c5 hatches white into [b5 X, c5, d5 O, e5 X]: the black
    # turtles are not anchors, so nothing is captured there
    position = {"black": ["b5", "e5", "b8", "c8"], "white": ["d5", "d8"], "eggs": ["c5"]}
    result = play(position, black="i1", white="a8")
    assert result[rules.I_CAPTURES_W] == 1
    assert result[rules.I_CAPTURES_B] == 0
    assert same_cells(result.position["white"], ["a8", "c5", "d5", "d8"])
    assert same_cells(result.position["black"], ["b5", "e5", "i1"])


def test_pre_emptive_capture():
    result = play({"black": ["a5"], "white": ["b5"]}, black="d5", white="c5")
    assert result[rules.I_CAPTURES_B] == 1
    assert result.position["white"] == []
    assert same_cells(result.position["black"], ["a5", "d5"])


def test_one_anchor_captures_in_several_directions():
    position = {"black": ["b5", "e2"], "white": ["c5", "d5", "e3", "e4"], "eggs": ["a9", "c9"]}
    result = play(position, black="e5", white="i1")
    assert result[rules.I_CAPTURES_B] == 2
    assert result[rules.I_HATCHED_B] == 2
    assert same_cells(result.position["white"], ["i1"])


def test_mutual_captures_where_the_captured_turtle_still_captures():
    # black's new d5 captures b5, c5 while white's new d7 captures d6 and d5 itself
    position = {"black": ["a5", "d6"], "white": ["b5", "c5", "d4"]}
    result = play(position, black="d5", white="d7")
    assert result[rules.I_CAPTURES_B] == 1
    assert result[rules.I_CAPTURES_W] == 1
    assert result.position["black"] == ["a5"]
    assert same_cells(result.position["white"], ["d4", "d7"])


def test_a_turtle_being_captured_still_serves_as_the_far_end():
    # black a5 encloses b5, c5 against d5; white's new d7 captures d5 and d6 in the same wave
    position = {"black": ["d5", "d6"], "white": ["b5", "c5", "d4"]}
    result = play(position, black="a5", white="d7")
    assert result[rules.I_CAPTURES_B] == 1
    assert result[rules.I_CAPTURES_W] == 1
    assert result.position["black"] == ["a5"]
    assert same_cells(result.position["white"], ["d4", "d7"])


# --- hatching --------------------------------------------------------------------------------


def test_capture_hatches_the_oldest_egg():
    position = {"black": ["a5"], "white": ["b5", "c5"], "eggs": ["h9", "a9"]}
    result = play(position, black="d5", white="i1")
    assert result[rules.I_HATCHED_B] == 1
    assert "h9" in result.position["black"]
    assert result.position["eggs"] == ["a9"]


def test_contested_oldest_egg_vanishes():
    position = {"black": ["a5", "d6"], "white": ["b5", "c5", "d4"], "eggs": ["a9", "c9"]}
    result = play(position, black="d5", white="d7")
    assert result[rules.I_VANISHED] == 1
    assert result[rules.I_HATCHED_B] == 0
    assert result[rules.I_HATCHED_W] == 0
    assert result.position["eggs"] == ["c9"]
    assert "a9" not in result.position["black"] + result.position["white"]


def test_leftover_claims_hatch_after_pairing():
    # black captures twice (west and north of e5), white once (h3, h4): one egg vanishes,
    # black's leftover claim hatches the next-oldest egg
    position = {
        "black": ["b5", "e2", "h3", "h4"],
        "white": ["c5", "d5", "e3", "e4", "h5"],
        "eggs": ["a9", "c9", "e9"],
    }
    result = play(position, black="e5", white="h2")
    assert result[rules.I_CAPTURES_B] == 2
    assert result[rules.I_CAPTURES_W] == 1
    assert result[rules.I_VANISHED] == 1
    assert result[rules.I_HATCHED_B] == 1
    assert "c9" in result.position["black"]
    assert result.position["eggs"] == ["e9"]


def test_claims_lost_with_no_eggs():
    # two captures, one egg: one claim hatches it, the other is lost
    position = {"black": ["b5", "e2"], "white": ["c5", "d5", "e3", "e4"], "eggs": ["a9"]}
    result = play(position, black="e5", white="i1")
    assert result[rules.I_CAPTURES_B] == 2
    assert result[rules.I_HATCHED_B] == 1
    assert result.position["eggs"] == []


def test_claims_never_carry_over_to_a_later_round():
    board, eggs, meta = position_to_arrays({"black": ["a5"], "white": ["b5", "c5"]})
    info = np.zeros(rules.INFO_SIZE, dtype=np.int32)
    rules.step(board, eggs, meta, cell_index("d5"), cell_index("i9"), info)
    assert info[rules.I_CAPTURES_B] == 1 and info[rules.I_HATCHED_B] == 0
    rules.step(board, eggs, meta, cell_index("a1"), cell_index("a1"), info)  # collision: egg
    assert info[rules.I_COLLISION] == 1
    rules.step(board, eggs, meta, cell_index("i1"), cell_index("a9"), info)
    assert board[cell_index("a1")] == rules.EGG
    assert list(eggs[: meta[rules.N_EGGS]]) == [cell_index("a1")]


def test_hatching_chain_of_several_waves():
    # wave 0: a5 captures b5, c5 against d5 and a7 hatches; wave 1: a7 captures b7, c7 against
    # d7 and f7 hatches; wave 2: f7 captures f6, f5 against f4 with no egg left (claim lost)
    position = {
        "black": ["d5", "d7", "f4"],
        "white": ["b5", "c5", "b7", "c7", "f6", "f5"],
        "eggs": ["a7", "f7"],
    }
    result = play(position, black="a5", white="i1")
    assert result[rules.I_WAVES] == 3
    assert result[rules.I_CAPTURES_B] == 3
    assert result[rules.I_HATCHED_B] == 2
    assert result.position["white"] == ["i1"]
    assert same_cells(result.position["black"], ["a5", "d5", "a7", "d7", "f7", "f4"])
    assert result.position["eggs"] == []


def test_enclosure_with_both_ends_anchors_counts_once():
    # wave 0: b2 captures twice, c7 and f7 hatch black; wave 1: [c7 X, d7 O, e7 O, f7 X] has
    # both ends as anchors and is one capture, so only a9 hatches and i9 stays an egg
    position = {
        "black": ["e2", "b5"],
        "white": ["c2", "d2", "b3", "b4", "d7", "e7"],
        "eggs": ["c7", "f7", "a9", "i9"],
    }
    result = play(position, black="b2", white="i1")
    assert result[rules.I_CAPTURES_B] == 3
    assert result[rules.I_HATCHED_B] == 3
    assert "a9" in result.position["black"]
    assert result.position["eggs"] == ["i9"]


def test_collision_lays_the_newest_egg_and_nothing_else_happens():
    position = {"black": ["a5"], "white": ["b5", "c5"], "eggs": ["h9"]}
    result = play(position, black="d5", white="d5")
    assert result[rules.I_COLLISION] == 1
    assert result[rules.I_CAPTURES_B] == 0 and result[rules.I_WAVES] == 0
    assert result.position["eggs"] == ["h9", "d5"]
    assert result.position["black"] == ["a5"]
    assert same_cells(result.position["white"], ["b5", "c5"])


# --- end of round ----------------------------------------------------------------------------


def test_win_with_five_in_a_row():
    result = play({"black": ["a1", "b1", "c1", "d1"]}, black="e1", white="i9")
    assert result.outcome == rules.BLACK_WINS
    assert result[rules.I_WIN_B] == 5


def test_diagonal_five_wins():
    result = play({"white": ["a9", "b8", "c7", "d6"]}, black="i1", white="e5")
    assert result.outcome == rules.WHITE_WINS


def test_four_in_a_row_does_not_win():
    result = play({"black": ["a1", "b1", "c1"]}, black="d1", white="i9")
    assert result.outcome == rules.ONGOING


def test_larger_winning_count_wins_when_both_complete_lines():
    position = {"black": ["a1", "b1", "c1", "d1", "f1"], "white": ["a3", "b3", "c3", "d3"]}
    result = play(position, black="e1", white="e3")
    assert result[rules.I_WIN_B] == 6 and result[rules.I_WIN_W] == 5
    assert result.outcome == rules.BLACK_WINS


def test_crossing_lines_count_each_turtle_once():
    position = {
        "black": ["a5", "b5", "c5", "d5", "e1", "e2", "e3", "e4"],
        "white": ["a9", "b9", "c9", "d9"],
    }
    result = play(position, black="e5", white="e9")
    # black: row 5 and column e share e5, 5 + 5 - 1 = 9; white: row 9, 5
    assert result[rules.I_WIN_B] == 9
    assert result[rules.I_WIN_W] == 5
    assert result.outcome == rules.BLACK_WINS


def test_joining_two_segments_counts_the_whole_line():
    # e5 joins a5..d5 and f5..g5: one line of seven
    position = {"black": ["a5", "b5", "c5", "d5", "f5", "g5"], "white": ["a9"]}
    result = play(position, black="e5", white="i1")
    assert result[rules.I_WIN_B] == 7
    assert result.outcome == rules.BLACK_WINS


def test_line_completed_by_a_hatched_turtle_counts():
    # black's d3 captures b3, c3 against a3; the egg on e5 hatches black and completes a5..e5
    position = {
        "black": ["a3", "a5", "b5", "c5", "d5"],
        "white": ["b3", "c3"],
        "eggs": ["e5"],
    }
    result = play(position, black="d3", white="i9")
    assert result[rules.I_CAPTURES_B] == 1 and result[rules.I_HATCHED_B] == 1
    assert result[rules.I_WIN_B] == 5
    assert result.outcome == rules.BLACK_WINS


SUDDEN_DEATH = {
    "black": ["a7", "b7", "c7", "d7", "e7", "c2"],
    "white": ["a3", "b3", "c3", "d3", "e3", "d8"],
    "eggs": ["c4", "d6"],
}


def test_equal_lines_enter_sudden_death():
    position = {"black": ["a1", "b1", "c1", "d1"], "white": ["a3", "b3", "c3", "d3"]}
    result = play(position, black="e1", white="e3")
    assert result.outcome == rules.ONGOING
    assert result.position["sudden_death"] is True
    assert result[rules.I_WIN_B] == result[rules.I_WIN_W] == 5


def test_sudden_death_continues_while_counts_stay_equal():
    result = play(SUDDEN_DEATH, black="i1", white="i9")
    assert result.outcome == rules.ONGOING
    assert result.position["sudden_death"] is True


def test_sudden_death_resolves_when_counts_differ():
    result = play(SUDDEN_DEATH, black="f7", white="i9")
    assert result.outcome == rules.BLACK_WINS
    assert result[rules.I_WIN_B] == 6 and result[rules.I_WIN_W] == 5


def test_sudden_death_is_left_when_both_lines_break():
    result = play(SUDDEN_DEATH, black="c5", white="d5")
    assert result[rules.I_CAPTURES_B] == 1 and result[rules.I_CAPTURES_W] == 1
    assert result.outcome == rules.ONGOING
    assert result.position["sudden_death"] is False
    assert result[rules.I_WIN_B] == result[rules.I_WIN_W] == 0


def _full_board_but(last: str, black=(), white=()) -> dict:
    """Every cell an egg except ``last`` and the given turtles."""
    taken = {last, *black, *white}
    eggs = [cell_name(i) for i in range(81) if cell_name(i) not in taken]
    return {"black": list(black), "white": list(white), "eggs": eggs}


def test_draw_on_a_full_board():
    result = play(_full_board_but("i9"), black="i9", white="i9")
    assert result.outcome == rules.DRAW


def test_draw_on_a_full_board_in_tied_sudden_death():
    position = _full_board_but(
        "i9", black=["a1", "b1", "c1", "d1", "e1"], white=["a3", "b3", "c3", "d3", "e3"]
    )
    assert position["eggs"]
    result = play(position, black="i9", white="i9")
    assert result.position["sudden_death"] is True
    assert result.outcome == rules.DRAW


def test_line_made_and_broken_within_one_round_never_counts():
    # black's e2 completes a2..e2 but white's new e4 captures e3 and e2 against e1 at once
    position = {"black": ["a2", "b2", "c2", "d2", "e3"], "white": ["e1"]}
    result = play(position, black="e2", white="e4")
    assert result[rules.I_CAPTURES_W] == 1
    assert "e2" not in result.position["black"]
    assert result[rules.I_WIN_B] == 0
    assert result.outcome == rules.ONGOING
