"""Scorpion rules as pure compiled functions over a few small state arrays.

A game is six numpy arrays, passed to every rule function as one plain tuple
``s = (tab, lens, fd, reserve, meta, hist)`` (`StateArrays`; a state's
[`arrays`][shell_envs.scorpion.state.ScorpionState.arrays]) and mutated in place, so the
single environment, a batched environment (``prange`` over games, each game's rows of arrays
shaped ``(N, ...)`` as its tuple), search agents and solvers all run the same machine code:

- ``tab``     int8  (7, 52): card indices per column, bottom → top, ``-1`` beyond the top.
- ``lens``    int8  (7,):    cards in each column.
- ``fd``      int8  (7,):    face-down cards at the bottom of each column.
- ``reserve`` int8  (3,):    the reserve cards for columns 1, 2, 3, ``-1`` once dealt.
- ``meta``    int32 (16,):   counters and flags, indexed by the ``M_*`` constants.
- ``hist``    int32 (100, 12): ring buffer of the last 100 moves, ``H_*`` fields, so that
  `undo` restores cards, flips, removals and points exactly.

Invariants: face-down cards are always at the bottom of a column and the top card of a
non-empty column is face up.  Card index = suit * 13 + rank - 1, suits S, H, D, C.
Actions: see [`shell_envs.scorpion.actions`][] (one codec for every module).
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit, jit_inline
from shell_envs.scorpion.actions import (
    N_ACTIONS,
    N_ACTIONS_UNDO,
    N_CARDS,
    N_COLUMNS,
    RESERVE_ACTION,
    UNDO_ACTION,
    decode_move,
    encode_move,
)

RULE_SETS = ("classic", "relaxed", "traditional")  # the rule sets' names, their one home
CLASSIC, RELAXED, TRADITIONAL = 0, 1, 2  # their codes: the index in RULE_SETS, kept in M_RULES
MAX_DEPTH = 52
DEAL_DEPTH = 7  # cards per column in a fresh deal
SEQUENCE = 13
HISTORY = 100

POINTS_SAME_SUIT = 5
POINTS_FLIP = 5
POINTS_SEQUENCE = 100

# meta fields
M_REMOVED = 0
M_SCORE = 1
M_MOVES = 2
M_RESERVE_DEALT = 3
M_RULES = 4  # the rule set's code (CLASSIC, RELAXED or TRADITIONAL)
M_HIST_COUNT = 5
M_HIST_HEAD = 6
M_SLOTS = 7  # 4 slots: suit of each removed sequence in removal order, -1 when empty
M_RUNS = 11  # Traditional: complete king-to-ace runs standing in the tableau (0 otherwise)
META_SIZE = 16

# history record fields
H_KIND = 0  # KIND_MOVE or KIND_RESERVE
H_SRC = 1
H_START = 2  # depth of the block's first card in the source column
H_COUNT = 3  # cards in the block
H_DEST = 4
H_SRC_FLIP = 5  # 1 when the source column's new top card turned face up
H_POINTS = 6
H_N_REMOVALS = 7
H_REMOVALS = 8  # up to 4 entries: column * 16 + suit * 2 + flipped
HIST_WIDTH = 12
KIND_MOVE = 1
KIND_RESERVE = 2

# check codes (messages live in shell_envs.scorpion.messages)
OK = 0
E_OUT_OF_RANGE = 1
E_GAME_OVER = 2
E_CARD_HIDDEN = 3
E_CARD_REMOVED = 4
E_SAME_COLUMN = 5
E_ON_ACE = 6
E_EMPTY_NEEDS_KING = 7
E_WRONG_RANK = 8
E_SAME_SUIT = 9
E_RESERVE_DEALT = 10
E_NOTHING_TO_UNDO = 11
E_UNDO_LIMIT = 12
E_NO_MOVES = 13  # the game is lost: no legal action is left, not even an undo (the env refuses all)

_MASK32 = 0xFFFFFFFF
_ACES = (1 << 0) | (1 << 13) | (1 << 26) | (1 << 39)  # bit sets over card indices
_KINGS = _ACES << 12


# one game's state arrays (tab, lens, fd, reserve, meta, hist): the ``s`` every rule function
# takes (a plain tuple: numba types it from Python in C, a NamedTuple through Python)
StateArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def new_arrays() -> StateArrays:
    """Fresh, empty state arrays ``(tab, lens, fd, reserve, meta, hist)``."""
    return (
        np.full((N_COLUMNS, MAX_DEPTH), -1, np.int8),
        np.zeros(N_COLUMNS, np.int8),
        np.zeros(N_COLUMNS, np.int8),
        np.full(3, -1, np.int8),
        np.zeros(META_SIZE, np.int32),
        np.zeros((HISTORY, HIST_WIDTH), np.int32),
    )


@jit
def _mix32(x):
    """A 32-bit integer hash (lowbias32); exact in compiled and plain Python alike."""
    x &= _MASK32
    x ^= x >> 16
    x = (x * 0x7FEB352D) & _MASK32
    x ^= x >> 15
    x = (x * 0x846CA68B) & _MASK32
    x ^= x >> 16
    return x


@jit_inline
def _xorshift32(x):
    """One step of the xorshift32 generator from the 32-bit state ``x``: the next state,
    which is also its 32 random bits."""
    x ^= (x << 13) & _MASK32
    x ^= x >> 17
    x ^= (x << 5) & _MASK32
    return x


@jit_inline
def _seed_state(seed):
    """The generator state for a non-negative 64-bit ``seed`` (never the all-zero state)."""
    lo = int(seed) & _MASK32
    hi = (int(seed) >> 32) & _MASK32
    x = _mix32(_mix32(lo ^ 0x9E3779B9) ^ hi)
    return x if x != 0 else 0x6D2B79F5


@jit_inline
def _scaled(x, n):
    """The 32 random bits ``x`` scaled to an integer in ``[0, n)`` for small ``n``."""
    return (x * n) >> 32


@jit
def rng_next(rng: np.ndarray) -> int:
    """Advance the xorshift32 generator stored in ``rng[0]`` and return 32 random bits."""
    x = _xorshift32(int(rng[0]) & _MASK32)
    rng[0] = x
    return x


@jit
def rng_seed(rng: np.ndarray, seed: int) -> None:
    """Seed a generator from any non-negative 64-bit number (never the all-zero state)."""
    rng[0] = _seed_state(seed)


@jit
def rng_below(rng: np.ndarray, n: int) -> int:
    """A random integer in ``[0, n)`` for small ``n``."""
    return _scaled(rng_next(rng), n)


@jit
def shuffled_deck(number: int, out: np.ndarray) -> None:
    """Fill ``out`` (52) with the deal order of deal ``number``: the same deal everywhere.

    The generator lives in a local variable, not an array, so that device code (which cannot
    allocate) runs this very function too.
    """
    x = _seed_state(number)
    for i in range(N_CARDS):
        out[i] = i
    for i in range(N_CARDS - 1, 0, -1):
        x = _xorshift32(x)
        j = _scaled(x, i + 1)
        t = out[i]
        out[i] = out[j]
        out[j] = t


@jit
def deal(s: StateArrays, cards: np.ndarray, rule: int) -> None:
    """Lay out 52 cards in deal order: 7 columns of 7 (3 face down in columns 1–4), reserve of 3,
    for the rule set coded ``rule`` (CLASSIC, RELAXED or TRADITIONAL)."""
    tab, lens, fd, reserve, meta, hist = s
    tab[:, :] = -1
    meta[:] = 0
    hist[:, :] = 0
    for slot in range(4):
        meta[M_SLOTS + slot] = -1
    meta[M_RULES] = rule
    for c in range(N_COLUMNS):
        for d in range(DEAL_DEPTH):
            tab[c, d] = cards[c * DEAL_DEPTH + d]
        lens[c] = DEAL_DEPTH
        fd[c] = 3 if c < 4 else 0
    for i in range(3):
        reserve[i] = cards[49 + i]


@jit_inline
def find_card(tab: np.ndarray, lens: np.ndarray, card: int) -> tuple[int, int]:
    """``(column, depth)`` of a card on the table, or ``(-1, -1)``."""
    for c in range(N_COLUMNS):
        for d in range(int(lens[c])):
            if tab[c, d] == card:
                return c, d
    return -1, -1


@jit
def check_move(s: StateArrays, card: int, dest: int) -> int:
    """Error code of moving ``card`` (with every card above it) onto column ``dest``; 0 = legal."""
    tab, lens, fd, reserve, meta, _ = s
    if card < 0 or card >= N_CARDS or dest < 0 or dest >= N_COLUMNS:
        return E_OUT_OF_RANGE
    if is_won(meta):
        return E_GAME_OVER
    c, d = find_card(tab, lens, card)
    if c < 0:
        for i in range(3):
            if reserve[i] == card:
                return E_CARD_HIDDEN
        return E_CARD_REMOVED
    if d < fd[c]:
        return E_CARD_HIDDEN
    if c == dest:
        return E_SAME_COLUMN
    n = int(lens[dest])
    rank = card % 13
    if n == 0:
        return OK if rank == 12 else E_EMPTY_NEEDS_KING
    top = int(tab[dest, n - 1])
    if top % 13 == 0:
        return E_ON_ACE
    if rank != top % 13 - 1:
        return E_WRONG_RANK
    if meta[M_RULES] != RELAXED and card // 13 != top // 13:
        return E_SAME_SUIT
    return OK


@jit
def check_action(s: StateArrays, action: int, allow_undo: bool) -> int:
    """Error code of any action (card move, reserve deal, undo); 0 = legal."""
    _, _, _, _, meta, _ = s
    limit = N_ACTIONS_UNDO if allow_undo else N_ACTIONS
    if action < 0 or action >= limit:
        return E_OUT_OF_RANGE
    if is_won(meta):
        return E_GAME_OVER  # a won game stays won: no undo either
    if action == UNDO_ACTION:
        if meta[M_HIST_COUNT] > 0:
            return OK
        return E_UNDO_LIMIT if meta[M_MOVES] > 0 else E_NOTHING_TO_UNDO
    if action == RESERVE_ACTION:
        return E_RESERVE_DEALT if meta[M_RESERVE_DEALT] != 0 else OK
    card, dest = decode_move(action)
    return check_move(s, card, dest)


@jit_inline
def _push_history(meta, hist):
    """Claim the next history record (overwriting the oldest beyond 100) and clear it."""
    head = int(meta[M_HIST_HEAD])
    meta[M_HIST_HEAD] = (head + 1) % HISTORY
    if meta[M_HIST_COUNT] < HISTORY:
        meta[M_HIST_COUNT] += 1
    rec = hist[head]
    rec[:] = 0
    return rec


@jit_inline
def _close_record(rec, meta, points):
    """Finish a move: remember its points for undo, add them to the score, count the move."""
    rec[H_POINTS] = points
    meta[M_SCORE] += points
    meta[M_MOVES] += 1
    return points


@jit_inline
def flip(tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, col: int) -> int:
    """Turn a face-down card left on top of ``col`` face up; returns the points (5 or 0)."""
    n = int(lens[col])
    if n > 0 and fd[col] == n:
        fd[col] = n - 1
        return POINTS_FLIP
    return 0


@jit_inline
def is_complete_sequence(tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, col: int) -> bool:
    """Whether the top 13 cards of ``col`` are one suit, king (lowest) to ace (top), face up."""
    n = int(lens[col])
    if n - int(fd[col]) < SEQUENCE:
        return False
    base = int(tab[col, n - 1])
    if base % 13 != 0:
        return False
    for i in range(1, SEQUENCE):
        if tab[col, n - 1 - i] != base + i:
            return False
    return True


@jit_inline
def count_runs(tab: np.ndarray, lens: np.ndarray, fd: np.ndarray) -> int:
    """Complete runs in the tableau: 13 face-up cards of one suit, king (lowest) to ace, one
    directly on the other, anywhere in a column (Traditional's goal)."""
    runs = 0
    for c in range(N_COLUMNS):
        n = int(lens[c])
        d = int(fd[c])
        while d + SEQUENCE <= n:
            king = int(tab[c, d])
            length = 1
            if king % 13 == 12:
                while length < SEQUENCE and tab[c, d + length] == king - length:
                    length += 1
            if length == SEQUENCE:
                runs += 1
            d += length
    return runs


@jit_inline
def is_won(meta: np.ndarray) -> bool:
    """Whether the game is won: 4 sequences removed, or (Traditional) 4 complete runs standing."""
    return meta[M_REMOVED] == 4 or meta[M_RUNS] == 4


@jit_inline
def remove_sequence(
    tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, meta: np.ndarray, col: int, rec: np.ndarray
) -> int:
    """Remove complete sequences from the top of ``col`` (re-checking, flipping); returns points.

    Under Traditional nothing is removed: the runs are counted where they stand instead.
    """
    if meta[M_RULES] == TRADITIONAL:
        meta[M_RUNS] = count_runs(tab, lens, fd)
        return 0
    points = 0
    while is_complete_sequence(tab, lens, fd, col):
        n = int(lens[col])
        suit = int(tab[col, n - 1]) // 13
        for i in range(n - SEQUENCE, n):
            tab[col, i] = -1
        lens[col] = n - SEQUENCE
        slot = int(meta[M_REMOVED])
        meta[M_SLOTS + slot] = suit
        meta[M_REMOVED] = slot + 1
        flipped = flip(tab, lens, fd, col)
        points += POINTS_SEQUENCE + flipped
        k = int(rec[H_N_REMOVALS])
        rec[H_REMOVALS + k] = col * 16 + suit * 2 + (1 if flipped else 0)
        rec[H_N_REMOVALS] = k + 1
    return points


@jit_inline
def move(s: StateArrays, card: int, dest: int) -> int:
    """Move ``card`` and every card above it onto ``dest`` (assumed legal); returns the points."""
    tab, lens, fd, _, meta, hist = s
    src, start = find_card(tab, lens, card)
    n_src = int(lens[src])
    count = n_src - start
    n = int(lens[dest])
    points = 0
    if n > 0 and int(tab[dest, n - 1]) // 13 == card // 13:
        points += POINTS_SAME_SUIT
    for i in range(count):
        tab[dest, n + i] = tab[src, start + i]
        tab[src, start + i] = -1
    lens[dest] = n + count
    lens[src] = start
    rec = _push_history(meta, hist)
    rec[H_KIND] = KIND_MOVE
    rec[H_SRC] = src
    rec[H_START] = start
    rec[H_COUNT] = count
    rec[H_DEST] = dest
    flipped = flip(tab, lens, fd, src)
    rec[H_SRC_FLIP] = 1 if flipped else 0
    points += flipped
    points += remove_sequence(tab, lens, fd, meta, dest, rec)
    return _close_record(rec, meta, points)


@jit
def deal_reserve(s: StateArrays) -> int:
    """Deal the 3 reserve cards face up onto columns 1, 2, 3 (assumed legal); returns the points."""
    tab, lens, fd, reserve, meta, hist = s
    rec = _push_history(meta, hist)
    rec[H_KIND] = KIND_RESERVE
    for c in range(3):
        n = int(lens[c])
        tab[c, n] = reserve[c]
        lens[c] = n + 1
        reserve[c] = -1
    meta[M_RESERVE_DEALT] = 1
    points = 0
    for c in range(3):
        points += remove_sequence(tab, lens, fd, meta, c, rec)
    return _close_record(rec, meta, points)


@jit
def undo(s: StateArrays) -> int:
    """Take back the last remembered move exactly; returns the points it had earned (-1: none)."""
    tab, lens, fd, reserve, meta, hist = s
    if meta[M_HIST_COUNT] == 0:
        return -1
    head = (int(meta[M_HIST_HEAD]) - 1) % HISTORY
    meta[M_HIST_HEAD] = head
    meta[M_HIST_COUNT] -= 1
    rec = hist[head]
    for k in range(int(rec[H_N_REMOVALS]) - 1, -1, -1):
        code = int(rec[H_REMOVALS + k])
        col = code // 16
        suit = (code // 2) % 8
        if code & 1:
            fd[col] += 1
        n = int(lens[col])
        for i in range(SEQUENCE):
            tab[col, n + i] = suit * 13 + 12 - i
        lens[col] = n + SEQUENCE
        slot = int(meta[M_REMOVED]) - 1
        meta[M_SLOTS + slot] = -1
        meta[M_REMOVED] = slot
    if rec[H_KIND] == KIND_MOVE:
        src = int(rec[H_SRC])
        start = int(rec[H_START])
        count = int(rec[H_COUNT])
        dest = int(rec[H_DEST])
        if rec[H_SRC_FLIP]:
            fd[src] += 1
        n = int(lens[dest]) - count
        for i in range(count):
            tab[src, start + i] = tab[dest, n + i]
            tab[dest, n + i] = -1
        lens[src] = start + count
        lens[dest] = n
    else:
        for c in range(2, -1, -1):
            n = int(lens[c]) - 1
            reserve[c] = tab[c, n]
            tab[c, n] = -1
            lens[c] = n
        meta[M_RESERVE_DEALT] = 0
    if meta[M_RULES] == TRADITIONAL:
        meta[M_RUNS] = count_runs(tab, lens, fd)
    points = int(rec[H_POINTS])
    meta[M_SCORE] -= points
    meta[M_MOVES] -= 1
    return points


@jit_inline
def apply_action(s: StateArrays, action: int) -> int:
    """Play a legal action; returns the score change (negative for an undo)."""
    if action == UNDO_ACTION:
        return -undo(s)
    if action == RESERVE_ACTION:
        return deal_reserve(s)
    card, dest = decode_move(action)
    return move(s, card, dest)


@jit_inline
def _owner(col1, col2, col4, top):
    """The column whose top card is ``top``: bit ``top`` of each bit set is a bit of its number."""
    return ((col1 >> top) & 1) | (((col2 >> top) & 1) << 1) | (((col4 >> top) & 1) << 2)


@jit_inline
def _emit(sink, listing, k, action):
    """Record legal ``action`` as move ``k``: listed in ``sink[k]``, or set in the mask ``sink``."""
    if listing:
        sink[k] = action
    else:
        sink[action] = True
    return k + 1


@jit_inline
def _generate(tab, lens, fd, meta, sink, listing):
    """Enumerate the legal card moves and reserve deal (not undo); returns how many.

    With ``listing`` each one is written to ``sink[k]`` (``int64``, room for 365); otherwise it
    is set in the bool mask ``sink``, so the list and the mask come from one piece of move
    generation.  Moves are listed by source card (column by column, bottom to top), then by
    destination (empty columns left to right for a king, destination suits in suit order under
    the Relaxed rule), then the reserve deal.

    It runs once per step of every game, so it allocates nothing and first gathers, as a bit
    set over the 52 cards, every card that could move at all (a king while a column is empty,
    else a card one rank below a column's top: of its suit, or of any suit under the Relaxed
    rule); each face-up card then needs a single bit test, and only those few look further.
    The column of each top card is kept in bit sets too, so that look is a few bit operations.
    """
    if is_won(meta):
        return 0
    tops = 0  # bit t: card t is the top card of a column
    top_ranks = 0  # bit r: a column's top card has rank r (0 = ace)
    empty = 0  # bit c: column c is empty
    col1 = col2 = col4 = 0  # bit t: bit 0, 1, 2 of the column number whose top card is t
    for c in range(N_COLUMNS):
        n = int(lens[c])
        if n > 0:
            top = int(tab[c, n - 1])
            bit = 1 << top
            tops |= bit
            top_ranks |= 1 << (top % 13)
            col1 |= bit if c & 1 else 0
            col2 |= bit if c & 2 else 0
            col4 |= bit if c & 4 else 0
        else:
            empty |= 1 << c
    relaxed = meta[M_RULES] == RELAXED
    if relaxed:
        below = top_ranks >> 1  # ranks one below a top's rank
        movable = below | (below << 13) | (below << 26) | (below << 39)
    else:
        movable = (tops & ~_ACES) >> 1
    if empty:
        movable |= _KINGS
    k = 0
    for c in range(N_COLUMNS):
        for d in range(int(fd[c]), int(lens[c])):
            card = int(tab[c, d])
            if not (movable >> card) & 1:
                continue
            if (_KINGS >> card) & 1:
                for e in range(N_COLUMNS):
                    if (empty >> e) & 1:
                        k = _emit(sink, listing, k, encode_move(card, e))
            elif relaxed:
                for s in range(4):
                    target = s * 13 + card % 13 + 1
                    if (tops >> target) & 1:
                        o = _owner(col1, col2, col4, target)
                        if o != c:
                            k = _emit(sink, listing, k, encode_move(card, o))
            else:
                o = _owner(col1, col2, col4, card + 1)
                if o != c:
                    k = _emit(sink, listing, k, encode_move(card, o))
    if meta[M_RESERVE_DEALT] == 0:
        k = _emit(sink, listing, k, RESERVE_ACTION)
    return k


@jit
def legal_moves(s: StateArrays, out: np.ndarray) -> int:
    """Write the legal card moves and reserve deal (not undo) into ``out``; returns how many."""
    tab, lens, fd, _, meta, _ = s
    return _generate(tab, lens, fd, meta, out, True)


@jit_inline
def legal_mask(s: StateArrays, allow_undo: bool, mask: np.ndarray) -> int:
    """Fill the bool ``mask`` (365, or 366 with undo); returns the number of legal actions.

    With ``allow_undo``, undo is legal in any game not won that remembers a move, also when no
    card move or reserve deal is left: a game ends when no legal action exists (the rules of
    record), so a stuck game ends only when there is no move to take back either.
    """
    tab, lens, fd, _, meta, _ = s
    for a in range(mask.shape[0]):
        mask[a] = False
    k = _generate(tab, lens, fd, meta, mask, False)
    if allow_undo and meta[M_HIST_COUNT] > 0 and not is_won(meta):
        mask[UNDO_ACTION] = True  # a won game stays won: no undo
        k += 1
    return k


@jit_inline
def step(s: StateArrays, action: int, allow_undo: bool, mask: np.ndarray) -> tuple[int, int, int]:
    """Check and play one action, then refresh ``mask``: ``(code, score change, legal count)``.

    The legal count includes undo (`legal_mask`); 0 means the game has ended.

    ``mask`` holds the legal mask of the current state on entry (every caller keeps it so,
    since each step refreshes it), so an action it marks legal skips the full check.
    """
    code = OK if mask[action] else check_action(s, action, allow_undo)
    points = 0
    if code == OK:
        points = apply_action(s, action)
    k = legal_mask(s, allow_undo, mask)
    return code, points, k


@jit
def random_playout(
    s: StateArrays, seed: int, total_moves: int, max_game_moves: int, rule: int
) -> int:
    """Play random legal moves over fresh deals until ``total_moves``; returns the games started.

    Each game starts from the deal numbered by the generator and ends when won, stuck or
    after ``max_game_moves`` moves.  Used by the speed benchmark and for smoke testing.
    """
    rng = np.zeros(1, np.int64)
    rng_seed(rng, seed)
    cards = np.empty(N_CARDS, np.int8)
    moves = np.empty(N_ACTIONS, np.int64)
    played = 0
    games = 0
    while played < total_moves:
        shuffled_deck(rng_next(rng), cards)
        deal(s, cards, rule)
        games += 1
        for _ in range(max_game_moves):
            k = legal_moves(s, moves)
            if k == 0 or played >= total_moves:
                break
            apply_action(s, moves[rng_below(rng, k)])
            played += 1
    return games
