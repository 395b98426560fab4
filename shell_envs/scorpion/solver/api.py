"""The solver's Python API: [`solve`][] and its [`SolveResult`][], the bare
[`solve_quick`][] / [`solve_children`][] for agents, and [`dead_reason`][].

It owns the search's arrays and budgets and runs the compiled search
(`shell_envs.scorpion.solver.kernel`) in quotas, so a clock can stop it while a node budget
alone keeps verdicts deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from shell_envs.core.deprecation import RENAMED, moved_names
from shell_envs.scorpion import rules
from shell_envs.scorpion.cards import card_code
from shell_envs.scorpion.messages import action_text
from shell_envs.scorpion.position import check_layout
from shell_envs.scorpion.rules import RULE_SETS
from shell_envs.scorpion.solver.kernel import (
    C_DEPTH,
    C_MAXDEPTH,
    C_NODES,
    C_OVERFLOW,
    C_STATUS,
    EVAL_WEIGHTS,
    MAX_BRANCH,
    O_FD,
    O_LENS,
    O_REMOVED,
    O_RES,
    PACK,
    PROBE_NODES,
    PROBE_NOISE,
    PRUNE_ALL,
    PRUNINGS,
    ROW,
    S_LOST,
    S_RUNNING,
    S_WON,
    ZOBRIST,
    blocked_columns,
    cyclic_waits,
    load_row,
    probe,
    search_init,
    search_run,
    starved_card,
    tt_rehash,
)
from shell_envs.scorpion.state import ScorpionState, rule_code

DEFAULT_MAX_NODES = 2_000_000
MAX_NODES_LIMIT = 10**12  # far beyond any memory: a search keeps 8 bytes per node
QUOTA_WITH_CLOCK = 200_000
MAX_DEPTH = 16_384

WON = "won"
LOST = "lost"
UNKNOWN = "unknown"

# share of the node budget for the probes: Classic deals are mostly lost (often provably so
# at the root) and its ordered exhaustive search finds the wins quickly, so it skips them;
# so do the traditional rules' (Classic's moves, the same dead positions)
PROBE_SHARE = {"classic": 0.0, "relaxed": 0.9, "traditional": 0.0}
TABLE_MIN_BITS = 16  # the exhaustive search's table starts at 2**16 slots (less for small budgets)


@dataclass
class SolveResult:
    """A verdict with its proof of work: ``moves`` are env actions that replay to a win, and
    ``reason`` says why a position lost before any search is dead (empty otherwise)."""

    verdict: str
    moves: list[int] = field(default_factory=list)
    readable: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    max_depth: int = 0
    reason: str = ""

    @property
    def won(self) -> bool:
        """Whether the deal was proven winnable."""
        return self.verdict == WON


def _initial_state(deal_or_seed: object, rule_set: str) -> ScorpionState:
    """The state a solve starts from: a deal number, 52 card codes, a ``position()``-style dict
    (under the rule set named ``rule_set``) or a ScorpionState (under its own)."""
    if isinstance(deal_or_seed, ScorpionState):
        check_layout(*deal_or_seed.arrays)  # compiled search must never read outside an array
        return deal_or_seed
    if isinstance(deal_or_seed, Mapping):
        return ScorpionState.from_position(deal_or_seed, rule_set)
    if isinstance(deal_or_seed, (int, np.integer)) and not isinstance(deal_or_seed, bool):
        return ScorpionState.from_number(int(deal_or_seed), rule_set)
    if isinstance(deal_or_seed, Sequence | np.ndarray) and not isinstance(deal_or_seed, str):
        return ScorpionState.from_deal(list(deal_or_seed), rule_set)
    raise ValueError(
        "solve needs a deal number, 52 card codes, a position dict or a ScorpionState; "
        f"got {type(deal_or_seed).__name__}"
    )


def solve(
    deal_or_seed: int | Sequence[object] | Mapping[str, object] | ScorpionState,
    rules: str = "classic",
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float | None = None,
    disable: Iterable[str] = (),
) -> SolveResult:
    """Solve a deal exactly: ``won`` with a winning line, ``lost`` (proof) or ``unknown`` (budget).

    ``max_nodes`` bounds the positions expanded and keeps the verdict deterministic;
    ``max_seconds`` additionally stops the search on the clock (checked between probes and
    every ``QUOTA_WITH_CLOCK`` nodes).  ``rules`` names the rule set (``"classic"``,
    ``"relaxed"`` or ``"traditional"``); a ScorpionState is solved under its own.
    ``disable`` switches prunings off by name (see PRUNINGS), to check that none loses a win.
    """
    if rules not in RULE_SETS:
        raise ValueError(f"rules must be one of {RULE_SETS}; got {rules!r}")
    _check_budget(max_nodes)
    prune = PRUNE_ALL
    for name in disable:
        if name not in PRUNINGS:
            raise ValueError(f"unknown pruning {name!r}; known: {', '.join(PRUNINGS)}")
        prune &= ~PRUNINGS[name]
    state = _initial_state(deal_or_seed, rules)
    t0 = time.perf_counter()
    deadline = None if max_seconds is None else t0 + max_seconds
    search = _Search(state, prune)
    share = PROBE_SHARE[state.rules]
    status = search.probes(int(max_nodes * share), deadline)
    if status == S_RUNNING:
        status = search.exhaust(int(max_nodes) - search.nodes, deadline)
    result = _result(search, status, t0)
    if result.verdict == LOST:
        result.reason = dead_reason(state) or ""
    return result


class Outcome(NamedTuple):
    """A bare verdict: ``won`` / ``lost`` / ``unknown``, the winning line (env actions) when
    won, and the nodes searched."""

    verdict: str
    moves: tuple[int, ...]
    nodes: int


def solve_quick(state: ScorpionState, max_nodes: int, check: bool = True) -> Outcome:
    """Solve a full state as [`solve`][] does, with the same verdict and line, but without
    its extras (timing, readable moves, dead-position reasons): for callers that run many
    small searches, such as an agent solving determinizations.

    The state is solved under its own rule set with every pruning on.  Its layout is checked
    first (``ValueError``) unless ``check=False``, when the caller vouches for it (a state
    built by the rules engine, or a determinization of a checked view).
    """
    _check_budget(max_nodes)
    if not isinstance(state, ScorpionState):
        raise ValueError(f"solve_quick needs a ScorpionState; got {type(state).__name__}")
    if check:
        check_layout(*state.arrays)
    search = _Search(state, PRUNE_ALL)
    share = PROBE_SHARE[state.rules]
    status = search.probes(int(max_nodes * share), None)
    if status == S_RUNNING:
        status = search.exhaust(int(max_nodes) - search.nodes, None)
    verdict = {S_WON: WON, S_LOST: LOST}.get(status, UNKNOWN)
    return Outcome(verdict, tuple(search.line) if verdict == WON else (), search.nodes)


def solve_children(
    state: ScorpionState, actions: Iterable[int], max_nodes: int, check: bool = True
) -> list[Outcome]:
    """The `solve_quick` outcome of the position after each of ``actions`` (legal env
    actions of ``state``, each played by the rules engine on a copy): the per-move verdicts
    a search over the root moves needs.  ``state`` itself is left as it is."""
    if check:
        check_layout(*state.arrays)
    out = []
    for action in actions:
        child = state.copy()
        if rules.check_action(child.arrays, int(action), False) != rules.OK:
            raise ValueError(f"action {action} is not legal in this position")
        rules.apply_action(child.arrays, int(action))
        out.append(solve_quick(child, max_nodes, check=False))
    return out


def _check_budget(max_nodes: object) -> None:
    """``ValueError`` unless ``max_nodes`` is an integer 1 … MAX_NODES_LIMIT."""
    if (
        isinstance(max_nodes, bool)
        or not isinstance(max_nodes, (int, np.integer))
        or not 1 <= max_nodes <= MAX_NODES_LIMIT
    ):
        raise ValueError(f"max_nodes must be an integer 1 … {MAX_NODES_LIMIT:,}; got {max_nodes!r}")


class _Search:
    """The arrays of one solve, under the state's own rule set: best-first probes, then the
    exhaustive depth-first search."""

    def __init__(self, state: ScorpionState, prune: int) -> None:
        self.rule = rule_code(state.rules)
        self.prune = prune
        self.root = np.zeros(ROW, np.int8)
        load_row(self.root, state.tab, state.lens, state.fd, state.reserve, state.meta)
        self.nodes = 0
        self.max_depth = 0
        self.line: list[int] = []

    def probes(self, budget: int, deadline: float | None) -> int:
        """Best-first probes of up to PROBE_NODES nodes on ``budget`` nodes in all, or until
        ``deadline``; the first probe follows the evaluation alone, the later ones add noise."""
        if self.root[O_REMOVED] == 4:
            self.nodes = 1
            return S_WON
        if budget < 1:
            return S_RUNNING
        size = min(PROBE_NODES, budget) + 1
        table = np.zeros(1 << (2 * size).bit_length(), np.int64)
        store = np.empty((size, PACK), np.int8)
        parent = np.empty(size, np.int32)
        pmove = np.empty(size, np.int32)
        keys = np.empty(size, np.int64)
        vals = np.empty(size, np.int32)
        line = np.empty(size, np.int64)
        spent = 0
        salt = 0
        while spent < budget:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            status, nodes, n = probe(
                self.root,
                self.rule,
                self.prune,
                min(PROBE_NODES, budget - spent),
                salt,
                PROBE_NOISE if salt else 0,
                EVAL_WEIGHTS,
                ZOBRIST,
                table,
                store,
                parent,
                pmove,
                keys,
                vals,
                line,
            )
            spent += nodes
            salt += 1
            if status == S_WON:
                self.line = [int(m) & 511 for m in line[:n]]
                self.max_depth = max(self.max_depth, n)
            if status != S_RUNNING:
                self.nodes += spent
                return status
        self.nodes += spent
        return S_RUNNING

    def exhaust(self, budget: int, deadline: float | None) -> int:
        """The depth-first search over every position, on ``budget`` nodes or until ``deadline``.

        Its transposition table starts small (smaller still for a small budget) and grows
        fourfold whenever it is half full, and its stack holds at most ``budget + 2`` levels, so
        small searches touch little memory; verdicts depend on neither.
        """
        # the search descends one level per new node, so a small budget needs a short stack
        # (it never reaches the overflow depth, which only MAX_DEPTH rows can)
        rows = min(MAX_DEPTH, max(int(budget), 1) + 1) + 1
        stack = np.empty((rows, ROW), np.int8)
        stack[0] = self.root
        moves = np.empty((rows, MAX_BRANCH), np.int64)
        n_moves = np.zeros(rows, np.int64)
        next_move = np.zeros(rows, np.int64)
        ctl = np.zeros(8, np.int64)
        bits = min(TABLE_MIN_BITS, max(10, (2 * max(int(budget), 1)).bit_length()))
        table = np.zeros(1 << bits, np.int64)
        dfs = (stack, moves, n_moves, next_move, ctl)
        search_init(dfs, table, ZOBRIST, self.rule, self.prune)
        while ctl[C_STATUS] == S_RUNNING and ctl[C_NODES] < budget:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if 2 * ctl[C_NODES] >= table.shape[0]:
                bigger = np.zeros(4 * table.shape[0], np.int64)
                tt_rehash(table, bigger)
                table = bigger
            quota = min(int(budget - ctl[C_NODES]), table.shape[0] // 2 - int(ctl[C_NODES]))
            if deadline is not None:
                quota = min(quota, QUOTA_WITH_CLOCK)
            search_run(dfs, table, ZOBRIST, self.rule, self.prune, quota)
        self.nodes += int(ctl[C_NODES])
        self.max_depth = max(self.max_depth, int(ctl[C_MAXDEPTH]))
        status = int(ctl[C_STATUS])
        if status == S_WON:
            depth = int(ctl[C_DEPTH])
            self.line = [int(moves[d, next_move[d] - 1] & 511) for d in range(depth)]
        if status == S_LOST and ctl[C_OVERFLOW]:
            return S_RUNNING
        return status


def _where(row: np.ndarray, card: int) -> str:
    """Where ``card`` lies, as a player reads it: ``"column 2, face down, under 7S"``."""
    for c in range(7):
        n = int(row[O_LENS + c])
        for d in range(n):
            if int(row[c * 52 + d]) == card:
                side = "face down" if d < int(row[O_FD + c]) else "face up"
                above = (
                    f", under {card_code(int(row[c * 52 + d + 1]))}" if d + 1 < n else ", on top"
                )
                return f"column {c + 1}, {side}{above}"
    if card in [int(x) for x in row[O_RES : O_RES + 3]]:
        return "in the reserve"
    return "removed"


def dead_reason(state: ScorpionState) -> str | None:
    """Why a position is lost before any search, in a sentence a player can check on the
    cards (the dead-position rule that applies and the cards it names), or None."""
    row = np.zeros(ROW, np.int8)
    load_row(row, state.tab, state.lens, state.fd, state.reserve, state.meta)
    code = card_code
    if not state.relaxed:
        wait_a = np.empty(52, np.int64)
        wait_b = np.empty(52, np.int64)
        done = np.empty(52, np.bool_)
        under = cyclic_waits(row, wait_a, wait_b, done)
        if under >= 0:
            return (
                f"{code(under)} lies face down under {code(under - 1)}, which can only ever "
                f"move onto {code(under)}: {code(under)} is never uncovered"
            )
        stuck = [c for c in range(52) if not done[c]]
        if not stuck:
            return None
        path: list[int] = []
        card = stuck[0]
        while card not in path:
            path.append(card)
            a = int(wait_a[card])
            card = a if a >= 0 and not done[a] else int(wait_b[card])
        cycle = path[path.index(card) :]
        steps = []
        for z in cycle:
            a = int(wait_a[z])
            if a >= 0 and not done[a]:
                steps.append(
                    f"{code(z)} must go onto {code(z + 1)}, so {code(a)} on it moves first"
                )
            else:
                steps.append(
                    f"{code(z)} lies face down, so {code(int(wait_b[z]))} on it moves first"
                )
        return (
            "these moves wait for each other in a cycle, so none can come first (under "
            f"{'the traditional rules' if state.traditional else 'Classic'} a card moves only "
            "onto its successor): " + "; ".join(steps)
        )
    blocked = np.empty(7, np.bool_)
    if blocked_columns(row, blocked):
        cols = [c for c in range(7) if blocked[c]]
        parts = []
        for c in cols:
            x = int(row[c * 52 + int(row[O_FD + c])])
            higher = [s * 13 + x % 13 + 1 for s in range(4)]
            parts.append(
                f"column {c + 1} needs {code(x)} to move onto a card one rank higher: "
                + ", ".join(f"{code(y)} ({_where(row, y)})" for y in higher)
            )
        return (
            "the face-down cards of columns "
            + ", ".join(str(c + 1) for c in cols)
            + " are never uncovered: each is uncovered only when its lowest face-up card "
            "moves, and every card one rank higher is removed or face down in one of these "
            "columns; " + "; ".join(parts)
        )
    packed = starved_card(row)
    if packed < 0:
        return None
    c, d = divmod(int(packed), 64)
    x = int(row[c * 52 + d])
    higher = [s * 13 + x % 13 + 1 for s in range(4)]
    same = [s * 13 + x % 13 for s in range(4) if s * 13 + x % 13 != x]
    return (
        f"{code(x)} (column {c + 1}) lies on a face-down card, so it must one day move onto a "
        "card one rank higher, but every such card is then taken: a card of its rank that "
        "lies on one, or must move before it (it lies above it, or on the card it needs), "
        "stays on one for good; the cards one rank higher: "
        + ", ".join(f"{code(y)} ({_where(row, y)})" for y in higher)
        + "; the other cards of its rank: "
        + ", ".join(f"{code(y)} ({_where(row, y)})" for y in same)
    )


def _result(search: _Search, status: int, t0: float) -> SolveResult:
    """The SolveResult of a finished search."""
    result = SolveResult(
        UNKNOWN, nodes=search.nodes, seconds=time.perf_counter() - t0, max_depth=search.max_depth
    )
    if status == S_WON:
        result.verdict = WON
        result.moves = search.line
        result.readable = [action_text(a) for a in result.moves]
    elif status == S_LOST:
        result.verdict = LOST
    return result


# RULES, the old name of RULE_SETS, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__, "0.5.0", {"RULES": ("shell_envs.scorpion.rules", "RULE_SETS")}, RENAMED
)
