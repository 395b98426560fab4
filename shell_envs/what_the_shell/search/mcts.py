"""Simultaneous-move Monte Carlo tree search on the compiled rules (the ``mcts`` agent's).

Each node stores its position and each player's candidate cells (the top cells by
`heuristics.score_both`); the two players select independently (decoupled UCT, or regret
matching+), the joint choice is played with `rules.step`, and leaves are valued by
`heuristics.evaluate`.  The tree and the node steps it shares with the guided search are
`tree`'s.  Values are black's, in [0, 1].
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.search import tree as search_tree
from shell_envs.what_the_shell.search.heuristics import evaluate, score_both, top_cells


@jit
def _expand(tree, node):
    """Pick both sides' candidates at ``node``: their ``k`` best cells by `score_both`."""
    cands = tree.candidates
    n_cands = tree.n_candidates
    board = tree.boards[node]
    black = np.empty(rules.CELLS, dtype=np.float64)
    white = np.empty(rules.CELLS, dtype=np.float64)
    score_both(board, tree.eggs[node], tree.metas[node], black, white)
    k = cands.shape[2]
    n_cands[node, 0] = top_cells(board, black, k, cands[node, 0])
    n_cands[node, 1] = top_cells(board, white, k, cands[node, 1])


@jit
def init_root(
    tree: search_tree.SearchTree,
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    mask: np.ndarray,
) -> None:
    """Make ``board`` the root of a fresh tree; its candidates are restricted to ``mask``."""
    cands = tree.candidates
    n_cands = tree.n_candidates
    tree.n_nodes[0] = 1
    search_tree.init_node(tree, search_tree.ROOT, board, eggs, meta)
    _expand(tree, search_tree.ROOT)
    for side in range(2):
        n = 0
        for i in range(n_cands[0, side]):
            if mask[cands[0, side, i]]:
                cands[0, side, n] = cands[0, side, i]
                n += 1
        n_cands[0, side] = n


@jit
def run_search(
    tree: search_tree.SearchTree, iterations: int, selection: int, exploration: float, gamma: float
) -> None:
    """Run ``iterations`` search iterations from the root (node 0) of a tree made by init_root.

    Each iteration descends by both sides' independent choices (expanding a node the second
    time it is reached), adds one node while capacity lasts, values it with `evaluate`
    and credits the value along the path.
    """
    boards = tree.boards
    metas = tree.metas
    n_cands = tree.n_candidates
    path_nodes, path_choice, path_prob, info, work, board, eggs, meta, sigma = search_tree.scratch()
    for _ in range(iterations):
        node = search_tree.ROOT
        depth = 0
        while True:
            if search_tree.at_leaf(tree, node, depth, path_nodes):
                value = evaluate(boards[node], metas[node])
                break
            if n_cands[node, 0] == search_tree.UNEXPANDED:
                _expand(tree, node)
            b = search_tree.select(
                tree, node, search_tree.BLACK_SIDE, selection, exploration, gamma, sigma
            )
            path_prob[depth, 0] = sigma[0]
            w = search_tree.select(
                tree, node, search_tree.WHITE_SIDE, selection, exploration, gamma, sigma
            )
            path_prob[depth, 1] = sigma[0]
            child = search_tree.descend(tree, path_nodes, path_choice, depth, node, b, w)
            depth += 1
            if child != search_tree.NO_CHILD:
                node = child
                continue
            search_tree.play_child(tree, node, b, w, board, eggs, meta, info, work)
            value = evaluate(board, meta)
            break
        search_tree.backup(tree, path_nodes, path_choice, path_prob, depth, value, selection)
