"""Exact solver for full-information ("thoughtful") Scorpion: it sees every hidden card.

It solves the three rule sets (``rules.RULE_SETS``): Classic, Relaxed and the traditional
rules, which play Classic's moves but never remove a sequence and are won when the four
suits stand complete in the tableau (see "The traditional rules" below).  A compact row
counts in ``O_REMOVED`` the completed sequences: removed ones, or under the traditional
rules the complete runs standing, recounted after every move, so that 4 means won.

A solve spends one node budget (a node is a position met for the first time) in two phases
over the same compiled move generator:

1. *Probes* look for a win (Relaxed: 90% of the budget; Classic and traditional: none, see
   PROBE_SHARE).  Each is a greedy best-first search of ``PROBE_NODES`` nodes that expands
   the open position of best `evaluate` (completed sequences, face-down cards, runs built
   on kings, same-suit links, empty columns).  The first probe follows the evaluation alone;
   every later one adds a noise drawn from the position's hash and the probe number, so
   restarts explore differently but deterministically.  A probe whose open list empties has
   seen every reachable position: a proof of loss.
2. The *exhaustive search*, a depth-first search with an explicit stack, proves losses.  A
   transposition table (open addressing over 64-bit canonical Zobrist hashes, growing as it
   fills) holds every position met, so none is searched twice; because the question is
   plain reachability of a won position, exhausting it without a win proves the deal lost.
   (Two positions with one 64-bit hash would be merged: for 20 million nodes the chance is
   about 1 in 100,000; every verdict can be re-checked, see below.)

The prunings (each can be switched off, ``solve(..., disable=[...])``, see PRUNINGS) never
make a winnable position lost.  Two facts of these rules carry the arguments: under Classic a
card moves as the first card of a block only onto its successor (a king: onto an empty
column), and a complete sequence is removed only when its column *receives* cards, so one
uncovered by moving cards off it, or formed under other cards and then uncovered, stays
standing; nothing can be placed on its ace, so it leaves only when it is moved (its king to
an empty column, or a card under the king carrying it), and then it is removed at once.

- ``symmetry``: the hash ignores the order of interchangeable columns (columns 4–7 before the
  reserve deal, all seven after it; columns 1–3 differ before the deal because each receives
  its own reserve card).  Permuting such columns permutes the legal moves and the receiving
  columns alike, so positions that differ by the permutation are won or lost together.
- ``king_base``: a whole column (a face-up king at its bottom) moved to an interchangeable
  empty column gives the same position with two columns swapped, so it is not generated;
  *except* when the column's top 13 cards are a complete sequence, which the receiving column
  then removes.  (The earlier rule skipped that move too, and lost every win that needs it:
  a standing sequence on a king at the bottom of its column can only be removed so.)
- ``king_one_empty``: a king goes to one of several interchangeable empty columns (the
  results are the same position up to that permutation).
- dead positions get no moves: Classic and traditional ``cyclic`` (`_cyclic`: moves every
  win needs must wait for each other in a cycle, or a face-down card lies under its own
  predecessor);
  Relaxed ``stuck`` (`_stuck`: face-down cards whose blockers can never move) and
  ``starved`` (`starved_card`: a card that must move finds every card one rank higher
  taken).  Each docstring says why; [`dead_reason`][] says which cards, for a player.
- ``safe_move`` (Classic and traditional, reserve dealt, `_safe_move`): a non-king card
  ``X`` whose column holds, from ``X`` up to its top, a same-suit run down to the ace, goes
  onto ``X + 1`` (a top card elsewhere) as the only child.

Why the safe move keeps every win.  Let M be that move and L a winning line.  ``X`` is not on
``X + 1`` and must lie on it when its suit is removed, so M is in L (under Classic only M puts
``X`` there).  Play M first and then L without M.  Before M in L, the block ``B`` of ``X`` (the
run down to the ace) is inert: nothing lands on an ace, and each card of ``B`` lies on its
successor, the one place it could move to.  So the moves of L before M touch ``B`` only by
carrying it (the card ``Y`` under ``X``, or one lower, moves and ``B`` rides along), and after
M they do the same without ``B``; every move stays legal, since legality depends only on the
block's first card and the destination's top, and no top changes except where ``B`` lay (an
ace, which receives nothing) and on ``X + 1``, on which nothing but ``X`` can be placed (a
card lying under ``X + 1`` that carries it moves onto its own successor, not onto ``B``).
Removals: ``B`` holds no king, so it never holds a complete sequence of its own, and a
complete sequence needs ``X`` on ``X + 1``; the receiving checks of L that see ``B`` on top
therefore remove nothing, and M removes in both lines whatever it completes.  What M does
early is uncover the card under ``X`` (or empty the column) sooner, which only adds moves,
and perhaps remove a sequence sooner (a carry of ``X + 1``, now with ``B`` on it, or of ``Y``,
now without ``B``, can complete one where it lands, which L completes under ``B`` or at M):
such a sequence would only stand in L until moved, and a standing sequence is only ever
moved and then removed at once, so every later move of L keeps an equal or no counterpart.
So after M a win of at most ``|L| - 1`` moves remains, and by induction on the length of the
shortest win the pruned search still reaches a win.  Relaxed has no safe move: a card can
leave its successor.  (A second rule, ``X`` carrying any cards onto a king-based same-suit run
ending in ``X + 1``, was dropped: its block can hold a complete sequence left standing, which
only moving ``X`` onto ``X + 1`` later would remove, so playing it early can lose the win.)

The traditional rules.  Their moves are Classic's (a non-king card goes, as the first card
of a block, only onto its same-suit successor; a king only into an empty column; nothing
onto an ace; the reserve deal once), nothing is ever removed, and the game is won when each
suit stands as a complete run: its 13 cards face up, king lowest, each directly on its
successor.  At a win all 52 cards are in the tableau and face up, so every non-king card
lies directly on its successor (the four runs hold all 52 cards).  Hence, for each pruning:

- ``symmetry``, ``king_one_empty``: as above; the runs standing are a function of the
  columns' contents, not of their order.
- ``king_base``: a whole column moved to an interchangeable empty column is a pure
  relabelling (nothing is removed, nothing flips: its bottom card is face up), so it is not
  generated, without Classic's exception for a complete sequence.
- ``cyclic``: Classic's argument holds word for word, and more simply.  A non-king card
  ``Z`` not on ``Z + 1`` must lie on it at the win, and only moving ``Z`` as the first card
  of a block onto ``Z + 1`` puts it there (a move joins only its first card to the
  destination's top).  The card on ``Z + 1`` leaves it only as the first card of a move
  (nothing is removed), so its first move comes before ``Z``'s; a face-down ``Z`` must turn
  face up first, so the card on it moves first; and a face-down card under its own
  predecessor is never uncovered (the predecessor moves only onto it, and the cards under
  it are face down), while a win needs every card face up.  Kings are left out of the waits
  as under Classic (fewer waits, fewer proofs).
- ``safe_move`` (reserve dealt): the proof above with its removals left out.  ``X`` must
  lie on ``X + 1`` at the win, so a winning line L moves ``X`` onto ``X + 1`` (wherever
  ``X + 1`` then lies), and before that the block ``B`` (``X`` down to the ace) is inert:
  nothing lands on its ace, the reserve is dealt (no card can be dealt onto it), no card of
  ``B`` is a king, and each lies on the only card it could move onto.  So that move is M
  itself (``B`` is all that lies on ``X``).  Before M, L never places a card on ``X + 1``
  (only ``X`` goes there), nor on ``B``'s ace, nor on ``Y`` under ``X`` (covered); each of
  its moves keeps its first card and destination top in M followed by L without M, where
  ``B`` rides on ``X + 1`` instead of on ``Y``, and the columns empty in L are empty there
  too.  A face-down card under ``X`` turns at M rather than later (nothing under ``X`` moves
  before M in L: it is all face down), which only adds moves.  After L's M the two lines
  stand in the same position, so M then L without M wins in ``|L|`` moves (or earlier: a
  win on the way is a win), and induction on the shortest win's length finishes as above.
- ``stuck``, ``starved``: Relaxed only, as before.

The independent check: `shell_envs.scorpion.reference` is a plain engine and exhaustive
search written from the rules alone; the tests run it against the solver (every pruning and
each one switched off) on positions along winning lines, constructed end games and random
play, under each rule set, and check that the solver's own move generator with every
pruning off makes exactly the reference's moves (and, under the traditional rules, counts
the same complete runs).  ``shell-envs solve --check`` re-checks any one verdict, and
``benchmarks/scorpion_soundness.py`` re-checks the shipped ones.
The search runs in node quotas and keeps its stack between calls, so a clock can stop it
while a node budget alone keeps verdicts deterministic.

The package has one module per part: `shell_envs.scorpion.solver.kernel` (the compiled
search), `shell_envs.scorpion.solver.api` (the Python API: [`solve`][], its results,
[`dead_reason`][]) and `shell_envs.scorpion.solver.text` (what ``shell-envs solve`` prints).
This package's names are the solver's public API: [`solve`][] and its results, the other
solves, [`dead_reason`][], the budgets and [`PRUNINGS`][] (from `api`) and the command
line's readers (from `text`).  The compiled search's names, read from here as from the one
module the solver used to be, and ``RULES`` (now ``rules.RULE_SETS``) still are, with a
``DeprecationWarning`` naming their home (``docs/deprecations.md``), as are the old
module's private names.
"""

from __future__ import annotations

from shell_envs.core.deprecation import MOVED_PRIVATE, RENAMED, moved_names
from shell_envs.scorpion.solver.api import (
    DEFAULT_MAX_NODES,
    LOST,
    MAX_DEPTH,
    MAX_NODES_LIMIT,
    PROBE_SHARE,
    QUOTA_WITH_CLOCK,
    TABLE_MIN_BITS,
    UNKNOWN,
    WON,
    Outcome,
    SolveResult,
    dead_reason,
    solve,
    solve_children,
    solve_quick,
)
from shell_envs.scorpion.solver.kernel import PRUNINGS
from shell_envs.scorpion.solver.text import (
    check_deal_codes,
    read_deal_file,
    read_position_file,
    solve_command,
)

__all__ = [
    "DEFAULT_MAX_NODES",
    "LOST",
    "MAX_DEPTH",
    "MAX_NODES_LIMIT",
    "PROBE_SHARE",
    "PRUNINGS",
    "QUOTA_WITH_CLOCK",
    "TABLE_MIN_BITS",
    "UNKNOWN",
    "WON",
    "Outcome",
    "SolveResult",
    "check_deal_codes",
    "dead_reason",
    "read_deal_file",
    "read_position_file",
    "solve",
    "solve_children",
    "solve_command",
    "solve_quick",
]

# RULES, the old name of RULE_SETS, the compiled search's names, read from here, and the move
# notation the old module re-exported, until 0.5.0; the private names of the old single
# module, each from the part that holds it now, until 0.4.0 (docs/deprecations.md); private
# names the parts gained since are not forwarded
__getattr__ = (
    moved_names(
        __name__, "0.5.0", {"RULES": ("shell_envs.scorpion.rules", "RULE_SETS")}, RENAMED
    )
    | moved_names(__name__, "0.5.0", {
        **{name: ("shell_envs.scorpion.solver.kernel", name) for name in (
            "C_DEPTH", "C_MAXDEPTH", "C_NODES", "C_OVERFLOW", "C_STATUS", "EVAL_WEIGHTS",
            "MAX_BRANCH", "O_DEALT", "O_FD", "O_LENS", "O_REMOVED", "O_RES", "PACK",
            "PROBE_NODES", "PROBE_NOISE", "PRUNE_ALL", "P_CYCLIC", "P_KING_BASE",
            "P_KING_ONE_EMPTY", "P_SAFE_MOVE", "P_STARVED", "P_STUCK", "P_SYMMETRY", "ROW",
            "S_LOST", "S_RUNNING", "S_WON", "ZOBRIST", "apply_packed", "evaluate", "gen_moves",
            "load_row", "pack_row", "position_hash", "probe", "search_init", "search_run",
            "tt_insert", "tt_rehash", "unpack_row",
        )},
        "action_text": ("shell_envs.scorpion.messages", "action_text"),
    })
    | moved_names(__name__, "0.4.0", {
        **{name: ("shell_envs.scorpion.solver.kernel", name) for name in (
            "_GOLDEN", "_M1", "_M2", "_complete", "_cyclic", "_heap_pop", "_heap_push",
            "_mix", "_rank_mask", "_run_length", "_safe_move", "_settle", "_starved",
            "_stuck", "_zobrist",
        )},
        **{name: ("shell_envs.scorpion.solver.api", name) for name in (
            "_Search", "_check_budget", "_initial_state", "_result", "_where",
        )},
        "_check_text": ("shell_envs.scorpion.solver.text", "_check_text"),
        "_blocked": ("shell_envs.scorpion.solver.kernel", "blocked_columns"),
        "_starved_card": ("shell_envs.scorpion.solver.kernel", "starved_card"),
        "_waits": ("shell_envs.scorpion.solver.kernel", "cyclic_waits"),
    }, MOVED_PRIVATE)
)  # fmt: skip
