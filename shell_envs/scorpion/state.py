"""Scorpion's game state: [`ScorpionState`][], the bundle of the rule arrays, and its check.

As `shell_envs.what_the_shell.state`: the state type, [`check_state`][] taking it, and the
constructors from a deal, a deal number or a position; converting positions and checking the
arrays is `shell_envs.scorpion.position`'s.  [`MetaReadings`][] reads a ``meta`` array for
the state and the player's view (`shell_envs.scorpion.view`) alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

import numpy as np

from shell_envs.scorpion import rules
from shell_envs.scorpion.cards import N_CARDS
from shell_envs.scorpion.position import (
    arrays_to_position,
    check_arrays,
    check_deal,
    position_to_arrays,
)

__all__ = [
    "MAX_DEAL_NUMBER",
    "MetaReadings",
    "ScorpionState",
    "check_state",
    "deck_of",
    "rule_code",
]

MAX_DEAL_NUMBER = 2**63 - 1


class _MetaCount:
    """A read-only ``int`` reading of one ``meta`` entry: a property without its boilerplate."""

    __slots__ = ("index", "name")

    def __init__(self, index: int) -> None:
        self.index = index
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _MetaCount: ...
    @overload
    def __get__(self, obj: MetaReadings, owner: type | None = None) -> int: ...
    def __get__(self, obj: MetaReadings | None, owner: type | None = None) -> int | _MetaCount:
        return self if obj is None else int(obj.meta[self.index])

    def __set__(self, obj: MetaReadings, value: object) -> None:
        raise AttributeError(f"{type(obj).__name__}.{self.name} is read from its meta array")


class MetaReadings:
    """What a Scorpion ``meta`` array says, read the same way for a full state and a view."""

    __slots__ = ()
    meta: np.ndarray

    score = _MetaCount(rules.M_SCORE)
    """Points so far."""
    removed = _MetaCount(rules.M_REMOVED)
    """Sequences removed to the slots (0–4)."""
    moves = _MetaCount(rules.M_MOVES)
    """Moves played and not undone."""
    runs = _MetaCount(rules.M_RUNS)
    """Traditional: complete king-to-ace runs standing in the tableau (0–4; 0 otherwise)."""

    @property
    def rules(self) -> str:
        """The rule set's name: ``"classic"``, ``"relaxed"`` or ``"traditional"``."""
        return rules.RULE_SETS[int(self.meta[rules.M_RULES])]

    @property
    def relaxed(self) -> bool:
        """Whether the game uses the Relaxed rule (any suit one rank higher)."""
        return int(self.meta[rules.M_RULES]) == rules.RELAXED

    @property
    def traditional(self) -> bool:
        """Whether the game uses the traditional rules (runs stay in the tableau)."""
        return int(self.meta[rules.M_RULES]) == rules.TRADITIONAL

    @property
    def won(self) -> bool:
        """All four sequences removed (Traditional: standing complete in the tableau)."""
        return bool(rules.is_won(self.meta))

    @property
    def reserve_dealt(self) -> bool:
        """Whether the reserve has been dealt."""
        return bool(self.meta[rules.M_RESERVE_DEALT])

    @property
    def slots(self) -> list[int]:
        """Suit index of each removed sequence, in removal order."""
        return [int(s) for s in self.meta[rules.M_SLOTS : rules.M_SLOTS + self.removed]]


class ScorpionState(MetaReadings):
    """The six state arrays of one game (see `shell_envs.scorpion.rules`); copies are cheap."""

    __slots__ = ("tab", "lens", "fd", "reserve", "meta", "hist")

    def __init__(self, arrays: tuple[np.ndarray, ...] | None = None) -> None:
        arrays = rules.new_arrays() if arrays is None else arrays
        self.tab, self.lens, self.fd, self.reserve, self.meta, self.hist = arrays

    @property
    def arrays(self) -> rules.StateArrays:
        """``(tab, lens, fd, reserve, meta, hist)``, the arguments of the rule functions."""
        return (self.tab, self.lens, self.fd, self.reserve, self.meta, self.hist)

    def copy(self) -> ScorpionState:
        """An independent copy (a few kilobytes)."""
        return ScorpionState(tuple(a.copy() for a in self.arrays))

    def __getstate__(self) -> tuple[np.ndarray, ...]:
        return self.arrays

    def __setstate__(self, arrays: tuple[np.ndarray, ...]) -> None:
        self.tab, self.lens, self.fd, self.reserve, self.meta, self.hist = arrays

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first thing no game can have ([`check_state`][])."""
        check_state(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScorpionState):
            return NotImplemented
        return all(np.array_equal(a, b) for a, b in zip(self.arrays, other.arrays, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def column(self, col: int) -> list[int]:
        """Card indices of column ``col`` (0–6), bottom → top, face-down ones included."""
        return [int(c) for c in self.tab[col, : self.lens[col]]]

    @classmethod
    def from_deal(cls, cards: Sequence[object], rule_set: str = "classic") -> ScorpionState:
        """A new game from 52 card codes in deal order (columns 1–7 bottom → top, then reserve)."""
        code = rule_code(rule_set)
        state = cls()
        rules.deal(state.arrays, np.asarray(check_deal(cards), np.int8), code)
        return state

    @classmethod
    def from_number(cls, number: int, rule_set: str = "classic") -> ScorpionState:
        """A new game from a deal number: the same deal on every machine."""
        code = rule_code(rule_set)
        state = cls()
        rules.deal(state.arrays, deck_of(number), code)
        return state

    @classmethod
    def from_position(cls, position: Mapping[str, Any], rule_set: str = "classic") -> ScorpionState:
        """A game set up from a [`position`][]-style dict (no undo history)."""
        return cls(position_to_arrays(position, rule_code(rule_set)))

    def position(self) -> dict[str, Any]:
        """The full position as card codes, hidden cards included ([`arrays_to_position`][])."""
        return arrays_to_position(self.tab, self.lens, self.fd, self.reserve, self.meta)


def rule_code(rule_set: str) -> int:
    """The code (`rules.CLASSIC`, `rules.RELAXED`, `rules.TRADITIONAL`) of a rule set's name."""
    if not isinstance(rule_set, str) or rule_set not in rules.RULE_SETS:
        names = ", ".join(repr(name) for name in rules.RULE_SETS)
        raise ValueError(f"the rule set must be one of {names}; got {rule_set!r}")
    return rules.RULE_SETS.index(rule_set)


def deck_of(number: int) -> np.ndarray:
    """The 52 card indices in deal order for deal ``number`` (0 ≤ number < 2**63)."""
    if isinstance(number, bool) or not isinstance(number, (int, np.integer)):
        raise ValueError(f"a deal number must be an integer, got {number!r}")
    if not 0 <= int(number) <= MAX_DEAL_NUMBER:
        raise ValueError(f"a deal number must be 0 … 2**63-1, got {number}")
    out = np.empty(N_CARDS, np.int8)
    rules.shuffled_deck(int(number), out)
    return out


def check_state(state: Any) -> None:
    """Raise ``ValueError`` unless ``state`` is a [`ScorpionState`][] whose arrays a game can
    have (type, shape and dtype first, then the contents: `position.check_arrays`)."""
    if not isinstance(state, ScorpionState):
        raise ValueError(f"a Scorpion state must be a ScorpionState; got {type(state).__name__}")
    check_arrays(*state.arrays)
