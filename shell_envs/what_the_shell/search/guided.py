"""Network-guided simultaneous-move tree search (AlphaZero-style; the ``mcts-learned`` agent's).

A node is valued, and given both sides' candidates and their priors, by one forward pass of
the search's network (`network`), blended with the window evaluation of `heuristics`; the
sides select by PUCT or by `mcts`'s UCT, and the tree is `tree.SearchTree`.  Values are
black's, in [0, 1].
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit
from shell_envs.what_the_shell import network, rules
from shell_envs.what_the_shell.search import tree as search_tree
from shell_envs.what_the_shell.search.heuristics import (
    evaluate,
    features_from_scores,
    score_both,
    top_cells,
)

PUCT = np.int64(2)  # the guided search's default selection (run_guided_search)
# where the guided search's candidates come from (_guide)
NETWORK_CANDIDATES, HEURISTIC_CANDIDATES, BOTH_CANDIDATES = np.int64(0), np.int64(1), np.int64(2)


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
        features_from_scores(board, eggs, meta, rules.BLACK, black, white, x)
        value = network.forward(net, x, logits)
    if mix > 0.0:
        value = (1.0 - mix) * value + mix * evaluate(board, meta)
    return value


@jit
def _candidates(board, scores, k, out):
    """The ``k`` best cells by ``scores`` into ``out`` (`top_cells`), less the trailing
    ``-inf`` ones (occupied or masked out); returns how many."""
    n = top_cells(board, scores, k, out)
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
    board = tree.boards[node]
    meta = tree.metas[node]
    value = _net_value(net, uniform, mix, board, tree.eggs[node], meta, x, logits, black, white)
    tree.leaf[node] = value
    if meta[rules.OUTCOME] != rules.ONGOING:
        tree.n_candidates[node] = 0
        return value
    cands = tree.candidates
    priors = tree.priors
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
        tree.n_candidates[node, side] = n
    return value


@jit
def init_guided_root(
    tree: search_tree.SearchTree,
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    mask: np.ndarray,
    net: network.Network,
    uniform: bool,
    mix: float,
    source: int,
) -> float:
    """Make ``board`` the root of a fresh guided tree (candidates within ``mask``).

    ``net`` is a network (`network`); ``uniform`` ignores it for uniform priors and
    value ½; ``mix`` and ``source`` as in `_guide`.  Returns black's value of the root.
    """
    tree.n_nodes[0] = 1
    search_tree.init_node(tree, search_tree.ROOT, board, eggs, meta)
    x = np.empty(network.N_FEATURES, dtype=np.float32)
    logits = np.empty(network.N_LOGITS, dtype=np.float32)
    black = np.empty(rules.CELLS, dtype=np.float64)
    white = np.empty(rules.CELLS, dtype=np.float64)
    return _guide(tree, search_tree.ROOT, net, uniform, mask, x, logits, black, white, mix, source)


@jit
def _select_puct(tree, node, side, c_puct):
    """PUCT choice for ``side`` at ``node``: Q + c·P·sqrt(N)/(1+n), unvisited Q = the node's value.

    Ties are broken at random (numba's generator: seed it with `rules.seed_numba`).
    """
    n = tree.n_candidates[node, side]
    visits = tree.visits
    values = tree.values
    priors = tree.priors
    leaf = tree.leaf[node]
    first = leaf if side == 0 else 1.0 - leaf
    root_n = np.sqrt(max(tree.node_visits[node], 1.0))
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
def run_guided_search(
    tree: search_tree.SearchTree,
    iterations: int,
    net: network.Network,
    uniform: bool,
    selection: int,
    exploration: float,
    mix: float,
    source: int,
) -> None:
    """Run ``iterations`` network-guided iterations from the root made by init_guided_root.

    Both sides select independently over their candidates, by PUCT (`_select_puct`,
    ``selection`` = ``PUCT``, ``exploration`` its constant) or by the plain search's UCT
    (`select`, ``UCB``, which ignores the priors); a new node is valued and given
    candidates and priors by one network forward pass (`_guide`), a decided game by its
    outcome, and the value is credited along the path as in `run_search`.
    """
    path_nodes, path_choice, path_prob, info, work, board, eggs, meta, sigma = search_tree.scratch()
    x = np.empty(network.N_FEATURES, dtype=np.float32)
    logits = np.empty(network.N_LOGITS, dtype=np.float32)
    black = np.empty(rules.CELLS, dtype=np.float64)
    white = np.empty(rules.CELLS, dtype=np.float64)
    everywhere = np.ones(rules.CELLS, dtype=np.bool_)
    for _ in range(iterations):
        node = search_tree.ROOT
        depth = 0
        while True:
            if search_tree.at_leaf(tree, node, depth, path_nodes):
                value = tree.leaf[node]
                break
            if selection == PUCT:
                b = _select_puct(tree, node, search_tree.BLACK_SIDE, exploration)
                w = _select_puct(tree, node, search_tree.WHITE_SIDE, exploration)
            else:
                b = search_tree.select(
                    tree,
                    node,
                    search_tree.BLACK_SIDE,
                    search_tree.UCB_SELECTION,
                    exploration,
                    0.0,
                    sigma,
                )
                w = search_tree.select(
                    tree,
                    node,
                    search_tree.WHITE_SIDE,
                    search_tree.UCB_SELECTION,
                    exploration,
                    0.0,
                    sigma,
                )
            child = search_tree.descend(tree, path_nodes, path_choice, depth, node, b, w)
            depth += 1
            if child != search_tree.NO_CHILD:
                node = child
                continue
            child = search_tree.play_child(tree, node, b, w, board, eggs, meta, info, work)
            if child != search_tree.NO_CHILD:
                value = _guide(
                    tree, child, net, uniform, everywhere, x, logits, black, white, mix, source
                )
            else:
                value = _net_value(net, uniform, mix, board, eggs, meta, x, logits, black, white)
            break
        search_tree.backup(
            tree, path_nodes, path_choice, path_prob, depth, value, search_tree.UCB_SELECTION
        )
