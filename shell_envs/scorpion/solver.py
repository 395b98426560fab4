"""Exact solver for full-information ("thoughtful") Scorpion: it sees every hidden card.

A solve spends one node budget (a node is a position met for the first time) in two phases
over the same compiled move generator:

1. *Probes* look for a win (Relaxed: 90% of the budget; Classic: none, see PROBE_SHARE).
   Each is a greedy best-first search of ``PROBE_NODES`` nodes that expands the open
   position of best `evaluate` (removed sequences, face-down cards, runs built on
   kings, same-suit links, empty columns).  The first probe follows the evaluation alone;
   every later one adds a noise drawn from the position's hash and the probe number, so
   restarts explore differently but deterministically.  A probe whose open list empties has
   seen every reachable position: a proof of loss.
2. The *exhaustive search*, a depth-first search with an explicit stack, proves losses.  A
   transposition table (open addressing over 64-bit canonical Zobrist hashes, growing as it
   fills) holds every position met, so none is searched twice; because the question is
   plain reachability of a won position, exhausting it without a win proves the deal lost.
   (Two positions with one 64-bit hash would be merged: for 20 million nodes the chance is
   about 1 in 100,000; every verdict can be re-checked, see below.)

The prunings (each can be switched off, ``solve(..., disable=[...])``, see PRUNINGS) never
make a winnable position lost.  Two facts of these rules carry the arguments: under Classic a
card moves as the first card of a block only onto its successor (a king: onto an empty
column), and a complete sequence is removed only when its column *receives* cards, so one
uncovered by moving cards off it, or formed under other cards and then uncovered, stays
standing; nothing can be placed on its ace, so it leaves only when it is moved (its king to
an empty column, or a card under the king carrying it), and then it is removed at once.

- ``symmetry``: the hash ignores the order of interchangeable columns (columns 4–7 before the
  reserve deal, all seven after it; columns 1–3 differ before the deal because each receives
  its own reserve card).  Permuting such columns permutes the legal moves and the receiving
  columns alike, so positions that differ by the permutation are won or lost together.
- ``king_base``: a whole column (a face-up king at its bottom) moved to an interchangeable
  empty column gives the same position with two columns swapped, so it is not generated;
  *except* when the column's top 13 cards are a complete sequence, which the receiving column
  then removes.  (The earlier rule skipped that move too, and lost every win that needs it:
  a standing sequence on a king at the bottom of its column can only be removed so.)
- ``king_one_empty``: a king goes to one of several interchangeable empty columns (the
  results are the same position up to that permutation).
- dead positions get no moves: Classic ``cyclic`` (`_cyclic`: moves every win needs
  must wait for each other in a cycle, or a face-down card lies under its own predecessor);
  Relaxed ``stuck`` (`_stuck`: face-down cards whose blockers can never move) and
  ``starved`` (`_starved_card`: a card that must move finds every card one rank higher
  taken).  Each docstring says why; [`dead_reason`][] says which cards, for a player.
- ``safe_move`` (Classic, reserve dealt, `_safe_move`): a non-king card ``X`` whose
  column holds, from ``X`` up to its top, a same-suit run down to the ace, goes onto ``X + 1``
  (a top card elsewhere) as the only child.

Why the safe move keeps every win.  Let M be that move and L a winning line.  ``X`` is not on
``X + 1`` and must lie on it when its suit is removed, so M is in L (under Classic only M puts
``X`` there).  Play M first and then L without M.  Before M in L, the block ``B`` of ``X`` (the
run down to the ace) is inert: nothing lands on an ace, and each card of ``B`` lies on its
successor, the one place it could move to.  So the moves of L before M touch ``B`` only by
carrying it (the card ``Y`` under ``X``, or one lower, moves and ``B`` rides along), and after
M they do the same without ``B``; every move stays legal, since legality depends only on the
block's first card and the destination's top, and no top changes except where ``B`` lay (an
ace, which receives nothing) and on ``X + 1``, on which nothing but ``X`` can be placed (a
card lying under ``X + 1`` that carries it moves onto its own successor, not onto ``B``).
Removals: ``B`` holds no king, so it never holds a complete sequence of its own, and a
complete sequence needs ``X`` on ``X + 1``; the receiving checks of L that see ``B`` on top
therefore remove nothing, and M removes in both lines whatever it completes.  What M does
early is uncover the card under ``X`` (or empty the column) sooner, which only adds moves,
and perhaps remove a sequence sooner (a carry of ``X + 1``, now with ``B`` on it, or of ``Y``,
now without ``B``, can complete one where it lands, which L completes under ``B`` or at M):
such a sequence would only stand in L until moved, and a standing sequence is only ever
moved and then removed at once, so every later move of L keeps an equal or no counterpart.
So after M a win of at most ``|L| - 1`` moves remains, and by induction on the length of the
shortest win the pruned search still reaches a win.  Relaxed has no safe move: a card can
leave its successor.  (A second rule, ``X`` carrying any cards onto a king-based same-suit run
ending in ``X + 1``, was dropped: its block can hold a complete sequence left standing, which
only moving ``X`` onto ``X + 1`` later would remove, so playing it early can lose the win.)

The independent check: `shell_envs.scorpion.reference` is a plain engine and exhaustive
search written from the rules alone; the tests run it against the solver (every pruning and
each one switched off) on positions along winning lines, constructed end games and random
play, and check that the solver's own move generator with every pruning off makes exactly
the reference's moves.  ``shell-envs solve --check`` re-checks any one verdict, and
``benchmarks/scorpion_soundness.py`` re-checks the shipped ones.
The search runs in node quotas and keeps its stack between calls, so a clock can stop it
while a node budget alone keeps verdicts deterministic.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from shell_envs.core.jit import jit
from shell_envs.scorpion import reference, rules
from shell_envs.scorpion.cards import card_code
from shell_envs.scorpion.messages import action_text
from shell_envs.scorpion.state import ScorpionState, check_deal, check_layout

RULES = ("classic", "relaxed")
DEFAULT_MAX_NODES = 2_000_000
MAX_NODES_LIMIT = 10**12  # far beyond any memory: a search keeps 8 bytes per node
QUOTA_WITH_CLOCK = 200_000
MAX_DEPTH = 16_384
MAX_BRANCH = 64

# prunings, each switchable for the differential tests (solve(..., disable=...))
P_SYMMETRY = 1  # interchangeable columns hash alike
P_KING_BASE = 2  # a whole column does not move between interchangeable columns
P_KING_ONE_EMPTY = 4  # a king goes to one of several interchangeable empty columns
P_CYCLIC = 8  # Classic dead positions: moves that wait for each other
P_STUCK = 16  # Relaxed dead positions: blocked columns
P_STARVED = 32  # Relaxed dead positions: a card that finds no free card one rank higher
P_SAFE_MOVE = 64  # Classic, reserve dealt: a move played as the only child
PRUNINGS = {
    "symmetry": P_SYMMETRY,
    "king_base": P_KING_BASE,
    "king_one_empty": P_KING_ONE_EMPTY,
    "cyclic": P_CYCLIC,
    "stuck": P_STUCK,
    "starved": P_STARVED,
    "safe_move": P_SAFE_MOVE,
}
PRUNE_ALL = sum(PRUNINGS.values())

WON = "won"
LOST = "lost"
UNKNOWN = "unknown"

# layout of one compact position row (int8)
ROW = 384
O_LENS = 364
O_FD = 371
O_RES = 378
O_REMOVED = 381
O_DEALT = 382

# control fields
C_DEPTH = 0
C_NODES = 1
C_STATUS = 2
C_OVERFLOW = 3
C_MAXDEPTH = 4
S_RUNNING = 0
S_WON = 1
S_LOST = 2

# best-first probes: a compact position is PACK bytes (cards, then the 20 bytes from O_LENS)
PACK = 72
PROBE_NODES = 1000  # nodes of one probe
PROBE_NOISE = 640  # noise amplitude of the later probes, in 1/64 of an evaluation point
# share of the node budget for the probes: Classic deals are mostly lost (often provably so
# at the root) and its ordered exhaustive search finds the wins quickly, so it skips them
PROBE_SHARE = {"classic": 0.0, "relaxed": 0.9}
TABLE_MIN_BITS = 16  # the exhaustive search's table starts at 2**16 slots (less for small budgets)

# evaluation weights: removed sequence, reserve not dealt (penalty), face-down card (penalty),
# empty column, king at the base of a column, card of the same-suit run on such a king,
# card on its same-suit successor
EVAL_WEIGHTS = np.array([100, 3, 6, 4, 3, 3, 6], np.int64)

_M1 = -4658895280553007687  # 0xBF58476D1CE4E5B9
_M2 = -7723592293110705685  # 0x94D049BB133111EB
_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15


def _zobrist() -> np.ndarray:
    """Fixed random keys: 52 depths × 52 cards, 4 face-down counts, then 7 column salts."""
    return np.random.default_rng(0x5C0F).integers(-(2**63), 2**63 - 1, 52 * 52 + 11, np.int64)


ZOBRIST = _zobrist()


@jit
def _mix(x):
    """splitmix64 finaliser on wrapping int64 arithmetic."""
    x = (x ^ ((x >> 30) & 0x3FFFFFFFF)) * _M1
    x = (x ^ ((x >> 27) & 0x1FFFFFFFFF)) * _M2
    return x ^ ((x >> 31) & 0x1FFFFFFFF)


@jit
def position_hash(row, z, prune):
    """Canonical hash: interchangeable columns are combined by an order-free sum (every column
    is salted with its number when P_SYMMETRY is off, so only identical positions meet)."""
    dealt = row[O_DEALT] != 0
    exact = (prune & P_SYMMETRY) == 0
    h = np.int64(1) if dealt else np.int64(2)
    for c in range(7):
        n = int(row[O_LENS + c])
        k = z[2704 + int(row[O_FD + c])]
        base = c * 52
        for d in range(n):
            k ^= z[d * 52 + int(row[base + d])]
        if exact or (not dealt and c < 3):
            k += z[2708 + c]
        h += _mix(k + _GOLDEN)
    return h if h != 0 else np.int64(1)


@jit
def tt_insert(table, h):
    """Insert ``h`` into the open-addressing set; False when it was already there."""
    mask = table.shape[0] - 1
    i = _mix(h) & mask
    while True:
        v = table[i]
        if v == h:
            return False
        if v == 0:
            table[i] = h
            return True
        i = (i + 1) & mask


@jit
def load_row(row, tab, lens, fd, reserve, meta):
    """Copy an engine state into a compact row."""
    row[:] = 0
    for c in range(7):
        n = int(lens[c])
        for d in range(n):
            row[c * 52 + d] = tab[c, d]
        row[O_LENS + c] = n
        row[O_FD + c] = fd[c]
    for i in range(3):
        row[O_RES + i] = reserve[i]
    row[O_REMOVED] = meta[rules.M_REMOVED]
    row[O_DEALT] = 1 if meta[rules.M_RESERVE_DEALT] != 0 else 0


@jit
def _complete(row, col):
    """Whether the top 13 cards of ``col`` are one suit, king to ace, face up."""
    n = int(row[O_LENS + col])
    if n - int(row[O_FD + col]) < 13:
        return False
    base = col * 52
    ace = int(row[base + n - 1])
    if ace % 13 != 0:
        return False
    for i in range(1, 13):
        if int(row[base + n - 1 - i]) != ace + i:
            return False
    return True


@jit
def _settle(row, col):
    """Remove complete sequences from the top of ``col``, flipping what they uncover."""
    while _complete(row, col):
        n = int(row[O_LENS + col]) - 13
        row[O_LENS + col] = n
        row[O_REMOVED] += 1
        if n > 0 and row[O_FD + col] == n:
            row[O_FD + col] = n - 1


@jit
def apply_packed(row, m):
    """Play packed move ``m`` (action + 512 * (source + 8 * depth)) on a compact row."""
    action = m & 511
    if action == rules.RESERVE_ACTION:
        for c in range(3):
            n = int(row[O_LENS + c])
            row[c * 52 + n] = row[O_RES + c]
            row[O_LENS + c] = n + 1
            row[O_RES + c] = -1
        row[O_DEALT] = 1
        for c in range(3):
            _settle(row, c)
        return
    dest = action % 7
    src = (m >> 9) & 7
    start = m >> 12
    n_src = int(row[O_LENS + src])
    n = int(row[O_LENS + dest])
    for i in range(n_src - start):
        row[dest * 52 + n + i] = row[src * 52 + start + i]
    row[O_LENS + dest] = n + n_src - start
    row[O_LENS + src] = start
    if start > 0 and row[O_FD + src] == start:
        row[O_FD + src] = start - 1
    _settle(row, dest)


@jit
def _run_length(row, col):
    """Length of the same-suit descending run at the top of ``col`` (face-up cards only)."""
    n = int(row[O_LENS + col])
    lo = int(row[O_FD + col])
    if n == 0:
        return 0
    k = 1
    base = col * 52
    while n - 1 - k >= lo and int(row[base + n - 1 - k]) == int(row[base + n - k]) + 1:
        k += 1
    return k


@jit
def _safe_move(row, owner):
    """A same-suit move that can be played at once without losing a win, or -1 (Classic, dealt).

    A non-king card ``X`` goes onto ``X + 1``, a top card, when the cards above ``X`` form a
    same-suit run from ``X`` down to the ace.  The module notes prove that this never loses a
    win.
    """
    for c in range(7):
        n = int(row[O_LENS + c])
        if n == 0:
            continue
        top = int(row[c * 52 + n - 1])
        if top % 13 != 0:
            continue
        lo = int(row[O_FD + c])
        base = c * 52
        d = n - 1
        while d > lo:
            card = int(row[base + d])
            if card % 13 == 12 or int(row[base + d - 1]) != card + 1:
                break
            d -= 1
        card = int(row[base + d])
        if card % 13 != 12 and owner[card + 1] >= 0:
            return card * 7 + int(owner[card + 1]) + 512 * (c + 8 * d)
    return -1


@jit
def _waits(row, wait_a, wait_b, done):
    """Classic: the waits of `_cyclic`; returns a face-down card lying under its own
    predecessor (never uncovered), else -1, and marks ``done`` the cards whose move can come
    in some order (``wait_a``: the card on ``Z + 1``; ``wait_b``: the card on a face-down ``Z``).
    """
    where = np.full(52, -1, np.int64)
    for c in range(7):
        for d in range(int(row[O_LENS + c])):
            where[int(row[c * 52 + d])] = c * 64 + d
    wait_a[:] = -1
    wait_b[:] = -1
    for c in range(7):
        lo = int(row[O_FD + c])
        n = int(row[O_LENS + c])
        base = c * 52
        for d in range(n):
            card = int(row[base + d])
            if d < lo:
                up = int(row[base + d + 1])
                if up % 13 != 12 and up + 1 == card:
                    return card
            if card % 13 == 12 or (d > 0 and int(row[base + d - 1]) == card + 1):
                continue
            w = where[card + 1]
            if w >= 0 and w % 64 + 1 < int(row[O_LENS + w // 64]):
                on = int(row[(w // 64) * 52 + w % 64 + 1])
                if on != card and on % 13 != 12:
                    wait_a[card] = on
            if d < lo and int(row[base + d + 1]) % 13 != 12:
                wait_b[card] = int(row[base + d + 1])
    for card in range(52):
        done[card] = where[card] < 0
    changed = True
    while changed:
        changed = False
        for card in range(52):
            if done[card]:
                continue
            a = wait_a[card]
            b = wait_b[card]
            if (a < 0 or done[a]) and (b < 0 or done[b]):
                done[card] = True
                changed = True
    return -1


@jit
def _cyclic(row):
    """Classic: whether the moves every win still needs must wait for each other in a cycle.

    A non-king card ``Z`` not on its successor must still make its one move, onto ``Z + 1``
    (under Classic nothing else puts it there); before it, the card directly on ``Z + 1`` must
    have moved (it leaves ``Z + 1`` only as the first card of a move, since ``Z + 1`` carries it
    along), and a face-down ``Z`` must have been uncovered, so the card directly on it must have
    moved.  A face-down card under its own predecessor is never uncovered: the predecessor can
    only move onto it.  Cards in the reserve wait for nothing here (fewer waits, fewer proofs).
    """
    wait_a = np.empty(52, np.int64)
    wait_b = np.empty(52, np.int64)
    done = np.empty(52, np.bool_)
    if _waits(row, wait_a, wait_b, done) >= 0:
        return True
    for card in range(52):
        if not done[card]:
            return True
    return False


@jit
def _blocked(row, blocked):
    """Relaxed: mark ``blocked`` the columns of `_stuck`; returns how many there are."""
    hidden = np.full(52, -1, np.int64)
    present = np.zeros(52, np.bool_)
    for c in range(7):
        lo = int(row[O_FD + c])
        for d in range(int(row[O_LENS + c])):
            card = int(row[c * 52 + d])
            present[card] = True
            if d < lo:
                hidden[card] = c
    for i in range(3):
        if row[O_RES + i] >= 0:
            present[int(row[O_RES + i])] = True
    n_blocked = 0
    for c in range(7):
        lo = int(row[O_FD + c])
        blocked[c] = lo > 0 and int(row[c * 52 + lo]) % 13 != 12
        n_blocked += 1 if blocked[c] else 0
    changed = True
    while changed and n_blocked > 0:
        changed = False
        for c in range(7):
            if not blocked[c]:
                continue
            card = int(row[c * 52 + int(row[O_FD + c])])
            for s in range(4):
                target = s * 13 + card % 13 + 1
                if present[target] and (hidden[target] < 0 or not blocked[hidden[target]]):
                    blocked[c] = False
                    n_blocked -= 1
                    changed = True
                    break
    return n_blocked


@jit
def _stuck(row):
    """Relaxed: whether some columns' face-down cards can never be uncovered.

    A column is *blocked* when its lowest face-up card ``X`` is not a king and every card one
    rank higher than ``X`` is gone or face down in a blocked column; the blocked set is the
    greatest fixed point of that definition.  Only ``X`` can uncover its column (the cards
    under it are face down, so it moves only as the first card of a block), and it needs a
    card one rank higher on a top, so the first blocker to move would need a card that is
    still face down in a column whose blocker has not moved: none ever moves, and the
    face-down cards of blocked columns are never removed.
    """
    blocked = np.empty(7, np.bool_)
    return _blocked(row, blocked) > 0


@jit
def _rank_mask(row, rank, c, lo_depth, hi_depth):
    """Suit bits of the cards of ``rank`` at depths ``lo_depth`` … ``hi_depth`` of column ``c``."""
    mask = 0
    for d in range(lo_depth, hi_depth + 1):
        card = int(row[c * 52 + d])
        if card % 13 == rank:
            mask |= 1 << (card // 13)
    return mask


@jit
def _starved(row):
    """Relaxed: whether a card that must move can never find a free card one rank higher
    (`_starved_card`)."""
    return _starved_card(row) >= 0


@jit
def _starved_card(row):
    """Relaxed: the card (``column * 64 + depth``) that can never move, else -1.

    A card ``X`` directly on a face-down card must move one day (nothing else uncovers that
    card), onto a top card ``Y`` one rank higher outside its column; the cards over ``X`` move
    before it.  At that time every other card of ``X``'s rank that lies on a card one rank
    higher, or has moved, still lies on one (or is removed with the one of its suit): each
    takes a different card of rank ``Y`` away.  ``Y`` itself is a top card then, so the cards
    over it have moved too.  If every choice of ``Y`` and of the taken cards needs more takers
    than it has places, ``X`` never moves and the position is lost.
    """
    where = np.full(52, -1, np.int64)
    for c in range(7):
        for d in range(int(row[O_LENS + c])):
            where[int(row[c * 52 + d])] = c * 64 + d
    for i in range(3):
        if row[O_RES + i] >= 0:
            where[int(row[O_RES + i])] = 7 * 64
    cand = np.empty(4, np.int64)
    rel = np.empty(4, np.int64)
    home = np.empty(4, np.int64)
    for c in range(7):
        lo = int(row[O_FD + c])
        base = c * 52
        for i in range(lo):
            x = int(row[base + i + 1])
            if x % 13 == 12:
                continue
            rank = x % 13
            forced = _rank_mask(row, rank, c, i + 2, lo) if i + 1 < lo else 0
            n = 0
            for s in range(4):
                y = s * 13 + rank + 1
                w = where[y]
                if w < 0 or (w // 64 == c and w % 64 <= i):
                    continue
                cand[n] = y
                home[n] = 0
                rel[n] = 0
                if w < 7 * 64:
                    c2 = w // 64
                    d2 = w % 64
                    n2 = int(row[O_LENS + c2])
                    if d2 + 1 < n2:
                        on = int(row[c2 * 52 + d2 + 1])
                        if on % 13 == rank:
                            home[n] = 1 << (on // 13)
                            forced |= home[n]
                        top = max(d2 + 1, int(row[O_FD + c2]))
                        rel[n] = _rank_mask(row, rank, c2, d2 + 1, top)
                n += 1
            forced &= ~(1 << (x // 13))
            possible = False
            for k in range(n):
                for subset in range(1 << n):
                    if subset & (1 << k):
                        continue
                    need = forced | rel[k]
                    places = 0
                    for j in range(n):
                        if subset & (1 << j):
                            places += 1
                            if home[j] == 0:
                                need |= rel[j]
                    need &= ~(1 << (x // 13))
                    bits = 0
                    for s in range(4):
                        bits += (need >> s) & 1
                    if bits <= places:
                        possible = True
                        break
                if possible:
                    break
            if not possible:
                return c * 64 + i + 1
    return -1


@jit
def gen_moves(row, relaxed, prune, out, scores):
    """Write the ordered, symmetry-reduced moves of ``row`` into ``out``; returns how many.

    A dead position (Classic `_cyclic`; Relaxed `_stuck`, `_starved`) gets
    no moves: it cannot be won.  ``prune`` holds the P_* bits of the prunings in force.
    """
    k = 0
    if row[O_REMOVED] == 4:
        return 0
    if relaxed:
        if (prune & P_STUCK) and _stuck(row):
            return 0
        if (prune & P_STARVED) and _starved(row):
            return 0
    elif (prune & P_CYCLIC) and _cyclic(row):
        return 0
    owner = np.full(52, -1, np.int64)
    empty = np.empty(7, np.int64)
    n_empty = 0
    for c in range(7):
        n = int(row[O_LENS + c])
        if n > 0:
            owner[int(row[c * 52 + n - 1])] = c
        else:
            empty[n_empty] = c
            n_empty += 1
    dealt = row[O_DEALT] != 0
    if dealt and not relaxed and (prune & P_SAFE_MOVE):
        safe = _safe_move(row, owner)
        if safe >= 0:
            out[0] = safe
            return 1
    for c in range(7):
        lo = int(row[O_FD + c])
        n = int(row[O_LENS + c])
        base = c * 52
        for d in range(lo, n):
            card = int(row[base + d])
            rank = card % 13
            bonus = 0
            if d == lo and lo > 0:
                bonus += 1000
            below = int(row[base + d - 1]) if d > lo else -1
            if below == card + 1:
                bonus -= 2000
            if rank == 12:
                # a whole column moved between interchangeable columns is a relabelling,
                # unless its top is a complete sequence: the move removes it
                relabel = d == 0 and (prune & P_KING_BASE) != 0 and not _complete(row, c)
                rep = False
                for e in range(n_empty):
                    dest = empty[e]
                    if dealt or dest >= 3:
                        if relabel and (dealt or c >= 3):
                            continue
                        if rep and (prune & P_KING_ONE_EMPTY):
                            continue
                        rep = True
                    out[k] = card * 7 + dest + 512 * (c + 8 * d)
                    scores[k] = bonus + (100 if d > 0 else 0) + (n - d)
                    k += 1
                continue
            for s in range(4):
                if not relaxed and s != card // 13:
                    continue
                o = int(owner[s * 13 + rank + 1])
                if o < 0 or o == c:
                    continue
                sc = bonus + 10 * _run_length(row, o)
                if s == card // 13:
                    sc += 200
                if d == 0:
                    sc += 300
                out[k] = card * 7 + o + 512 * (c + 8 * d)
                scores[k] = sc
                k += 1
    if not dealt:
        out[k] = rules.RESERVE_ACTION
        scores[k] = -5000
        k += 1
    for i in range(1, k):
        m = out[i]
        s = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < s:
            out[j + 1] = out[j]
            scores[j + 1] = scores[j]
            j -= 1
        out[j + 1] = m
        scores[j + 1] = s
    return k


@jit
def evaluate(row, w):
    """Heuristic value of a full-information position (weights ``w``, see EVAL_WEIGHTS)."""
    v = w[0] * int(row[O_REMOVED])
    if row[O_DEALT] == 0:
        v -= w[1]
    for c in range(7):
        n = int(row[O_LENS + c])
        lo = int(row[O_FD + c])
        v -= w[2] * lo
        if n == 0:
            v += w[3]
            continue
        base = c * 52
        if lo == 0 and int(row[base]) % 13 == 12:
            d = 1
            while d < n and int(row[base + d]) == int(row[base + d - 1]) - 1:
                d += 1
            v += w[4] + w[5] * d
        for d in range(lo + 1, n):
            below = int(row[base + d - 1])
            if int(row[base + d]) + 1 == below and below % 13 != 0:
                v += w[6]
    return v


@jit
def pack_row(row, store, i):
    """Store ``row`` compactly as ``store[i]``: the cards column by column, then the counts."""
    k = 0
    for c in range(7):
        for d in range(int(row[O_LENS + c])):
            store[i, k] = row[c * 52 + d]
            k += 1
    for j in range(PACK - 52):
        store[i, 52 + j] = row[O_LENS + j]


@jit
def unpack_row(store, i, row):
    """Expand ``store[i]`` back into a full row (the inverse of `pack_row`)."""
    for j in range(PACK - 52):
        row[O_LENS + j] = store[i, 52 + j]
    k = 0
    for c in range(7):
        for d in range(int(row[O_LENS + c])):
            row[c * 52 + d] = store[i, k]
            k += 1


@jit
def _heap_push(keys, vals, size, key, val):
    """Push onto the binary max-heap ``keys``/``vals`` of ``size`` entries; returns the size."""
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if keys[p] >= key:
            break
        keys[i] = keys[p]
        vals[i] = vals[p]
        i = p
    keys[i] = key
    vals[i] = val
    return size + 1


@jit
def _heap_pop(keys, vals, size):
    """Remove the largest entry of the max-heap; returns its value (the size drops by one)."""
    top = vals[0]
    size -= 1
    key = keys[size]
    val = vals[size]
    i = 0
    while True:
        j = 2 * i + 1
        if j >= size:
            break
        if j + 1 < size and keys[j + 1] > keys[j]:
            j += 1
        if keys[j] <= key:
            break
        keys[i] = keys[j]
        vals[i] = vals[j]
        i = j
    keys[i] = key
    vals[i] = val
    return top


@jit
def probe(
    root, relaxed, prune, budget, salt, noise, w, z, table, store, parent, pmove, keys, vals, line
):
    """Greedy best-first search from ``root`` for at most ``budget`` new positions.

    Positions are expanded best `evaluate` first (plus a deterministic noise of up to
    ``noise`` / 64 points drawn from the position's hash and ``salt``, so that each probe
    explores differently; ties go to the newest).  Returns ``(status, nodes, moves)``: on a
    win ``line[:moves]`` holds the packed moves from the root; S_LOST means the reachable
    space is exhausted (the probe uses the same moves as the exhaustive search).
    """
    row = np.empty(ROW, np.int8)
    child = np.empty(ROW, np.int8)
    moves = np.empty(MAX_BRANCH, np.int64)
    scores = np.empty(MAX_BRANCH, np.int64)
    table[:] = 0
    tt_insert(table, position_hash(root, z, prune))
    pack_row(root, store, 0)
    parent[0] = -1
    size = _heap_push(keys, vals, 0, np.int64(0), 0)
    nodes = 1
    while size > 0:
        idx = _heap_pop(keys, vals, size)
        size -= 1
        unpack_row(store, idx, row)
        k = gen_moves(row, relaxed, prune, moves, scores)
        for i in range(k):
            if nodes >= budget:
                return S_RUNNING, nodes, 0
            child[:] = row
            apply_packed(child, moves[i])
            if child[O_REMOVED] == 4:
                n = 0
                line[n] = moves[i]
                j = idx
                while j > 0:
                    n += 1
                    line[n] = pmove[j]
                    j = parent[j]
                for a in range((n + 1) // 2):
                    t = line[a]
                    line[a] = line[n - a]
                    line[n - a] = t
                return S_WON, nodes, n + 1
            h = position_hash(child, z, prune)
            if not tt_insert(table, h):
                continue
            jitter = ((_mix(h + salt) >> 8) & 0xFFFFFF) % noise if noise > 0 else 0
            pack_row(child, store, nodes)
            parent[nodes] = idx
            pmove[nodes] = moves[i]
            key = ((evaluate(child, w) * 64 + jitter) << 32) + nodes
            size = _heap_push(keys, vals, size, key, nodes)
            nodes += 1
    return S_LOST, nodes, 0


@jit
def tt_rehash(old, new):
    """Insert every hash of the table ``old`` into the (larger, empty) table ``new``."""
    for i in range(old.shape[0]):
        if old[i] != 0:
            tt_insert(new, old[i])


@jit
def search_init(stack, moves, n_moves, next_move, ctl, table, z, relaxed, prune):
    """Start a search from ``stack[0]``: record the root and its moves."""
    scores = np.empty(MAX_BRANCH, np.int64)
    ctl[:] = 0
    tt_insert(table, position_hash(stack[0], z, prune))
    ctl[C_NODES] = 1
    if stack[0, O_REMOVED] == 4:
        ctl[C_STATUS] = S_WON
        return
    n_moves[0] = gen_moves(stack[0], relaxed, prune, moves[0], scores)
    next_move[0] = 0


@jit
def search_run(stack, moves, n_moves, next_move, ctl, table, z, relaxed, prune, quota):
    """Continue the depth-first search for at most ``quota`` new nodes; updates ``ctl``."""
    scores = np.empty(MAX_BRANCH, np.int64)
    depth = int(ctl[C_DEPTH])
    nodes = int(ctl[C_NODES])
    stop = nodes + quota
    max_depth = stack.shape[0] - 1
    while depth >= 0:
        i = int(next_move[depth])
        if i >= n_moves[depth]:
            depth -= 1
            continue
        next_move[depth] = i + 1
        child = stack[depth + 1]
        child[:] = stack[depth]
        apply_packed(child, moves[depth, i])
        if child[O_REMOVED] == 4:
            ctl[C_DEPTH] = depth + 1
            ctl[C_NODES] = nodes
            ctl[C_STATUS] = S_WON
            return
        if not tt_insert(table, position_hash(child, z, prune)):
            continue
        nodes += 1
        depth += 1
        if depth > ctl[C_MAXDEPTH]:
            ctl[C_MAXDEPTH] = depth
        if depth >= max_depth:
            ctl[C_OVERFLOW] = 1
            n_moves[depth] = 0
        else:
            n_moves[depth] = gen_moves(child, relaxed, prune, moves[depth], scores)
        next_move[depth] = 0
        if nodes >= stop:
            ctl[C_DEPTH] = depth
            ctl[C_NODES] = nodes
            return
    ctl[C_DEPTH] = -1
    ctl[C_NODES] = nodes
    ctl[C_STATUS] = S_LOST


@dataclass
class SolveResult:
    """A verdict with its proof of work: ``moves`` are env actions that replay to a win, and
    ``reason`` says why a position lost before any search is dead (empty otherwise)."""

    verdict: str
    moves: list[int] = field(default_factory=list)
    readable: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    max_depth: int = 0
    reason: str = ""

    @property
    def won(self) -> bool:
        """Whether the deal was proven winnable."""
        return self.verdict == WON


def _initial_state(deal_or_seed: object, relaxed: bool) -> ScorpionState:
    """The state a solve starts from: a deal number, 52 card codes, a ``position()``-style dict
    or a ScorpionState."""
    if isinstance(deal_or_seed, ScorpionState):
        check_layout(deal_or_seed.arrays)  # compiled search must never read outside an array
        return deal_or_seed
    if isinstance(deal_or_seed, Mapping):
        return ScorpionState.from_position(deal_or_seed, relaxed)
    if isinstance(deal_or_seed, (int, np.integer)) and not isinstance(deal_or_seed, bool):
        return ScorpionState.from_number(int(deal_or_seed), relaxed)
    if isinstance(deal_or_seed, Sequence | np.ndarray) and not isinstance(deal_or_seed, str):
        return ScorpionState.from_deal(list(deal_or_seed), relaxed)
    raise ValueError(
        "solve needs a deal number, 52 card codes, a position dict or a ScorpionState; "
        f"got {type(deal_or_seed).__name__}"
    )


def solve(
    deal_or_seed: int | Sequence[object] | Mapping[str, object] | ScorpionState,
    rules: str = "classic",
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float | None = None,
    disable: Iterable[str] = (),
) -> SolveResult:
    """Solve a deal exactly: ``won`` with a winning line, ``lost`` (proof) or ``unknown`` (budget).

    ``max_nodes`` bounds the positions expanded and keeps the verdict deterministic;
    ``max_seconds`` additionally stops the search on the clock (checked between probes and
    every ``QUOTA_WITH_CLOCK`` nodes).  A ScorpionState is solved under its own rule flag.
    ``disable`` switches prunings off by name (see PRUNINGS), to check that none loses a win.
    """
    if rules not in RULES:
        raise ValueError(f"rules must be one of {RULES}; got {rules!r}")
    _check_budget(max_nodes)
    prune = PRUNE_ALL
    for name in disable:
        if name not in PRUNINGS:
            raise ValueError(f"unknown pruning {name!r}; known: {', '.join(PRUNINGS)}")
        prune &= ~PRUNINGS[name]
    state = _initial_state(deal_or_seed, rules == "relaxed")
    relaxed = state.relaxed
    t0 = time.perf_counter()
    deadline = None if max_seconds is None else t0 + max_seconds
    search = _Search(state, relaxed, prune)
    share = PROBE_SHARE["relaxed" if relaxed else "classic"]
    status = search.probes(int(max_nodes * share), deadline)
    if status == S_RUNNING:
        status = search.exhaust(int(max_nodes) - search.nodes, deadline)
    result = _result(search, status, t0)
    if result.verdict == LOST:
        result.reason = dead_reason(state) or ""
    return result


class Outcome(NamedTuple):
    """A bare verdict: ``won`` / ``lost`` / ``unknown``, the winning line (env actions) when
    won, and the nodes searched."""

    verdict: str
    moves: tuple[int, ...]
    nodes: int


def solve_quick(state: ScorpionState, max_nodes: int, check: bool = True) -> Outcome:
    """Solve a full state as [`solve`][] does, with the same verdict and line, but without
    its extras (timing, readable moves, dead-position reasons): for callers that run many
    small searches, such as an agent solving determinizations.

    The state is solved under its own rule flag with every pruning on.  Its layout is checked
    first (``ValueError``) unless ``check=False``, when the caller vouches for it (a state
    built by the rules engine, or a determinization of a checked view).
    """
    _check_budget(max_nodes)
    if not isinstance(state, ScorpionState):
        raise ValueError(f"solve_quick needs a ScorpionState; got {type(state).__name__}")
    if check:
        check_layout(state.arrays)
    search = _Search(state, state.relaxed, PRUNE_ALL)
    share = PROBE_SHARE["relaxed" if state.relaxed else "classic"]
    status = search.probes(int(max_nodes * share), None)
    if status == S_RUNNING:
        status = search.exhaust(int(max_nodes) - search.nodes, None)
    verdict = {S_WON: WON, S_LOST: LOST}.get(status, UNKNOWN)
    return Outcome(verdict, tuple(search.line) if verdict == WON else (), search.nodes)


def solve_children(
    state: ScorpionState, actions: Iterable[int], max_nodes: int, check: bool = True
) -> list[Outcome]:
    """The `solve_quick` outcome of the position after each of ``actions`` (legal env
    actions of ``state``, each played by the rules engine on a copy): the per-move verdicts
    a search over the root moves needs.  ``state`` itself is left as it is."""
    if check:
        check_layout(state.arrays)
    out = []
    for action in actions:
        child = state.copy()
        if rules.check_action(*child.arrays, int(action), False) != rules.OK:
            raise ValueError(f"action {action} is not legal in this position")
        rules.apply_action(*child.arrays, int(action))
        out.append(solve_quick(child, max_nodes, check=False))
    return out


def _check_budget(max_nodes: object) -> None:
    """``ValueError`` unless ``max_nodes`` is an integer 1 … MAX_NODES_LIMIT."""
    if (
        isinstance(max_nodes, bool)
        or not isinstance(max_nodes, (int, np.integer))
        or not 1 <= max_nodes <= MAX_NODES_LIMIT
    ):
        raise ValueError(f"max_nodes must be an integer 1 … {MAX_NODES_LIMIT:,}; got {max_nodes!r}")


class _Search:
    """The arrays of one solve: best-first probes, then the exhaustive depth-first search."""

    def __init__(self, state: ScorpionState, relaxed: bool, prune: int) -> None:
        self.relaxed = relaxed
        self.prune = prune
        self.root = np.zeros(ROW, np.int8)
        load_row(self.root, state.tab, state.lens, state.fd, state.reserve, state.meta)
        self.nodes = 0
        self.max_depth = 0
        self.line: list[int] = []

    def probes(self, budget: int, deadline: float | None) -> int:
        """Best-first probes of up to PROBE_NODES nodes on ``budget`` nodes in all, or until
        ``deadline``; the first probe follows the evaluation alone, the later ones add noise."""
        if self.root[O_REMOVED] == 4:
            self.nodes = 1
            return S_WON
        if budget < 1:
            return S_RUNNING
        size = min(PROBE_NODES, budget) + 1
        table = np.zeros(1 << (2 * size).bit_length(), np.int64)
        store = np.empty((size, PACK), np.int8)
        parent = np.empty(size, np.int32)
        pmove = np.empty(size, np.int32)
        keys = np.empty(size, np.int64)
        vals = np.empty(size, np.int32)
        line = np.empty(size, np.int64)
        spent = 0
        salt = 0
        while spent < budget:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            status, nodes, n = probe(
                self.root,
                self.relaxed,
                self.prune,
                min(PROBE_NODES, budget - spent),
                salt,
                PROBE_NOISE if salt else 0,
                EVAL_WEIGHTS,
                ZOBRIST,
                table,
                store,
                parent,
                pmove,
                keys,
                vals,
                line,
            )
            spent += nodes
            salt += 1
            if status == S_WON:
                self.line = [int(m) & 511 for m in line[:n]]
                self.max_depth = max(self.max_depth, n)
            if status != S_RUNNING:
                self.nodes += spent
                return status
        self.nodes += spent
        return S_RUNNING

    def exhaust(self, budget: int, deadline: float | None) -> int:
        """The depth-first search over every position, on ``budget`` nodes or until ``deadline``.

        Its transposition table starts small (smaller still for a small budget) and grows
        fourfold whenever it is half full, and its stack holds at most ``budget + 2`` levels, so
        small searches touch little memory; verdicts depend on neither.
        """
        # the search descends one level per new node, so a small budget needs a short stack
        # (it never reaches the overflow depth, which only MAX_DEPTH rows can)
        rows = min(MAX_DEPTH, max(int(budget), 1) + 1) + 1
        stack = np.empty((rows, ROW), np.int8)
        stack[0] = self.root
        moves = np.empty((rows, MAX_BRANCH), np.int64)
        n_moves = np.zeros(rows, np.int64)
        next_move = np.zeros(rows, np.int64)
        ctl = np.zeros(8, np.int64)
        bits = min(TABLE_MIN_BITS, max(10, (2 * max(int(budget), 1)).bit_length()))
        table = np.zeros(1 << bits, np.int64)
        search_init(stack, moves, n_moves, next_move, ctl, table, ZOBRIST, self.relaxed, self.prune)
        while ctl[C_STATUS] == S_RUNNING and ctl[C_NODES] < budget:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if 2 * ctl[C_NODES] >= table.shape[0]:
                bigger = np.zeros(4 * table.shape[0], np.int64)
                tt_rehash(table, bigger)
                table = bigger
            quota = min(int(budget - ctl[C_NODES]), table.shape[0] // 2 - int(ctl[C_NODES]))
            if deadline is not None:
                quota = min(quota, QUOTA_WITH_CLOCK)
            search_run(
                stack,
                moves,
                n_moves,
                next_move,
                ctl,
                table,
                ZOBRIST,
                self.relaxed,
                self.prune,
                quota,
            )
        self.nodes += int(ctl[C_NODES])
        self.max_depth = max(self.max_depth, int(ctl[C_MAXDEPTH]))
        status = int(ctl[C_STATUS])
        if status == S_WON:
            depth = int(ctl[C_DEPTH])
            self.line = [int(moves[d, next_move[d] - 1] & 511) for d in range(depth)]
        if status == S_LOST and ctl[C_OVERFLOW]:
            return S_RUNNING
        return status


def _where(row: np.ndarray, card: int) -> str:
    """Where ``card`` lies, as a player reads it: ``"column 2, face down, under 7S"``."""
    for c in range(7):
        n = int(row[O_LENS + c])
        for d in range(n):
            if int(row[c * 52 + d]) == card:
                side = "face down" if d < int(row[O_FD + c]) else "face up"
                above = (
                    f", under {card_code(int(row[c * 52 + d + 1]))}" if d + 1 < n else ", on top"
                )
                return f"column {c + 1}, {side}{above}"
    if card in [int(x) for x in row[O_RES : O_RES + 3]]:
        return "in the reserve"
    return "removed"


def dead_reason(state: ScorpionState) -> str | None:
    """Why a position is lost before any search, in a sentence a player can check on the
    cards (the dead-position rule that applies and the cards it names), or None."""
    row = np.zeros(ROW, np.int8)
    load_row(row, state.tab, state.lens, state.fd, state.reserve, state.meta)
    code = card_code
    if not state.relaxed:
        wait_a = np.empty(52, np.int64)
        wait_b = np.empty(52, np.int64)
        done = np.empty(52, np.bool_)
        under = _waits(row, wait_a, wait_b, done)
        if under >= 0:
            return (
                f"{code(under)} lies face down under {code(under - 1)}, which can only ever "
                f"move onto {code(under)}: {code(under)} is never uncovered"
            )
        stuck = [c for c in range(52) if not done[c]]
        if not stuck:
            return None
        path: list[int] = []
        card = stuck[0]
        while card not in path:
            path.append(card)
            a = int(wait_a[card])
            card = a if a >= 0 and not done[a] else int(wait_b[card])
        cycle = path[path.index(card) :]
        steps = []
        for z in cycle:
            a = int(wait_a[z])
            if a >= 0 and not done[a]:
                steps.append(
                    f"{code(z)} must go onto {code(z + 1)}, so {code(a)} on it moves first"
                )
            else:
                steps.append(
                    f"{code(z)} lies face down, so {code(int(wait_b[z]))} on it moves first"
                )
        return (
            "these moves wait for each other in a cycle, so none can come first (under "
            "Classic a card moves only onto its successor): " + "; ".join(steps)
        )
    blocked = np.empty(7, np.bool_)
    if _blocked(row, blocked):
        cols = [c for c in range(7) if blocked[c]]
        parts = []
        for c in cols:
            x = int(row[c * 52 + int(row[O_FD + c])])
            higher = [s * 13 + x % 13 + 1 for s in range(4)]
            parts.append(
                f"column {c + 1} needs {code(x)} to move onto a card one rank higher: "
                + ", ".join(f"{code(y)} ({_where(row, y)})" for y in higher)
            )
        return (
            "the face-down cards of columns "
            + ", ".join(str(c + 1) for c in cols)
            + " are never uncovered: each is uncovered only when its lowest face-up card "
            "moves, and every card one rank higher is removed or face down in one of these "
            "columns; " + "; ".join(parts)
        )
    packed = _starved_card(row)
    if packed < 0:
        return None
    c, d = divmod(int(packed), 64)
    x = int(row[c * 52 + d])
    higher = [s * 13 + x % 13 + 1 for s in range(4)]
    same = [s * 13 + x % 13 for s in range(4) if s * 13 + x % 13 != x]
    return (
        f"{code(x)} (column {c + 1}) lies on a face-down card, so it must one day move onto a "
        "card one rank higher, but every such card is then taken: a card of its rank that "
        "lies on one, or must move before it (it lies above it, or on the card it needs), "
        "stays on one for good; the cards one rank higher: "
        + ", ".join(f"{code(y)} ({_where(row, y)})" for y in higher)
        + "; the other cards of its rank: "
        + ", ".join(f"{code(y)} ({_where(row, y)})" for y in same)
    )


def _result(search: _Search, status: int, t0: float) -> SolveResult:
    """The SolveResult of a finished search."""
    result = SolveResult(
        UNKNOWN, nodes=search.nodes, seconds=time.perf_counter() - t0, max_depth=search.max_depth
    )
    if status == S_WON:
        result.verdict = WON
        result.moves = search.line
        result.readable = [action_text(a) for a in result.moves]
    elif status == S_LOST:
        result.verdict = LOST
    return result


def read_deal_file(path: str | Path) -> list[str]:
    """52 card codes in deal order from a text file, separated by whitespace or commas."""
    text = Path(path).read_text(encoding="utf-8")
    cards = text.replace(",", " ").split()
    return check_deal_codes(cards)


def check_deal_codes(cards: list[str]) -> list[str]:
    """Validate 52 card codes (ValueError names the problem) and return them unchanged."""
    check_deal(cards)
    return cards


def solve_command(
    seed: int | None,
    deal_file: str | None,
    rules: str = "classic",
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float | None = None,
    position_file: str | None = None,
    check_nodes: int | None = None,
) -> str:
    """The text ``shell-envs solve`` prints: verdict, nodes, time and the numbered solution.

    With ``check_nodes``, the verdict is re-checked apart from the solver: a won line is
    replayed by the plain reference rules, and a loss is searched again by the reference
    search (no pruning) on up to ``check_nodes`` positions.
    """
    if sum(x is not None for x in (seed, deal_file, position_file)) != 1:
        raise ValueError("give exactly one of --seed N, --deal FILE or --position FILE")
    relaxed = rules == "relaxed"
    if seed is not None:
        state, source = ScorpionState.from_number(seed, relaxed), f"deal {seed}"
    elif deal_file is not None:
        state = ScorpionState.from_deal(read_deal_file(deal_file), relaxed)
        source = f"deal file {deal_file}"
    else:
        state = ScorpionState.from_position(read_position_file(position_file), relaxed)
        source = f"position file {position_file}"
    result = solve(state, rules=rules, max_nodes=max_nodes, max_seconds=max_seconds)
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    lines = [
        f"Scorpion ({rules}), {source}: {result.verdict}",
        f"nodes: {result.nodes:,}  time: {result.seconds:.2f} s  ({rate:,.0f} nodes/s)",
    ]
    if result.verdict == WON:
        lines.append(
            f"solution ({len(result.moves)} moves, typed as in `shell-envs play scorpion`: "
            "'4H 7' = 4H onto column 7, d = deal the reserve):"
        )
        lines += [f"{i:4d}. {text}" for i, text in enumerate(result.readable, 1)]
    elif result.reason:
        lines.append(f"lost before any search: {result.reason}")
    elif result.verdict == LOST:
        lines.append("no sequence of moves wins this position (search space exhausted)")
    else:
        lines.append("budget exhausted before a verdict; raise --max-nodes or --max-seconds")
    if check_nodes is not None:
        lines.append(_check_text(state, result, check_nodes))
    return "\n".join(lines)


def _check_text(state: ScorpionState, result: SolveResult, check_nodes: int) -> str:
    """The line ``--check`` adds: what the plain reference found for this verdict."""
    start = reference.from_position(state.position())
    if result.verdict == WON:
        if reference.replay(start, state.relaxed, result.moves):
            return "check: the reference rules replay the solution to a win"
        return "check FAILED: the reference rules do not replay the solution to a win"
    found = reference.search(start, state.relaxed, check_nodes)
    seen = f"{found.nodes:,} positions"
    if found.verdict == LOST:
        agree = "confirms" if result.verdict == LOST else "finds"
        return f"check: the reference search (no pruning) {agree} the loss after {seen}"
    if found.verdict == WON:
        return (
            f"check: the reference search finds a win of {len(found.line)} moves after {seen}"
            + (" — the solver's loss is WRONG" if result.verdict == LOST else "")
        )
    return f"check: the reference search stopped after {seen} without a verdict (--check-nodes)"


def read_position_file(path: str | Path) -> dict:
    """A ``position()``-style dict from a JSON file (ValueError if it is not a JSON object)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(
            f"{path} must hold one JSON object (a position), got {type(data).__name__}"
        )
    return data
