"""What the Shell rules as pure, compiled functions over three small arrays.

State (see `new_state`):

* ``board``: ``int8[81]`` by cell index (`actions.cell_at`): ``EMPTY``/``BLACK``/``WHITE``/``EGG``.
* ``eggs``: ``int8[81]``, the egg queue, oldest first; entries past ``meta[N_EGGS]`` are -1.
* ``meta``: ``int32[4]``: egg count, sudden-death flag, rounds played, outcome.

Every function mutates the arrays in place and is compiled with numba, so the single env,
the batched env, the agents and the benchmarks all run this same code.  Nothing here imports
gymnasium or pettingzoo.  The function names follow the rules: `place`, `capture`,
`hatch`, `check_end`, composed by `step`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from shell_envs.core.jit import jit, jit_inline
from shell_envs.what_the_shell.actions import CELLS, SIZE, cell_at, row_col
from shell_envs.what_the_shell.actions import cell_at_plain as _cell_at
from shell_envs.what_the_shell.actions import row_col_plain as _row_col

EMPTY, BLACK, WHITE, EGG = 0, 1, 2, 3

# meta fields
N_EGGS, SUDDEN_DEATH, ROUNDS, OUTCOME = 0, 1, 2, 3
META_SIZE = 4

# outcomes
ONGOING, BLACK_WINS, WHITE_WINS, DRAW = 0, 1, 2, 3

# fields of the per-round info array filled by `step`
(
    I_COLLISION,
    I_CAPTURES_B,
    I_CAPTURES_W,
    I_HATCHED_B,
    I_HATCHED_W,
    I_VANISHED,
    I_REMOVED_B,
    I_REMOVED_W,
    I_REMOVED_EGGS,
    I_WAVES,
    I_WIN_B,
    I_WIN_W,
) = range(12)
INFO_SIZE = 12

WIN_LENGTH = 5
# rows of the scratch array of `step`: both players' anchors, the new cells, capture flags
W_ANCHORS_B, W_ANCHORS_W, W_NEW, W_FLAGS = range(4)
WORK_SHAPE = (4, CELLS + 2)


def _rays() -> np.ndarray:
    """``RAYS[cell, d, k]``: the cell ``k + 1`` steps from ``cell`` in direction ``d``, or -1."""
    dirs = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
    rays = np.full((CELLS, 8, 3), -1, dtype=np.int8)
    for cell in range(CELLS):
        r, c = _row_col(cell)
        for d, (dr, dc) in enumerate(dirs):
            for k in range(3):
                rr, cc = r + dr * (k + 1), c + dc * (k + 1)
                if 0 <= rr < SIZE and 0 <= cc < SIZE:
                    rays[cell, d, k] = _cell_at(rr, cc)
    return rays


RAYS = _rays()


def _lines() -> tuple[np.ndarray, np.ndarray]:
    """Every row, column and diagonal at least five cells long, as cell lists with offsets."""
    lines = [[_cell_at(r, c) for c in range(SIZE)] for r in range(SIZE)]
    lines += [[_cell_at(r, c) for r in range(SIZE)] for c in range(SIZE)]
    for start in range(-(SIZE - WIN_LENGTH), SIZE - WIN_LENGTH + 1):
        lines.append([_cell_at(r, r + start) for r in range(SIZE) if 0 <= r + start < SIZE])
        lines.append([_cell_at(r, start + 8 - r) for r in range(SIZE) if 0 <= start + 8 - r < SIZE])
    starts = np.cumsum([0] + [len(line) for line in lines]).astype(np.int16)
    return np.concatenate([np.array(line) for line in lines]).astype(np.int8), starts


LINE_CELLS, LINE_START = _lines()


# the four line directions (right, down, down-right, down-left): row and column steps, and
# the step between cell indices.  The rule tables are int8/int16, not int64: compiled for a
# GPU they live in its 64 KiB of constant memory, once per inlined use.
LINE_DR = np.array([0, 1, 1, 1], dtype=np.int8)
LINE_DC = np.array([1, 0, 1, -1], dtype=np.int8)
LINE_STEPS = _cell_at(LINE_DR, LINE_DC)


def _line_reach() -> np.ndarray:
    """``LINE_REACH[cell, d, side]``: how many cells, up to four, the board extends from
    ``cell`` backwards (``side`` 0) and forwards (1) along line direction ``d``."""
    reach = np.zeros((CELLS, 4, 2), dtype=np.int8)
    for cell in range(CELLS):
        r, c = _row_col(cell)
        for d, (dr, dc) in enumerate(zip(LINE_DR, LINE_DC, strict=True)):
            for side, sign in enumerate((-1, 1)):
                k = 0
                while (
                    k < WIN_LENGTH - 1
                    and 0 <= r + sign * dr * (k + 1) < SIZE
                    and (0 <= c + sign * dc * (k + 1) < SIZE)
                ):
                    k += 1
                reach[cell, d, side] = k
    return reach


LINE_REACH = _line_reach()


def new_state() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty board: ``(board, eggs, meta)``."""
    return (
        np.zeros(CELLS, dtype=np.int8),
        np.full(CELLS, -1, dtype=np.int8),
        np.zeros(META_SIZE, dtype=np.int32),
    )


@jit_inline
def is_legal(board: np.ndarray, cell: int) -> bool:
    """A player may choose any empty cell on the board."""
    return 0 <= cell < CELLS and board[cell] == EMPTY


@jit_inline
def lay_egg(board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, cell: int) -> None:
    """Collision: an egg is laid on ``cell`` as the newest egg."""
    board[cell] = EGG
    eggs[meta[N_EGGS]] = cell
    meta[N_EGGS] += 1


@jit_inline
def remove_egg(eggs: np.ndarray, meta: np.ndarray, cell: int) -> None:
    """Take ``cell`` out of the egg queue, keeping the others in age order."""
    n = meta[N_EGGS]
    j = 0
    for i in range(n):
        if eggs[i] != cell:
            eggs[j] = eggs[i]
            j += 1
    for i in range(j, n):
        eggs[i] = -1
    meta[N_EGGS] = j


@jit_inline
def place(
    board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, black_cell: int, white_cell: int
) -> bool:
    """Placement: both turtles land, or an egg is laid on a shared cell; True on collision."""
    if black_cell == white_cell:
        lay_egg(board, eggs, meta, black_cell)
        return True
    board[black_cell] = BLACK
    board[white_cell] = WHITE
    return False


@jit_inline
def _is_enemy_piece(value, player):
    """An opponent turtle or an egg is an enemy piece of ``player`` (anything not empty and
    not ``player``'s own; written without branches)."""
    return (value != EMPTY) & (value != player)


DOOMED, ANCHOR = 1, 2


@jit_inline
def _encloses(board, player, anchor, d):
    """Whether ``anchor`` and the cell three steps in direction ``d`` enclose two enemy pieces.

    Branch-free (random boards make branches mispredict): an off-board ray (-1) reads a
    harmless wrapped cell and is masked out by ``far >= 0``.
    """
    far = RAYS[anchor, d, 2]
    return (
        (far >= 0)
        & (board[far] == player)
        & _is_enemy_piece(board[RAYS[anchor, d, 0]], player)
        & _is_enemy_piece(board[RAYS[anchor, d, 1]], player)
    )


@jit_inline
def _any_enclosure(board, player, anchors, n_anchors):
    """Whether any of ``player``'s anchors closes an enclosure (most rounds: none)."""
    found = False
    for i in range(n_anchors):
        for d in range(8):
            found |= _encloses(board, player, anchors[i], d)
    return found


@jit_inline
def find_captures(
    board: np.ndarray, player: int, anchors: np.ndarray, n_anchors: int, flags: np.ndarray
) -> int:
    """Count ``player``'s enclosures ``[P, E, E, P]`` from its anchors and mark the enclosed cells.

    ``flags`` marks ``player``'s anchors with ``ANCHOR``; enclosed cells get ``DOOMED``.  An
    enclosure whose two ends are both anchors is counted once (from its lower cell).
    """
    count = 0
    for i in range(n_anchors):
        a = anchors[i]
        for d in range(8):
            if not _encloses(board, player, a, d):
                continue
            far = RAYS[a, d, 2]
            c1 = RAYS[a, d, 0]
            c2 = RAYS[a, d, 1]
            if flags[far] & ANCHOR and far < a:
                continue
            flags[c1] |= DOOMED
            flags[c2] |= DOOMED
            count += 1
    return count


@jit_inline
def capture(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    anchors_b: np.ndarray,
    n_b: int,
    anchors_w: np.ndarray,
    n_w: int,
    info: np.ndarray,
    flags: np.ndarray,
) -> tuple[int, int]:
    """One capture wave: both players' enclosures found on one board, then removed together.

    ``flags`` is scratch (at least 81 entries, all zero; left zero).  Returns
    ``(black_captures, white_captures)``, the number of enclosures of each player.
    """
    if not (
        _any_enclosure(board, BLACK, anchors_b, n_b) or _any_enclosure(board, WHITE, anchors_w, n_w)
    ):
        return 0, 0
    for i in range(n_b):
        flags[anchors_b[i]] = ANCHOR
    cb = find_captures(board, BLACK, anchors_b, n_b, flags)
    for i in range(n_b):
        flags[anchors_b[i]] &= DOOMED
    for i in range(n_w):
        flags[anchors_w[i]] |= ANCHOR
    cw = find_captures(board, WHITE, anchors_w, n_w, flags)
    for cell in range(CELLS):
        doomed = flags[cell] & DOOMED
        flags[cell] = 0
        if doomed:
            value = board[cell]
            if value == EGG:
                remove_egg(eggs, meta, cell)
                info[I_REMOVED_EGGS] += 1
            elif value == BLACK:
                info[I_REMOVED_B] += 1
            else:
                info[I_REMOVED_W] += 1
            board[cell] = EMPTY
    return cb, cw


@jit_inline
def hatch(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    captures_b: int,
    captures_w: int,
    hatched_b: np.ndarray,
    hatched_w: np.ndarray,
    info: np.ndarray,
) -> tuple[int, int]:
    """Hatching after a wave with ``captures_b`` / ``captures_w`` captures.

    Contested claims pair off first and the oldest eggs vanish; the leftover claims hatch the
    next-oldest eggs for their owner; claims with no egg left are lost.  The new turtles are
    written to ``hatched_b`` / ``hatched_w`` (the next wave's anchors); returns their counts.
    """
    n = meta[N_EGGS]
    vanished = min(captures_b, captures_w, n)
    for i in range(vanished):
        board[eggs[i]] = EMPTY
    leftover = captures_b - captures_w
    player = BLACK if leftover > 0 else WHITE
    n_hatch = min(abs(leftover), n - vanished)
    for i in range(n_hatch):
        cell = eggs[vanished + i]
        board[cell] = player
        if player == BLACK:
            hatched_b[i] = cell
        else:
            hatched_w[i] = cell
    used = vanished + n_hatch
    for i in range(n - used):
        eggs[i] = eggs[i + used]
    for i in range(n - used, n):
        eggs[i] = -1
    meta[N_EGGS] = n - used
    info[I_VANISHED] += vanished
    if player == BLACK:
        info[I_HATCHED_B] += n_hatch
        return n_hatch, 0
    info[I_HATCHED_W] += n_hatch
    return 0, n_hatch


@jit
def _longest_run(board, first, last):
    """Length of the longest run of one colour's turtles along ``LINE_CELLS[first:last]``."""
    best = 0
    run = 0
    colour = EMPTY
    for i in range(first, last):
        v = board[LINE_CELLS[i]]
        if v == colour:
            run += 1
        else:
            colour = v
            run = 1
        if (v == BLACK or v == WHITE) and run > best:
            best = run
    return best


@jit_inline
def on_line_of_five(board: np.ndarray, cell: int) -> bool:
    """Whether the turtle on ``cell`` lies on a line of five or more turtles of its colour.

    Counts the unbroken run of its colour up to four steps each way along each line
    direction, without branches (random boards make branches mispredict): a step past the
    edge reads a clamped cell and is masked out by ``k <= reach``.
    """
    player = board[cell]
    found = False
    for d in range(4):
        step = LINE_STEPS[d]
        length = 1
        for side in range(2):
            sign = 2 * side - 1
            reach = LINE_REACH[cell, d, side]
            run = True
            for k in range(1, WIN_LENGTH):
                c = min(max(cell + sign * k * step, 0), CELLS - 1)
                run &= (k <= reach) & (board[c] == player)
                length += run
        found |= length >= WIN_LENGTH
    return found


@jit_inline
def _with_cell(low, high, cell):
    """The 81-bit cell set ``(low, high)`` (cells 0-63, 64-80) with ``cell`` added."""
    if cell < 64:
        return low | (np.uint64(1) << np.uint64(cell)), high
    return low, high | (np.uint64(1) << np.uint64(cell - 64))


@jit_inline
def _count_by_colour(board, low, high):
    """``(black, white)``: how many turtles of each colour the cell set ``(low, high)`` holds
    (a set of turtles, so each cell counts once however many lines it lies on)."""
    nb = 0
    nw = 0
    if low | high:
        for cell in range(CELLS):
            word = low if cell < 64 else high
            if (word >> np.uint64(cell % 64)) & np.uint64(1):
                if board[cell] == BLACK:
                    nb += 1
                else:
                    nw += 1
    return nb, nw


@jit
def winning_counts(board: np.ndarray) -> tuple[int, int]:
    """``(black, white)`` winning-turtle counts: turtles on a line of five or more, each once."""
    n_lines = LINE_START.shape[0] - 1
    any_line = False
    for line in range(n_lines):
        if _longest_run(board, LINE_START[line], LINE_START[line + 1]) >= WIN_LENGTH:
            any_line = True
            break
    if not any_line:
        return 0, 0
    low = np.uint64(0)
    high = np.uint64(0)
    for cell in range(CELLS):
        if board[cell] != EMPTY and board[cell] != EGG and on_line_of_five(board, cell):
            low, high = _with_cell(low, high, cell)
    return _count_by_colour(board, low, high)


@jit_inline
def _decide(board, meta, info, nb, nw):
    """Apply the end-of-round verdict for winning counts ``nb`` and ``nw``."""
    info[I_WIN_B] = nb
    info[I_WIN_W] = nw
    if nb > nw:
        meta[OUTCOME] = BLACK_WINS
    elif nw > nb:
        meta[OUTCOME] = WHITE_WINS
    meta[SUDDEN_DEATH] = 1 if (nb == nw and nb > 0) else 0
    if meta[OUTCOME] == ONGOING:
        full = True
        for cell in range(CELLS):
            if board[cell] == EMPTY:
                full = False
                break
        if full:
            meta[OUTCOME] = DRAW
    return meta[OUTCOME]


@jit_inline
def _run_end(board, cell, d, sign):
    """The last cell of ``board[cell]``'s colour reached from ``cell`` stepping along line
    direction ``d`` (``sign`` -1 backwards, +1 forwards), and the number of steps taken."""
    player = board[cell]
    steps = 0
    r, c = row_col(cell)
    dr, dc = sign * LINE_DR[d], sign * LINE_DC[d]
    while 0 <= r + dr < SIZE and 0 <= c + dc < SIZE and board[cell_at(r + dr, c + dc)] == player:
        r += dr
        c += dc
        steps += 1
    return cell_at(r, c), steps


@jit_inline
def arrival_counts(board: np.ndarray, new_cells: np.ndarray, n_new: int) -> tuple[int, int]:
    """``(black, white)`` winning-turtle counts when every line of five runs through one of the
    ``n_new`` cells where turtles arrived this round (see `check_end`).

    Equal to `winning_counts` then, and cheap: most rounds only the branch-free
    `on_line_of_five` runs; a found line's turtles go into the same 81-bit set that
    `winning_counts` counts, so crossing lines count shared turtles once.
    """
    low = np.uint64(0)
    high = np.uint64(0)
    for i in range(n_new):
        cell = new_cells[i]
        turtle = (board[cell] == BLACK) | (board[cell] == WHITE)
        if not (turtle and on_line_of_five(board, cell)):
            continue
        for d in range(4):
            first, back = _run_end(board, cell, d, -1)
            _, forward = _run_end(board, cell, d, 1)
            if back + forward + 1 < WIN_LENGTH:
                continue
            for k in range(back + forward + 1):
                low, high = _with_cell(low, high, first + k * LINE_STEPS[d])
    return _count_by_colour(board, low, high)


@jit_inline
def check_end(
    board: np.ndarray,
    meta: np.ndarray,
    info: np.ndarray,
    arrivals: np.ndarray | None = None,
    n_arrivals: int = 0,
) -> int:
    """End-of-round checks: the larger winning-turtle count wins, equal non-zero counts mean
    sudden death, and a full board with no winner is a draw.  Returns the outcome.

    ``arrivals[:n_arrivals]``, when given, are the cells where turtles arrived this round
    (placed or hatched).  Outside sudden death no line of five stood before the round and
    removals cannot make one, so every line runs through an arrival still on the board: only
    those lines are counted (`arrival_counts`); otherwise the whole board is.
    """
    if arrivals is not None and meta[SUDDEN_DEATH] == 0:
        nb, nw = arrival_counts(board, arrivals, n_arrivals)
    else:
        nb, nw = winning_counts(board)
    return _decide(board, meta, info, nb, nw)


@jit_inline
def step(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    black_cell: int,
    white_cell: int,
    info: np.ndarray,
    work: np.ndarray | None = None,
) -> int:
    """Play one round with both (legal) choices: placement, capture waves with hatching, checks.

    ``info`` (``int32[INFO_SIZE]``) is overwritten with what happened; returns the outcome.
    ``work`` is optional scratch, ``int8`` zeros of shape `WORK_SHAPE` (left zeroed
    where it must be); hot loops pass one so that a round allocates nothing.  The end
    checks are given the cells where turtles arrived, so that outside sudden death they
    count only the lines through those (`play_round` is this step with the scratch
    required).
    """
    if work is None:
        work = np.zeros(WORK_SHAPE, dtype=np.int8)
    return play_round(board, eggs, meta, black_cell, white_cell, info, work)


@jit_inline
def play_round(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    black_cell: int,
    white_cell: int,
    info: np.ndarray,
    work: np.ndarray,
) -> int:
    """`step` with its scratch ``work`` given: allocates nothing, so that it compiles for
    a GPU too (device code cannot allocate; numba-cuda types `step`'s ``np.zeros`` even when
    ``work`` is an array, so the two stay apart).

    The end checks are given the cells where turtles arrived, so that outside sudden death
    they count only the lines through those.
    """
    for k in range(INFO_SIZE):
        info[k] = 0
    new_cells = work[W_NEW]
    n_new = 0
    if place(board, eggs, meta, black_cell, white_cell):
        info[I_COLLISION] = 1
    else:
        anchors_b = work[W_ANCHORS_B]
        anchors_w = work[W_ANCHORS_W]
        flags = work[W_FLAGS]
        anchors_b[0] = black_cell
        anchors_w[0] = white_cell
        new_cells[0] = black_cell
        new_cells[1] = white_cell
        n_new = 2
        n_b, n_w = 1, 1
        while True:
            cb, cw = capture(board, eggs, meta, anchors_b, n_b, anchors_w, n_w, info, flags)
            info[I_WAVES] += 1
            info[I_CAPTURES_B] += cb
            info[I_CAPTURES_W] += cw
            if cb + cw == 0:
                break
            n_b, n_w = hatch(board, eggs, meta, cb, cw, anchors_b, anchors_w, info)
            for i in range(n_b):
                new_cells[n_new] = anchors_b[i]
                n_new += 1
            for i in range(n_w):
                new_cells[n_new] = anchors_w[i]
                n_new += 1
            if n_b + n_w == 0:
                break
    meta[ROUNDS] += 1
    return check_end(board, meta, info, new_cells, n_new)


ILLEGAL = -1


@jit_inline
def try_step(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    black_cell: int,
    white_cell: int,
    info: np.ndarray,
    work: np.ndarray | None = None,
) -> int:
    """`step` if both cells are legal (empty, on the board), else ``ILLEGAL`` untouched."""
    if not (is_legal(board, black_cell) and is_legal(board, white_cell)):
        return ILLEGAL
    return step(board, eggs, meta, black_cell, white_cell, info, work)


@jit
def legal_mask(board: np.ndarray) -> np.ndarray:
    """``int8[81]``: 1 on the empty cells (both players' legal actions)."""
    mask = np.empty(CELLS, dtype=np.int8)
    for cell in range(CELLS):
        mask[cell] = board[cell] == EMPTY
    return mask


@jit_inline
def step_and_observe(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    black_cell: int,
    white_cell: int,
    info: np.ndarray,
    observe: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The env's hot path: `try_step`, then both players' observations and the legal mask,
    ``(outcome, black_obs, white_obs, mask)``, in one native call.

    ``observe(board, eggs, meta)`` is an encoder's compiled ``(black_obs, white_obs)``
    (``encode_pair``); an encoder's fused step passes its own and is inlined with it.
    """
    outcome = try_step(board, eggs, meta, black_cell, white_cell, info)
    black, white = observe(board, eggs, meta)
    return outcome, black, white, legal_mask(board)


@jit
def random_empty_cell(board: np.ndarray, n_empty: int) -> int:
    """A uniformly random empty cell (``n_empty`` is the number of empty cells)."""
    k = np.random.randint(n_empty)
    for cell in range(CELLS):
        if board[cell] == EMPTY:
            if k == 0:
                return cell
            k -= 1
    return -1


@jit
def count_empty(board: np.ndarray) -> int:
    """Number of empty cells."""
    n = 0
    for cell in range(CELLS):
        if board[cell] == EMPTY:
            n += 1
    return n


@jit
def random_playout(board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, max_rounds: int) -> int:
    """Play uniformly random rounds until the game ends or ``max_rounds``; returns rounds played.

    Uses numba's global generator (seed it with `seed_numba`).
    """
    info = np.zeros(INFO_SIZE, dtype=np.int32)
    work = np.zeros(WORK_SHAPE, dtype=np.int8)
    rounds = 0
    while meta[OUTCOME] == ONGOING and rounds < max_rounds:
        n_empty = count_empty(board)
        b = random_empty_cell(board, n_empty)
        w = random_empty_cell(board, n_empty)
        step(board, eggs, meta, b, w, info, work)
        rounds += 1
    return rounds


@jit
def seed_numba(seed: int) -> None:
    """Seed the generator that compiled code uses (numba keeps its own)."""
    np.random.seed(seed)


@jit
def random_games(n_games: int, max_rounds: int, seed: int) -> int:
    """Play ``n_games`` random games from the empty board; returns the total rounds played."""
    np.random.seed(seed)
    board = np.zeros(CELLS, dtype=np.int8)
    eggs = np.full(CELLS, -1, dtype=np.int8)
    meta = np.zeros(META_SIZE, dtype=np.int32)
    total = 0
    for _ in range(n_games):
        board[:] = EMPTY
        eggs[:] = -1
        meta[:] = 0
        total += random_playout(board, eggs, meta, max_rounds)
    return total
