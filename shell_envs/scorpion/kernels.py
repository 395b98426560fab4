"""One Scorpion game's part of a batched step, reset and check: the bodies both targets run.

The CPU batch loops (`shell_envs.scorpion.vector`) and the GPU kernels
(`shell_envs.scorpion.gpu`) call these functions on each game's arrays (its rows or columns,
views in any layout), so the CPU and the GPU play the same games; they call the rules
(`rules.step`, the deal), the encoders and the deal-number generator (`deals.next_deal`).
`STATE` says once what a game's state arrays are, and the infos' arrays are laid out here too.
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.cuda import StateArray
from shell_envs.core.jit import jit, jit_inline
from shell_envs.scorpion import deals
from shell_envs.scorpion import rules as engine
from shell_envs.scorpion.encoders import encode

__all__ = [
    "INFO_ARRAYS",
    "INFO_KEYS",
    "STATE",
    "as_infos",
    "check_game",
    "fill_infos",
    "info_arrays",
    "reset_game",
    "step_game",
]

INFO_KEYS = ("score", "removed", "moves", "won", "illegal", "code", "deal")
# the state arrays (tab, lens, fd, reserve, meta, hist), in the rule functions' order: one
# game's shape, dtype and fresh value, those of `rules.new_arrays`
STATE = tuple(
    StateArray(name, one.shape, one.dtype, one)
    for name, one in zip(
        ("tab", "lens", "fd", "reserve", "meta", "hist"), engine.new_arrays(), strict=True
    )  # fmt: skip
)


@jit
def _deal_number(s, number, rule, mask, allow_undo, cards):
    """Start game ``number`` in one game's arrays ``s`` and fill its mask; returns the legal
    count.

    ``cards`` (52) is scratch room for the shuffled deck.
    """
    engine.shuffled_deck(number, cards)
    engine.deal(s, cards, rule)
    return engine.legal_mask(s, allow_undo, mask)


@jit_inline
def reset_game(
    s: engine.StateArrays,
    rows: tuple[np.ndarray, np.ndarray, np.ndarray],
    number: int,
    rule: int,
    allow_undo: bool,
    kind: int,
) -> None:
    """Deal ``number`` in one game (its state arrays ``s`` and its ``rows``: mask,
    observation and 52 cards of scratch) and encode it (``kind`` < 0: a custom encoder,
    encoded outside)."""
    mask, obs, cards = rows
    _deal_number(s, number, rule, mask, allow_undo, cards)
    if kind >= 0:
        encode(kind, s, obs)


@jit_inline
def step_game(
    i: int,
    s: engine.StateArrays,
    rows: tuple[np.ndarray, np.ndarray, np.ndarray],
    action: int,
    settings: tuple[int, bool, int, bool, int, bool],
    draw: tuple[np.ndarray, np.ndarray, bool],
    steps: np.ndarray,
    autoreset: np.ndarray,
    numbers: np.ndarray,
) -> tuple[int, float, bool, bool]:
    """One game's part of a batch step: ``(code, reward, terminated, truncated)`` of playing
    ``action`` in game ``i`` (its state arrays ``s``, its ``rows``: mask, observation row and
    52 cards of scratch, and ``draw``: what `deals.next_deal` draws from, the game's
    generator, the pool and use_pool; views in any layout); ``steps``, ``autoreset`` and
    ``numbers`` are the batch's vectors, indexed by ``i``, and ``settings`` the batch's
    ``(rule, allow_undo, max_moves, win_reward, kind, fill_ended)``.

    A game flagged in ``autoreset`` is reset instead (its action is ignored, the result is
    ``(OK, 0, False, False)``), with its next deal number (drawn into ``numbers[i]``).
    ``autoreset[i]`` then says whether the game ended this step, and with ``fill_ended`` an
    ended game's mask is all True (autoreset "next_step": the next step ignores its action,
    so any will do, and a masked sampler needs at least one).  The CPU batch loop and the
    GPU kernel both run this function, so both play the same games.

    Only a game's own views and plain values come in tuples: in a parallel loop numba drops
    writes to an array it reaches through a tuple when the loop never reads that array again
    (parfor dead-code removal), so the batch's vectors come one by one.
    """
    rule, allow_undo, max_moves, win_reward, kind, fill_ended = settings
    mask, obs, _ = rows
    if autoreset[i]:
        gen, pool, use_pool = draw
        numbers[i] = deals.next_deal(gen, pool, use_pool)
        reset_game(s, rows, numbers[i], rule, allow_undo, kind)
        steps[i] = 0
        autoreset[i] = False
        return engine.OK, 0.0, False, False
    if 0 <= action < mask.shape[0]:
        code, points, n_legal = engine.step(s, action, allow_undo, mask)
    else:
        code, points = engine.E_OUT_OF_RANGE, 0
        n_legal = 0
        for j in range(mask.shape[0]):
            if mask[j]:
                n_legal += 1
    steps[i] += 1
    _, _, _, _, meta, _ = s
    won = engine.is_won(meta)
    if win_reward:
        reward = 1.0 if (won and code == engine.OK and action != engine.UNDO_ACTION) else 0.0
    else:
        reward = float(points)
    terminated = won or n_legal == 0
    truncated = (not terminated) and max_moves > 0 and steps[i] >= max_moves
    ended = terminated or truncated
    autoreset[i] = ended
    if ended and fill_ended:
        for j in range(mask.shape[0]):
            mask[j] = True
    if kind >= 0:
        encode(kind, s, obs)
    return code, reward, terminated, truncated


@jit_inline
def fill_infos(
    i: int,
    meta: np.ndarray,
    codes: np.ndarray,
    numbers: np.ndarray,
    counts: np.ndarray,
    flags: np.ndarray,
    code: np.ndarray,
    deal: np.ndarray,
) -> None:
    """Game ``i``'s infos (``meta`` its row): ``counts[:, i]`` score, removed and moves,
    ``flags[:, i]`` won and illegal, ``code[i]`` and ``deal[i]`` (`INFO_KEYS` in order)."""
    counts[0, i] = meta[engine.M_SCORE]
    counts[1, i] = meta[engine.M_REMOVED]
    counts[2, i] = meta[engine.M_MOVES]
    flags[0, i] = engine.is_won(meta)
    flags[1, i] = codes[i] != engine.OK
    code[i] = codes[i]
    deal[i] = numbers[i]


@jit_inline
def check_game(
    i: int,
    s: engine.StateArrays,
    actions: np.ndarray,
    allow_undo: bool,
    skip: np.ndarray,
    codes: np.ndarray,
) -> None:
    """``codes[i]``: the check code of game ``i``'s action (``s``: its state arrays;
    ``skip[i]``: the game is being reset, so its action does not count)."""
    a = actions[i]
    if skip[i]:
        codes[i] = engine.OK
    elif 0 <= a < (engine.N_ACTIONS_UNDO if allow_undo else engine.N_ACTIONS):
        codes[i] = engine.check_action(s, a, allow_undo)
    else:
        codes[i] = engine.E_OUT_OF_RANGE


INFO_ARRAYS = (((3,), np.int32), ((2,), np.bool_), ((), np.int64), ((), np.int64))


def info_arrays(n: int) -> tuple[np.ndarray, ...]:
    """Fresh arrays for ``n`` games' infos (`fill_infos` fills them; `INFO_ARRAYS`: rows and
    dtype of each): Gymnasium's contract is that a later step never writes what an earlier one
    returned."""
    return tuple(np.empty((*rows, n), dtype) for rows, dtype in INFO_ARRAYS)


def as_infos(counts: np.ndarray, flags: np.ndarray, code: np.ndarray, deal: np.ndarray) -> dict:
    """The infos dict of `fill_infos`'s arrays, keys in `INFO_KEYS` order."""
    return dict(zip(INFO_KEYS, (*counts, *flags, code, deal), strict=True))
