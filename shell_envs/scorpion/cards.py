"""Card codes of the Scorpion deck: ``"4H"`` ↔ index ``suit * 13 + rank - 1`` (suits S, H, D, C).

The index is what the rule arrays and the actions use; the two-character code is what people
read and write (deals, [`ScorpionEnv.position`][], messages).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

SUITS = "SHDC"
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = "♠♥♦♣"
RED_SUITS = frozenset((1, 2))
N_CARDS = 52

_HU_SUITS = ("pikk", "kőr", "káró", "treff")
_HU_RANKS = ("ász", "2", "3", "4", "5", "6", "7", "8", "9", "10", "bubi", "dáma", "király")
_SUIT_ALIASES = {
    **{s: i for i, s in enumerate(SUITS)},
    **{s: i for i, s in enumerate(SUIT_SYMBOLS)},
}


def suit_of(index: int) -> int:
    """Suit index 0–3 (S, H, D, C) of a card index."""
    return index // 13


def rank_of(index: int) -> int:
    """Rank 1–13 (ace … king) of a card index."""
    return index % 13 + 1


def card_code(index: int) -> str:
    """Two-character code of a card index, e.g. ``16`` → ``"4H"``."""
    if not 0 <= int(index) < N_CARDS:
        raise ValueError(f"card index must be 0–51, got {index!r}")
    return RANKS[index % 13] + SUITS[index // 13]


def card_label(index: int) -> str:
    """Human label with the suit symbol and ``10`` for ten, e.g. ``"10♥"``."""
    rank = index % 13
    return ("10" if rank == 9 else RANKS[rank]) + SUIT_SYMBOLS[index // 13]


def card_name(index: int, lang: str = "en") -> str:
    """The card as messages name it: the code in English, ``"kőr 4"`` in Hungarian."""
    if lang == "hu":
        return f"{_HU_SUITS[index // 13]} {_HU_RANKS[index % 13]}"
    return card_code(index)


def parse_card(code: object) -> int:
    """Card index of a code such as ``"4H"``, ``"th"``, ``"10H"`` or ``"4♥"``; ints 0–51 pass.

    Numpy strings and integers count as strings and ints; floats (even ``3.0``), bools and
    anything else are refused with a ``ValueError`` naming the value.
    """
    if isinstance(code, np.ndarray) and code.ndim == 0:
        code = code[()]
    if isinstance(code, (bool, np.bool_)):
        raise ValueError(f"not a card code: {code!r}")
    if isinstance(code, (int, np.integer)):
        value = int(code)
        if not 0 <= value < N_CARDS:
            raise ValueError(f"card index must be 0–51, got {value}")
        return value
    if not isinstance(code, str):
        raise ValueError(
            f"not a card code: {code!r} ({type(code).__name__}; expected a string such as '4H' "
            "or an integer card index 0–51)"
        )
    text = str(code).strip().upper()
    if len(text) == 3 and text.startswith("10"):
        text = "T" + text[2]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in _SUIT_ALIASES:
        raise ValueError(
            f"unknown card code {str(code)!r}: expected rank {'/'.join(RANKS)} then suit "
            f"{'/'.join(SUITS)}, e.g. '4H' or 'TS'"
        )
    return _SUIT_ALIASES[text[1]] * 13 + RANKS.index(text[0])


def parse_cards(codes: Iterable[object]) -> list[int]:
    """Card indices of codes in order; the error names the position of a bad code."""
    out = []
    for i, code in enumerate(codes):
        try:
            out.append(parse_card(code))
        except ValueError as exc:
            raise ValueError(f"card {i + 1}: {exc}") from None
    return out
