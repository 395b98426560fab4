"""What the Shell's game state as one named value: the three arrays the rules work on.

A [`GameState`][] is a NamedTuple of ``board``, ``eggs`` and ``meta`` (see
`shell_envs.what_the_shell.rules`), so numba passes it through compiled functions as it is
(as pgx's ``GameState``), and ``board, eggs, meta = state`` or ``rules.step(*state, ...)``
still work where the rules take the three arrays.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.position import (
    arrays_to_position,
    check_arrays,
    position_to_arrays,
)

__all__ = ["GameState", "check_state"]


class GameState(NamedTuple):
    """One game: ``board`` ``int8[81]``, ``eggs`` ``int8[81]`` (oldest first), ``meta``
    ``int32[4]`` (egg count, sudden-death flag, rounds played, outcome)."""

    board: np.ndarray
    eggs: np.ndarray
    meta: np.ndarray

    @classmethod
    def new(cls) -> GameState:
        """The empty board before the first round."""
        return cls(*rules.new_state())

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> GameState:
        """A game set up from a [`position`][]-style dict (`position.position_to_arrays`)."""
        return cls(*position_to_arrays(position))

    def position(self) -> dict[str, Any]:
        """The position as cell names (`position.arrays_to_position`)."""
        return arrays_to_position(*self)

    def copy(self) -> GameState:
        """An independent copy (three small arrays)."""
        return GameState(self.board.copy(), self.eggs.copy(), self.meta.copy())

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first thing no game can have ([`check_state`][])."""
        check_state(self)


def check_state(state: Any) -> None:
    """Raise ``ValueError`` unless ``state`` is a [`GameState`][] whose arrays a game can have
    (type, shape and dtype first, then the contents: `position.check_arrays`)."""
    if not isinstance(state, GameState):
        raise ValueError(f"a What the Shell state must be a GameState; got {type(state).__name__}")
    check_arrays(*state)
