"""The search tree both What the Shell searches grow, and the steps on it they share.

A [`SearchTree`][] of preallocated arrays, one row per node, which numba passes through the
compiled functions as it is; its fields' positions (``T_*``); and the node steps of a
simultaneous-move search: store a position (`init_node`), select each side's candidate
(`select`: decoupled UCT or regret matching+), follow a joint choice down the path
(`descend`), play it into a new child (`play_child`) and credit a value along the path
(`backup`).  `mcts` and `guided` run them.  Values are black's, in [0, 1].
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from shell_envs.core.jit import jit, jit_inline
from shell_envs.what_the_shell import rules


class SearchTree(NamedTuple):
    """The arrays of a search tree (`new_tree`), one row per node.

    ``candidates[node, side, i]`` are each side's candidate cells and ``n_candidates[node,
    side]`` their number (``UNEXPANDED`` until the search expands the node); ``visits``,
    ``values`` (value sums for UCB, regrets for regret matching) and ``strategies``
    (cumulative) are per candidate; ``children[node, black_i, white_i]`` the child of a joint
    choice (``NO_CHILD``); ``n_nodes[0]`` the node count; ``priors`` and ``leaf`` (each node's
    value) are the guided search's (`shell_envs.what_the_shell.search.guided`).  The field
    order is the old tuple's, so ``tree[T_VISITS]`` still works.
    """

    boards: np.ndarray
    eggs: np.ndarray
    metas: np.ndarray
    candidates: np.ndarray
    n_candidates: np.ndarray
    visits: np.ndarray
    values: np.ndarray
    strategies: np.ndarray
    node_visits: np.ndarray
    children: np.ndarray
    n_nodes: np.ndarray
    priors: np.ndarray
    leaf: np.ndarray


# the fields' positions, for code that indexes the tree as the plain tuple it used to be
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
) = range(len(SearchTree._fields))

UCB, REGRET_MATCHING = 0, 1

NO_CHILD = -1
# Node and side numbers passed to compiled functions: numpy integers, not Python ones, since
# numba compiles a callee once more for every constant Python integer it is passed.
ROOT = np.int64(0)
BLACK_SIDE = np.int64(0)
WHITE_SIDE = np.int64(1)
UCB_SELECTION = np.int64(UCB)
UNEXPANDED = -1


def new_tree(capacity: int, k: int) -> SearchTree:
    """Preallocated arrays for a search tree of ``capacity`` nodes with ``k`` candidates a side.

    A [`SearchTree`][]: boards, egg queues, metas, candidate cells
    ``[node, side, i]``, candidate counts, visits per candidate, value sums (UCB) or regrets
    (regret matching), cumulative strategies, node visits, children by joint choice
    ``[node, black_i, white_i]``, the node count, and for the guided search
    (`run_guided_search`) the candidates' priors and each node's leaf value.
    """
    return SearchTree(
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
def init_node(
    tree: SearchTree, node: int, board: np.ndarray, eggs: np.ndarray, meta: np.ndarray
) -> None:
    """Store a position in ``node`` and reset its statistics; its candidates wait until the
    search expands it.

    Most leaves are valued once and never revisited, so scoring their cells up front is waste.
    """
    _copy(board, tree.boards[node])
    _copy(eggs, tree.eggs[node])
    _copy(meta, tree.metas[node])
    tree.n_candidates[node] = UNEXPANDED
    tree.visits[node] = 0.0
    tree.values[node] = 0.0
    tree.strategies[node] = 0.0
    tree.node_visits[node] = 0.0
    tree.children[node] = NO_CHILD


@jit
def select(
    tree: SearchTree,
    node: int,
    side: int,
    selection: int,
    exploration: float,
    gamma: float,
    sigma: np.ndarray,
) -> int:
    """Choose a candidate index for ``side`` at ``node``; ``sigma[0]`` gets its probability."""
    n = tree.n_candidates[node, side]
    visits = tree.visits
    values = tree.values
    strategies = tree.strategies
    node_visits = tree.node_visits
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
    values = tree.values
    tree.visits[node, side, chosen] += 1.0
    if selection == UCB:
        values[node, side, chosen] += reward
        return
    for i in range(tree.n_candidates[node, side]):
        estimate = reward / prob if i == chosen else 0.0
        values[node, side, i] = max(values[node, side, i] + estimate - reward, 0.0)


@jit
def scratch() -> tuple[np.ndarray, ...]:
    """Work arrays of one search: the path (nodes, both choices and their probabilities, as
    deep as a game can go), a position to play a round on, and `select`'s ``sigma``."""
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
        np.empty(1, dtype=np.float64),
    )


@jit_inline
def at_leaf(tree: SearchTree, node: int, depth: int, path_nodes: np.ndarray) -> bool:
    """Whether a descent stops at ``node``, ``depth`` steps down: its game is decided or the
    path (``path_nodes``, from `scratch`) is full."""
    return tree.metas[node, rules.OUTCOME] != rules.ONGOING or depth == path_nodes.size


@jit_inline
def descend(
    tree: SearchTree,
    path_nodes: np.ndarray,
    path_choice: np.ndarray,
    depth: int,
    node: int,
    b: int,
    w: int,
) -> int:
    """Record both sides' choices ``b``, ``w`` at ``node`` as step ``depth`` of the path;
    returns the child they lead to (NO_CHILD: not in the tree yet, `play_child` adds it)."""
    path_nodes[depth] = node
    path_choice[depth, 0] = b
    path_choice[depth, 1] = w
    return tree.children[node, b, w]


@jit
def play_child(
    tree: SearchTree,
    node: int,
    b: int,
    w: int,
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    info: np.ndarray,
    work: np.ndarray,
) -> int:
    """Play both sides' choices ``b``, ``w`` at ``node`` into ``board``/``eggs``/``meta`` and
    keep the result as a new child node while capacity lasts; returns it, or NO_CHILD."""
    _copy(tree.boards[node], board)
    _copy(tree.eggs[node], eggs)
    _copy(tree.metas[node], meta)
    cands = tree.candidates
    rules.step(board, eggs, meta, cands[node, 0, b], cands[node, 1, w], info, work)
    n_nodes = tree.n_nodes
    if n_nodes[0] == tree.boards.shape[0]:
        return NO_CHILD
    child = n_nodes[0]
    n_nodes[0] += 1
    tree.children[node, b, w] = child
    init_node(tree, child, board, eggs, meta)
    return child


@jit
def backup(
    tree: SearchTree,
    path_nodes: np.ndarray,
    path_choice: np.ndarray,
    path_prob: np.ndarray,
    depth: int,
    value: float,
    selection: int,
) -> None:
    """Credit black's ``value`` (white's is its complement) to both choices at every node of
    the path down to ``depth``."""
    for i in range(depth):
        at = path_nodes[i]
        tree.node_visits[at] += 1.0
        _update(tree, at, BLACK_SIDE, path_choice[i, 0], path_prob[i, 0], value, selection)
        _update(tree, at, WHITE_SIDE, path_choice[i, 1], path_prob[i, 1], 1.0 - value, selection)
