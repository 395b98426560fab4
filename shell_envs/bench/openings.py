"""What the Shell's opening book: a fixed, versioned set of positions a few rounds deep.

Matches (`shell_envs.bench.match`) play every pair of games from one opening with the seats
swapped, so that two searches that break few ties do not replay the same handful of games
from the empty board.  The book ships with the package (``data/wts_openings_v1.json``) and
is made by ``benchmarks/wts_openings.py``, which records in the file how it was built
(command, seed, depth), how balanced its openings are between the seats for a reference
agent, and a checksum of the positions.  `load` checks all of it, and every position
through the env's own position checker
([`position_to_arrays`][shell_envs.what_the_shell.position.position_to_arrays]).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from shell_envs.what_the_shell.position import cell_index, cell_name, position_to_arrays

FORMAT = "shell-envs opening book"
GAME = "what_the_shell"
VERSION = 1  # the book's version: the file's name and its "version" field
FILE = f"wts_openings_v{VERSION}.json"
SIDE = 9  # the board's side


@dataclass(frozen=True)
class OpeningBook:
    """A loaded, checked opening book: its positions (as ``env.position()`` gives them, for
    ``reset(options={"position": ...})``), version, checksum, and how it was built."""

    positions: tuple[Mapping[str, Any], ...]
    version: int
    checksum: str
    build: Mapping[str, Any] = field(default_factory=dict)
    balance: Mapping[str, Any] = field(default_factory=dict)
    path: str = ""

    def __len__(self) -> int:
        """The number of openings."""
        return len(self.positions)

    def __getitem__(self, index: int) -> dict[str, Any]:
        """Opening ``index``, as a fresh dict (the book itself never changes)."""
        return json.loads(json.dumps(self.positions[index]))

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """Every opening, in book order, each a fresh dict."""
        return (self[i] for i in range(len(self)))

    def schedule(self, seed: int, pairs: int) -> list[int]:
        """The opening of each of ``pairs`` game pairs: the book in an order shuffled by
        ``seed``, cycled through when there are more pairs than openings."""
        order = np.random.default_rng([int(seed), len(self)]).permutation(len(self))
        return [int(order[p % len(self)]) for p in range(pairs)]

    def describe(self) -> dict[str, Any]:
        """What identifies the book in a match's settings: version, size and checksum."""
        return {"version": self.version, "openings": len(self), "checksum": self.checksum}


def checksum(positions: Any) -> str:
    """``sha256:<hex>`` of the positions as compact JSON with sorted keys."""
    text = json.dumps(positions, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _symmetries() -> list[list[int]]:
    """The board's eight symmetries (rotations and reflections) as cell-index maps."""
    maps = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                cells = []
                for cell in range(SIDE * SIDE):
                    row, col = divmod(cell, SIDE)
                    if transpose:
                        row, col = col, row
                    if flip_rows:
                        row = SIDE - 1 - row
                    if flip_cols:
                        col = SIDE - 1 - col
                    cells.append(row * SIDE + col)
                maps.append(cells)
    return maps


SYMMETRIES = _symmetries()


def canonical(position: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    """A key equal for positions that are the same up to the board's symmetries and a swap
    of the colours (the rules treat both alike, and a match plays both seats anyway).

    Eggs keep their order (oldest first), which the rules depend on.
    """
    black, white, eggs = ([cell_index(c) for c in position.get(k, [])]
                          for k in ("black", "white", "eggs"))  # fmt: skip
    keys = []
    for cells in SYMMETRIES:
        b = tuple(sorted(cells[c] for c in black))
        w = tuple(sorted(cells[c] for c in white))
        e = tuple(cells[c] for c in eggs)
        keys += [(b, w, e), (w, b, e)]
    return min(keys)


def transformed(position: Mapping[str, Any], symmetry: int, swap: bool) -> dict[str, Any]:
    """``position`` under board symmetry number ``symmetry`` (0–7), colours swapped when
    ``swap``."""
    cells = SYMMETRIES[symmetry]

    def moved(key: str) -> list[str]:
        return [cell_name(cells[cell_index(c)]) for c in position.get(key, [])]

    black, white = moved("black"), moved("white")
    if swap:
        black, white = white, black
    return {
        "black": sorted(black, key=cell_index),
        "white": sorted(white, key=cell_index),
        "eggs": moved("eggs"),
        "sudden_death": bool(position.get("sudden_death", False)),
    }


def default_path() -> str:
    """Where the shipped book lies."""
    return str(resources.files("shell_envs.data").joinpath(FILE))


def load(path: str | Path | None = None) -> OpeningBook:
    """The opening book at ``path`` (default: the one shipped with the package), checked.

    Raises ``ValueError`` naming the file and the problem when it cannot be read, is not an
    opening book of a version this library reads, its checksum does not match its positions,
    or a position is malformed, already decided, or repeats another (up to symmetry).
    """
    if path is None:
        return _shipped()
    return _load(str(path))


@functools.lru_cache(maxsize=1)
def _shipped() -> OpeningBook:
    """The shipped book, read and checked once per process."""
    return _load(default_path())


def _load(path: str) -> OpeningBook:
    """Read and check the book at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"opening book {path}: cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ValueError(f"opening book {path}: not a text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"opening book {path}: not JSON ({exc})") from None
    return from_data(data, path)


def from_data(data: Any, path: str = "<data>") -> OpeningBook:
    """An `OpeningBook` from the file's JSON data, checked as `load` checks it."""
    where = f"opening book {path}"
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f'{where}: not an opening book (no "format": {FORMAT!r})')
    if data.get("game") != GAME:
        raise ValueError(f"{where}: a book for {data.get('game')!r}, not for {GAME!r}")
    version = data.get("version")
    if version != VERSION:
        raise ValueError(
            f"{where}: version {version!r}; this version of shell-envs reads version {VERSION}"
        )
    positions = data.get("positions")
    if not isinstance(positions, list) or not positions:
        raise ValueError(f'{where}: "positions" must be a non-empty list')
    stated = data.get("checksum")
    actual = checksum(positions)
    if stated != actual:
        raise ValueError(
            f"{where}: the checksum does not match its positions (the file says {stated!r}, "
            f"the positions give {actual!r}): the file was changed or damaged"
        )
    seen: dict[tuple, int] = {}
    for i, position in enumerate(positions):
        try:
            position_to_arrays(position)
            key = canonical(position)
        except ValueError as exc:
            raise ValueError(f"{where}: opening {i} is not a playable position: {exc}") from None
        if key in seen:
            raise ValueError(
                f"{where}: opening {i} repeats opening {seen[key]} (up to the board's "
                "symmetries and the colours)"
            )
        seen[key] = i
    return OpeningBook(
        positions=tuple(positions),
        version=version,
        checksum=actual,
        build=data.get("build", {}),
        balance=data.get("balance", {}),
        path=str(path),
    )
