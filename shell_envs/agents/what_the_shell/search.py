"""The What the Shell search agents: ``mcts`` (simultaneous-move tree search on the greedy
heuristic) and ``mcts-learned`` (the same tree guided by the learned network).

Both are compiled and run on the rules engine (`shell_envs.what_the_shell.search`);
``mcts`` falls back on ``greedy`` when the mask allows
none of its candidates.
"""

from __future__ import annotations

import time

import numpy as np

from shell_envs.agents.what_the_shell.common import PositionAgent, checked_view
from shell_envs.agents.what_the_shell.simple import GreedyAgent
from shell_envs.core.validation import choice, flag, number_in, positive_int
from shell_envs.what_the_shell import network, rules, search
from shell_envs.what_the_shell.view import WhatTheShellView

MAX_NODES = 1_000_000  # iterations and tree capacity of mcts (the tree grows with them)
SELECTIONS = {"ucb": search.UCB, "regret_matching": search.REGRET_MATCHING}
GUIDED_SELECTIONS = {"puct": search.PUCT, "ucb": search.UCB_SELECTION}  # mcts-learned's
SOURCES = {  # where mcts-learned's candidates come from
    "network": search.NETWORK_CANDIDATES,
    "heuristic": search.HEURISTIC_CANDIDATES,
    "both": search.BOTH_CANDIDATES,
}


class MCTSAgent(PositionAgent):
    """Simultaneous-move Monte Carlo tree search on the compiled engine.

    Both players' choices at a node are the ``candidates`` best cells by the greedy heuristic;
    each side selects independently (``selection="ucb"``: decoupled UCT, or
    ``"regret_matching"``: regret matching+ with ``gamma`` exploration), the joint choice is
    played with ``rules.step`` and new leaves are valued by a window-score evaluation.  The
    root move is drawn from the search's average strategy (visit shares for UCT, the mean
    strategy for regret matching), keeping only choices weighted at least ``min_share`` times
    the heaviest: the default 1.0 plays the most frequent choice, 0.0 the full mixed strategy.
    The default budget (400 iterations, about 4 ms a move, the bench's ``mcts``) plays a
    game in well under a second.

    Args:
        iterations: search iterations per move (the default budget).
        time_limit: seconds per move instead of ``iterations`` when set.
        candidates: cells considered per player and node.
        selection: ``"ucb"`` or ``"regret_matching"``.
        exploration: the UCT exploration constant.
        gamma: regret matching's uniform exploration share.
        min_share: drop root choices weighted below this fraction of the best one.
        max_nodes: tree capacity under a time limit (iterations + 1 otherwise).
        seed: seeds the search's randomness.
    """

    name = "mcts"

    def __init__(
        self,
        iterations: int = 400,
        time_limit: float | None = None,
        candidates: int = 6,
        selection: str = "ucb",
        exploration: float = 0.35,
        gamma: float = 0.1,
        min_share: float = 1.0,
        max_nodes: int = 20_000,
        seed: int | None = None,
    ) -> None:
        if time_limit is not None and not number_in(time_limit, 0.0, np.inf, low_open=True):
            raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
        if positive_int("candidates", candidates) > rules.CELLS:
            raise ValueError(f"candidates must be at most 81, got {candidates!r}")
        if not number_in(gamma, 0.0, 1.0, low_open=True):
            raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
        if not number_in(min_share, 0.0, 1.0):
            raise ValueError(f"min_share must be a number in [0, 1], got {min_share!r}")
        if not number_in(exploration, 0.0, np.inf):
            raise ValueError(f"exploration must be a non-negative number, got {exploration!r}")
        self.iterations = positive_int("iterations", iterations, high=MAX_NODES)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.candidates = int(candidates)
        self.selection = choice("selection", selection, tuple(SELECTIONS))
        self.exploration = float(exploration)
        self.gamma = float(gamma)
        self.min_share = float(min_share)
        timed = self.time_limit is not None
        capacity = (
            positive_int("max_nodes", max_nodes, high=MAX_NODES) if timed else self.iterations + 1
        )
        self._tree = search.new_tree(capacity, self.candidates)
        self.rng = np.random.default_rng(seed)
        self._fallback = GreedyAgent(seed)
        self.last_iterations = 0

    def reset(self, seed: int | None = None) -> None:
        """Reseed, with the greedy fallback (a None seed keeps the current generators)."""
        super().reset(seed)
        self._fallback.reset(seed)

    def act_with_state(self, state: WhatTheShellView, action_mask: np.ndarray) -> int:
        """Search from ``state`` and draw the move from the root's average strategy.

        When ``action_mask`` allows none of the searched candidates, the greedy choice within
        the mask is played instead.
        """
        legal = checked_view(state).legal(action_mask)
        side = 0 if state.player == rules.BLACK else 1
        mask = np.zeros(rules.CELLS, dtype=np.bool_)
        mask[legal] = True
        tree = self._tree
        search.init_root(tree, *state.state.copy(), mask)
        n = int(tree.n_candidates[0, side])
        if n == 0:
            return self._fallback.act_with_state(state, action_mask)
        rules.seed_numba(int(self.rng.integers(2**31)))
        mode = SELECTIONS[self.selection]
        if self.time_limit is None:
            search.run_search(tree, self.iterations, mode, self.exploration, self.gamma)
            self.last_iterations = self.iterations
        else:
            deadline = time.perf_counter() + self.time_limit
            done = 0
            while time.perf_counter() < deadline:
                search.run_search(tree, 32, mode, self.exploration, self.gamma)
                done += 32
            self.last_iterations = done
        stats = tree.strategies if mode == search.REGRET_MATCHING else tree.visits
        weights = stats[0, side, :n].copy()
        if weights.max() <= 0:
            weights[:] = 1.0
        weights[weights < self.min_share * weights.max()] = 0.0
        choice = self.rng.choice(n, p=weights / weights.sum())
        return int(tree.candidates[0, side, choice])


class GuidedMCTSAgent(PositionAgent):
    """Simultaneous-move tree search guided by the learned network (AlphaZero-style).

    Each node holds both players' ``candidates`` cells and their priors, from one forward
    pass, which also values the node (a decided game is valued by its outcome); each side
    selects independently (`search.run_guided_search`).  The move played is the root's
    most visited candidate (ties at random, seeded).  The options blend in the plain search's
    heuristics, as AlphaGo blended its value network with rollouts: ``mix`` weighs the
    window evaluation of ``mcts`` into the leaf value, ``candidates_from`` draws the
    candidates from the network (``"network"``), the greedy heuristic (``"heuristic"``, the
    network then only gives the priors) or both in turn (``"both"``), and ``selection="ucb"``
    selects by ``mcts``'s decoupled UCT (constant ``exploration``, priors unused) instead of
    PUCT (constant ``c_puct``).  ``mix=0``, ``candidates_from="network"`` and
    ``selection="puct"`` is the pure AlphaZero search (with ``c_puct=1.5``, the search the
    network was trained with).  The defaults, half value head and half window evaluation, the
    heuristic's candidates with the network's priors, and ``c_puct=0.5``, were chosen by
    matches against ``mcts`` at the same 400 iterations (``docs/agents.md``): the network's
    value head and its own top cells alone are weaker than ``mcts``'s.  About 15 ms a move at
    400 iterations (``mcts``: about 4 ms).

    Args:
        iterations: search iterations per move.
        weights: an ``.npz`` network file (default: the shipped network).
        candidates: cells considered per player and node.
        c_puct: the PUCT exploration constant.
        uniform: ignore the network: uniform priors and value ½ before the ``mix`` blend
            (with ``mix=0``, a plain PUCT baseline).
        mix: weight in [0, 1] of the window evaluation in the leaf value (the value head's
            is ``1 - mix``).
        candidates_from: ``"network"``, ``"heuristic"`` or ``"both"``.
        selection: ``"puct"`` or ``"ucb"``.
        exploration: the UCT constant of ``selection="ucb"``.
        net: a network (tuple of arrays) instead of a file, for training code.
        seed: seeds the tie-breaking.
    """

    name = "mcts-learned"

    def __init__(
        self,
        iterations: int = 400,
        weights: str | None = None,
        candidates: int = 8,
        c_puct: float = 0.5,
        uniform: bool = False,
        mix: float = 0.5,
        candidates_from: str = "heuristic",
        selection: str = "puct",
        exploration: float = 0.35,
        net: network.Network | None = None,
        seed: int | None = None,
    ) -> None:
        if positive_int("candidates", candidates) > rules.CELLS:
            raise ValueError(f"candidates must be at most 81, got {candidates!r}")
        if not number_in(c_puct, 0.0, np.inf):
            raise ValueError(f"c_puct must be a non-negative number, got {c_puct!r}")
        if not number_in(mix, 0.0, 1.0):
            raise ValueError(f"mix must be a number in [0, 1], got {mix!r}")
        if not number_in(exploration, 0.0, np.inf):
            raise ValueError(f"exploration must be a non-negative number, got {exploration!r}")
        self.iterations = positive_int("iterations", iterations, high=MAX_NODES)
        self.candidates = int(candidates)
        self.c_puct = float(c_puct)
        self.uniform = flag("uniform", uniform)
        self.mix = float(mix)
        self.candidates_from = choice("candidates_from", candidates_from, tuple(SOURCES))
        self.selection = choice("selection", selection, tuple(GUIDED_SELECTIONS))
        self.exploration = float(exploration)
        self.net = network.FORMAT.choose(weights, net)
        self._tree = search.new_tree(self.iterations + 1, self.candidates)
        self.rng = np.random.default_rng(seed)

    def act_with_state(self, state: WhatTheShellView, action_mask: np.ndarray) -> int:
        """Search from ``state`` and play the root's most visited candidate."""
        legal = checked_view(state).legal(action_mask)
        side = 0 if state.player == rules.BLACK else 1
        mask = np.zeros(rules.CELLS, dtype=np.bool_)
        mask[legal] = True
        tree = self._tree
        source = SOURCES[self.candidates_from]
        search.init_guided_root(
            tree, *state.state.copy(), mask, self.net, self.uniform, self.mix, source
        )
        rules.seed_numba(int(self.rng.integers(2**31)))
        selection = GUIDED_SELECTIONS[self.selection]
        constant = self.c_puct if self.selection == "puct" else self.exploration
        search.run_guided_search(
            tree, self.iterations, self.net, self.uniform, selection, constant, self.mix, source
        )
        n = int(tree.n_candidates[0, side])
        visits = tree.visits[0, side, :n]
        best = np.flatnonzero(visits >= visits.max())
        return int(tree.candidates[0, side, self.rng.choice(best)])
