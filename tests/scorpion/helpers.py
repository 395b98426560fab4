"""Helpers for the Scorpion tests: positions from short strings, an independent reference model."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import shell_envs  # noqa: F401  (registers the env)
from shell_envs.scorpion import reference
from shell_envs.scorpion.cards import card_code, parse_card

EXAMPLE_FACE_UP = [
    "3D JH TH 3S",
    "QH 3C 4H 7S",
    "AS 7D 7H 3H",
    "KD 8H 7C 9S",
    "6H 8C JS 4C 9C 8D 5C",
    "6D QC KH 4D KS 9H JC",
    "AD QD 9D 6S 2H TD 5H",
]


def codes(text: str) -> list[str]:
    """``"KS QS"`` → ``["KS", "QS"]``."""
    return text.split()


def example_deal() -> list[str]:
    """The original's example deal, its 12 hidden cards and reserve filled in index order."""
    visible = {parse_card(c) for line in EXAMPLE_FACE_UP for c in codes(line)}
    hidden = [card_code(i) for i in range(52) if i not in visible]
    deal: list[str] = []
    for col, line in enumerate(EXAMPLE_FACE_UP):
        if col < 4:
            deal += hidden[col * 3 : col * 3 + 3]
        deal += codes(line)
    return deal + hidden[12:]


def position(
    columns: dict[int, str],
    face_down: dict[int, int] | None = None,
    reserve: str = "",
    removed: str = "",
    filler: int = 7,
) -> dict:
    """A position dict: ``columns`` maps column number 1–7 to its cards bottom → top.

    Suits in ``removed`` (e.g. ``"HD"``) are gone; every other card not placed is put, in
    index order, at the bottom of column ``filler`` (under whatever that column lists).
    """
    cols = [codes(columns.get(c, "")) for c in range(1, 8)]
    placed = {parse_card(c) for col in cols for c in col} | {parse_card(c) for c in codes(reserve)}
    gone = {"SHDC".index(s) for s in removed}
    rest = [card_code(i) for i in range(52) if i not in placed and i // 13 not in gone]
    cols[filler - 1] = rest + cols[filler - 1]
    fd = [0] * 7
    for c, n in (face_down or {}).items():
        fd[c - 1] = n
    return {"columns": cols, "face_down": fd, "reserve": codes(reserve), "removed": len(gone)}


# 3C onto column 4 is the one legal action, and it leaves no card move and no reserve
STUCK_AFTER_ONE_MOVE = position(
    {1: "AS", 2: "AH", 3: "AD", 4: "2C 4C", 5: "4S 5S 3C", 6: "4H 5H", 7: "4D 5D"},
    face_down={4: 1},
)
# the same position after that move: stuck from the start, with no move to take back
STUCK_AT_THE_START = position(
    {1: "AS", 2: "AH", 3: "AD", 4: "2C 4C 3C", 5: "4S 5S", 6: "4H 5H", 7: "4D 5D"},
    face_down={4: 1},
)


def make(**kwargs) -> gym.Env:
    """``gym.make("shell_envs/Scorpion-v0", **kwargs)``."""
    return gym.make("shell_envs/Scorpion-v0", **kwargs)


def start(pos: dict, **kwargs) -> tuple[gym.Env, dict]:
    """An env reset to ``pos``; returns the env and the reset info."""
    env = make(**kwargs)
    _, info = env.reset(options={"position": pos})
    return env, info


def action(card: str, column: int) -> int:
    """The action moving ``card`` onto column number 1–7."""
    return parse_card(card) * 7 + column - 1


class Reference(reference.Game):
    """The plain reference engine (:mod:`shell_envs.scorpion.reference`, written apart from the
    compiled rules), with undo, set up from a position dict under the rule set named ``rules``,
    to cross-check the compiled engine."""

    def __init__(self, pos: dict, rules: str, allow_undo: bool = True) -> None:
        super().__init__(reference.from_position(pos), rules, allow_undo, pos.get("score", 0))

    @property
    def fd(self) -> list[int]:
        """Face-down counts per column."""
        return list(self.state[1])

    @property
    def removed(self) -> int:
        """Sequences removed."""
        return self.state[3]

    @property
    def runs(self) -> int:
        """Complete runs standing in the tableau, counted under the traditional rules only."""
        return reference.standing_runs(self.state) if self.rules == "traditional" else 0

    def legal(self) -> set[int]:
        """Every legal action except undo."""
        return set(reference.legal_actions(self.state, self.rules))

    def columns(self) -> list[list[str]]:
        """Columns as codes."""
        return [[card_code(c) for c in col] for col in self.state[0]]


def run_position(rng: np.random.Generator, reserve: bool) -> dict:
    """A random position rich in same-suit runs, so random play removes sequences."""
    runs = []
    for suit in range(4):
        cards = [suit * 13 + 12 - i for i in range(13)]
        cuts = sorted(rng.choice(np.arange(1, 13), size=rng.integers(1, 4), replace=False))
        runs += [cards[a:b] for a, b in zip([0, *cuts], [*cuts, 13], strict=True)]
    rng.shuffle(runs)
    cols: list[list[int]] = [[] for _ in range(7)]
    for run in runs:
        cols[rng.integers(7)] += run
    res: list[int] = []
    if reserve:
        for _ in range(3):
            c = max(range(7), key=lambda i: len(cols[i]))
            res.append(cols[c].pop(0))
    return _dealt_position(rng, cols, res, 0)


def endgame_position(
    rng: np.random.Generator, reserve: bool, suits: int | None = None, complete: float = 0.4
) -> dict:
    """A small random end game of 1–3 suits (``suits``: that many, 4 for a position the
    traditional rules accept): same-suit runs, complete sequences (each suit one with chance
    ``complete``; some covered by other cards, some standing on kings or on other cards), empty
    columns, face-down cards, and the reserve dealt or not."""
    n_suits = int(rng.integers(1, 4)) if suits is None else suits
    kept = sorted(rng.choice(4, size=n_suits, replace=False))
    pieces: list[list[int]] = []
    for suit in kept:
        cards = [int(suit) * 13 + 12 - i for i in range(13)]
        if rng.random() < complete:
            pieces.append(cards)  # a complete sequence
            continue
        cuts = sorted(rng.choice(np.arange(1, 13), size=rng.integers(1, 5), replace=False))
        pieces += [cards[a:b] for a, b in zip([0, *cuts], [*cuts, 13], strict=True)]
    rng.shuffle(pieces)
    n_cols = int(rng.integers(3, 8))
    cols: list[list[int]] = [[] for _ in range(7)]
    for piece in pieces:
        cols[int(rng.integers(n_cols))] += piece
    res: list[int] = []
    if reserve:
        while len(res) < 3:
            c = int(rng.integers(7))
            if cols[c]:
                res.append(cols[c].pop(int(rng.integers(len(cols[c])))))
    order = rng.permutation(7)
    cols = [cols[i] for i in order]
    return _dealt_position(rng, cols, res, 4 - n_suits)


def _dealt_position(
    rng: np.random.Generator, cols: list[list[int]], res: list[int], removed: int
) -> dict:
    """The position dict of ``cols`` and reserve ``res`` with random face-down counts: only in
    columns 1–4 (the deal's), at most 3, never the top card."""
    fd = [
        int(rng.integers(0, min(3, max(len(col) - 1, 0)) + 1)) if i < 4 else 0
        for i, col in enumerate(cols)
    ]
    return {
        "columns": [[card_code(c) for c in col] for col in cols],
        "face_down": fd,
        "reserve": [card_code(c) for c in res],
        "removed": removed,
    }
