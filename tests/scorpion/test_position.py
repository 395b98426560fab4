"""Scorpion's state and position modules shaped as What the Shell's: the state type and its
check in ``state``, positions and the array checks in ``position``, one reading of ``meta``."""

from __future__ import annotations

import numpy as np
import pytest

from shell_envs.scorpion import rules
from shell_envs.scorpion.position import (
    arrays_to_position,
    check_arrays,
    check_layout,
    position_to_arrays,
)
from shell_envs.scorpion.state import MetaReadings, ScorpionState, check_state
from shell_envs.scorpion.view import ScorpionView

READINGS = ("rules", "relaxed", "traditional", "score", "removed", "moves", "runs", "won",
            "reserve_dealt", "slots")  # fmt: skip


def played(number: int = 5, moves: int = 12) -> ScorpionState:
    """A game a few moves in (undo history included), by always playing the first legal move."""
    state = ScorpionState.from_number(number)
    out = np.empty(rules.N_ACTIONS, np.int64)
    for _ in range(moves):
        n = rules.legal_moves(state.arrays, out)
        if n == 0:
            break
        rules.apply_action(state.arrays, int(out[0]))
    return state


def test_check_state_takes_the_state_and_check_arrays_the_arrays() -> None:
    state = played()
    check_state(state)
    state.validate()
    check_arrays(*state.arrays)
    with pytest.raises(ValueError, match="must be a ScorpionState; got tuple"):
        check_state(state.arrays)
    bad = state.copy()
    bad.lens[0] = 60
    for check in (lambda: check_state(bad), lambda: check_arrays(*bad.arrays)):
        with pytest.raises(ValueError, match=r"state.lens\[0\] \(column 1\) must be 0–52"):
            check()
    with pytest.raises(ValueError, match=r"state.lens\[0\]"):
        check_layout(*bad.arrays[:5])


def test_positions_convert_both_ways_through_the_position_module() -> None:
    state = ScorpionState.from_number(7, "relaxed")
    position = state.position()
    assert position == arrays_to_position(*state.arrays[:5])
    arrays = position_to_arrays(position, rules.RELAXED)
    assert ScorpionState(arrays) == ScorpionState.from_position(position, "relaxed")
    with pytest.raises(ValueError, match="a position must be a dict, got list"):
        position_to_arrays([], rules.CLASSIC)


def test_state_and_view_read_meta_with_one_implementation() -> None:
    state = played()
    view = ScorpionView.from_state(state)
    assert isinstance(state, MetaReadings) and isinstance(view, MetaReadings)
    for name in READINGS:
        assert getattr(type(state), name) is getattr(MetaReadings, name)
        assert getattr(view, name) == getattr(state, name), name
    assert state.moves > 0 and isinstance(state.score, int)
    with pytest.raises(AttributeError, match="read from its meta array"):
        state.score = 3  # type: ignore[misc]
