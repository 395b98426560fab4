"""Helpers for the Scorpion tests: positions from short strings, an independent reference model."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np

import shell_envs  # noqa: F401  (registers the env)
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


class Reference:
    """A plain, independent model of the rules, to cross-check the compiled engine."""

    def __init__(self, pos: dict, relaxed: bool) -> None:
        self.cols = [[parse_card(c) for c in col] for col in pos["columns"]]
        self.fd = list(pos["face_down"])
        self.reserve = [parse_card(c) for c in pos["reserve"]]
        self.removed = pos["removed"]
        self.score = pos.get("score", 0)
        self.relaxed = relaxed
        self.history: list[tuple] = []

    def legal(self) -> set[int]:
        """Every legal action except undo."""
        if self.removed == 4:
            return set()
        out = set()
        for c, col in enumerate(self.cols):
            for d in range(self.fd[c], len(col)):
                card = col[d]
                for e, dest in enumerate(self.cols):
                    if e == c:
                        continue
                    if not dest:
                        ok = card % 13 == 12
                    else:
                        top = dest[-1]
                        ok = top % 13 != 0 and card % 13 == top % 13 - 1
                        ok = ok and (self.relaxed or card // 13 == top // 13)
                    if ok:
                        out.add(card * 7 + e)
        if self.reserve:
            out.add(364)
        return out

    def _flip(self, c: int) -> int:
        if self.cols[c] and self.fd[c] == len(self.cols[c]):
            self.fd[c] -= 1
            return 5
        return 0

    def _remove(self, c: int) -> int:
        points = 0
        while True:
            col = self.cols[c]
            top13 = col[-13:]
            suit = top13[-1] // 13 if col else 0
            if len(col) - self.fd[c] >= 13 and top13 == [suit * 13 + 12 - i for i in range(13)]:
                del col[-13:]
                self.removed += 1
                points += 100 + self._flip(c)
            else:
                return points

    def apply(self, a: int) -> int:
        """Play a legal action; returns its points."""
        if a == 365:
            before = self.score
            self.cols, self.fd, self.reserve, self.removed, self.score = self.history.pop()
            return self.score - before
        self.history.append(
            copy.deepcopy((self.cols, self.fd, self.reserve, self.removed, self.score))
        )
        self.history = self.history[-100:]
        points = 0
        if a == 364:
            for c in range(3):
                self.cols[c].append(self.reserve[c])
            self.reserve = []
            for c in range(3):
                points += self._remove(c)
        else:
            card, dest = divmod(a, 7)
            src = next(c for c, col in enumerate(self.cols) if card in col)
            d = self.cols[src].index(card)
            block = self.cols[src][d:]
            del self.cols[src][d:]
            if self.cols[dest] and self.cols[dest][-1] // 13 == card // 13:
                points += 5
            self.cols[dest] += block
            points += self._flip(src)
            points += self._remove(dest)
        self.score += points
        return points

    def columns(self) -> list[list[str]]:
        """Columns as codes."""
        return [[card_code(c) for c in col] for col in self.cols]


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
    # face-down cards only ever lie in columns 1-4 (the deal's), at most 3 under the top card
    fd = [
        int(rng.integers(0, min(3, max(len(col) - 1, 0)) + 1)) if i < 4 else 0
        for i, col in enumerate(cols)
    ]
    return {
        "columns": [[card_code(c) for c in col] for col in cols],
        "face_down": fd,
        "reserve": [card_code(c) for c in res],
        "removed": 0,
    }
