"""Play single rounds of the compiled rules on hand-made positions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.position import arrays_to_position, cell_index, position_to_arrays


@dataclass
class Round:
    """The position after a round, what happened, and the outcome."""

    position: dict[str, Any]
    info: np.ndarray
    outcome: int

    def __getitem__(self, field: int) -> int:
        return int(self.info[field])


def play(position: dict[str, Any], black: str, white: str) -> Round:
    """Play one round from ``position`` with both players' cells, through ``rules.step``."""
    board, eggs, meta = position_to_arrays(position)
    info = np.zeros(rules.INFO_SIZE, dtype=np.int32)
    outcome = rules.step(board, eggs, meta, cell_index(black), cell_index(white), info)
    return Round(arrays_to_position(board, eggs, meta), info, int(outcome))


def same_cells(got: list[str], expected: list[str]) -> bool:
    """Compare cell lists regardless of order."""
    return sorted(got) == sorted(expected)
