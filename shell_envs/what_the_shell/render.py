"""Text and image renderings of a What the Shell board.

Both renderers take a [`GameState`][shell_envs.what_the_shell.state.GameState]
(``render_ansi(state)``); the older form with the three arrays by position
(``render_ansi(board, eggs, meta)``) still works.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from shell_envs.core.render import font
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.actions import cell_at_plain as cell_at
from shell_envs.what_the_shell.actions import row_col_plain as row_col
from shell_envs.what_the_shell.position import COLUMNS, cell_name
from shell_envs.what_the_shell.state import GameState

SYMBOLS = {rules.EMPTY: ".", rules.BLACK: "X", rules.WHITE: "O"}


def _egg_ages(eggs: np.ndarray, meta: np.ndarray) -> dict[int, int]:
    """Cell → age rank (1 = oldest egg)."""
    return {int(cell): i + 1 for i, cell in enumerate(eggs[: meta[rules.N_EGGS]])}


def _state(
    state: GameState | np.ndarray, eggs: np.ndarray | None, meta: np.ndarray | None
) -> GameState:
    """The state a renderer was given: a `GameState`, or the three arrays by position (else a
    ``ValueError``)."""
    if eggs is None and meta is None:
        return GameState(*state)
    if isinstance(state, GameState) or eggs is None or meta is None:
        raise ValueError("a renderer takes a GameState, or the three arrays board, eggs and meta")
    return GameState(state, eggs, meta)


def render_ansi(
    state: GameState | np.ndarray, eggs: np.ndarray | None = None, meta: np.ndarray | None = None
) -> str:
    """The board as text: ``X`` black, ``O`` white, eggs by age (``1`` oldest, ``*`` past 9)."""
    board, eggs, meta = _state(state, eggs, meta)
    ages = _egg_ages(eggs, meta)
    lines = ["   " + " ".join(COLUMNS)]
    for row in range(rules.SIZE):
        cells = []
        for col in range(rules.SIZE):
            index = cell_at(row, col)
            if index in ages:
                cells.append(str(ages[index]) if ages[index] <= 9 else "*")
            else:
                cells.append(SYMBOLS[int(board[index])])
        lines.append(f"{row + 1:>2} " + " ".join(cells))
    queue = " ".join(cell_name(c) for c in eggs[: meta[rules.N_EGGS]]) or "none"
    lines.append(f"round {int(meta[rules.ROUNDS])}   eggs oldest first: {queue}")
    if meta[rules.SUDDEN_DEATH]:
        lines.append("SUDDEN DEATH: equal winning-turtle counts, the next difference decides")
    outcome = int(meta[rules.OUTCOME])
    if outcome != rules.ONGOING:
        lines.append({1: "black wins", 2: "white wins", 3: "draw"}[outcome])
    return "\n".join(lines) + "\n"


CELL = 56
MARGIN = 36
BOARD_COLOUR = (84, 150, 112)
GRID_COLOUR = (40, 84, 60)
EGG_COLOUR = (244, 232, 196)


def render_rgb(
    state: GameState | np.ndarray, eggs: np.ndarray | None = None, meta: np.ndarray | None = None
) -> np.ndarray:
    """An ``(H, W, 3)`` uint8 image: grid with coordinates, turtles as stones, eggs numbered."""
    board, eggs, meta = _state(state, eggs, meta)
    side = MARGIN + rules.SIZE * CELL + 8
    height = side + 34
    image = Image.new("RGB", (side, height), (232, 228, 218))
    draw = ImageDraw.Draw(image)
    label = font(18)
    small = font(16)
    draw.rectangle(
        [MARGIN, MARGIN, MARGIN + rules.SIZE * CELL, MARGIN + rules.SIZE * CELL], fill=BOARD_COLOUR
    )
    for i in range(rules.SIZE + 1):
        p = MARGIN + i * CELL
        draw.line([(MARGIN, p), (MARGIN + rules.SIZE * CELL, p)], fill=GRID_COLOUR, width=2)
        draw.line([(p, MARGIN), (p, MARGIN + rules.SIZE * CELL)], fill=GRID_COLOUR, width=2)
    for i in range(rules.SIZE):
        centre = MARGIN + i * CELL + CELL // 2
        draw.text((centre, MARGIN // 2), COLUMNS[i], fill=(30, 30, 30), font=label, anchor="mm")
        draw.text((MARGIN // 2, centre), str(i + 1), fill=(30, 30, 30), font=label, anchor="mm")
    ages = _egg_ages(eggs, meta)
    for index in range(rules.CELLS):
        value = int(board[index])
        if value == rules.EMPTY:
            continue
        row, col = row_col(index)
        x = MARGIN + col * CELL + CELL // 2
        y = MARGIN + row * CELL + CELL // 2
        r = CELL // 2 - 6
        if value == rules.EGG:
            draw.ellipse(
                [x - r + 6, y - r, x + r - 6, y + r], fill=EGG_COLOUR, outline=(120, 100, 60)
            )
            draw.text((x, y), str(ages[index]), fill=(90, 60, 20), font=small, anchor="mm")
        else:
            fill = (20, 20, 20) if value == rules.BLACK else (250, 250, 250)
            draw.ellipse([x - r, y - r, x + r, y + r], fill=fill, outline=(0, 0, 0), width=2)
    status = f"round {int(meta[rules.ROUNDS])}"
    outcome = int(meta[rules.OUTCOME])
    if outcome != rules.ONGOING:
        status += "   " + {1: "black wins", 2: "white wins", 3: "draw"}[outcome]
    elif meta[rules.SUDDEN_DEATH]:
        status += "   SUDDEN DEATH"
    draw.text((MARGIN, side + 6), status, fill=(30, 30, 30), font=label)
    return np.asarray(image, dtype=np.uint8)
