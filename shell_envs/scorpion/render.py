"""Pictures of a Scorpion position: a text layout (``ansi``) and an image (``rgb_array``)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from shell_envs.core.render import font
from shell_envs.scorpion.cards import RED_SUITS, SUITS, card_code, card_label
from shell_envs.scorpion.state import ScorpionState

CARD_W, CARD_H = 64, 88
GAP = 12
MARGIN = 16
WIDTH = MARGIN * 2 + 7 * CARD_W + 6 * GAP
HEIGHT = 760
TABLE_Y = 152
STEP_UP, STEP_DOWN = 26, 12

_FELT = (22, 96, 58)
_RED = (200, 30, 40)
_BLACK = (20, 20, 20)
_BACK = (40, 70, 160)


def render_ansi(state: ScorpionState) -> str:
    """Columns side by side, bottom card first, as a solitaire layout reads; ``##`` face down.

    Cards are written as their codes (``4H``, ``TD``; suits S H D C), as the rules' messages,
    positions and moves write them, so a card seen here is typed as it is shown.
    """
    reserve = "## ## ##" if not state.reserve_dealt else "dealt"
    if state.traditional:
        done, slots = f"runs {state.runs}/4", "none (runs stay in the tableau)"
    else:
        done = f"removed {state.removed}/4"
        slots = " ".join(f"[{SUITS[s]}]" for s in state.slots) + " [ ]" * (4 - state.removed)
    lines = [
        f"Scorpion ({state.rules.title()})  score {state.score}  moves {state.moves}  {done}",
        f"reserve: {reserve}   slots: {slots.strip()}",
        "  ".join(f" {c + 1} " for c in range(7)),
    ]
    columns = [state.column(c) for c in range(7)]
    depth = max(max(len(col) for col in columns), 1)
    for d in range(depth):
        cells = []
        for c, col in enumerate(columns):
            if d >= len(col):
                cells.append(" .  " if d == 0 else "    ")
            elif d < state.fd[c]:
                cells.append(" ## ")
            else:
                cells.append(f"{card_code(col[d]):>3} ")
        lines.append(" ".join(cells).rstrip())
    if state.won:
        lines.append("Won!")
    return "\n".join(lines) + "\n"


def _pip(draw: ImageDraw.ImageDraw, suit: int, cx: float, cy: float, size: float) -> None:
    """Draw a suit symbol centred at (cx, cy) from shapes, so no font needs the glyphs."""
    colour = _RED if suit in RED_SUITS else _BLACK
    r = size / 2
    if suit == 2:  # diamond
        draw.polygon([(cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)], colour)
        return
    if suit == 3:  # club
        q = r * 0.45
        for dx, dy in ((0, -r * 0.45), (-r * 0.5, r * 0.1), (r * 0.5, r * 0.1)):
            draw.ellipse([cx + dx - q, cy + dy - q, cx + dx + q, cy + dy + q], colour)
        draw.polygon([(cx, cy), (cx - r * 0.35, cy + r), (cx + r * 0.35, cy + r)], colour)
        return
    q = r * 0.52
    sign = 1 if suit == 1 else -1  # heart points down, spade up
    y0 = cy - sign * r * 0.35
    for dx in (-r * 0.48, r * 0.48):
        draw.ellipse([cx + dx - q, y0 - q, cx + dx + q, y0 + q], colour)
    draw.polygon(
        [(cx - r, y0 + sign * r * 0.12), (cx + r, y0 + sign * r * 0.12), (cx, cy + sign * r)],
        colour,
    )
    if suit == 0:
        draw.polygon([(cx, cy), (cx - r * 0.35, cy + r), (cx + r * 0.35, cy + r)], colour)


def _card(draw: ImageDraw.ImageDraw, x: int, y: int, card: int) -> None:
    """A face-up card: rank and suit in the top-left corner (visible when overlapped), big pip."""
    suit = card // 13
    colour = _RED if suit in RED_SUITS else _BLACK
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], 6, (250, 250, 245), (90, 90, 90))
    rank = card_label(card)[:-1]
    draw.text((x + 5, y + 3), rank, colour, font(19))
    _pip(draw, suit, x + CARD_W - 14, y + 13, 16)
    _pip(draw, suit, x + CARD_W / 2, y + CARD_H / 2 + 12, 30)


def _back(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    """A face-down card."""
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], 6, _BACK, (230, 230, 230))
    draw.rounded_rectangle([x + 5, y + 5, x + CARD_W - 5, y + CARD_H - 5], 4, None, (150, 170, 230))


def _place(draw: ImageDraw.ImageDraw, x: int, y: int, label: str) -> None:
    """An empty place (column, slot or reserve)."""
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], 6, None, (120, 170, 130), 2)
    draw.text((x + CARD_W / 2, y + CARD_H / 2), label, (150, 200, 160), font(12), anchor="mm")


def render_rgb(state: ScorpionState) -> np.ndarray:
    """The position as a (760, 552, 3) uint8 image: header, reserve, slots and the 7 columns."""
    image = Image.new("RGB", (WIDTH, HEIGHT), _FELT)
    draw = ImageDraw.Draw(image)
    status = "  WON" if state.won else ""
    header = f"Scorpion ({state.rules.title()})   score {state.score}   moves {state.moves}{status}"
    draw.text((MARGIN, 10), header, (255, 255, 255), font(18))
    top = 40
    if state.reserve_dealt:
        _place(draw, MARGIN, top, "reserve")
    else:
        for i in range(3):
            _back(draw, MARGIN + i * 10, top)
    for s in range(4):
        x = MARGIN + (3 + s) * (CARD_W + GAP)
        if s < state.removed:
            _card(draw, x, top, state.slots[s] * 13)
        else:
            _place(draw, x, top, "slot")
    for c in range(7):
        x = MARGIN + c * (CARD_W + GAP)
        draw.text(
            (x + CARD_W / 2, TABLE_Y - 10), str(c + 1), (220, 235, 220), font(14), anchor="mm"
        )
        col = state.column(c)
        if not col:
            _place(draw, x, TABLE_Y, "empty")
            continue
        down = int(state.fd[c])
        up = len(col) - down
        room = HEIGHT - MARGIN - CARD_H - TABLE_Y
        step_up = STEP_UP if up <= 1 else min(STEP_UP, (room - down * STEP_DOWN) / (up - 1))
        y = float(TABLE_Y)
        for d, card in enumerate(col):
            if d < down:
                _back(draw, x, round(y))
                y += STEP_DOWN
            else:
                _card(draw, x, round(y), card)
                y += step_up
    return np.asarray(image, dtype=np.uint8)
