"""Scorpion positions: the bridge between the rules' arrays and positions people write.

A position is a dict of card codes (``columns`` bottom → top, ``face_down`` counts,
``reserve``, ``removed``, ``score``, ``moves``): [`position_to_arrays`][] parses and checks
one, [`arrays_to_position`][] writes one, [`check_arrays`][] checks the six state arrays
(undo history included) and [`check_deal`][] an explicit deal, so that no compiled rule
function ever reads outside an array.  As `shell_envs.what_the_shell.position`; the state
type is `shell_envs.scorpion.state`'s, move notation `shell_envs.scorpion.notation`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

import numpy as np

from shell_envs.core.validation import integer, mapping
from shell_envs.scorpion import rules
from shell_envs.scorpion.cards import N_CARDS, card_code, parse_cards

__all__ = [
    "MAX_COUNTER",
    "arrays_to_position",
    "check_arrays",
    "check_deal",
    "check_layout",
    "position_to_arrays",
]

MAX_COUNTER = 2**31 - 1  # score and moves live in int32


def check_deal(cards: Sequence[object]) -> list[int]:
    """Card indices of an explicit deal; ValueError names a wrong count, duplicate or bad code."""
    if isinstance(cards, (str, bytes)) or not _is_list(cards):
        raise ValueError(f"a deal must be a list of 52 card codes, got {_short(cards)}")
    if isinstance(cards, np.ndarray) and cards.dtype.kind not in "iuUO":
        raise ValueError(
            f"a deal array must hold card codes (strings) or integer card indices; got dtype "
            f"{cards.dtype.name}"
        )
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


_POSITION_KEYS = ("columns", "face_down", "reserve", "removed", "score", "moves")


def position_to_arrays(position: Mapping[str, Any], code: int) -> rules.StateArrays:
    """Build ``(tab, lens, fd, reserve, meta, hist)`` from a position dict under rule-set ``code``.

    The dict is [`arrays_to_position`][]'s (no undo history); raises ``ValueError`` saying
    exactly what is wrong for a malformed or impossible position.
    """
    if not isinstance(position, Mapping):
        raise ValueError(f"a position must be a dict, got {type(position).__name__}")
    mapping("the position", position, _POSITION_KEYS)
    columns = position.get("columns")
    if isinstance(columns, (str, bytes)) or not _is_list(columns) or len(columns) != 7:
        raise ValueError(
            "position['columns'] must be 7 lists of card codes, bottom → top; got "
            f"{_short(columns)}"
        )
    face_down = position.get("face_down", [0] * rules.N_COLUMNS)
    if isinstance(face_down, (str, bytes)) or not _is_list(face_down) or len(face_down) != 7:
        raise ValueError(f"position['face_down'] must be 7 counts; got {_short(face_down)}")
    face_down = [
        integer(f"position['face_down'][{i}] (column {i + 1})", x, 0)
        for i, x in enumerate(face_down)
    ]
    for i, down in enumerate(face_down):
        if down > (3 if i < 4 else 0):
            raise ValueError(
                f"position['face_down'][{i}] (column {i + 1}) is {down}: face-down cards lie "
                "only in columns 1–4, at most 3 in each (12 in all)"
            )
    reserve = position.get("reserve", [])
    if isinstance(reserve, (str, bytes)) or not _is_list(reserve) or len(reserve) not in (0, 3):
        raise ValueError(f"position['reserve'] must hold 3 cards or none; got {_short(reserve)}")
    cols = []
    for i, col in enumerate(columns):
        if isinstance(col, (str, bytes)) or not _is_list(col):
            raise ValueError(f"column {i + 1} must be a list of card codes; got {_short(col)}")
        try:
            cols.append(parse_cards(col))
        except ValueError as exc:
            raise ValueError(f"column {i + 1}: {exc}") from None
    try:
        res = parse_cards(reserve)
    except ValueError as exc:
        raise ValueError(f"position['reserve']: {exc}") from None
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
        if down > max(len(col) - 1, 0):
            raise ValueError(
                f"position['face_down'][{i}] (column {i + 1}) is {down}, but the column has "
                f"{len(col)} card(s) and its top card is always face up"
            )
    removed = integer("position['removed']", position.get("removed", len(suits)), 0, 4)
    if removed != len(suits):
        raise ValueError(f"position['removed'] is {removed} but {len(suits)} suits are missing")
    if code == rules.TRADITIONAL and removed:
        raise ValueError(
            "under the traditional rules nothing is removed: the position must hold all 52 cards"
        )
    score = integer("position['score']", position.get("score", 0), 0, MAX_COUNTER)
    moves = integer("position['moves']", position.get("moves", 0), 0, MAX_COUNTER)
    tab, lens, fd, reserve, meta, hist = rules.new_arrays()
    meta[rules.M_RULES] = code
    for s in range(4):
        meta[rules.M_SLOTS + s] = suits[s] if s < len(suits) else -1
    meta[rules.M_REMOVED] = removed
    meta[rules.M_SCORE] = score
    meta[rules.M_MOVES] = moves
    meta[rules.M_RESERVE_DEALT] = 0 if res else 1
    for i, col in enumerate(cols):
        tab[i, : len(col)] = col
        lens[i] = len(col)
        fd[i] = face_down[i]
    for i, c in enumerate(res):
        reserve[i] = c
    if code == rules.TRADITIONAL:
        meta[rules.M_RUNS] = rules.count_runs(tab, lens, fd)
    return tab, lens, fd, reserve, meta, hist


def arrays_to_position(
    tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, reserve: np.ndarray, meta: np.ndarray
) -> dict[str, Any]:
    """The full position as card codes, hidden cards included: columns bottom → top, the
    face-down counts, the reserve (empty once dealt), removed sequences, score and moves."""
    return {
        "columns": [[card_code(int(c)) for c in tab[col, : lens[col]]] for col in range(7)],
        "face_down": [int(x) for x in fd],
        "reserve": [card_code(int(c)) for c in reserve if c >= 0],
        "removed": int(meta[rules.M_REMOVED]),
        "score": int(meta[rules.M_SCORE]),
        "moves": int(meta[rules.M_MOVES]),
    }


def _is_list(value: object) -> TypeGuard[Sequence[Any] | np.ndarray]:
    """A list, tuple or 1-D numpy array."""
    return isinstance(value, Sequence) or (isinstance(value, np.ndarray) and value.ndim == 1)


def _short(value: object) -> str:
    """A short repr for a message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_SHAPES = (
    ("tab", (rules.N_COLUMNS, rules.MAX_DEPTH), np.int8),
    ("lens", (rules.N_COLUMNS,), np.int8),
    ("fd", (rules.N_COLUMNS,), np.int8),
    ("reserve", (3,), np.int8),
    ("meta", (rules.META_SIZE,), np.int32),
    ("hist", (rules.HISTORY, rules.HIST_WIDTH), np.int32),
)
_META_USED = rules.M_RUNS + 1


def check_arrays(tab: Any, lens: Any, fd: Any, reserve: Any, meta: Any, hist: Any) -> None:
    """Raise ``ValueError`` unless ``(tab, lens, fd, reserve, meta, hist)`` is a possible game.

    Checks every array's type, shape and dtype, the layout (cards 0–51 each once, a column's
    cards then -1, face-down cards only at the bottom of columns 1–4, at most 3, under a face-up
    top card, the reserve all there or dealt), the counters and the removed suits, and replays
    the whole undo history on a copy in plain Python, checking every record and the state after
    each undo, so that no compiled rule function ever reads or writes outside an array.
    """
    arrays = (tab, lens, fd, reserve, meta, hist)
    for (name, shape, dtype), array in zip(_SHAPES, arrays, strict=True):
        if not isinstance(array, np.ndarray):
            raise ValueError(f"state.{name} must be a numpy array; got {type(array).__name__}")
        if array.shape != shape or array.dtype != dtype:
            raise ValueError(
                f"state.{name} must be {np.dtype(dtype).name} of shape {shape}; got "
                f"{array.dtype.name} of shape {array.shape}"
            )
    tab, lens, fd, reserve, meta, hist = (np.array(a) for a in arrays)  # copies: undone below
    _check_layout(tab, lens, fd, reserve, meta)
    _check_history(tab, lens, fd, reserve, meta, hist)


def check_layout(tab: Any, lens: Any, fd: Any, reserve: Any, meta: Any, hist: Any = None) -> None:
    """[`check_arrays`][] without replaying the history: ``(tab, lens, fd, reserve, meta)`` are
    a game's layout (a view's, hidden cards filled in); ``hist``, when given, only its shape."""
    arrays = (tab, lens, fd, reserve, meta) + (() if hist is None else (hist,))
    for (name, shape, dtype), array in zip(_SHAPES, arrays, strict=False):
        if not isinstance(array, np.ndarray) or array.shape != shape or array.dtype != dtype:
            raise ValueError(f"state.{name} must be {np.dtype(dtype).name} of shape {shape}")
    _check_layout(tab, lens, fd, reserve, meta)


def _check_layout(
    tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, reserve: np.ndarray, meta: np.ndarray
) -> None:
    """The checks of [`check_arrays`][] on everything but the undo history."""
    for c in range(rules.N_COLUMNS):
        n = int(lens[c])
        if not 0 <= n <= rules.MAX_DEPTH:
            raise ValueError(f"state.lens[{c}] (column {c + 1}) must be 0–52; got {n}")
        cards = tab[c, :n]
        if n and (cards.min() < 0 or cards.max() >= N_CARDS):
            bad = int(cards[(cards < 0) | (cards >= N_CARDS)][0])
            raise ValueError(f"state.tab column {c + 1} holds {bad}: cards are 0–51")
        if np.any(tab[c, n:] != -1):
            raise ValueError(
                f"state.tab column {c + 1} has entries beyond its {n} cards (they must be -1)"
            )
        down = int(fd[c])
        limit = 3 if c < 4 else 0
        if not 0 <= down <= limit or (n and down >= n) or (not n and down):
            raise ValueError(
                f"state.fd[{c}] (column {c + 1}) is {down}: face-down cards lie only in "
                f"columns 1–4, at most 3, below a face-up top card (the column has {n} cards)"
            )
    dealt = int(meta[rules.M_RESERVE_DEALT])
    if dealt not in (0, 1):
        raise ValueError(f"state.meta reserve-dealt flag must be 0 or 1; got {dealt}")
    if (dealt and np.any(reserve != -1)) or (not dealt and np.any(reserve < 0)):
        raise ValueError(
            f"state.reserve is {reserve.tolist()} but the reserve is "
            + ("dealt (it must be -1, -1, -1)" if dealt else "not dealt (it must hold 3 cards)")
        )
    if np.any(reserve >= N_CARDS):
        raise ValueError(f"state.reserve holds {reserve.tolist()}: cards are 0–51")
    on_table = [int(x) for c in range(rules.N_COLUMNS) for x in tab[c, : lens[c]]]
    on_table += [int(x) for x in reserve if x >= 0]
    _check_unique(on_table)
    removed = int(meta[rules.M_REMOVED])
    if not 0 <= removed <= 4:
        raise ValueError(f"state.meta removed count must be 0–4; got {removed}")
    slots = [int(x) for x in meta[rules.M_SLOTS : rules.M_SLOTS + 4]]
    suits = slots[:removed]
    if any(not 0 <= s < 4 for s in suits) or len(set(suits)) != removed:
        raise ValueError(f"state.meta slots {slots} must name {removed} different suits 0–3")
    if any(s != -1 for s in slots[removed:]):
        raise ValueError(f"state.meta slots {slots}: slots past the {removed} removed must be -1")
    missing = sorted(set(range(N_CARDS)) - set(on_table))
    if missing != sorted(s * 13 + r for s in suits for r in range(13)):
        raise ValueError(
            "the cards not on the table must be exactly the removed suits; missing: "
            + (", ".join(card_code(c) for c in missing) or "none")
        )
    for field, index in (("score", rules.M_SCORE), ("moves", rules.M_MOVES)):
        if int(meta[index]) < 0:
            raise ValueError(f"state.meta {field} must be ≥ 0; got {int(meta[index])}")
    code = int(meta[rules.M_RULES])
    if not 0 <= code < len(rules.RULE_SETS):
        raise ValueError(
            f"state.meta rule-set code must be 0–{len(rules.RULE_SETS) - 1} "
            f"({', '.join(rules.RULE_SETS)}); got {code}"
        )
    runs = int(meta[rules.M_RUNS])
    expected = rules.count_runs(tab, lens, fd) if code == rules.TRADITIONAL else 0
    if runs != expected:
        raise ValueError(f"state.meta runs count is {runs} but the tableau has {expected}")
    if code == rules.TRADITIONAL and removed:
        raise ValueError(f"state.meta removed count is {removed}, but traditional removes nothing")
    count, head = int(meta[rules.M_HIST_COUNT]), int(meta[rules.M_HIST_HEAD])
    if not 0 <= count <= rules.HISTORY or not 0 <= head < rules.HISTORY:
        raise ValueError(f"state.meta history count {count} / head {head} must be 0–100 / 0–99")
    if count > int(meta[rules.M_MOVES]):
        raise ValueError(
            f"state.meta has {count} moves to undo but only {meta[rules.M_MOVES]} moves"
        )
    if np.any(meta[_META_USED:] != 0):
        raise ValueError(f"state.meta entries {_META_USED}–15 are unused and must be 0")


def _check_history(
    tab: np.ndarray,
    lens: np.ndarray,
    fd: np.ndarray,
    reserve: np.ndarray,
    meta: np.ndarray,
    hist: np.ndarray,
) -> None:
    """Undo every remembered move on these copies, checking each record before using it."""
    for step in range(int(meta[rules.M_HIST_COUNT])):
        head = (int(meta[rules.M_HIST_HEAD]) - 1) % rules.HISTORY
        rec = hist[head]
        where = f"state.hist[{head}] (undo {step + 1})"
        kind, n_rem = int(rec[rules.H_KIND]), int(rec[rules.H_N_REMOVALS])
        if kind not in (rules.KIND_MOVE, rules.KIND_RESERVE):
            raise ValueError(f"{where}: kind must be 1 (move) or 2 (reserve); got {kind}")
        if not 0 <= n_rem <= int(meta[rules.M_REMOVED]):
            raise ValueError(f"{where}: {n_rem} removals, but {meta[rules.M_REMOVED]} were removed")
        if not 0 <= int(rec[rules.H_POINTS]) <= int(meta[rules.M_SCORE]):
            raise ValueError(f"{where}: its points {rec[rules.H_POINTS]} exceed the score")
        meta[rules.M_HIST_HEAD] = head
        meta[rules.M_HIST_COUNT] -= 1
        for k in range(n_rem - 1, -1, -1):
            code = int(rec[rules.H_REMOVALS + k])
            col, suit = code // 16, (code // 2) % 8
            slot = int(meta[rules.M_REMOVED]) - 1
            if not (0 <= code < 16 * rules.N_COLUMNS and meta[rules.M_SLOTS + slot] == suit):
                raise ValueError(f"{where}: removal code {code} does not match the last removal")
            if int(lens[col]) + rules.SEQUENCE > rules.MAX_DEPTH:
                raise ValueError(f"{where}: removal code {code} overfills column {col + 1}")
            fd[col] += code & 1
            n = int(lens[col])
            tab[col, n : n + rules.SEQUENCE] = [suit * 13 + 12 - i for i in range(rules.SEQUENCE)]
            lens[col] = n + rules.SEQUENCE
            meta[rules.M_SLOTS + slot] = -1
            meta[rules.M_REMOVED] = slot
        if kind == rules.KIND_MOVE:
            src, start, count, dest = (
                int(rec[f]) for f in (rules.H_SRC, rules.H_START, rules.H_COUNT, rules.H_DEST)
            )
            n = int(lens[dest]) - count if 0 <= dest < rules.N_COLUMNS else -1
            if not (
                0 <= src < rules.N_COLUMNS
                and 0 <= dest < rules.N_COLUMNS
                and src != dest
                and count >= 1
                and n >= 0
                and start == int(lens[src])
                and int(rec[rules.H_SRC_FLIP]) in (0, 1)
            ):
                raise ValueError(
                    f"{where}: move record {rec[: rules.H_N_REMOVALS].tolist()} does not fit the "
                    "columns (source, start, count, destination)"
                )
            fd[src] += int(rec[rules.H_SRC_FLIP])
            tab[src, start : start + count] = tab[dest, n : n + count]
            tab[dest, n : n + count] = -1
            lens[src] = start + count
            lens[dest] = n
        else:
            if int(meta[rules.M_RESERVE_DEALT]) != 1 or min(int(x) for x in lens[:3]) < 1:
                raise ValueError(f"{where}: a reserve deal record, but the reserve is not dealt")
            for c in range(3):
                n = int(lens[c]) - 1
                reserve[c] = tab[c, n]
                tab[c, n] = -1
                lens[c] = n
            meta[rules.M_RESERVE_DEALT] = 0
        meta[rules.M_SCORE] -= int(rec[rules.H_POINTS])
        meta[rules.M_MOVES] -= 1
        if int(meta[rules.M_RULES]) == rules.TRADITIONAL:
            meta[rules.M_RUNS] = rules.count_runs(tab, lens, fd)
        try:
            _check_layout(tab, lens, fd, reserve, meta)
        except ValueError as exc:
            raise ValueError(
                f"{where}: undoing it would leave an impossible game ({exc})"
            ) from None
