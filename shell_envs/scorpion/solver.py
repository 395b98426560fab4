"""Exact solver for full-information ("thoughtful") Scorpion: it sees every hidden card.

The search is one compiled depth-first search with an explicit stack: each stack level holds
a compact copy of the position (``ROW`` bytes), its ordered moves and the index of the next
move to try.  A transposition table (open addressing over 64-bit canonical Zobrist hashes)
stores every position ever expanded, which both avoids cycles and never searches a position
twice; because the question is plain reachability of a won position, a search that exhausts
the table without a win is a proof that the deal is lost.  Pruning keeps that proof sound:

- the hash ignores the order of interchangeable columns (columns 4–7 before the reserve
  deal, all seven after it; columns 1–3 differ before the deal because each receives its
  own reserve card), so positions that differ by a column permutation meet;
- a king that already forms the bottom of its column never moves to an interchangeable
  empty column, and a king goes to only one of several interchangeable empty columns;
- same-suit dominance (Classic, after the reserve deal): a card whose cards above it form a
  same-suit run down from it, and whose successor is a top card, is moved there at once as
  the only child.  With same-suit moves a card on its successor never leaves it, so every
  win makes that move some time; making it first only exposes the card below it sooner.

Moves are ordered (uncover a face-down card, build on longer same-suit runs, empty a column,
the reserve deal last).  Relaxed deals are searched in phases that share the node budget:
same-suit moves only, then cross-suit moves that make progress, then every move; only the
last, complete phase can prove a loss.  The search runs in node quotas and keeps its stack
between calls, so a clock can stop it while a node budget alone keeps verdicts deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from shell_envs.core.jit import jit
from shell_envs.scorpion import rules
from shell_envs.scorpion.cards import card_code
from shell_envs.scorpion.state import ScorpionState, check_deal

RULES = ("classic", "relaxed")
DEFAULT_MAX_NODES = 2_000_000
QUOTA_WITH_CLOCK = 200_000
MAX_DEPTH = 16_384
MAX_BRANCH = 64

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

# move sets of the search phases (Relaxed)
MODE_FULL = 0
MODE_FOCUSED = 1
MODE_SUITED = 2
# Relaxed: (mode, share of the node budget); the last, full phase gets what is left
RELAXED_PHASES = ((MODE_SUITED, 0.1), (MODE_FOCUSED, 0.3), (MODE_FULL, 1.0))

_M1 = -4658895280553007687  # 0xBF58476D1CE4E5B9
_M2 = -7723592293110705685  # 0x94D049BB133111EB
_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15


def _zobrist() -> np.ndarray:
    """Fixed random keys: 52 depths × 52 cards, then 4 face-down counts and 3 column salts."""
    return np.random.default_rng(0x5C0F).integers(-(2**63), 2**63 - 1, 52 * 52 + 8, np.int64)


ZOBRIST = _zobrist()


@jit
def _mix(x):
    """splitmix64 finaliser on wrapping int64 arithmetic."""
    x = (x ^ ((x >> 30) & 0x3FFFFFFFF)) * _M1
    x = (x ^ ((x >> 27) & 0x1FFFFFFFFF)) * _M2
    return x ^ ((x >> 31) & 0x1FFFFFFFF)


@jit
def position_hash(row, z):
    """Canonical hash: interchangeable columns are combined by an order-free sum."""
    dealt = row[O_DEALT] != 0
    h = np.int64(1) if dealt else np.int64(2)
    for c in range(7):
        n = int(row[O_LENS + c])
        k = z[2704 + int(row[O_FD + c])]
        base = c * 52
        for d in range(n):
            k ^= z[d * 52 + int(row[base + d])]
        if not dealt and c < 3:
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
def _opens(row, owner, card):
    """Whether exposing face-up ``card`` lets its same-suit neighbour join it or it join one."""
    rank = card % 13
    if rank < 12 and owner[card + 1] >= 0:
        return True
    if rank == 0:
        return False
    for c in range(7):
        lo = int(row[O_FD + c])
        for d in range(lo, int(row[O_LENS + c])):
            if int(row[c * 52 + d]) == card - 1:
                return d == lo or int(row[c * 52 + d - 1]) != card
    return False


@jit
def _safe_move(row, owner):
    """A same-suit move that can be played at once without losing a win, or -1.

    Once the reserve is dealt, a non-king card ``X`` whose cards above it form a same-suit
    run down from ``X`` may go onto ``X + 1`` (a top card) at once: with same-suit moves a
    card on its successor never leaves it, so every win must make this move eventually, and
    making it now only exposes the card under ``X`` earlier (see the module notes).
    """
    for c in range(7):
        n = int(row[O_LENS + c])
        if n == 0:
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
def gen_moves(row, relaxed, mode, out, scores):
    """Write the ordered, symmetry-reduced moves of ``row`` into ``out``; returns how many.

    Relaxed only: ``mode`` MODE_SUITED drops every cross-suit move, MODE_FOCUSED keeps just
    the cross-suit moves that make progress (uncover a face-down card, empty a column, or
    expose a card that its same-suit neighbour can join), MODE_FULL keeps them all.
    """
    k = 0
    if row[O_REMOVED] == 4:
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
    if dealt and (not relaxed or mode == MODE_SUITED):
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
                rep = False
                for e in range(n_empty):
                    dest = empty[e]
                    if dealt or dest >= 3:
                        if d == 0 and (dealt or c >= 3):
                            continue
                        if rep:
                            continue
                        rep = True
                    out[k] = card * 7 + dest + 512 * (c + 8 * d)
                    scores[k] = bonus + (100 if d > 0 else 0) + (n - d)
                    k += 1
                continue
            for s in range(4):
                if (not relaxed or mode == MODE_SUITED) and s != card // 13:
                    continue
                o = int(owner[s * 13 + rank + 1])
                if o < 0 or o == c:
                    continue
                sc = bonus + 10 * _run_length(row, o)
                if s == card // 13:
                    sc += 200
                elif (
                    mode == MODE_FOCUSED and bonus <= 0 and d > 0 and not _opens(row, owner, below)
                ):
                    continue
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
def search_init(stack, moves, n_moves, next_move, ctl, table, z, relaxed, mode):
    """Start a search from ``stack[0]``: record the root and its moves."""
    scores = np.empty(MAX_BRANCH, np.int64)
    ctl[:] = 0
    tt_insert(table, position_hash(stack[0], z))
    ctl[C_NODES] = 1
    if stack[0, O_REMOVED] == 4:
        ctl[C_STATUS] = S_WON
        return
    n_moves[0] = gen_moves(stack[0], relaxed, mode, moves[0], scores)
    next_move[0] = 0


@jit
def search_run(stack, moves, n_moves, next_move, ctl, table, z, relaxed, mode, quota):
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
        if not tt_insert(table, position_hash(child, z)):
            continue
        nodes += 1
        depth += 1
        if depth > ctl[C_MAXDEPTH]:
            ctl[C_MAXDEPTH] = depth
        if depth >= max_depth:
            ctl[C_OVERFLOW] = 1
            n_moves[depth] = 0
        else:
            n_moves[depth] = gen_moves(child, relaxed, mode, moves[depth], scores)
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
    """A verdict with its proof of work: ``moves`` are env actions that replay to a win."""

    verdict: str
    moves: list[int] = field(default_factory=list)
    readable: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    max_depth: int = 0

    @property
    def won(self) -> bool:
        """Whether the deal was proven winnable."""
        return self.verdict == WON


def action_text(action: int) -> str:
    """A move as people read it: ``"4H→7"`` (card onto column 7) or ``"deal reserve"``."""
    if action == rules.RESERVE_ACTION:
        return "deal reserve"
    card, dest = divmod(int(action), 7)
    return f"{card_code(card)}→{dest + 1}"


def _initial_state(deal_or_seed: object, relaxed: bool) -> ScorpionState:
    """The state a solve starts from: a deal number, 52 card codes, or a ScorpionState."""
    if isinstance(deal_or_seed, ScorpionState):
        return deal_or_seed
    if isinstance(deal_or_seed, (int, np.integer)) and not isinstance(deal_or_seed, bool):
        return ScorpionState.from_number(int(deal_or_seed), relaxed)
    if isinstance(deal_or_seed, Sequence | np.ndarray) and not isinstance(deal_or_seed, str):
        return ScorpionState.from_deal(list(deal_or_seed), relaxed)
    raise ValueError(
        "solve needs a deal number, 52 card codes or a ScorpionState; "
        f"got {type(deal_or_seed).__name__}"
    )


def solve(
    deal_or_seed: int | Sequence[object] | ScorpionState,
    rules: str = "classic",
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float | None = None,
) -> SolveResult:
    """Solve a deal exactly: ``won`` with a winning line, ``lost`` (proof) or ``unknown`` (budget).

    ``max_nodes`` bounds the positions expanded and keeps the verdict deterministic;
    ``max_seconds`` additionally stops the search on the clock (checked every
    ``QUOTA_WITH_CLOCK`` nodes).  A ScorpionState is solved under its own rule flag.
    """
    if rules not in RULES:
        raise ValueError(f"rules must be one of {RULES}; got {rules!r}")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer)) or max_nodes < 1:
        raise ValueError(f"max_nodes must be a positive integer; got {max_nodes!r}")
    state = _initial_state(deal_or_seed, rules == "relaxed")
    relaxed = state.relaxed
    t0 = time.perf_counter()
    deadline = None if max_seconds is None else t0 + max_seconds
    search = _Search(state, max_nodes)
    nodes = 0
    max_depth = 0
    phases = RELAXED_PHASES if relaxed else ((MODE_FULL, 1.0),)
    for mode, share in phases:
        budget = max_nodes - nodes if mode == MODE_FULL else max(1, int(max_nodes * share))
        status = search.run(relaxed, mode, budget, deadline)
        nodes += search.nodes
        max_depth = max(max_depth, search.max_depth)
        if status == S_WON or mode == MODE_FULL:
            break
    return _result(search, nodes, max_depth, t0)


class _Search:
    """The arrays of one compiled search, reused across its phases."""

    def __init__(self, state: ScorpionState, max_nodes: int) -> None:
        self.table = np.zeros(1 << max(12, int(2 * max_nodes + 2).bit_length()), np.int64)
        self.stack = np.empty((MAX_DEPTH + 1, ROW), np.int8)
        self.moves = np.empty((MAX_DEPTH + 1, MAX_BRANCH), np.int64)
        self.n_moves = np.zeros(MAX_DEPTH + 1, np.int64)
        self.next_move = np.zeros(MAX_DEPTH + 1, np.int64)
        self.ctl = np.zeros(8, np.int64)
        load_row(self.stack[0], state.tab, state.lens, state.fd, state.reserve, state.meta)

    @property
    def nodes(self) -> int:
        """Positions expanded by the last phase."""
        return int(self.ctl[C_NODES])

    @property
    def max_depth(self) -> int:
        """Deepest stack level the last phase reached."""
        return int(self.ctl[C_MAXDEPTH])

    @property
    def status(self) -> int:
        """S_RUNNING (budget or clock ran out), S_WON or S_LOST (space exhausted)."""
        if self.ctl[C_STATUS] == S_LOST and self.ctl[C_OVERFLOW]:
            return S_RUNNING
        return int(self.ctl[C_STATUS])

    def run(self, relaxed: bool, mode: int, budget: int, deadline: float | None) -> int:
        """One phase from the root over a fresh table: ``budget`` nodes, or until ``deadline``."""
        if self.ctl[C_NODES]:
            self.table = np.zeros(self.table.shape[0], np.int64)
        a = (self.stack, self.moves, self.n_moves, self.next_move, self.ctl, self.table, ZOBRIST)
        search_init(*a, relaxed, mode)
        while self.ctl[C_STATUS] == S_RUNNING and self.ctl[C_NODES] < budget:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            quota = int(budget - self.ctl[C_NODES])
            if deadline is not None:
                quota = min(quota, QUOTA_WITH_CLOCK)
            search_run(*a, relaxed, mode, quota)
        return self.status

    def line(self) -> list[int]:
        """The winning line (env actions) once the search has won."""
        depth = int(self.ctl[C_DEPTH])
        return [int(self.moves[d, self.next_move[d] - 1] & 511) for d in range(depth)]


def _result(search: _Search, nodes: int, max_depth: int, t0: float) -> SolveResult:
    """The SolveResult of a finished search."""
    result = SolveResult(
        UNKNOWN, nodes=nodes, seconds=time.perf_counter() - t0, max_depth=max_depth
    )
    if search.status == S_WON:
        result.verdict = WON
        result.moves = search.line()
        result.readable = [action_text(a) for a in result.moves]
    elif search.status == S_LOST:
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
) -> str:
    """The text ``shell-envs solve`` prints: verdict, nodes, time and the numbered solution."""
    if (seed is None) == (deal_file is None):
        raise ValueError("give exactly one of --seed N or --deal FILE")
    what: int | list[str] = seed if seed is not None else read_deal_file(deal_file)  # type: ignore[arg-type]
    result = solve(what, rules=rules, max_nodes=max_nodes, max_seconds=max_seconds)
    source = f"deal {seed}" if seed is not None else f"deal file {deal_file}"
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    lines = [
        f"Scorpion ({rules}), {source}: {result.verdict}",
        f"nodes: {result.nodes:,}  time: {result.seconds:.2f} s  ({rate:,.0f} nodes/s)",
    ]
    if result.verdict == WON:
        lines.append(f"solution ({len(result.moves)} moves):")
        lines += [f"{i:4d}. {text}" for i, text in enumerate(result.readable, 1)]
    elif result.verdict == LOST:
        lines.append("no sequence of moves wins this deal (search space exhausted)")
    else:
        lines.append("budget exhausted before a verdict; raise --max-nodes or --max-seconds")
    return "\n".join(lines)
