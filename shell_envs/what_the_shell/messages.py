"""What the Shell's words and round report: refusal codes and their words, outcome codes, and
the one info schema.

The one table of refusal codes and their words, and the one way to find a code and word it
([`refusal`][]), for the single env, the batched env and the command line alike (the game is
played in English only), as `shell_envs.scorpion.messages` is for Scorpion.  The info schema
(`INFO_SCHEMA`) lives here too, beside the codes its values carry: the single env's
per-player infos (`player_infos`) and the batched env's info arrays
(`BATCH_INFO_FIELDS`) are both derived from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from shell_envs.core.validation import shown
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.actions import cell_name

PIECE_NAMES = {
    rules.EMPTY: "empty",
    rules.BLACK: "a black turtle",
    rules.WHITE: "a white turtle",
    rules.EGG: "an egg",
}
# refusal codes, as infos carry them (illegal_reason): a refused cell's code is its piece + 1
LEGAL, OUT_OF_RANGE = 0, 1
ILLEGAL_REASONS = (
    "",
    "out of range",
    *(f"occupied by {PIECE_NAMES[piece]}" for piece in (rules.BLACK, rules.WHITE, rules.EGG)),
)
# outcome codes, as infos carry them (outcome): 0 while the game goes on and on truncation
OUTCOMES = ("", "win", "loss", "draw")
WIN, LOSS, DRAW = 1, 2, 3
# black's and white's outcome codes by the rules' outcome
PLAYER_OUTCOMES = {
    rules.ONGOING: (0, 0),
    rules.BLACK_WINS: (WIN, LOSS),
    rules.WHITE_WINS: (LOSS, WIN),
    rules.DRAW: (DRAW, DRAW),
}


def is_integer(action: Any) -> bool:
    """An int or numpy integer (not a bool): the only values an action may be."""
    return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))


def refusal_code(board: np.ndarray, action: int | np.integer) -> int:
    """The `ILLEGAL_REASONS` code of the integer ``action`` on ``board`` (0: legal)."""
    if not 0 <= action < rules.CELLS:
        return OUT_OF_RANGE
    return int(board[action]) + 1 if board[action] != rules.EMPTY else LEGAL


def refusal(board: np.ndarray, action: Any) -> str | None:
    """Why ``action`` is not a legal choice on ``board``, or None when it is legal."""
    if not is_integer(action):
        return (
            f"action {action!r} is not a cell index: actions are integers 0-80 "
            "(a1=0, i1=8, a2=9, e5=40, i9=80)"
        )
    code = refusal_code(board, action)
    if code == LEGAL:
        return None
    if code == OUT_OF_RANGE:
        return (
            f"action {shown(action)} is {ILLEGAL_REASONS[code]}: actions are cell indices 0-80 "
            "(a1=0 ... i9=80)"
        )
    return f"cell {cell_name(action)} ({int(action)}) is {ILLEGAL_REASONS[code]}"


# What a player's info is made of, by slot: first the rows of the rules' info array (slot =
# row, `rules.I_*`), then these, which the env fills in (the outcome and refusal codes are
# each player's own)
S_ROUND, S_SUDDEN_DEATH, S_OUTCOME_B, S_OUTCOME_W, S_REASON_B, S_REASON_W = range(
    rules.INFO_SIZE, rules.INFO_SIZE + 6
)


class InfoKey(NamedTuple):
    """One key of a player's info: its name, its type, and the slot its value is read from
    for black's info and for white's (the ``opponent_`` keys read the other player's)."""

    key: str
    kind: type
    black: int
    white: int


# every info's keys, in order (the Infos of docs/environments/what-the-shell.md); infos hold
# numbers only (one schema at reset and every step; tensor libraries take no strings)
INFO_SCHEMA = (
    InfoKey("round", int, S_ROUND, S_ROUND),
    InfoKey("collision", bool, rules.I_COLLISION, rules.I_COLLISION),
    InfoKey("captures", int, rules.I_CAPTURES_B, rules.I_CAPTURES_W),
    InfoKey("opponent_captures", int, rules.I_CAPTURES_W, rules.I_CAPTURES_B),
    InfoKey("hatched", int, rules.I_HATCHED_B, rules.I_HATCHED_W),
    InfoKey("opponent_hatched", int, rules.I_HATCHED_W, rules.I_HATCHED_B),
    InfoKey("eggs_vanished", int, rules.I_VANISHED, rules.I_VANISHED),
    InfoKey("eggs_captured", int, rules.I_REMOVED_EGGS, rules.I_REMOVED_EGGS),
    InfoKey("turtles_lost", int, rules.I_REMOVED_B, rules.I_REMOVED_W),
    InfoKey("opponent_turtles_lost", int, rules.I_REMOVED_W, rules.I_REMOVED_B),
    InfoKey("waves", int, rules.I_WAVES, rules.I_WAVES),
    InfoKey("winning_turtles", int, rules.I_WIN_B, rules.I_WIN_W),
    InfoKey("opponent_winning_turtles", int, rules.I_WIN_W, rules.I_WIN_B),
    InfoKey("sudden_death", bool, S_SUDDEN_DEATH, S_SUDDEN_DEATH),
    InfoKey("outcome", int, S_OUTCOME_B, S_OUTCOME_W),
    InfoKey("illegal", bool, S_REASON_B, S_REASON_W),
    InfoKey("illegal_reason", int, S_REASON_B, S_REASON_W),
    InfoKey("opponent_illegal", bool, S_REASON_W, S_REASON_B),
    InfoKey("opponent_illegal_reason", int, S_REASON_W, S_REASON_B),
)
INFO_KEYS = tuple(k.key for k in INFO_SCHEMA)
NO_REPORT = (0,) * rules.INFO_SIZE  # the info array of a step where nothing was played


NO_REASONS = (LEGAL, LEGAL)  # the refusal codes of a step where both actions were legal
PlayerInfos = Callable[
    [Sequence[int], int, int, tuple[int, int], tuple[int, int]], dict[str, dict[str, Any]]
]


def _write_out() -> PlayerInfos:
    """`player_infos`, written out from `INFO_SCHEMA` as two dict displays (as
    `dataclasses` writes a class's ``__init__``): as fast as dicts written by hand, which
    every step pays for, yet the schema stays the one place that says what goes where."""
    booleans = sorted({s for k in INFO_SCHEMA if k.kind is bool for s in (k.black, k.white)})

    def value(kind: type, slot: int) -> str:
        return f"b{slot}" if kind is bool else f"s{slot}"

    def display(player: str) -> str:
        items = (f"{k.key!r}: {value(k.kind, getattr(k, player))}" for k in INFO_SCHEMA)
        return "{" + ", ".join(items) + "}"

    source = "\n".join(
        [
            "def player_infos(report, rounds, sudden_death, outcomes, reasons):",
            f"    {', '.join(f's{i}' for i in range(rules.INFO_SIZE))}, = report",
            f"    s{S_ROUND}, s{S_SUDDEN_DEATH} = rounds, sudden_death",
            f"    s{S_OUTCOME_B}, s{S_OUTCOME_W} = outcomes",
            f"    s{S_REASON_B}, s{S_REASON_W} = reasons",
            *(f"    b{s} = s{s} != 0" for s in booleans),
            f"    return {{'black': {display('black')}, 'white': {display('white')}}}",
        ]
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<{__name__}.player_infos>", "exec"), namespace)
    function: PlayerInfos = namespace["player_infos"]
    function.__module__ = __name__
    function.__doc__ = """Both players' infos, each from its side: the rules' info array
    ``report`` (a list, `rules.INFO_SIZE` long), the round count, the sudden-death flag
    (0 or 1), the players' outcome codes (`OUTCOMES`) and refusal codes (`ILLEGAL_REASONS`),
    each ``(black's, white's)``."""
    return function


player_infos = _write_out()


def quiet_infos(meta: np.ndarray) -> dict[str, dict[str, Any]]:
    """Both players' infos where nothing was played (a reset, a state set) in the game of
    ``meta``: its round and sudden death, zero counts."""
    _, sudden_death, rounds, _ = meta.tolist()
    return player_infos(NO_REPORT, rounds, sudden_death, (0, 0), NO_REASONS)


def _batch_names() -> tuple[str, ...]:
    """The batched env's name of each row of the rules' info array: a row both players read
    keeps its key, a player's own row is named by its key and colour (``captures_black``)."""
    names = [""] * rules.INFO_SIZE
    for k in INFO_SCHEMA:
        if k.black >= rules.INFO_SIZE or k.key.startswith("opponent_"):
            continue
        if k.black == k.white:
            names[k.black] = k.key
        else:
            names[k.black], names[k.white] = f"{k.key}_black", f"{k.key}_white"
    return tuple(names)


# the batched env's infos of the rules' info array, row by row (`rules.I_*` order), and those
# of its rows that are booleans (the rest are integers)
BATCH_INFO_FIELDS = _batch_names()
BATCH_FLAGS = tuple(k.key for k in INFO_SCHEMA if k.kind is bool and k.black == k.white)
