"""Cell names and positions: the bridge between the rules' arrays and human-readable boards.

The refusals' words are `shell_envs.what_the_shell.messages`'."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from shell_envs.core.deprecation import moved_names
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.actions import COLUMNS, cell_name
from shell_envs.what_the_shell.actions import cell_at_plain as cell_at


def winning_cells(board: np.ndarray, player: int) -> list[int]:
    """The cells of ``player``'s turtles that lie on a line of five or more of its colour."""
    return [
        cell
        for cell in range(rules.CELLS)
        if board[cell] == player and rules.on_line_of_five(board, cell)
    ]


def round_changes(
    before: np.ndarray, after: np.ndarray, black_cell: int, white_cell: int
) -> dict[str, list[str]]:
    """What a round with choices ``black_cell`` / ``white_cell`` removed and hatched, by cell.

    Compares the board before the round with the board after it: ``"black_captured"`` /
    ``"white_captured"`` are that colour's turtles removed (a turtle placed this round and
    captured the moment it landed included), ``"eggs_removed"`` the eggs that were captured
    or vanished, ``"hatched_black"`` / ``"hatched_white"`` the eggs that became turtles of that
    colour.  Cell names in index order.
    """
    changes: dict[str, list[str]] = {
        key: []
        for key in (
            "black_captured",
            "white_captured",
            "eggs_removed",
            "hatched_black",
            "hatched_white",
        )
    }
    keys = {
        (rules.BLACK, rules.EMPTY): "black_captured",
        (rules.WHITE, rules.EMPTY): "white_captured",
        (rules.EGG, rules.EMPTY): "eggs_removed",
        (rules.EGG, rules.BLACK): "hatched_black",
        (rules.EGG, rules.WHITE): "hatched_white",
    }
    was = before.copy()
    if black_cell != white_cell:  # a collision lays an egg instead: no turtle landed
        was[black_cell], was[white_cell] = rules.BLACK, rules.WHITE
    for cell in range(rules.CELLS):
        key = keys.get((int(was[cell]), int(after[cell])))
        if key is not None:
            changes[key].append(cell_name(cell))
    return changes


def cell_index(name: str) -> int:
    """``"a1"`` → ``0``, ``"e5"`` → ``40``; a clear ``ValueError`` for anything else."""
    if not isinstance(name, str):
        raise ValueError(f"cell names are strings like 'e5', got {name!r}")
    text = name.strip().lower()
    if len(text) != 2 or text[0] not in COLUMNS or text[1] not in "123456789":
        raise ValueError(
            f"unknown cell name {name!r}: a cell is a column letter a-i and a row digit 1-9, "
            "like 'a1' or 'e5'"
        )
    return cell_at(int(text[1]) - 1, COLUMNS.index(text[0]))


def position_to_arrays(
    position: Mapping[str, Any],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Build ``(board, eggs, meta)`` from ``{"black": [...], "white": [...], "eggs": [...]}``.

    Eggs are listed oldest first.  An optional ``"sudden_death"`` must agree with the board.
    Raises ``ValueError`` saying exactly what is wrong for a malformed or decided position.
    """
    if not isinstance(position, Mapping):
        raise ValueError(
            "a position is a dict with keys 'black', 'white', 'eggs' (lists of cell names) "
            f"and optionally 'sudden_death', got {type(position).__name__}"
        )
    unknown = set(position) - {"black", "white", "eggs", "sudden_death"}
    if unknown:
        raise ValueError(
            f"unknown position keys {sorted(unknown)}; accepted: 'black', 'white', 'eggs', "
            "'sudden_death'"
        )
    board, eggs, meta = rules.new_state()
    owner: dict[int, str] = {}
    for key, piece in (("black", rules.BLACK), ("white", rules.WHITE), ("eggs", rules.EGG)):
        cells = position.get(key, [])
        if isinstance(cells, str) or not isinstance(cells, Iterable):
            raise ValueError(f"position[{key!r}] must be a list of cell names, got {cells!r}")
        for name in cells:
            try:
                index = cell_index(name)
            except ValueError as exc:
                raise ValueError(f"position[{key!r}]: {exc}") from None
            if index in owner:
                raise ValueError(
                    f"cell {cell_name(index)} is used twice in the position "
                    f"(in {owner[index]!r} and {key!r})"
                )
            owner[index] = key
            if piece == rules.EGG:
                rules.lay_egg(board, eggs, meta, index)
            else:
                board[index] = piece
    info = np.zeros(rules.INFO_SIZE, dtype=np.int32)
    outcome = rules.check_end(board, meta, info)
    if outcome != rules.ONGOING:
        nb, nw = info[rules.I_WIN_B], info[rules.I_WIN_W]
        why = (
            f"black has {nb} winning turtles and white {nw}"
            if outcome != rules.DRAW
            else "the board is full with no winner (a draw)"
        )
        raise ValueError(f"the position's game is already decided: {why}")
    declared = position.get("sudden_death")
    if declared is not None and not isinstance(declared, (bool, np.bool_)):
        raise ValueError(f"position['sudden_death'] must be True or False; got {declared!r}")
    if declared is not None and bool(declared) != bool(meta[rules.SUDDEN_DEATH]):
        raise ValueError(
            f"position says sudden_death={declared!r} but the board has "
            f"{info[rules.I_WIN_B]} winning turtles each; sudden death holds exactly when both "
            "counts are equal and above zero"
        )
    return board, eggs, meta


def check_arrays(board: Any, eggs: Any, meta: Any) -> None:
    """Raise ``ValueError`` unless ``(board, eggs, meta)`` are state arrays a game can have.

    ``board`` ``int8[81]`` of 0–3, ``eggs`` ``int8[81]`` listing every egg cell of the board
    once (oldest first) then -1, ``meta`` ``int32[4]`` with the egg count, a 0/1 sudden-death
    flag, a non-negative round count and an outcome 0–3: so compiled code never reads outside
    an array.
    """
    for name, array, dtype in (("board", board, np.int8), ("eggs", eggs, np.int8),
                               ("meta", meta, np.int32)):  # fmt: skip
        size = rules.META_SIZE if name == "meta" else rules.CELLS
        if not isinstance(array, np.ndarray) or array.shape != (size,) or array.dtype != dtype:
            got = (
                f"{array.dtype.name} of shape {array.shape}"
                if isinstance(array, np.ndarray)
                else type(array).__name__
            )
            raise ValueError(f"{name} must be {np.dtype(dtype).name} of shape ({size},); got {got}")
    if board.min() < rules.EMPTY or board.max() > rules.EGG:
        bad = int(board[(board < rules.EMPTY) | (board > rules.EGG)][0])
        raise ValueError(f"board holds {bad}: cells are 0 empty, 1 black, 2 white, 3 egg")
    n_eggs, sudden, rounds, outcome = (int(x) for x in meta)
    egg_cells = np.flatnonzero(board == rules.EGG)
    if n_eggs != egg_cells.size:
        raise ValueError(f"meta egg count is {n_eggs} but the board has {egg_cells.size} eggs")
    queue = eggs[:n_eggs]
    if np.any(eggs[n_eggs:] != -1) or sorted(queue.tolist()) != egg_cells.tolist():
        raise ValueError("eggs must list every egg cell of the board once, oldest first, then -1")
    if sudden not in (0, 1) or rounds < 0 or not rules.ONGOING <= outcome <= rules.DRAW:
        raise ValueError(
            f"meta {meta.tolist()}: sudden death must be 0 or 1, rounds ≥ 0, outcome 0–3"
        )


def arrays_to_position(board: np.ndarray, eggs: np.ndarray, meta: np.ndarray) -> dict[str, Any]:
    """The position as cell names: black and white by action index, eggs oldest first."""
    return {
        "black": [cell_name(i) for i in np.flatnonzero(board == rules.BLACK)],
        "white": [cell_name(i) for i in np.flatnonzero(board == rules.WHITE)],
        "eggs": [cell_name(i) for i in eggs[: meta[rules.N_EGGS]]],
        "sudden_death": bool(meta[rules.SUDDEN_DEATH]),
    }


# names that moved to the messages, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__,
    "0.5.0",
    {
        "describe_illegal": ("shell_envs.what_the_shell.messages", "refusal"),
        "PIECE_NAMES": ("shell_envs.what_the_shell.messages", "PIECE_NAMES"),
    },
)
