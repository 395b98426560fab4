"""A Scorpion game as a bundle of the rule arrays, with conversions to and from positions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from shell_envs.scorpion import rules
from shell_envs.scorpion.cards import N_CARDS, card_code, parse_cards

MAX_DEAL_NUMBER = 2**63 - 1


class ScorpionState:
    """The six state arrays of one game (see :mod:`shell_envs.scorpion.rules`); copies are cheap."""

    __slots__ = ("tab", "lens", "fd", "reserve", "meta", "hist")

    def __init__(self, arrays: tuple[np.ndarray, ...] | None = None) -> None:
        arrays = rules.new_arrays() if arrays is None else arrays
        self.tab, self.lens, self.fd, self.reserve, self.meta, self.hist = arrays

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """``(tab, lens, fd, reserve, meta, hist)``, the arguments of the rule functions."""
        return (self.tab, self.lens, self.fd, self.reserve, self.meta, self.hist)

    def copy(self) -> ScorpionState:
        """An independent copy (a few kilobytes)."""
        return ScorpionState(tuple(a.copy() for a in self.arrays))

    def __getstate__(self) -> tuple[np.ndarray, ...]:
        return self.arrays

    def __setstate__(self, arrays: tuple[np.ndarray, ...]) -> None:
        self.tab, self.lens, self.fd, self.reserve, self.meta, self.hist = arrays

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScorpionState):
            return NotImplemented
        return all(np.array_equal(a, b) for a, b in zip(self.arrays, other.arrays, strict=True))

    __hash__ = None  # type: ignore[assignment]

    @property
    def relaxed(self) -> bool:
        """Whether the game uses the Relaxed rule (any suit one rank higher)."""
        return bool(self.meta[rules.M_RELAXED])

    @property
    def score(self) -> int:
        """Points so far."""
        return int(self.meta[rules.M_SCORE])

    @property
    def removed(self) -> int:
        """Sequences removed to the slots (0–4)."""
        return int(self.meta[rules.M_REMOVED])

    @property
    def moves(self) -> int:
        """Moves played and not undone."""
        return int(self.meta[rules.M_MOVES])

    @property
    def won(self) -> bool:
        """All four sequences removed."""
        return int(self.meta[rules.M_REMOVED]) == 4

    @property
    def reserve_dealt(self) -> bool:
        """Whether the reserve has been dealt."""
        return bool(self.meta[rules.M_RESERVE_DEALT])

    @property
    def slots(self) -> list[int]:
        """Suit index of each removed sequence, in removal order."""
        return [int(s) for s in self.meta[rules.M_SLOTS : rules.M_SLOTS + self.removed]]

    def column(self, col: int) -> list[int]:
        """Card indices of column ``col`` (0–6), bottom → top, face-down ones included."""
        return [int(c) for c in self.tab[col, : self.lens[col]]]

    @classmethod
    def from_deal(cls, cards: Sequence[object], relaxed: bool = False) -> ScorpionState:
        """A new game from 52 card codes in deal order (columns 1–7 bottom → top, then reserve)."""
        state = cls()
        rules.deal(*state.arrays, np.asarray(check_deal(cards), np.int8), relaxed)
        return state

    @classmethod
    def from_number(cls, number: int, relaxed: bool = False) -> ScorpionState:
        """A new game from a deal number: the same deal on every machine."""
        state = cls()
        rules.deal(*state.arrays, deck_of(number), relaxed)
        return state

    @classmethod
    def from_position(cls, position: Mapping[str, Any], relaxed: bool = False) -> ScorpionState:
        """A game set up from a :meth:`position`-style dict (no undo history)."""
        return _from_position(position, relaxed)

    def position(self) -> dict[str, Any]:
        """The full position as card codes, hidden cards included."""
        return {
            "columns": [[card_code(c) for c in self.column(col)] for col in range(7)],
            "face_down": [int(x) for x in self.fd],
            "reserve": [card_code(int(c)) for c in self.reserve if c >= 0],
            "removed": self.removed,
            "score": self.score,
            "moves": self.moves,
        }


def deck_of(number: int) -> np.ndarray:
    """The 52 card indices in deal order for deal ``number`` (0 ≤ number < 2**63)."""
    if isinstance(number, bool) or not isinstance(number, (int, np.integer)):
        raise ValueError(f"a deal number must be an integer, got {number!r}")
    if not 0 <= int(number) <= MAX_DEAL_NUMBER:
        raise ValueError(f"a deal number must be 0 … 2**63-1, got {number}")
    out = np.empty(N_CARDS, np.int8)
    rules.shuffled_deck(int(number), out)
    return out


def check_deal(cards: Sequence[object]) -> list[int]:
    """Card indices of an explicit deal; ValueError names a wrong count, duplicate or bad code."""
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence | np.ndarray):
        raise ValueError(f"a deal must be a list of 52 card codes, got {type(cards).__name__}")
    if len(cards) != N_CARDS:
        raise ValueError(f"a deal must have 52 cards, got {len(cards)}")
    indices = parse_cards(cards)
    _check_unique(indices)
    return indices


def _check_unique(indices: list[int]) -> None:
    """Raise ValueError naming every card that appears twice."""
    seen: set[int] = set()
    dupes = []
    for i in indices:
        if i in seen and i not in dupes:
            dupes.append(i)
        seen.add(i)
    if dupes:
        raise ValueError("duplicate card(s): " + ", ".join(card_code(i) for i in dupes))


def _from_position(position: Mapping[str, Any], relaxed: bool) -> ScorpionState:
    """Validate a position dict and build its state."""
    if not isinstance(position, Mapping):
        raise ValueError(f"a position must be a dict, got {type(position).__name__}")
    columns = position.get("columns")
    if not isinstance(columns, Sequence) or len(columns) != 7:
        raise ValueError("position['columns'] must be 7 lists of card codes, bottom → top")
    face_down = list(position.get("face_down", [0] * 7))
    if len(face_down) != 7:
        raise ValueError("position['face_down'] must have 7 counts")
    reserve = list(position.get("reserve", []))
    if len(reserve) not in (0, 3):
        raise ValueError(f"position['reserve'] must hold 3 cards or none, got {len(reserve)}")
    cols = []
    for i, col in enumerate(columns):
        try:
            cols.append(parse_cards(col))
        except ValueError as exc:
            raise ValueError(f"column {i + 1}: {exc}") from None
    res = parse_cards(reserve)
    on_table = [c for col in cols for c in col] + res
    _check_unique(on_table)
    missing = sorted(set(range(N_CARDS)) - set(on_table))
    suits = sorted({c // 13 for c in missing})
    if len(missing) != 13 * len(suits):
        raise ValueError(
            "the cards not in the position must be whole removed suits; missing: "
            + ", ".join(card_code(c) for c in missing)
        )
    for i, (col, down) in enumerate(zip(cols, face_down, strict=True)):
        if not 0 <= int(down) <= min(3, max(len(col) - 1, 0)):
            raise ValueError(
                f"column {i + 1}: face_down must be 0 … {min(3, max(len(col) - 1, 0))} "
                "(at most 3, and the top card is always face up)"
            )
    removed = int(position.get("removed", len(suits)))
    if removed != len(suits):
        raise ValueError(f"position['removed'] is {removed} but {len(suits)} suits are missing")
    state = ScorpionState()
    state.meta[rules.M_RELAXED] = 1 if relaxed else 0
    for s in range(4):
        state.meta[rules.M_SLOTS + s] = suits[s] if s < len(suits) else -1
    state.meta[rules.M_REMOVED] = removed
    state.meta[rules.M_SCORE] = int(position.get("score", 0))
    state.meta[rules.M_MOVES] = int(position.get("moves", 0))
    state.meta[rules.M_RESERVE_DEALT] = 0 if res else 1
    for i, col in enumerate(cols):
        state.tab[i, : len(col)] = col
        state.lens[i] = len(col)
        state.fd[i] = int(face_down[i])
    for i, c in enumerate(res):
        state.reserve[i] = c
    return state
