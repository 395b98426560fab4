"""The solver's compiled search: compact position rows, the move generator with its
prunings, the best-first probes and the exhaustive depth-first search.

Everything here is compiled and allocates only its own scratch; the Python API
(`shell_envs.scorpion.solver.api`) owns the arrays and the budgets.  Why each pruning keeps
every win is argued in the package notes (`shell_envs.scorpion.solver`).  Moves are env
actions through the codec (`shell_envs.scorpion.actions`), packed with where the block
starts: ``action + 512 * (source + 8 * depth)``.
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit
from shell_envs.scorpion import rules
from shell_envs.scorpion.actions import decode_move, encode_move

MAX_BRANCH = 64  # room for the moves of one position

# prunings, each switchable for the differential tests (solve(..., disable=...))
P_SYMMETRY = 1  # interchangeable columns hash alike
P_KING_BASE = 2  # a whole column does not move between interchangeable columns
P_KING_ONE_EMPTY = 4  # a king goes to one of several interchangeable empty columns
P_CYCLIC = 8  # Classic / traditional dead positions: moves that wait for each other
P_STUCK = 16  # Relaxed dead positions: blocked columns
P_STARVED = 32  # Relaxed dead positions: a card that finds no free card one rank higher
P_SAFE_MOVE = 64  # Classic / traditional, reserve dealt: a move played as the only child
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

# layout of one compact position row (int8)
ROW = 384
O_LENS = 7 * 52  # after the cards of 7 columns, 52 depths each
O_FD = 371
O_RES = 378
O_REMOVED = 381  # completed sequences: removed (Classic, Relaxed) or standing (traditional)
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
# the depth-first search's work arrays, one tuple for search_init and search_run: the
# position row of each level (``stack``), its moves, how many (``n_moves``), the next one to
# try (``next_move``), and the control fields (``ctl``, C_* above)
DfsStack = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]

# best-first probes: a compact position is PACK bytes (cards, then the 20 bytes from O_LENS)
PACK = 72
PROBE_NODES = 1000  # nodes of one probe
PROBE_NOISE = 640  # noise amplitude of the later probes, in 1/64 of an evaluation point

# evaluation weights: completed sequence (removed, or a traditional run standing), reserve
# not dealt (penalty), face-down card (penalty), empty column, king at the base of a column,
# card of the same-suit run on such a king, card on its same-suit successor
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
def position_hash(row: np.ndarray, z: np.ndarray, prune: int) -> int:
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
def tt_insert(table: np.ndarray, h: int) -> bool:
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
def load_row(
    row: np.ndarray,
    tab: np.ndarray,
    lens: np.ndarray,
    fd: np.ndarray,
    reserve: np.ndarray,
    meta: np.ndarray,
) -> None:
    """Copy an engine state into a compact row (``O_REMOVED``: the sequences removed, or under
    the traditional rules the complete runs standing)."""
    row[:] = 0
    for c in range(7):
        n = int(lens[c])
        for d in range(n):
            row[c * 52 + d] = tab[c, d]
        row[O_LENS + c] = n
        row[O_FD + c] = fd[c]
    for i in range(3):
        row[O_RES + i] = reserve[i]
    if meta[rules.M_RULES] == rules.TRADITIONAL:
        row[O_REMOVED] = meta[rules.M_RUNS]
    else:
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
def _count_runs(row):
    """Traditional: the complete runs standing, counted by the rules' own `rules.count_runs`
    over the row's cards, lengths and face-down counts."""
    cards = row[: 7 * 52].reshape((7, 52))
    return rules.count_runs(cards, row[O_LENS : O_LENS + 7], row[O_FD : O_FD + 7])


@jit
def _apply_cards(row, m):
    """Move the cards of packed move ``m`` and flip what it uncovers; returns the receiving
    column (-1: the reserve deal, columns 1–3 received)."""
    action = m & 511
    if action == rules.RESERVE_ACTION:
        for c in range(3):
            n = int(row[O_LENS + c])
            row[c * 52 + n] = row[O_RES + c]
            row[O_LENS + c] = n + 1
            row[O_RES + c] = -1
        row[O_DEALT] = 1
        return -1
    _, dest = decode_move(action)
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
    return dest


@jit
def apply_packed(row: np.ndarray, m: int, rule: int) -> None:
    """Play packed move ``m`` (action + 512 * (source + 8 * depth)) on a compact row under the
    rule set coded ``rule``: Classic and Relaxed remove what a move completes, the traditional
    rules count the runs standing instead."""
    if rule == rules.TRADITIONAL:
        _apply_cards(row, m)
        row[O_REMOVED] = _count_runs(row)
        return
    dest = _apply_cards(row, m)
    if dest < 0:
        for c in range(3):
            _settle(row, c)
    else:
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
    """A same-suit move that can be played at once without losing a win, or -1 (Classic or
    traditional, reserve dealt).

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
            return encode_move(card, int(owner[card + 1])) + 512 * (c + 8 * d)
    return -1


@jit
def cyclic_waits(row: np.ndarray, wait_a: np.ndarray, wait_b: np.ndarray, done: np.ndarray) -> int:
    """Classic and traditional: the waits of `_cyclic`; returns a face-down card lying under its own
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
    """Classic and traditional: whether the moves every win still needs wait for each other
    in a cycle.

    A non-king card ``Z`` not on its successor must still make its one move, onto ``Z + 1``
    (under Classic nothing else puts it there, and a win needs it there: removed sequences
    hold every card on its successor, as do the four runs standing at a traditional win);
    before it, the card directly on ``Z + 1`` must have moved (it leaves ``Z + 1`` only as the
    first card of a move, since ``Z + 1`` carries it along), and a face-down ``Z`` must have
    been uncovered, so the card directly on it must have moved.  A face-down card under its
    own predecessor is never uncovered: the predecessor can only move onto it.  Cards in the
    reserve wait for nothing here (fewer waits, fewer proofs).
    """
    wait_a = np.empty(52, np.int64)
    wait_b = np.empty(52, np.int64)
    done = np.empty(52, np.bool_)
    if cyclic_waits(row, wait_a, wait_b, done) >= 0:
        return True
    for card in range(52):
        if not done[card]:
            return True
    return False


@jit
def blocked_columns(row: np.ndarray, blocked: np.ndarray) -> int:
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
    return blocked_columns(row, blocked) > 0


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
    (`starved_card`)."""
    return starved_card(row) >= 0


@jit
def starved_card(row: np.ndarray) -> int:
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
def gen_moves(row: np.ndarray, rule: int, prune: int, out: np.ndarray, scores: np.ndarray) -> int:
    """Write the ordered, symmetry-reduced moves of ``row`` into ``out``; returns how many.

    ``rule`` is the rule set's code (`rules.CLASSIC`, `rules.RELAXED`, `rules.TRADITIONAL`).
    A dead position (Classic and traditional `_cyclic`; Relaxed `_stuck`, `_starved`) gets
    no moves: it cannot be won.  ``prune`` holds the P_* bits of the prunings in force.
    """
    k = 0
    if row[O_REMOVED] == 4:
        return 0
    relaxed = rule == rules.RELAXED
    traditional = rule == rules.TRADITIONAL
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
                # unless its top is a complete sequence that the move removes (not under
                # the traditional rules, which remove nothing)
                relabel = (
                    d == 0 and (prune & P_KING_BASE) != 0 and (traditional or not _complete(row, c))
                )
                rep = False
                for e in range(n_empty):
                    dest = empty[e]
                    if dealt or dest >= 3:
                        if relabel and (dealt or c >= 3):
                            continue
                        if rep and (prune & P_KING_ONE_EMPTY):
                            continue
                        rep = True
                    out[k] = encode_move(card, dest) + 512 * (c + 8 * d)
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
                out[k] = encode_move(card, o) + 512 * (c + 8 * d)
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
def evaluate(row: np.ndarray, w: np.ndarray) -> int:
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
def pack_row(row: np.ndarray, store: np.ndarray, i: int) -> None:
    """Store ``row`` compactly as ``store[i]``: the cards column by column, then the counts."""
    k = 0
    for c in range(7):
        for d in range(int(row[O_LENS + c])):
            store[i, k] = row[c * 52 + d]
            k += 1
    for j in range(PACK - 52):
        store[i, 52 + j] = row[O_LENS + j]


@jit
def unpack_row(store: np.ndarray, i: int, row: np.ndarray) -> None:
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
    root: np.ndarray,
    rule: int,
    prune: int,
    budget: int,
    salt: int,
    noise: int,
    w: np.ndarray,
    z: np.ndarray,
    table: np.ndarray,
    store: np.ndarray,
    parent: np.ndarray,
    pmove: np.ndarray,
    keys: np.ndarray,
    vals: np.ndarray,
    line: np.ndarray,
) -> tuple[int, int, int]:
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
        k = gen_moves(row, rule, prune, moves, scores)
        for i in range(k):
            if nodes >= budget:
                return S_RUNNING, nodes, 0
            child[:] = row
            apply_packed(child, moves[i], rule)
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
def tt_rehash(old: np.ndarray, new: np.ndarray) -> None:
    """Insert every hash of the table ``old`` into the (larger, empty) table ``new``."""
    for i in range(old.shape[0]):
        if old[i] != 0:
            tt_insert(new, old[i])


@jit
def search_init(dfs: DfsStack, table: np.ndarray, z: np.ndarray, rule: int, prune: int) -> None:
    """Start a search from the root in ``dfs``'s ``stack[0]``: record it and its moves."""
    stack, moves, n_moves, next_move, ctl = dfs
    scores = np.empty(MAX_BRANCH, np.int64)
    ctl[:] = 0
    tt_insert(table, position_hash(stack[0], z, prune))
    ctl[C_NODES] = 1
    if stack[0, O_REMOVED] == 4:
        ctl[C_STATUS] = S_WON
        return
    n_moves[0] = gen_moves(stack[0], rule, prune, moves[0], scores)
    next_move[0] = 0


@jit
def search_run(
    dfs: DfsStack, table: np.ndarray, z: np.ndarray, rule: int, prune: int, quota: int
) -> None:
    """Continue the depth-first search for at most ``quota`` new nodes; updates ``dfs``."""
    stack, moves, n_moves, next_move, ctl = dfs
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
        apply_packed(child, moves[depth, i], rule)
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
            n_moves[depth] = gen_moves(child, rule, prune, moves[depth], scores)
        next_move[depth] = 0
        if nodes >= stop:
            ctl[C_DEPTH] = depth
            ctl[C_NODES] = nodes
            return
    ctl[C_DEPTH] = -1
    ctl[C_NODES] = nodes
    ctl[C_STATUS] = S_LOST
