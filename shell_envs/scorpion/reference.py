"""A plain Scorpion engine and exhaustive search, written from the rules of record alone.

It shares no rule code with the compiled rules or the solver: no symmetry, no safe moves, no
dead-position tests, and the position is kept exactly as it lies (column order included).
It is slow (tens of thousands of positions a second) and exists to be read in one sitting
and to check the solver: a win it finds is a win, and a search it exhausts is a loss.

Every function takes the rule set by name (`RULE_SETS`):

- ``"classic"``: a card goes onto the card of its suit one rank higher; a complete sequence
  (king to ace of one suit, face up, on top of a column that has just received cards) is
  removed; the game is won when all four are removed.
- ``"relaxed"``: the same, except that a card goes onto any card one rank higher.
- ``"traditional"``: Classic's moves, but nothing is ever removed; the game is won when
  each suit stands somewhere in the tableau as a complete run: its 13 cards face up, one
  directly on the other, king lowest and ace on top.  No sequence bonus is scored.

A state is ``(columns, face_down, reserve, removed)``: seven tuples of card indices bottom →
top, the face-down count of each column, the three reserve cards (``()`` once dealt) and the
number of removed sequences (always 0 under the traditional rules).  Actions are the env's,
through its codec ([`shell_envs.scorpion.actions`][]: how moves are numbered is no rule):
card moves ``encode_move(card, column)`` (called uncompiled here), the reserve deal and, in
a `Game` with undo, undo.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from shell_envs.scorpion.actions import (
    N_COLUMNS,
    RESERVE_ACTION,
    UNDO_ACTION,
    decode_move_plain,
    encode_move_plain,
)
from shell_envs.scorpion.cards import parse_card

RULE_SETS = ("classic", "relaxed", "traditional")
UNDO_MEMORY = 100  # the game remembers the last 100 moves
KING = 12  # rank index of a king (card % 13); an ace is 0

State = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...], int]


def from_position(position: Mapping[str, Any]) -> State:
    """The state of a ``position()``-style dict (columns, face_down, reserve, removed)."""
    columns = tuple(tuple(parse_card(c) for c in col) for col in position["columns"])
    face_down = tuple(int(n) for n in position.get("face_down", [0] * N_COLUMNS))
    reserve = tuple(parse_card(c) for c in position.get("reserve", []))
    return columns, face_down, reserve, int(position.get("removed", 0))


def check_rules(rules: object) -> str:
    """``rules`` itself when it names a rule set, else ValueError."""
    if not isinstance(rules, str) or rules not in RULE_SETS:
        raise ValueError(f"rules must be one of {RULE_SETS}; got {rules!r}")
    return rules


def run_of(suit: int) -> tuple[int, ...]:
    """The complete run of ``suit`` as it lies in a column, bottom → top: king … ace."""
    return tuple(suit * 13 + rank for rank in range(KING, -1, -1))


def standing_runs(state: State) -> int:
    """The suits whose complete run stands face up somewhere in the tableau (traditional)."""
    columns, face_down = state[0], state[1]
    found = 0
    for suit in range(4):
        run = run_of(suit)
        for c, col in enumerate(columns):
            up = col[face_down[c] :]
            if any(up[i : i + 13] == run for i in range(len(up) - 12)):
                found += 1
                break
    return found


def won(state: State, rules: str) -> bool:
    """Whether the game is won: four sequences removed, or (traditional) four runs standing."""
    if check_rules(rules) == "traditional":
        return standing_runs(state) == 4
    return state[3] == 4


def legal_actions(state: State, rules: str) -> list[int]:
    """Every legal action: a face-up card (with the cards above it) onto another column's top
    card one rank higher (same suit unless Relaxed), or a king onto an empty column; and the
    reserve deal while the reserve is there.  A won game has none."""
    if won(state, rules):
        return []
    any_suit = rules == "relaxed"
    columns, face_down, reserve, _ = state
    actions = []
    for c, col in enumerate(columns):
        for card in col[face_down[c] :]:
            for dest, target in enumerate(columns):
                if dest == c:
                    continue
                if not target:
                    legal = card % 13 == KING
                else:
                    top = target[-1]
                    legal = top % 13 == card % 13 + 1 and (any_suit or top // 13 == card // 13)
                if legal:
                    actions.append(encode_move_plain(card, dest))
    if reserve:
        actions.append(RESERVE_ACTION)
    return actions


def _receive(columns: list, face_down: list, c: int, rules: str) -> tuple[int, int]:
    """Remove complete sequences from the top of column ``c`` (it just received cards), flipping
    a face-down card left on top; returns (sequences removed, points).  The traditional rules
    remove nothing."""
    removed = points = 0
    while rules != "traditional":
        col = columns[c]
        if len(col) - face_down[c] < 13 or col[-1] % 13 != 0:
            break
        ace = col[-1]
        if col[-13:] != tuple(range(ace + 12, ace - 1, -1)):
            break
        columns[c] = col[:-13]
        removed += 1
        points += 100 + _flip(columns, face_down, c)
    return removed, points


def _flip(columns: list, face_down: list, c: int) -> int:
    """Turn the top card of column ``c`` face up if it is face down; returns the points."""
    if columns[c] and face_down[c] == len(columns[c]):
        face_down[c] -= 1
        return 5
    return 0


def play(state: State, action: int, rules: str) -> tuple[State, int]:
    """The state after a legal ``action`` under ``rules``, and the points it earns."""
    check_rules(rules)
    cols, fd, reserve, removed = state
    columns, face_down = list(cols), list(fd)
    points = 0
    if action == RESERVE_ACTION:
        for c in range(3):
            columns[c] = columns[c] + (reserve[c],)
        reserve = ()
        for c in range(3):
            n, p = _receive(columns, face_down, c, rules)
            removed, points = removed + n, points + p
    else:
        card, dest = decode_move_plain(action)
        src = next(c for c, col in enumerate(columns) if card in col)
        depth = columns[src].index(card)
        if columns[dest] and columns[dest][-1] // 13 == card // 13:
            points += 5
        columns[dest] = columns[dest] + columns[src][depth:]
        columns[src] = columns[src][:depth]
        points += _flip(columns, face_down, src)
        n, p = _receive(columns, face_down, dest, rules)
        removed, points = removed + n, points + p
    return (tuple(columns), tuple(face_down), reserve, removed), points


class Game:
    """One game as the rules of record tell it: a score, an undo of the last 100 moves when
    ``allow_undo``, and an end when the game is won or no legal action (undo included) exists."""

    def __init__(self, state: State, rules: str, allow_undo: bool, score: int = 0) -> None:
        self.state = state
        self.rules = check_rules(rules)
        self.allow_undo = allow_undo
        self.score = score
        self.history: list[tuple[State, int]] = []  # (state, score) before each remembered move

    @property
    def won(self) -> bool:
        """Whether the game is won."""
        return won(self.state, self.rules)

    def actions(self) -> list[int]:
        """Every legal action: `legal_actions`, and undo while a move is remembered and
        the game is not won (a won game has no action at all)."""
        actions = legal_actions(self.state, self.rules)
        if self.allow_undo and self.history and not self.won:
            actions.append(UNDO_ACTION)
        return actions

    @property
    def over(self) -> bool:
        """Whether the game has ended: won, or no legal action is left."""
        return not self.actions()

    def play(self, action: int) -> int:
        """Play a legal ``action``; returns the score change (minus the points undo takes back)."""
        if action == UNDO_ACTION:
            before = self.score
            self.state, self.score = self.history.pop()
            return self.score - before
        self.history = [*self.history[-(UNDO_MEMORY - 1) :], (self.state, self.score)]
        self.state, points = play(self.state, action, self.rules)
        self.score += points
        return points


@dataclass
class Verdict:
    """``won`` with a winning ``line`` of actions, ``lost`` (every position seen) or ``unknown``."""

    verdict: str
    line: list[int] = field(default_factory=list)
    nodes: int = 0


def search(state: State, rules: str, max_nodes: int = 1_000_000) -> Verdict:
    """Depth-first search over every legal action from ``state``, each exact state seen once.

    Exhausting the reachable states without a win proves the position lost; ``max_nodes``
    bounds the states kept (then ``unknown``).  Actions that uncover a face-down card are
    tried first and the reserve deal last: an order only, every action is searched.
    """
    if won(state, rules):
        return Verdict("won", [], 1)
    seen = {state}
    stack = [(state, iter(_ordered(state, rules)))]
    line: list[int] = []
    while stack:
        current, actions = stack[-1]
        action = next(actions, None)
        if action is None:
            stack.pop()
            if line:
                line.pop()
            continue
        child, _ = play(current, action, rules)
        if won(child, rules):
            return Verdict("won", [*line, action], len(seen))
        if child in seen:
            continue
        if len(seen) >= max_nodes:
            return Verdict("unknown", [], len(seen))
        seen.add(child)
        stack.append((child, iter(_ordered(child, rules))))
        line.append(action)
    return Verdict("lost", [], len(seen))


def _ordered(state: State, rules: str) -> list[int]:
    """The legal actions, those that uncover a face-down card first and the reserve deal last."""
    columns, face_down = state[0], state[1]
    first = {col[face_down[c]] for c, col in enumerate(columns) if 0 < face_down[c] < len(col)}

    def key(action: int) -> int:
        return (
            2 if action == RESERVE_ACTION else (0 if decode_move_plain(action)[0] in first else 1)
        )

    return sorted(legal_actions(state, rules), key=key)


def replay(state: State, rules: str, line: list[int]) -> bool:
    """Whether ``line`` is a sequence of legal actions from ``state`` that ends in a win."""
    for action in line:
        if action not in legal_actions(state, rules):
            return False
        state, _ = play(state, action, rules)
    return won(state, rules)
