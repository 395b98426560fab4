"""Observation encoders for Scorpion: what an agent sees of a position.

An encoder has a ``space`` (a ``gymnasium.spaces.Space``) and ``encode(state)`` taking a
[`ScorpionState`][] and returning an element of that space.
It may also offer ``step(state, action, allow_undo, mask)`` that plays the action and encodes
in one compiled call (as the built-in ones do); the env then uses it on its hot path.
Face-down cards and reserve cards are never revealed by the built-in encoders.  Add your own
with [`register_encoder`][] and pick it with ``gym.make(..., obs_encoder="name")``; the env
calls the factory with no arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from shell_envs.core.encoders import EncoderRegistry
from shell_envs.core.jit import jit, jit_inline
from shell_envs.scorpion import rules
from shell_envs.scorpion.state import ScorpionState

ENCODERS = EncoderRegistry("Scorpion")

EMPTY = 0
FACE_DOWN = 53
LOC_HIDDEN = 7
LOC_REMOVED = 8

# where each encoding keeps what (read back by the players' views of an observation)
# "tableau": [c * MAX_DEPTH + d] the card at column c, depth d; the reserve count; removals
TABLEAU_CELLS = rules.N_COLUMNS * rules.MAX_DEPTH  # 364
TABLEAU_RESERVE = TABLEAU_CELLS  # 364: after every column's 52 depths
TABLEAU_REMOVED = TABLEAU_RESERVE + 1  # 365
TABLEAU_SIZE = TABLEAU_REMOVED + 1  # 366
# "cards": CARD_FIELDS numbers per card (location, depth, cards above, face up); then each
# column's face-down count, the reserve count and the sequences removed
CARD_LOCATION, CARD_DEPTH, CARD_ABOVE, CARD_FACE_UP = range(4)
CARD_FIELDS = 4
CARDS_FACE_DOWN = rules.N_CARDS * CARD_FIELDS  # 208: after 4 numbers per card, one per column
CARDS_RESERVE = CARDS_FACE_DOWN + rules.N_COLUMNS  # 215
CARDS_REMOVED = CARDS_RESERVE + 1  # 216
CARDS_SIZE = CARDS_REMOVED + 1  # 217
TABLEAU, CARDS = 0, 1  # the built-in encoders, by kind (`encode`)


@jit_inline
def encode_tableau(s: rules.StateArrays, out: np.ndarray) -> None:
    """Fill ``out`` (366) with the tableau view described by [`TableauEncoder`][].

    Every depth of every column is written with selects and no branches, which the compiler
    turns into a few vector instructions per column (it runs once per step of every game).
    """
    tab, lens, fd, _, meta, _ = s
    for c in range(rules.N_COLUMNS):
        base = c * rules.MAX_DEPTH
        down = int(fd[c])
        n = int(lens[c])
        for d in range(rules.MAX_DEPTH):
            face_up = tab[c, d] + 1 if d < n else EMPTY
            out[base + d] = FACE_DOWN if d < down else face_up
    out[TABLEAU_RESERVE] = 0 if meta[rules.M_RESERVE_DEALT] else 3
    out[TABLEAU_REMOVED] = meta[rules.M_REMOVED]


@jit
def encode_cards(s: rules.StateArrays, out: np.ndarray) -> None:
    """Fill ``out`` (217) with the per-card view described by [`CardsEncoder`][]."""
    tab, lens, fd, _, meta, _ = s
    for card in range(rules.N_CARDS):
        i = card * CARD_FIELDS
        out[i + CARD_LOCATION] = LOC_HIDDEN
        out[i + CARD_DEPTH] = 0
        out[i + CARD_ABOVE] = 0
        out[i + CARD_FACE_UP] = 0
    for slot in range(int(meta[rules.M_REMOVED])):
        suit = int(meta[rules.M_SLOTS + slot])
        for r in range(13):
            out[(suit * 13 + r) * CARD_FIELDS + CARD_LOCATION] = LOC_REMOVED
    for c in range(rules.N_COLUMNS):
        n = int(lens[c])
        for d in range(int(fd[c]), n):
            i = int(tab[c, d]) * CARD_FIELDS
            out[i + CARD_LOCATION] = c
            out[i + CARD_DEPTH] = d
            out[i + CARD_ABOVE] = n - 1 - d
            out[i + CARD_FACE_UP] = 1
        out[CARDS_FACE_DOWN + c] = fd[c]
    out[CARDS_RESERVE] = 0 if meta[rules.M_RESERVE_DEALT] else 3
    out[CARDS_REMOVED] = meta[rules.M_REMOVED]


@jit_inline
def encode(kind: int, s: rules.StateArrays, out: np.ndarray) -> None:
    """Encode one game (its state arrays ``s``) into ``out`` with the built-in encoder ``kind``
    (`TABLEAU` or `CARDS`)."""
    if kind == TABLEAU:
        encode_tableau(s, out)
    else:
        encode_cards(s, out)


@jit
def step_and_encode(
    s: rules.StateArrays,
    action: int,
    allow_undo: bool,
    mask: np.ndarray,
    kind: int,
    out: np.ndarray,
) -> tuple[int, int, int]:
    """`rules.step`, then `encode` with the built-in encoder ``kind``, in one compiled call
    (the single env's hot path); returns ``(code, score change, legal count)``."""
    result = rules.step(s, action, allow_undo, mask)
    encode(kind, s, out)
    return result


class _CompiledEncoder:
    """A built-in encoder: ``encode`` and the fused ``step`` are compiled functions of the rule
    arrays, told apart by ``kind``."""

    kind: int  # TABLEAU or CARDS
    size: int  # length of the encoding
    space: spaces.Box
    fused_step = staticmethod(step_and_encode)

    def encode(self, state: ScorpionState) -> np.ndarray:
        """The encoding of ``state``."""
        out = np.empty(self.size, np.int8)
        encode(self.kind, state.arrays, out)
        return out

    def step(
        self, state: ScorpionState, action: int, allow_undo: bool, mask: np.ndarray
    ) -> tuple[int, int, int, np.ndarray]:
        """Play a checked ``action`` and encode the result: ``(code, points, n_legal, obs)``."""
        out = np.empty(self.size, np.int8)
        code, points, n_legal = step_and_encode(
            state.arrays, action, allow_undo, mask, self.kind, out
        )
        return code, points, n_legal, out


class TableauEncoder(_CompiledEncoder):
    """The table as a person sees it: ``Box(0, 53, (366,), int8)``.

    Features, in order:

    - ``[c * 52 + d]`` for column ``c`` (0–6) and depth ``d`` (0 = bottom, up to 51):
      ``0`` empty, ``1``–``52`` the face-up card with index ``value - 1``
      (index = suit * 13 + rank - 1, suits S, H, D, C), ``53`` a face-down card.
    - ``[364]`` cards still in the reserve (3 or 0); their identity is hidden.
    - ``[365]`` sequences removed to the slots (0–4).
    """

    def __init__(self) -> None:
        high = np.full(TABLEAU_SIZE, FACE_DOWN, np.int8)
        high[TABLEAU_RESERVE] = 3
        high[TABLEAU_REMOVED] = 4
        self.space = spaces.Box(0, high, (TABLEAU_SIZE,), np.int8)

    kind = TABLEAU
    size = TABLEAU_SIZE


class CardsEncoder(_CompiledEncoder):
    """Where every card is: ``Box(0, high, (217,), int8)``.

    Features, in order:

    - ``[i * 4 + 0..3]`` for card index ``i`` (suit * 13 + rank - 1, suits S, H, D, C):
      ``location`` (0–6 the column of a face-up card, 7 hidden: face down or in the reserve,
      8 removed with its sequence), ``depth`` (0 = bottom of its column; 0 when not face up),
      ``above`` (cards on top of it, i.e. the block it carries minus one; 0 when not face up)
      and ``face_up`` (1 or 0).
    - ``[208 + c]`` face-down cards in column ``c`` (0–3).
    - ``[215]`` cards still in the reserve (3 or 0).
    - ``[216]`` sequences removed to the slots (0–4).
    """

    def __init__(self) -> None:
        high = np.zeros(CARDS_SIZE, np.int8)
        high[0:CARDS_FACE_DOWN:4] = LOC_REMOVED
        high[1:CARDS_FACE_DOWN:4] = 51
        high[2:CARDS_FACE_DOWN:4] = 51
        high[3:CARDS_FACE_DOWN:4] = 1
        high[CARDS_FACE_DOWN:CARDS_RESERVE] = 3
        high[CARDS_RESERVE] = 3
        high[CARDS_REMOVED] = 4
        self.space = spaces.Box(0, high, (CARDS_SIZE,), np.int8)

    kind = CARDS
    size = CARDS_SIZE


def register_encoder(name: str, factory: Callable[[], Any], *, overwrite: bool = False) -> None:
    """Make ``obs_encoder=name`` available; ``factory()`` returns a ``space``/``encode`` object."""
    ENCODERS.register(name, factory, overwrite=overwrite)


register_encoder("tableau", TableauEncoder)
register_encoder("cards", CardsEncoder)
