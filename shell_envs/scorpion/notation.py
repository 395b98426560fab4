"""Scorpion moves as people write them: ``"4H 7"``, ``"d"``, ``"u"``, read and described.

The notation is the solver's (see [`action_text`][shell_envs.scorpion.messages.action_text]):
a card and a column, ``"4H 7"`` moving 4H and every card above it onto column 7; ``"d"``
deals the reserve and ``"u"`` undoes the last move.  [`parse_move`][] also reads the arrows
people write (``"4H→7"``, ``"4h -> 7"``) and the suit symbols (``"4♥ 7"``);
[`describe_action`][] says a move in words for messages (``"4H onto column 7"``).  Actions
are built with the codec of ``shell_envs.scorpion.actions``.
"""

from __future__ import annotations

import re

from shell_envs.scorpion.actions import (
    N_COLUMNS,
    RESERVE_ACTION,
    UNDO_ACTION,
    encode_move,
)
from shell_envs.scorpion.cards import parse_card
from shell_envs.scorpion.messages import action_text

__all__ = [
    "DEAL_WORDS",
    "MOVE_PATTERN",
    "UNDO_WORDS",
    "NotAMove",
    "action_text",
    "describe_action",
    "parse_move",
]

# the solver's notation ("4H 7") and the arrows people also write ("4H→7", "4H -> 7")
MOVE_PATTERN = re.compile(
    r"^(10|[2-9tjqka])\s*([shdc♠♥♦♣])\s*(?:->|→|>|,|to|on)?\s*(\d+)$", re.IGNORECASE
)
DEAL_WORDS = ("d", "deal", "deal reserve")  # any case: the reserve deal
UNDO_WORDS = ("u",)  # any case: undo


class NotAMove(ValueError):
    """Text that reads as no Scorpion move; the message says why in one sentence."""


def parse_move(text: str, *, help_note: str = "") -> int:
    """The action written as ``text``: ``"4H 7"`` (or ``"4H→7"``), ``"d"`` or ``"u"``.

    Raises [`NotAMove`][] for anything else: text that reads as no move (its message ends
    with ``help_note``, e.g. ``" (? = help)"``) or a column other than 1–7.  A column number
    is never converted to an integer beyond three digits, so a 5,000-digit one costs nothing.
    """
    word = text.strip().lower()
    if word in DEAL_WORDS:
        return RESERVE_ACTION
    if word in UNDO_WORDS:
        return UNDO_ACTION
    match = MOVE_PATTERN.match(text.strip())
    if match is None:
        raise NotAMove(
            f"Could not read {text!r}: type a card and a column, like '4H 7'{help_note}."
        )
    card = parse_card(match.group(1) + match.group(2))
    digits = match.group(3)
    column = int(digits) if len(digits) <= 3 else None  # never int() a 5,000-digit number
    if column is None or not 1 <= column <= N_COLUMNS:
        shown = digits if len(digits) <= 12 else f"{digits[:6]}… ({len(digits)} digits)"
        raise NotAMove(f"There is no column {shown}: columns are numbered 1 to {N_COLUMNS}.")
    return encode_move(card, column - 1)


def describe_action(action: int) -> str:
    """A card move or the deal in words: ``"4H onto column 7"`` or ``"the reserve dealt"``.

    The words for messages ("Played: 4H onto column 7"); it reads the move from
    [`action_text`][shell_envs.scorpion.messages.action_text], the one writer of moves.
    """
    if action == RESERVE_ACTION:
        return "the reserve dealt"
    card, column = action_text(action).split(" ")
    return f"{card} onto column {column}"
