"""What the Shell's action encoding, its one home: every module encodes and decodes through here.

An action is a cell index ``cell_at(row, column) = 9 * row + column`` (rows and columns
0–8; ``a1`` = 0, ``i1`` = 8, ``a2`` = 9, ``i9`` = 80).  The codec is compiled and inlined, so
rule functions and GPU kernels call it for free; Python code calls the same functions.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np

from shell_envs.core.jit import jit_inline

SIZE = 9
CELLS = SIZE * SIZE  # the actions 0–80

COLUMNS = "abcdefghi"  # a cell's name is its column letter and its row number: "e5"

__all__ = [
    "CELLS",
    "COLUMNS",
    "SIZE",
    "cell_at",
    "cell_at_plain",
    "cell_name",
    "row_col",
    "row_col_plain",
]

# the codec works on one index or elementwise on arrays of them
Index = TypeVar("Index", int, np.ndarray)


@jit_inline
def cell_at(row: Index, col: Index) -> Index:
    """The cell index (action) of ``row`` and ``col`` (both 0–8)."""
    return row * SIZE + col


@jit_inline
def row_col(cell: Index) -> tuple[Index, Index]:
    """``(row, col)`` of a cell index (``0 <= cell < CELLS``)."""
    return cell // SIZE, cell % SIZE


# The same pair as plain Python, for tables built at import: calling the compiled pair from
# Python compiles it first, which import time should not pay.
cell_at_plain = getattr(cell_at, "py_func", cell_at)
row_col_plain = getattr(row_col, "py_func", row_col)


def cell_name(index: int | np.integer) -> str:
    """``0`` → ``"a1"``, ``40`` → ``"e5"``, ``80`` → ``"i9"``: the name players use for a cell
    (the refusals' words, positions and the command line all name cells this way)."""
    row, col = row_col_plain(int(index))
    return f"{COLUMNS[col]}{row + 1}"
