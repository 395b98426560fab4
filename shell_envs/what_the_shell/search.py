"""Compiled heuristics and simultaneous-move tree search for the What the Shell agents.

Everything here runs on the rules engine (`rules`): captures are found with
`rules.find_captures`, rounds are played with `rules.step`, so no rule is written
twice.  Two parts:

* **Cell scoring** (`score_cells`): a one-ply heuristic over the 140 five-cell windows of
  the board.  A window is *alive* for a player when it holds no opponent turtle and no egg; a
  cell is worth what it adds to the player's alive windows (completing a five dominates), plus
  the value of the captures it makes (enemy turtles removed, eggs hatched, oldest first), and
  what it denies the opponent (blocking takes the cell, and a collision lays an egg there),
  minus a penalty when the new turtle could be captured next round.
* **Tree search** (`run_search`): simultaneous-move Monte Carlo tree search.  Each node
  stores its position and each player's candidate cells (the top cells by `score_cells`);
  the two players select independently (decoupled UCT, or regret matching+), the joint choice
  is played with `rules.step`, and leaves are valued by `evaluate`, a squashed
  window score, or by the game's outcome.

Values are from black's point of view in [0, 1] (1 = black wins, 0.5 = draw).
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit, jit_inline
from shell_envs.what_the_shell import network, rules

WINDOW = 5

# value of an alive window holding n turtles of one player (n = 5 is a winning line)
WINDOW_VALUE = np.array([0.0, 1.0, 8.0, 60.0, 600.0, 100000.0])
CAPTURED_TURTLE = 40.0
CAPTURED_EGG = 6.0
HATCHED_EGG = 30.0
VULNERABLE = 45.0
DEFENCE = 0.9
EVAL_SCALE = 400.0

UCB, REGRET_MATCHING = 0, 1

# positions in the tuple made by new_tree
(
    T_BOARDS,
    T_EGGS,
    T_METAS,
    T_CANDIDATES,
    T_N_CANDIDATES,
    T_VISITS,
    T_VALUES,
    T_STRATEGIES,
    T_NODE_VISITS,
    T_CHILDREN,
    T_N_NODES,
    T_PRIORS,
    T_LEAF,
) = range(13)

NO_CHILD = -1
# Node and side numbers passed to compiled functions: numpy integers, not Python ones, since
# numba compiles a callee once more for every constant Python integer it is passed.
ROOT = np.int64(0)
BLACK_SIDE = np.int64(0)
WHITE_SIDE = np.int64(1)
NO_EGG, ONE_EGG = np.int64(0), np.int64(1)  # _gain's eggs_allowed
UCB_SELECTION = np.int64(UCB)
PUCT = np.int64(2)  # the guided search's default selection (run_guided_search)
# where the guided search's candidates come from (_guide)
NETWORK_CANDIDATES, HEURISTIC_CANDIDATES, BOTH_CANDIDATES = np.int64(0), np.int64(1), np.int64(2)
UNEXPANDED = -1


def _windows() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every five-cell window in a line, and for each cell the windows that contain it."""
    windows = []
    for r in range(rules.SIZE):
        for c in range(rules.SIZE):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * k, c + dc * k) for k in range(WINDOW)]
                if all(0 <= rr < rules.SIZE and 0 <= cc < rules.SIZE for rr, cc in cells):
                    windows.append([rr * rules.SIZE + cc for rr, cc in cells])
    table = np.array(windows, dtype=np.int64)
    per_cell = np.full((rules.CELLS, 4 * WINDOW), -1, dtype=np.int64)
    n_per_cell = np.zeros(rules.CELLS, dtype=np.int64)
    for w, cells in enumerate(windows):
        for cell in cells:
            per_cell[cell, n_per_cell[cell]] = w
            n_per_cell[cell] += 1
    return table, per_cell, n_per_cell


WINDOWS, CELL_WINDOWS, CELL_N_WINDOWS = _windows()
N_WINDOWS = WINDOWS.shape[0]


@jit
def window_counts(board, counts):
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
def attack_scores(board, eggs, meta, counts, player, out):
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
def score_both(board, eggs, meta, black_out, white_out):
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
def score_cells(board, eggs, meta, player, out):
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
def _top(board, scores, k, out):
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
def evaluate(board, meta):
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


def new_tree(capacity: int, k: int) -> tuple[np.ndarray, ...]:
    """Preallocated arrays for a search tree of ``capacity`` nodes with ``k`` candidates a side.

    Indexed by the ``T_*`` constants: boards, egg queues, metas, candidate cells
    ``[node, side, i]``, candidate counts, visits per candidate, value sums (UCB) or regrets
    (regret matching), cumulative strategies, node visits, children by joint choice
    ``[node, black_i, white_i]``, the node count, and for the guided search
    (`run_guided_search`) the candidates' priors and each node's leaf value.
    """
    return (
        np.zeros((capacity, rules.CELLS), dtype=np.int8),
        np.zeros((capacity, rules.CELLS), dtype=np.int8),
        np.zeros((capacity, rules.META_SIZE), dtype=np.int32),
        np.zeros((capacity, 2, k), dtype=np.int64),
        np.zeros((capacity, 2), dtype=np.int64),
        np.zeros((capacity, 2, k), dtype=np.float64),
        np.zeros((capacity, 2, k), dtype=np.float64),
        np.zeros((capacity, 2, k), dtype=np.float64),
        np.zeros(capacity, dtype=np.float64),
        np.full((capacity, k, k), NO_CHILD, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros((capacity, 2, k), dtype=np.float64),
        np.zeros(capacity, dtype=np.float64),
    )


@jit_inline
def _copy(source, target):
    """``target[:] = source`` for two arrays of one length, without numba's shape check (its
    error text alone takes seconds to compile)."""
    for i in range(source.size):
        target[i] = source[i]


@jit
def _init_node(tree, node, board, eggs, meta):
    """Store a position in ``node`` and reset its statistics; candidates wait for `_expand`.

    Most leaves are valued once and never revisited, so scoring their cells up front is waste.
    """
    _copy(board, tree[T_BOARDS][node])
    _copy(eggs, tree[T_EGGS][node])
    _copy(meta, tree[T_METAS][node])
    tree[T_N_CANDIDATES][node] = UNEXPANDED
    tree[T_VISITS][node] = 0.0
    tree[T_VALUES][node] = 0.0
    tree[T_STRATEGIES][node] = 0.0
    tree[T_NODE_VISITS][node] = 0.0
    tree[T_CHILDREN][node] = NO_CHILD


@jit
def _expand(tree, node):
    """Pick both sides' candidates at ``node``: their ``k`` best cells by `score_both`."""
    cands = tree[T_CANDIDATES]
    n_cands = tree[T_N_CANDIDATES]
    board = tree[T_BOARDS][node]
    black = np.empty(rules.CELLS, dtype=np.float64)
    white = np.empty(rules.CELLS, dtype=np.float64)
    score_both(board, tree[T_EGGS][node], tree[T_METAS][node], black, white)
    k = cands.shape[2]
    n_cands[node, 0] = _top(board, black, k, cands[node, 0])
    n_cands[node, 1] = _top(board, white, k, cands[node, 1])


@jit
def init_root(tree, board, eggs, meta, mask):
    """Make ``board`` the root of a fresh tree; its candidates are restricted to ``mask``."""
    cands = tree[T_CANDIDATES]
    n_cands = tree[T_N_CANDIDATES]
    tree[T_N_NODES][0] = 1
    _init_node(tree, ROOT, board, eggs, meta)
    _expand(tree, ROOT)
    for side in range(2):
        n = 0
        for i in range(n_cands[0, side]):
            if mask[cands[0, side, i]]:
                cands[0, side, n] = cands[0, side, i]
                n += 1
        n_cands[0, side] = n


@jit
def _select(tree, node, side, selection, exploration, gamma, sigma):
    """Choose a candidate index for ``side`` at ``node``; ``sigma[0]`` gets its probability."""
    n = tree[T_N_CANDIDATES][node, side]
    visits = tree[T_VISITS]
    values = tree[T_VALUES]
    strategies = tree[T_STRATEGIES]
    node_visits = tree[T_NODE_VISITS]
    sigma[0] = 1.0
    if selection == UCB:
        for i in range(n):
            if visits[node, side, i] == 0.0:
                return i
        log_n = np.log(node_visits[node])
        best = 0
        best_value = -np.inf
        for i in range(n):
            v = visits[node, side, i]
            ucb = values[node, side, i] / v + exploration * np.sqrt(log_n / v)
            if ucb > best_value:
                best_value = ucb
                best = i
        return best
    positive = 0.0
    for i in range(n):
        positive += max(values[node, side, i], 0.0)
    probs = np.empty(n, dtype=np.float64)
    for i in range(n):
        own = max(values[node, side, i], 0.0) / positive if positive > 0.0 else 1.0 / n
        probs[i] = (1.0 - gamma) * own + gamma / n
        strategies[node, side, i] += probs[i]
    r = np.random.random()
    acc = 0.0
    for i in range(n - 1):
        acc += probs[i]
        if r < acc:
            sigma[0] = probs[i]
            return i
    sigma[0] = probs[n - 1]
    return n - 1


@jit
def _update(tree, node, side, chosen, prob, reward, selection):
    """Credit ``reward`` (in [0, 1], from ``side``'s point of view) to its choice at ``node``."""
    values = tree[T_VALUES]
    tree[T_VISITS][node, side, chosen] += 1.0
    if selection == UCB:
        values[node, side, chosen] += reward
        return
    for i in range(tree[T_N_CANDIDATES][node, side]):
        estimate = reward / prob if i == chosen else 0.0
        values[node, side, i] = max(values[node, side, i] + estimate - reward, 0.0)


@jit
def _scratch():
    """Work arrays of one search: the path (nodes, both choices and their probabilities, as
    deep as a game can go) and a position to play a round on."""
    depth_cap = 4 * rules.CELLS
    return (
        np.empty(depth_cap, dtype=np.int64),
        np.empty((depth_cap, 2), dtype=np.int64),
        np.ones((depth_cap, 2), dtype=np.float64),
        np.zeros(rules.INFO_SIZE, dtype=np.int32),
        np.zeros(rules.WORK_SHAPE, dtype=np.int8),
        np.empty(rules.CELLS, dtype=np.int8),
        np.empty(rules.CELLS, dtype=np.int8),
        np.empty(rules.META_SIZE, dtype=np.int32),
    )


@jit
def _play_child(tree, node, b, w, board, eggs, meta, info, work):
    """Play both sides' choices ``b``, ``w`` at ``node`` into ``board``/``eggs``/``meta`` and
    keep the result as a new child node while capacity lasts; returns it, or NO_CHILD."""
    _copy(tree[T_BOARDS][node], board)
    _copy(tree[T_EGGS][node], eggs)
    _copy(tree[T_METAS][node], meta)
    cands = tree[T_CANDIDATES]
    rules.step(board, eggs, meta, cands[node, 0, b], cands[node, 1, w], info, work)
    n_nodes = tree[T_N_NODES]
    if n_nodes[0] == tree[T_BOARDS].shape[0]:
        return NO_CHILD
    child = n_nodes[0]
    n_nodes[0] += 1
    tree[T_CHILDREN][node, b, w] = child
    _init_node(tree, child, board, eggs, meta)
    return child


@jit
def _backup(tree, path_nodes, path_choice, path_prob, depth, value, selection):
    """Credit black's ``value`` (white's is its complement) to both choices at every node of
    the path down to ``depth``."""
    for i in range(depth):
        at = path_nodes[i]
        tree[T_NODE_VISITS][at] += 1.0
        _update(tree, at, BLACK_SIDE, path_choice[i, 0], path_prob[i, 0], value, selection)
        _update(tree, at, WHITE_SIDE, path_choice[i, 1], path_prob[i, 1], 1.0 - value, selection)


@jit
def run_search(tree, iterations, selection, exploration, gamma):
    """Run ``iterations`` search iterations from the root (node 0) of a tree made by init_root.

    Each iteration descends by both sides' independent choices (expanding a node the second
    time it is reached), adds one node while capacity lasts, values it with `evaluate`
    and credits the value along the path.
    """
    boards = tree[T_BOARDS]
    metas = tree[T_METAS]
    n_cands = tree[T_N_CANDIDATES]
    children = tree[T_CHILDREN]
    path_nodes, path_choice, path_prob, info, work, board, eggs, meta = _scratch()
    depth_cap = path_nodes.size
    sigma = np.empty(1, dtype=np.float64)
    for _ in range(iterations):
        node = ROOT
        depth = 0
        while True:
            if metas[node, rules.OUTCOME] != rules.ONGOING or depth == depth_cap:
                value = evaluate(boards[node], metas[node])
                break
            if n_cands[node, 0] == UNEXPANDED:
                _expand(tree, node)
            b = _select(tree, node, BLACK_SIDE, selection, exploration, gamma, sigma)
            path_prob[depth, 0] = sigma[0]
            w = _select(tree, node, WHITE_SIDE, selection, exploration, gamma, sigma)
            path_prob[depth, 1] = sigma[0]
            path_nodes[depth] = node
            path_choice[depth, 0] = b
            path_choice[depth, 1] = w
            depth += 1
            child = children[node, b, w]
            if child != NO_CHILD:
                node = child
                continue
            _play_child(tree, node, b, w, board, eggs, meta, info, work)
            value = evaluate(board, meta)
            break
        _backup(tree, path_nodes, path_choice, path_prob, depth, value, selection)


SCORE_SCALE = 8.0  # net_features: log1p(|cell value|) / this; a completed five maps to ~1.4


@jit
def _squash(value):
    """A cell value, log-squashed (0 for an occupied cell, scored -inf)."""
    if value == -np.inf:
        return 0.0
    return np.sign(value) * np.log1p(np.abs(value)) / SCORE_SCALE


@jit
def net_features(board, eggs, meta, player, out):
    """Write the network's input for ``player`` into ``out`` (``float32[N_FEATURES]``).

    Seven planes of 81 (own turtles, opponent turtles, eggs, egg order, sudden death, own and
    opponent cell values by `score_both`, log-squashed) and the window evaluation
    (`evaluate`, as ``player``'s value in [-1, 1]).
    """
    black = np.empty(rules.CELLS, dtype=np.float64)
    white = np.empty(rules.CELLS, dtype=np.float64)
    score_both(board, eggs, meta, black, white)
    _features(board, eggs, meta, player, black, white, out)


@jit
def _features(board, eggs, meta, player, black, white, out):
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


@jit
def _outcome_value(meta):
    """Black's value of a decided game: 1, 0 or ½."""
    outcome = meta[rules.OUTCOME]
    if outcome == rules.BLACK_WINS:
        return 1.0
    if outcome == rules.WHITE_WINS:
        return 0.0
    return 0.5


@jit
def _net_value(net, uniform, mix, board, eggs, meta, x, logits, black, white):
    """Black's value of a position for the guided search; fills ``logits`` and the heuristic's
    cell values ``black`` and ``white`` (`score_both`) when the game is not decided.

    A decided game is valued by its outcome; otherwise ``(1 - mix)`` times the network's value
    (½ and zero logits if ``uniform``) plus ``mix`` times the window evaluation
    (`evaluate`), AlphaGo's blend of a learned value with a second evaluator.
    """
    if meta[rules.OUTCOME] != rules.ONGOING:
        return _outcome_value(meta)
    score_both(board, eggs, meta, black, white)
    if uniform:
        logits[:] = 0.0
        value = 0.5
    else:
        _features(board, eggs, meta, rules.BLACK, black, white, x)
        value = network.forward(net, x, logits)
    if mix > 0.0:
        value = (1.0 - mix) * value + mix * evaluate(board, meta)
    return value


@jit
def _candidates(board, scores, k, out):
    """The ``k`` best cells by ``scores`` into ``out`` (`_top`), less the trailing
    ``-inf`` ones (occupied or masked out); returns how many."""
    n = _top(board, scores, k, out)
    while n > 0 and scores[out[n - 1]] == -np.inf:
        n -= 1
    return n


@jit
def _guide(tree, node, net, uniform, mask, x, logits, black, white, mix, source):
    """Value ``node`` (`_net_value`) and pick both sides' candidates within ``mask``;
    returns black's value.  ``x``, ``logits``, ``black`` and ``white`` are the caller's
    scratch arrays.

    ``source`` picks the ``k`` candidates: ``NETWORK_CANDIDATES``, the cells with the highest
    network logits; ``HEURISTIC_CANDIDATES``, the best cells by `score_both` (as
    `run_search` does); ``BOTH_CANDIDATES``, the two lists' cells taken in turn
    (network first) until ``k`` are chosen.  The priors are the softmax of the network's
    logits over the chosen cells.  A decided node gets none (it is never expanded).
    """
    board = tree[T_BOARDS][node]
    meta = tree[T_METAS][node]
    value = _net_value(net, uniform, mix, board, tree[T_EGGS][node], meta, x, logits, black, white)
    tree[T_LEAF][node] = value
    if meta[rules.OUTCOME] != rules.ONGOING:
        tree[T_N_CANDIDATES][node] = 0
        return value
    cands = tree[T_CANDIDATES]
    priors = tree[T_PRIORS]
    k = cands.shape[2]
    net_scores = np.empty(rules.CELLS, dtype=np.float64)
    heuristic = np.empty(rules.CELLS, dtype=np.float64)
    net_top = np.empty(k, dtype=np.int64)
    heuristic_top = np.empty(k, dtype=np.int64)
    for side in range(2):
        own = black if side == 0 else white
        for cell in range(rules.CELLS):
            legal = board[cell] == rules.EMPTY and mask[cell]
            net_scores[cell] = logits[side * rules.CELLS + cell] if legal else -np.inf
            heuristic[cell] = own[cell] if legal else -np.inf
        if source == NETWORK_CANDIDATES:
            n = _candidates(board, net_scores, k, cands[node, side])
        elif source == HEURISTIC_CANDIDATES:
            n = _candidates(board, heuristic, k, cands[node, side])
        else:
            n_net = _candidates(board, net_scores, k, net_top)
            n_heuristic = _candidates(board, heuristic, k, heuristic_top)
            n = 0
            for i in range(k):
                for j in range(2):
                    if n == k or i >= (n_net if j == 0 else n_heuristic):
                        continue
                    cell = net_top[i] if j == 0 else heuristic_top[i]
                    fresh = True
                    for m in range(n):
                        if cands[node, side, m] == cell:
                            fresh = False
                    if fresh:
                        cands[node, side, n] = cell
                        n += 1
        top = -np.inf
        for i in range(n):
            top = max(top, net_scores[cands[node, side, i]])
        total = 0.0
        for i in range(n):
            p = np.exp(net_scores[cands[node, side, i]] - top)
            priors[node, side, i] = p
            total += p
        for i in range(n):
            priors[node, side, i] /= total
        tree[T_N_CANDIDATES][node, side] = n
    return value


@jit
def init_guided_root(tree, board, eggs, meta, mask, net, uniform, mix, source):
    """Make ``board`` the root of a fresh guided tree (candidates within ``mask``).

    ``net`` is a network (`network`); ``uniform`` ignores it for uniform priors and
    value ½; ``mix`` and ``source`` as in `_guide`.  Returns black's value of the root.
    """
    tree[T_N_NODES][0] = 1
    _init_node(tree, ROOT, board, eggs, meta)
    x = np.empty(network.N_FEATURES, dtype=np.float32)
    logits = np.empty(network.N_LOGITS, dtype=np.float32)
    black = np.empty(rules.CELLS, dtype=np.float64)
    white = np.empty(rules.CELLS, dtype=np.float64)
    return _guide(tree, ROOT, net, uniform, mask, x, logits, black, white, mix, source)


@jit
def _select_puct(tree, node, side, c_puct):
    """PUCT choice for ``side`` at ``node``: Q + c·P·sqrt(N)/(1+n), unvisited Q = the node's value.

    Ties are broken at random (numba's generator: seed it with `rules.seed_numba`).
    """
    n = tree[T_N_CANDIDATES][node, side]
    visits = tree[T_VISITS]
    values = tree[T_VALUES]
    priors = tree[T_PRIORS]
    leaf = tree[T_LEAF][node]
    first = leaf if side == 0 else 1.0 - leaf
    root_n = np.sqrt(max(tree[T_NODE_VISITS][node], 1.0))
    best = 0
    best_value = -np.inf
    ties = 0
    for i in range(n):
        v = visits[node, side, i]
        q = values[node, side, i] / v if v > 0.0 else first
        score = q + c_puct * priors[node, side, i] * root_n / (1.0 + v)
        if score > best_value + 1e-12:
            best_value = score
            best = i
            ties = 1
        elif score >= best_value - 1e-12:  # a tie: uniformly at random (reservoir), so that
            ties += 1  # the two sides do not walk through equal choices in lockstep
            if np.random.random() * ties < 1.0:
                best = i
    return best


@jit
def run_guided_search(tree, iterations, net, uniform, selection, exploration, mix, source):
    """Run ``iterations`` network-guided iterations from the root made by init_guided_root.

    Both sides select independently over their candidates, by PUCT (`_select_puct`,
    ``selection`` = ``PUCT``, ``exploration`` its constant) or by the plain search's UCT
    (`_select`, ``UCB``, which ignores the priors); a new node is valued and given
    candidates and priors by one network forward pass (`_guide`), a decided game by its
    outcome, and the value is credited along the path as in `run_search`.
    """
    metas = tree[T_METAS]
    children = tree[T_CHILDREN]
    path_nodes, path_choice, path_prob, info, work, board, eggs, meta = _scratch()
    depth_cap = path_nodes.size
    x = np.empty(network.N_FEATURES, dtype=np.float32)
    logits = np.empty(network.N_LOGITS, dtype=np.float32)
    black = np.empty(rules.CELLS, dtype=np.float64)
    white = np.empty(rules.CELLS, dtype=np.float64)
    everywhere = np.ones(rules.CELLS, dtype=np.bool_)
    sigma = np.empty(1, dtype=np.float64)
    for _ in range(iterations):
        node = ROOT
        depth = 0
        while True:
            if metas[node, rules.OUTCOME] != rules.ONGOING or depth == depth_cap:
                value = tree[T_LEAF][node]
                break
            if selection == PUCT:
                b = _select_puct(tree, node, BLACK_SIDE, exploration)
                w = _select_puct(tree, node, WHITE_SIDE, exploration)
            else:
                b = _select(tree, node, BLACK_SIDE, UCB_SELECTION, exploration, 0.0, sigma)
                w = _select(tree, node, WHITE_SIDE, UCB_SELECTION, exploration, 0.0, sigma)
            path_nodes[depth] = node
            path_choice[depth, 0] = b
            path_choice[depth, 1] = w
            depth += 1
            child = children[node, b, w]
            if child != NO_CHILD:
                node = child
                continue
            child = _play_child(tree, node, b, w, board, eggs, meta, info, work)
            if child != NO_CHILD:
                value = _guide(
                    tree, child, net, uniform, everywhere, x, logits, black, white, mix, source
                )
            else:
                value = _net_value(net, uniform, mix, board, eggs, meta, x, logits, black, white)
            break
        _backup(tree, path_nodes, path_choice, path_prob, depth, value, UCB_SELECTION)
