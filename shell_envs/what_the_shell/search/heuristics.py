"""Compiled heuristics of the What the Shell agents: cell scores, a position's value, net inputs.

Everything here runs on the rules engine (`rules`): captures are found with
`rules.find_captures`, so no rule is written twice.

* **Cell scoring** (`score_cells`): a one-ply heuristic over the 140 five-cell windows of
  the board.  A window is *alive* for a player when it holds no opponent turtle and no egg; a
  cell is worth what it adds to the player's alive windows (completing a five dominates), plus
  the value of the captures it makes (enemy turtles removed, eggs hatched, oldest first), and
  what it denies the opponent (blocking takes the cell, and a collision lays an egg there),
  minus a penalty when the new turtle could be captured next round.
* **Evaluation** (`evaluate`): black's value of a position, a squashed window score, or the
  game's outcome.
* **Network input** (`net_features`): the planes and cell values the learned networks read.

Values are from black's point of view in [0, 1] (1 = black wins, 0.5 = draw).
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit
from shell_envs.what_the_shell import network, rules
from shell_envs.what_the_shell.actions import cell_at_plain

WINDOW = 5

# value of an alive window holding n turtles of one player (n = 5 is a winning line)
WINDOW_VALUE = np.array([0.0, 1.0, 8.0, 60.0, 600.0, 100000.0])
CAPTURED_TURTLE = 40.0
CAPTURED_EGG = 6.0
HATCHED_EGG = 30.0
VULNERABLE = 45.0
DEFENCE = 0.9
EVAL_SCALE = 400.0

NO_EGG, ONE_EGG = np.int64(0), np.int64(1)  # _gain's eggs_allowed


def _windows() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every five-cell window in a line, and for each cell the windows that contain it."""
    windows = []
    for r in range(rules.SIZE):
        for c in range(rules.SIZE):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * k, c + dc * k) for k in range(WINDOW)]
                if all(0 <= rr < rules.SIZE and 0 <= cc < rules.SIZE for rr, cc in cells):
                    windows.append([cell_at_plain(rr, cc) for rr, cc in cells])
    table = np.array(windows, dtype=np.int64)
    per_cell = np.full((rules.CELLS, 4 * WINDOW), -1, dtype=np.int64)
    n_per_cell = np.zeros(rules.CELLS, dtype=np.int64)
    for w, window in enumerate(windows):
        for cell in window:
            per_cell[cell, n_per_cell[cell]] = w
            n_per_cell[cell] += 1
    return table, per_cell, n_per_cell


WINDOWS, CELL_WINDOWS, CELL_N_WINDOWS = _windows()
N_WINDOWS = WINDOWS.shape[0]


@jit
def window_counts(board: np.ndarray, counts: np.ndarray) -> None:
    """``counts[w, v]``: how many cells of window ``w`` hold value ``v`` (a board value)."""
    counts[:, :] = 0
    for w in range(N_WINDOWS):
        for k in range(WINDOW):
            counts[w, board[WINDOWS[w, k]]] += 1


@jit
def _gain(counts, cell, player, eggs_allowed):
    """What a turtle of ``player`` on ``cell`` adds to its alive windows.

    ``eggs_allowed`` windows may hold that many eggs (1 to value a hatching egg in place).
    """
    opponent = 3 - player
    total = 0.0
    for i in range(CELL_N_WINDOWS[cell]):
        w = CELL_WINDOWS[cell, i]
        if counts[w, opponent] == 0 and counts[w, rules.EGG] == eggs_allowed:
            n = counts[w, player]
            if n < WINDOW:
                total += WINDOW_VALUE[n + 1] - WINDOW_VALUE[n]
    return total


@jit
def _importance(counts, cell, player):
    """What ``player`` loses in its alive windows when its turtle on ``cell`` is removed."""
    opponent = 3 - player
    total = 0.0
    for i in range(CELL_N_WINDOWS[cell]):
        w = CELL_WINDOWS[cell, i]
        if counts[w, opponent] == 0 and counts[w, rules.EGG] == 0:
            n = counts[w, player]
            total += WINDOW_VALUE[n] - WINDOW_VALUE[n - 1]
    return total


@jit
def _clear_flags(flags, cell):
    """Zero the capture flags ``rules.find_captures`` may have set around anchor ``cell``."""
    flags[cell] = 0
    for d in range(8):
        for k in range(2):
            near = rules.RAYS[cell, d, k]
            if near >= 0:
                flags[near] = 0


@jit
def _capture_value(board, eggs, meta, counts, cell, player, flags, anchors):
    """Value of the captures a turtle of ``player`` on empty ``cell`` makes, with their hatching."""
    opponent = 3 - player
    board[cell] = player
    flags[cell] = rules.ANCHOR
    anchors[0] = cell
    n = rules.find_captures(board, player, anchors, 1, flags)
    board[cell] = rules.EMPTY
    if n == 0:
        _clear_flags(flags, cell)
        return 0.0
    value = 0.0
    for d in range(8):
        for k in range(2):
            x = rules.RAYS[cell, d, k]
            if x >= 0 and flags[x] & rules.DOOMED:
                if board[x] == opponent:
                    value += CAPTURED_TURTLE + _importance(counts, x, opponent)
                else:
                    value += CAPTURED_EGG
    hatched = 0
    for i in range(meta[rules.N_EGGS]):
        if hatched == n:
            break
        egg = eggs[i]
        if flags[egg] & rules.DOOMED:
            continue
        value += HATCHED_EGG + _gain(counts, egg, player, ONE_EGG)
        hatched += 1
    _clear_flags(flags, cell)
    return value


@jit
def _vulnerable(board, cell, player, flags, anchors):
    """True when a turtle of ``player`` on ``cell`` could be captured by the next enemy turtle."""
    opponent = 3 - player
    paired = False
    for d in range(8):
        near = rules.RAYS[cell, d, 0]
        if near >= 0 and (board[near] == player or board[near] == rules.EGG):
            paired = True
            break
    if not paired:
        return False
    board[cell] = player
    found = False
    for d in range(8):
        for k in range(2):
            y = rules.RAYS[cell, d, k]
            if y < 0 or board[y] != rules.EMPTY:
                continue
            board[y] = opponent
            flags[y] = rules.ANCHOR
            anchors[0] = y
            n = rules.find_captures(board, opponent, anchors, 1, flags)
            hit = n > 0 and (flags[cell] & rules.DOOMED) != 0
            _clear_flags(flags, y)
            board[y] = rules.EMPTY
            if hit:
                found = True
                break
        if found:
            break
    board[cell] = rules.EMPTY
    return found


@jit
def attack_scores(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    counts: np.ndarray,
    player: int,
    out: np.ndarray,
) -> None:
    """``out[cell]``: what a turtle of ``player`` on each empty cell gains; -inf if occupied."""
    flags = np.zeros(rules.CELLS, dtype=np.int8)
    anchors = np.zeros(1, dtype=np.int64)
    for cell in range(rules.CELLS):
        if board[cell] != rules.EMPTY:
            out[cell] = -np.inf
            continue
        value = _gain(counts, cell, player, NO_EGG)
        value += _capture_value(board, eggs, meta, counts, cell, player, flags, anchors)
        if _vulnerable(board, cell, player, flags, anchors):
            value -= VULNERABLE
        out[cell] = value


@jit
def score_both(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    black_out: np.ndarray,
    white_out: np.ndarray,
) -> None:
    """Both players' one-ply cell values (see `score_cells`), sharing the window counts."""
    counts = np.zeros((N_WINDOWS, 4), dtype=np.int32)
    window_counts(board, counts)
    attack_scores(board, eggs, meta, counts, rules.BLACK, black_out)
    attack_scores(board, eggs, meta, counts, rules.WHITE, white_out)
    for cell in range(rules.CELLS):
        if board[cell] == rules.EMPTY:
            b = black_out[cell]
            w = white_out[cell]
            black_out[cell] = b + DEFENCE * max(w, 0.0)
            white_out[cell] = w + DEFENCE * max(b, 0.0)


@jit
def score_cells(
    board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray
) -> None:
    """``out[cell]``: the one-ply value of ``player`` choosing each cell (-inf if occupied).

    Own gain plus ``DEFENCE`` times the opponent's gain on the same cell: taking a cell, or
    colliding on it, denies it to the opponent.
    """
    theirs = np.empty(rules.CELLS, dtype=np.float64)
    if player == rules.BLACK:
        score_both(board, eggs, meta, out, theirs)
    else:
        score_both(board, eggs, meta, theirs, out)


@jit
def top_cells(board: np.ndarray, scores: np.ndarray, k: int, out: np.ndarray) -> int:
    """Write the ``k`` best empty cells by ``scores`` into ``out``, best first and equal
    scores by cell index (a stable sort's order); returns how many.

    A scan per candidate instead of a sort: the same cells, and no sort to compile.
    """
    taken = np.zeros(rules.CELLS, dtype=np.bool_)
    n = 0
    while n < k:
        best = -1
        for cell in range(rules.CELLS):
            free = board[cell] == rules.EMPTY and not taken[cell]
            if free and (best < 0 or scores[cell] > scores[best]):
                best = cell
        if best < 0:
            break
        taken[best] = True
        out[n] = best
        n += 1
    return n


@jit
def evaluate(board: np.ndarray, meta: np.ndarray) -> float:
    """Black's value in [0, 1]: the outcome when decided, else the squashed window scores."""
    outcome = meta[rules.OUTCOME]
    if outcome == rules.BLACK_WINS:
        return 1.0
    if outcome == rules.WHITE_WINS:
        return 0.0
    if outcome == rules.DRAW:
        return 0.5
    counts = np.zeros((N_WINDOWS, 4), dtype=np.int32)
    window_counts(board, counts)
    diff = 0.0
    for w in range(N_WINDOWS):
        if counts[w, rules.EGG] == 0:
            if counts[w, rules.WHITE] == 0:
                diff += WINDOW_VALUE[counts[w, rules.BLACK]]
            elif counts[w, rules.BLACK] == 0:
                diff -= WINDOW_VALUE[counts[w, rules.WHITE]]
    return 0.5 + 0.5 * np.tanh(diff / EVAL_SCALE)


SCORE_SCALE = 8.0  # net_features: log1p(|cell value|) / this; a completed five maps to ~1.4


@jit
def _squash(value):
    """A cell value, log-squashed (0 for an occupied cell, scored -inf)."""
    if value == -np.inf:
        return 0.0
    return np.sign(value) * np.log1p(np.abs(value)) / SCORE_SCALE


@jit
def net_features(
    board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray
) -> None:
    """Write the network's input for ``player`` into ``out`` (``float32[N_FEATURES]``).

    Seven planes of 81 (own turtles, opponent turtles, eggs, egg order, sudden death, own and
    opponent cell values by `score_both`, log-squashed) and the window evaluation
    (`evaluate`, as ``player``'s value in [-1, 1]).
    """
    black = np.empty(rules.CELLS, dtype=np.float64)
    white = np.empty(rules.CELLS, dtype=np.float64)
    score_both(board, eggs, meta, black, white)
    features_from_scores(board, eggs, meta, player, black, white, out)


@jit
def features_from_scores(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    player: int,
    black: np.ndarray,
    white: np.ndarray,
    out: np.ndarray,
) -> None:
    """`net_features` from both players' cell values ``black`` and ``white`` already
    computed by `score_both` (the guided search also picks candidates from them)."""
    cells = rules.CELLS
    opponent = rules.BLACK + rules.WHITE - player
    sudden = 1.0 if meta[rules.SUDDEN_DEATH] != 0 else 0.0
    for cell in range(cells):
        v = board[cell]
        out[cell] = 1.0 if v == player else 0.0
        out[cells + cell] = 1.0 if v == opponent else 0.0
        out[2 * cells + cell] = 1.0 if v == rules.EGG else 0.0
        out[3 * cells + cell] = 0.0
        out[4 * cells + cell] = sudden
    for i in range(meta[rules.N_EGGS]):
        out[3 * cells + np.int64(eggs[i])] = 1.0 - i / cells  # int8 + 243 would overflow
    for cell in range(cells):
        own = black[cell] if player == rules.BLACK else white[cell]
        theirs = white[cell] if player == rules.BLACK else black[cell]
        out[5 * cells + cell] = _squash(own)
        out[6 * cells + cell] = _squash(theirs)
    value = evaluate(board, meta)
    out[network.N_PLANES * cells] = (
        2.0 * value - 1.0 if player == rules.BLACK else 1.0 - 2.0 * value
    )
