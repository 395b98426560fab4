"""The Scorpion search agents: ``lookahead`` (determinized rollouts) and ``pimc``
(perfect-information Monte Carlo on the exact solver).

[`LookaheadAgent`][shell_envs.agents.scorpion.search.LookaheadAgent] samples the hidden cards
and rolls each move out with the loops compiled in [`shell_envs.scorpion.search`][].
[`PimcAgent`][shell_envs.agents.scorpion.search.PimcAgent] keeps a pool of determinizations of
what it sees (a [`ScorpionView`][shell_envs.scorpion.view.ScorpionView]), solves them with
[`shell_envs.scorpion.solver`][] and plays the move that wins in the most; the helpers below
compare, enumerate and plan over those determinizations.  It falls back on
``lookahead``, which it extends.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shell_envs.agents.scorpion.common import FairAgent
from shell_envs.core.validation import flag, positive_int
from shell_envs.scorpion import rules, search, solver
from shell_envs.scorpion.actions import N_ACTIONS, N_COLUMNS, RESERVE_ACTION
from shell_envs.scorpion.state import ScorpionState
from shell_envs.scorpion.view import HIDDEN, ScorpionView

CLASSIC_SAMPLES = 20
RELAXED_SAMPLES = 6
MAX_SEARCH = 100_000  # lookahead: samples, rollouts and depth at most (compiled int64 loops)
TIE_BREAK = 0.1  # lookahead: weight of a move's immediate gain beside its mean rollout value

# pimc: per rule, determinizations at least, won ones wanted, determinizations at most, node
# budget of one solve, whether every move is a candidate, whether the won lines' first moves
# are checked in every won sample, whether samples left undecided are solved again at every
# decision, up to how many arrangements of the hidden cards are all enumerated (0: never), and
# the other options documented on PimcAgent (tuned on the bench's dev deals)
PIMC_DEFAULTS: dict[str, dict[str, Any]] = {
    "classic": {
        "samples": 24,
        "won_target": 24,
        "max_samples": 96,
        "max_nodes": 3_000,
        "every_move": True,
        "check_lines": False,
        "resolve": False,
        "exact": 0,
        "rollout_order": False,
        "reveal_first": False,
        "grow": 1,
        "deepen": 1,
        "settle": 1,
        "widen": False,
        "refresh": False,
        "plan": 0,
    },
    "relaxed": {
        "samples": 16,
        "won_target": 16,
        "max_samples": 16,
        "max_nodes": 20_000,
        "every_move": False,
        "check_lines": True,
        "resolve": True,
        "exact": 24,
        "rollout_order": True,
        "reveal_first": True,
        "grow": 8,
        "deepen": 8,
        "settle": 1,
        "widen": False,
        "refresh": False,
        "plan": 0,
    },
}
# Traditional moves exactly as Classic does (one suit, kings to empty columns): Classic's
# settings, not tuned apart
PIMC_DEFAULTS["traditional"] = dict(PIMC_DEFAULTS["classic"])
MAX_EXACT = 5_040  # pimc: arrangements of the hidden cards enumerated at most (7!)
MAX_PLAN = 4  # pimc: moves of a fair plan at most (its search grows as moves^plan)
UNSOLVED = "unsolved"  # pimc: a fresh determinization, not solved yet


class LookaheadAgent(FairAgent):
    """Determinized search: sample the hidden cards, roll each move out, average.

    For each of ``samples`` deals of the unseen cards into the hidden places (consistent with
    everything visible), every legal move is played and followed by ``rollouts`` rollouts of
    ``depth`` moves under a fast greedy policy with noise (`search.rollout_values`,
    `search.quick_gain`); the move with the best mean
    final evaluation is played, near-ties going to the best immediate gain.  The real hidden
    cards are never read: the agent only gets a `ScorpionView`.  Like ``greedy`` it
    skips pointless king shuffles and positions it has already been in.

    Args:
        samples: determinizations per decision; None: 20 under Classic, 6 under Relaxed
            (Relaxed positions have several times more moves to roll out).
        rollouts: rollouts per move and determinization (the best one counts).
        depth: moves per rollout.
        noise: randomness of the rollout policy (uniform noise added to move gains).
        deal_last: consider dealing the reserve only when no card move gains anything; None:
            under Classic only, where an early deal just buries the tops of columns 1–3,
            while under Relaxed the three new cards are worth more early.
        seed: seeds the sampling.
        rules: the rule assumed when deciding from an observation (views carry their own).
    """

    name = "lookahead"

    def __init__(
        self,
        samples: int | None = None,
        rollouts: int = 1,
        depth: int = 30,
        noise: float = 0.5,
        deal_last: bool | None = None,
        seed: int | None = None,
        rules: str = "classic",
    ) -> None:
        super().__init__(seed, rules)
        for key, value in (("samples", samples), ("rollouts", rollouts), ("depth", depth)):
            positive_int(key, value, allow_none=key == "samples", high=MAX_SEARCH)
        if not noise >= 0:
            raise ValueError(f"noise must be non-negative, got {noise!r}")
        self.samples = None if samples is None else int(samples)
        self.rollouts = int(rollouts)
        self.depth = int(depth)
        self.noise = float(noise)
        self.deal_last = None if deal_last is None else bool(deal_last)

    def act_with_state(self, state: ScorpionView, action_mask: np.ndarray) -> int:
        """The move with the best mean rollout value over sampled deals of the hidden cards."""
        legal, visited = self._legal_and_seen(state, action_mask)
        if legal.size == 1:
            return int(legal[0])
        return self._rollout_choice(state, legal, visited)

    def _rollout_choice(self, state: ScorpionView, legal: np.ndarray, visited: np.ndarray) -> int:
        """The lookahead decision among ``legal`` (two or more moves); ``visited``: seen hashes."""
        s = state.state_arrays()
        tab, lens, fd, _, meta, _ = s
        roots = np.array(
            [a for a in legal if not search.is_pointless(tab, lens, fd, meta, int(a))], np.int64
        )
        if roots.size == 0:
            return int(self.rng.choice(legal))
        if roots.size == 1:
            return int(roots[0])
        hashes = np.empty(roots.size, np.int64)
        gains = np.empty(roots.size, np.float64)
        search.successors(s, roots, roots.size, hashes, gains)
        deal = roots == RESERVE_ACTION
        deal_last = not state.relaxed if self.deal_last is None else self.deal_last
        if deal_last and deal.any() and np.any(gains[~deal] > 0):
            keep = ~deal
            roots, hashes, gains = roots[keep], hashes[keep], gains[keep]
        values = self._values(state, roots)
        values += TIE_BREAK * gains
        values[np.isin(hashes, visited)] -= search.REVISIT_PENALTY
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return int(roots[self.rng.choice(best)])

    def _values(self, view: ScorpionView, roots: np.ndarray) -> np.ndarray:
        """The mean rollout value of each of ``roots`` over sampled hidden cards."""
        values = np.empty(roots.size, np.float64)
        search.rollout_values(
            view.state_arrays(),
            view.unseen,
            len(view.unseen),
            roots,
            roots.size,
            self.samples or (RELAXED_SAMPLES if view.relaxed else CLASSIC_SAMPLES),
            self.rollouts,
            self.depth,
            self.noise,
            int(self.rng.integers(2**62)),
            values,
        )
        return values


@dataclass(eq=False)
class Sample:
    """One determinization kept between decisions: the full state, the solver's verdict on it
    and, when won, the rest of the winning line from this state."""

    state: ScorpionState
    verdict: str
    line: list[int]
    children: dict[int, tuple[str, list[int]]] = field(default_factory=dict)
    nodes: int = 0  # the budget of its last solve


class PimcAgent(LookaheadAgent):
    """Perfect-information Monte Carlo on the exact solver: vote over solved determinizations.

    At each decision the agent holds a pool of determinizations of the hidden cards
    (`ScorpionView.determinize`: the unseen cards dealt at random into the face-down and
    reserve places), at least ``samples`` of them, drawing more until ``won_target`` are won or
    ``max_samples`` are drawn.  Each is solved with
    `shell_envs.scorpion.solver.solve_quick` on ``max_nodes`` nodes.  In every won
    sample each candidate move is then solved again from the position it leads to
    (`solve_children`; the first move of the sample's own
    winning line needs no search), and the move that wins in the most samples is played.
    Ties go to the best immediate gain of `search.evaluate` (moves back into a position
    already seen count last), then to the seeded generator.  When no sample is won (a lost
    deal, or a budget too small) the agent plays as `LookaheadAgent` does.  With
    ``every_move=False`` only the first moves of the won samples' lines are candidates (much
    cheaper where moves are many, as under Relaxed): with ``check_lines`` each candidate is
    solved in every won sample (`_check_lines`: tried in order of lookahead's rollout
    value with ``rollout_order``, else of how many lines propose it; the first that wins in
    every won sample is played), without it each won sample just votes for its line's first
    move.  There a move back into a position seen is tried after the other candidates, and a
    move already played from the same position is left out while another is left: each
    would win in every kept sample again (the pool is the same), so the agent would move a
    card to and fro until the game stalls.

    Samples are kept while they still look like the game: the move played is played on each
    of them, so a won sample keeps the line found for that move and a lost one stays lost
    (every move from a lost position leads to one), without a new search.  A sample that a
    revealed card contradicts is replaced by a fresh determinization; one whose verdict is
    unknown is solved again: at once when the move played left its line (``resolve``), and,
    when the budget ran out on it, only while no sample is won and fewer than half are lost,
    each time on twice its last budget, up to ``grow`` times ``max_nodes``.  When the hidden
    cards have at most ``exact`` arrangements, the pool is every arrangement once (their share
    of ``samples`` × ``max_nodes`` each).  So the agent searches mostly when cards are
    revealed (with ``refresh``, at every decision, on a pool drawn afresh), and its decisions
    depend only on the `ScorpionView` and its own seeded draws: the real hidden cards
    are never read.

    Args:
        samples: determinizations at least; None: the rule's default (`PIMC_DEFAULTS`).
        won_target: draw more determinizations until this many are won ...
        max_samples: ... or this many are in the pool.
        max_nodes: node budget of one solve.
        every_move: solve every move in every won sample (True) or only the won lines'
            first moves (False).
        check_lines: with ``every_move=False``, solve each won line's first move in every won
            sample (True) or let each won sample vote for its own line's first move (False).
        resolve: solve a sample again at the next decision when the move played left its line.
        exact: enumerate every arrangement of the hidden cards when there are at most this
            many (0: never; at most `MAX_EXACT`).
        rollout_order: with ``check_lines``, try the candidates in order of their rollout
            value (as ``lookahead`` rates moves) instead of how many lines propose them.
        reveal_first: among moves that win in equally many samples (with ``check_lines``: as
            the first candidates tried), prefer one that turns a face-down card or deals the
            reserve: a sample's line may win only by knowing the cards, and seeing them sooner
            leaves fewer decisions to guess.
        grow: an undecided sample is solved again on up to this many times ``max_nodes``.
        deepen: with ``check_lines``, a candidate whose solve in a won sample ran out of
            budget is solved once more on this many times ``max_nodes`` (1: never), so that
            an undecided child is not counted as a loss of the move.
        settle: before each decision, a sample still undecided is solved once more on this
            many times ``max_nodes`` (1: never), so that it joins the vote: the samples the
            budget runs out on are mostly those where the solver's first-choice move fails,
            and leaving them out makes the vote favour that move.
        widen: with ``check_lines``, the legal moves that no won sample's line starts with are
            candidates too, tried after those that some line proposes: the solver's lines
            favour some first moves, and a move that wins in every sample may start none.
        refresh: draw the pool afresh at every decision instead of keeping the samples that
            still match the game (an enumerated pool, with ``exact``, is kept), in case the
            kept samples, which the moves already played were chosen to win in, overstate how
            often the next moves win (measured: it does not help, see docs/agents.md).
        plan: with ``check_lines``, when the move chosen turns no card or does not win in
            every won sample, rate each candidate, and each move that turns a card, as a plan
            a fair player can follow: a move that turns a card by the won samples it wins in,
            one that turns none by the best such share of a move that turns a card after at
            most ``plan`` - 1 further moves that turn none (the same in every sample), or its
            plain count when no card can be turned so soon; play the best (0: never).  A
            move that turns no card keeps every won sample won however the cards lie
            (strategy fusion), so the plain count flatters it.
        seed: seeds the determinizations and the fallback search.
        rules: the rule assumed when deciding from an observation (views carry their own).

    Every option left None takes the default of the rule in play (`PIMC_DEFAULTS`).
    """

    name = "pimc"

    def __init__(
        self,
        samples: int | None = None,
        won_target: int | None = None,
        max_samples: int | None = None,
        max_nodes: int | None = None,
        every_move: bool | None = None,
        check_lines: bool | None = None,
        resolve: bool | None = None,
        exact: int | None = None,
        rollout_order: bool | None = None,
        reveal_first: bool | None = None,
        grow: int | None = None,
        deepen: int | None = None,
        settle: int | None = None,
        widen: bool | None = None,
        refresh: bool | None = None,
        plan: int | None = None,
        seed: int | None = None,
        rules: str = "classic",
    ) -> None:
        super().__init__(seed=seed, rules=rules)
        self.options: dict[str, int | bool] = {}
        for key, value in (
            ("samples", samples),
            ("won_target", won_target),
            ("max_samples", max_samples),
            ("max_nodes", max_nodes),
            ("grow", grow),
            ("deepen", deepen),
            ("settle", settle),
        ):
            high = solver.MAX_NODES_LIMIT if key == "max_nodes" else MAX_SEARCH
            if value is not None:
                self.options[key] = positive_int(key, value, high=high)
        for key, value in (
            ("every_move", every_move),
            ("check_lines", check_lines),
            ("resolve", resolve),
            ("rollout_order", rollout_order),
            ("reveal_first", reveal_first),
            ("widen", widen),
            ("refresh", refresh),
        ):
            if value is not None:
                self.options[key] = flag(key, value)
        for key, value, high in (("exact", exact, MAX_EXACT), ("plan", plan, MAX_PLAN)):
            if value is None:
                continue
            whole = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            if not whole or not 0 <= value <= high:
                raise ValueError(f"{key} must be an integer 0 … {high}; got {value!r}")
            self.options[key] = int(value)
        self._pool: list[Sample] = []

    def reset(self, seed: int | None = None) -> None:
        """New game: forget the positions seen and the samples; reseed (a None seed keeps the
        generator)."""
        super().reset(seed)
        self._pool = []

    def option(self, key: str, rule_set: str) -> Any:
        """The value of option ``key`` in a game under the rule set ``rule_set``."""
        return self.options.get(key, PIMC_DEFAULTS[rule_set][key])

    def act_with_state(self, state: ScorpionView, action_mask: np.ndarray) -> int:
        """The move that wins in the most solved determinizations (see the class notes)."""
        legal, visited = self._legal_and_seen(state, action_mask)
        self._pool = [s for s in self._pool if looks_like(s.state, state)]
        if legal.size == 1:
            choice = int(legal[0])
        else:
            budget = self.option("max_nodes", state.rules)
            self._fill(state, budget)
            tab, lens, fd, _, meta = state.arrays()
            roots = [int(a) for a in legal if not search.is_pointless(tab, lens, fd, meta, int(a))]
            if self.option("every_move", state.rules):
                votes = self._votes(roots, budget)
            else:
                votes = dict.fromkeys(roots, 0)
                for sample in self._pool:
                    if sample.verdict == solver.WON and sample.line[0] in votes:
                        votes[sample.line[0]] += 1
                proposed = [m for m in roots if votes[m] > 0]
                # with `widen`, the moves no line proposes are candidates too (tried last)
                candidates = roots if proposed and self.option("widen", state.rules) else proposed
                if self.option("check_lines", state.rules) and len(candidates) > 1:
                    best = self._check_lines(state, candidates, votes, visited, budget)
                    if self.option("plan", state.rules):
                        best = self._plan(state, roots, candidates, best, visited, budget)
                    votes = {m: int(m == best) for m in roots}
            if votes and max(votes.values()) > 0:
                best = max(votes.values())
                ties = np.array([m for m in roots if votes[m] == best], np.int64)
                choice = self._break_tie(state, ties, visited)
            else:
                choice = self._rollout_choice(state, legal, visited)
        self._played.add((state.position_hash(), choice))
        self._advance(choice)
        return choice

    def _votes(self, roots: list[int], budget: int) -> dict[int, int]:
        """For each move of ``roots``, the won samples in which it still wins (solved on each
        sample's child position; the first move of a sample's own line needs no search)."""
        votes = dict.fromkeys(roots, 0)
        for sample in self._pool:
            if sample.verdict != solver.WON:
                continue
            others = [m for m in roots if m != sample.line[0]]
            outcomes = solver.solve_children(sample.state, others, budget, check=False)
            found = zip(others, outcomes, strict=True)
            sample.children = {m: (o.verdict, list(o.moves)) for m, o in found}
            sample.children[sample.line[0]] = (solver.WON, sample.line[1:])
            for move in roots:
                votes[move] += sample.children[move][0] == solver.WON
        return votes

    def _check_lines(
        self,
        view: ScorpionView,
        candidates: list[int],
        counts: dict[int, int],
        visited: np.ndarray,
        budget: int,
    ) -> int:
        """Among ``candidates`` (the first moves of the won samples' lines, and with ``widen``
        the other moves too), the move that wins in the most won samples, each solved on its
        child position (or known from its line).

        Moves that some line proposes come first (others that return to a position seen are
        left out), those that return to a position seen after the other proposed ones; within
        each group revealing ones first with ``reveal_first``, then by ``lookahead``'s rollout
        value with ``rollout_order``, else by how many lines propose them and the immediate
        gain.  The first that wins in every won sample is played at once, and a move stops
        being solved as soon as it fails in as many samples as the best so far (so ties go to
        the earlier move).  A solve that runs out of budget is repeated on ``deepen`` times the
        budget: an undecided child would otherwise count as a loss, and the move that a won
        sample's line does not take is often one whose proof is just longer.  Verdicts found
        are kept for `_advance`.
        """
        deepen = self.option("deepen", view.rules)
        gains = self._gains(view, np.array(candidates, np.int64), visited)
        revisit = gains < -search.REVISIT_PENALTY / 2
        # a move no line proposes that returns to a position seen before is not tried
        keep = np.array([counts[m] > 0 for m in candidates]) | ~revisit
        # nor one already played from this position while another is left: the pool is the
        # same as then, so it would close a cycle
        here = view.position_hash()
        again = np.array([(here, m) in self._played for m in candidates])
        if np.any(keep & ~again):
            keep &= ~again
        candidates, gains = [m for m, k in zip(candidates, keep, strict=True) if k], gains[keep]
        revisit = revisit[keep]
        moves = np.array(candidates, np.int64)
        reveal = self._reveals(candidates) if self.option("reveal_first", view.rules) else {}
        rollout = self.option("rollout_order", view.rules)
        if rollout:
            gains = gains * TIE_BREAK + self._values(view, moves)
        # a move back into a position seen is tried after every other proposed move, whatever
        # its rollout value: the pool is the same there, so the choice would repeat (a cycle)
        key = [
            (counts[m] == 0, bool(back), -reveal.get(m, 0), 0 if rollout else -counts[m], -gain)
            for m, back, gain in zip(candidates, revisit, gains, strict=True)
        ]
        order = sorted(range(len(candidates)), key=key.__getitem__)
        won = [sample for sample in self._pool if sample.verdict == solver.WON]
        best, best_miss = candidates[order[0]], len(won) + 1
        for i in order:
            move, miss = candidates[i], 0
            for sample in won:
                miss += not self._wins(sample, move, budget, deepen)
                if miss >= best_miss:
                    break
            if miss < best_miss:
                best, best_miss = move, miss
            if best_miss == 0:
                break
        return best

    def _plan(
        self,
        view: ScorpionView,
        roots: list[int],
        candidates: list[int],
        best: int,
        visited: np.ndarray,
        budget: int,
    ) -> int:
        """The move to play when ``best`` (the choice of `_check_lines`) turns no card or
        fails in some won sample: among ``candidates`` and the moves of ``roots`` that turn a
        card, the one with the best fair-plan share (see ``plan`` in the class notes); ties
        keep ``best``, then the order given (candidates first)."""
        won = [sample for sample in self._pool if sample.verdict == solver.WON]
        if not won:
            return best
        deepen = self.option("deepen", view.rules)
        turns = self._reveals(roots)
        if turns.get(best, 0) and all(self._wins(s, best, budget, deepen) for s in won):
            return best
        moves = [best] + [m for m in candidates if m != best]
        moves += [m for m in roots if turns[m] and m not in moves]
        seen = {int(h) for h in visited}
        seen.add(view.position_hash())
        depth = self.option("plan", view.rules) - 1
        scores: dict[int, int] = {}
        top = -1
        for move in moves:
            if turns.get(move, 0):
                score = sum(self._wins(s, move, budget, deepen) for s in won)
            else:
                after = [s.state.copy() for s in won]
                for state in after:
                    rules.apply_action(state.arrays, move)
                score, found = _best_reveal(after, depth, budget, deepen, seen, max(top, 0))
                if not found:  # no card to turn within reach: the plain count
                    score = sum(self._wins(s, move, budget, deepen) for s in won)
            scores[move] = score
            top = max(top, score)
        return next(m for m in moves if scores[m] == top)

    @staticmethod
    def _wins(sample: Sample, move: int, budget: int, deepen: int) -> bool:
        """Whether ``move`` wins in the won ``sample`` (its line's first move, or solved and
        kept in its children)."""
        if sample.line and sample.line[0] == move:
            return True
        if move not in sample.children:
            sample.children[move] = PimcAgent._solve_child(sample, move, budget, deepen)
        return sample.children[move][0] == solver.WON

    @staticmethod
    def _solve_child(sample: Sample, move: int, budget: int, deepen: int) -> tuple[str, list[int]]:
        """The verdict and winning line of ``move`` in ``sample``, solved on ``budget`` nodes
        and, if that runs out, once more on ``deepen`` times it (with ``deepen`` > 1)."""
        out = _solve_deep(sample.state, move, budget, deepen)
        return out.verdict, list(out.moves)

    def _reveals(self, moves: list[int]) -> dict[int, int]:
        """For each of ``moves``, 1 if it turns a face-down card or deals the reserve (the same
        in every determinization, so the first sample tells), else 0."""
        return {move: int(turns_a_card(self._pool[0].state, move)) for move in moves}

    def _enumerate(self, view: ScorpionView) -> bool:
        """With few hidden cards (at most ``exact`` arrangements), make the pool every
        arrangement once (keeping the samples already solved) and return True."""
        n = len(view.unseen)
        limit = self.option("exact", view.rules)
        if math.factorial(n) > limit:
            return False
        places = _hidden_places(view)
        pool: dict[tuple[int, ...], Sample] = {}
        for kept in self._pool:
            pool.setdefault(_arrangement(kept.state, places), kept)
        self._pool = []
        for cards in itertools.permutations(int(c) for c in view.unseen):
            sample = pool.get(cards)
            if sample is None:
                sample = Sample(_arranged(view, places, cards), UNSOLVED, [])
            self._pool.append(sample)
        return True

    def _fill(self, view: ScorpionView, budget: int) -> None:
        """Fill the pool (of samples that look like ``view``) with fresh determinizations and
        solve them; samples whose verdict is unknown are solved again only when none is won and
        fewer than half are lost, or with ``resolve`` when fewer than half are won (otherwise
        they cost much and change little), on a budget growing while none is won."""
        exact = self._enumerate(view)
        if self.option("refresh", view.rules) and not exact:
            self._pool = []
        while len(self._pool) < self.option("samples", view.rules) and not exact:
            self._pool.append(Sample(view.determinize(self.rng), UNSOLVED, []))
        verdicts = [sample.verdict for sample in self._pool]
        again = solver.WON not in verdicts and 2 * verdicts.count(solver.LOST) < len(verdicts)
        resolve = self.option("resolve", view.rules)
        if exact:  # fewer arrangements than samples: the same nodes over fewer solves
            budget *= max(1, self.option("samples", view.rules) // len(self._pool))
        # none won: an undecided sample is solved again on twice its last budget, up to `grow`x
        grow = self.option("grow", view.rules) if solver.WON not in verdicts else 1
        # with `resolve`, a sample whose line the move left is solved again at once, and one
        # the budget ran out on while fewer than half are won
        again = again or (resolve and 2 * verdicts.count(solver.WON) < len(verdicts))
        settle = self.option("settle", view.rules)
        settle_nodes = min(budget * settle, solver.MAX_NODES_LIMIT) if settle > 1 else 0
        for sample in self._pool:
            if sample.verdict == UNSOLVED or (resolve and sample.nodes == 0):
                self._solve(sample, budget)
            elif again and sample.verdict == solver.UNKNOWN:
                self._solve(sample, max(budget, min(2 * sample.nodes, grow * budget)))
            if sample.verdict == solver.UNKNOWN and sample.nodes < settle_nodes:
                self._solve(sample, settle_nodes)
        if exact:
            return
        won = sum(sample.verdict == solver.WON for sample in self._pool)
        target = self.option("won_target", view.rules)
        while won < target and len(self._pool) < self.option("max_samples", view.rules):
            sample = Sample(view.determinize(self.rng), UNSOLVED, [])
            self._solve(sample, budget)
            self._pool.append(sample)
            won += sample.verdict == solver.WON

    @staticmethod
    def _solve(sample: Sample, budget: int) -> None:
        """Solve ``sample`` from where it stands on ``budget`` nodes."""
        result = solver.solve_quick(sample.state, budget, check=False)
        sample.verdict, sample.line, sample.nodes = result.verdict, list(result.moves), budget

    @staticmethod
    def _gains(view: ScorpionView, moves: np.ndarray, visited: np.ndarray) -> np.ndarray:
        """The immediate gain of each of ``moves``, less a penalty for a position seen before."""
        roots = moves.astype(np.int64)
        hashes = np.empty(roots.size, np.int64)
        gains = np.empty(roots.size, np.float64)
        search.successors(view.state_arrays(), roots, roots.size, hashes, gains)
        gains[np.isin(hashes, visited)] -= search.REVISIT_PENALTY
        return gains

    def _break_tie(self, view: ScorpionView, moves: np.ndarray, visited: np.ndarray) -> int:
        """Among ``moves``, the best immediate gain (revisits last), then the generator."""
        if moves.size == 1:
            return int(moves[0])
        roots = moves.astype(np.int64)
        if self.option("reveal_first", view.rules) and self._pool:
            reveal = self._reveals([int(m) for m in roots])
            if any(reveal.values()):
                roots = np.array([m for m in roots if reveal[int(m)]], np.int64)
        gains = self._gains(view, roots, visited)
        best = np.flatnonzero(gains >= gains.max() - 1e-9)
        return int(roots[self.rng.choice(best)])

    def _advance(self, action: int) -> None:
        """Play ``action`` on every sample; a won sample takes the verdict and line found for
        that move (or becomes unknown when it has none), lost samples stay lost."""
        for sample in self._pool:
            rules.apply_action(sample.state.arrays, action)
            if sample.verdict == solver.WON:
                if action in sample.children:
                    sample.verdict, sample.line = sample.children[action]
                elif sample.line and sample.line[0] == action:
                    sample.line = sample.line[1:]
                else:  # the move left its line: unknown, and no budget spent on it yet
                    sample.verdict, sample.line, sample.nodes = solver.UNKNOWN, [], 0
            sample.children = {}


def _solve_deep(state: ScorpionState, move: int, budget: int, deepen: int) -> solver.Outcome:
    """The outcome of ``move`` in the full ``state``, solved on ``budget`` nodes and, if that
    runs out, once more on ``deepen`` times it (with ``deepen`` > 1)."""
    out = solver.solve_children(state, [move], budget, check=False)[0]
    if out.verdict == solver.UNKNOWN and deepen > 1:
        deeper = min(budget * deepen, solver.MAX_NODES_LIMIT)
        out = solver.solve_children(state, [move], deeper, check=False)[0]
    return out


def _best_reveal(
    states: list[ScorpionState], depth: int, budget: int, deepen: int, seen: set[int], floor: int
) -> tuple[int, bool]:
    """In how many of ``states`` (one position, each with its own hidden cards) the best plan
    wins: a move that turns a card, after at most ``depth`` moves that turn none (the same in
    every state), and whether any such plan exists; positions in ``seen`` are not entered
    again.  Only plans winning in more than ``floor`` states are counted (else ``floor``)."""
    best, found = floor, False
    first = states[0]
    moves = np.empty(N_ACTIONS, np.int64)
    n = rules.legal_moves(first.arrays, moves)
    for move in moves[:n].tolist():
        if search.is_pointless(first.tab, first.lens, first.fd, first.meta, move):
            continue
        if turns_a_card(first, move):
            found, wins = True, 0
            for i, state in enumerate(states):
                wins += _solve_deep(state, move, budget, deepen).verdict == solver.WON
                if wins + len(states) - i - 1 <= best:
                    break
            best = max(best, wins)
        elif depth > 0:
            after = [state.copy() for state in states]
            for state in after:
                rules.apply_action(state.arrays, move)
            key = ScorpionView.from_state(after[0], check=False).position_hash()
            if key not in seen:
                seen.add(key)
                score, deeper_found = _best_reveal(after, depth - 1, budget, deepen, seen, best)
                best, found = max(best, score), found or deeper_found
    return best, found


def turns_a_card(state: ScorpionState, move: int) -> bool:
    """Whether ``move`` turns a face-down card or deals the reserve in the full ``state`` (the
    same in every determinization of what a player sees)."""
    after = state.copy()
    rules.apply_action(after.arrays, move)
    return _hidden(after) < _hidden(state)


def _hidden(state: ScorpionState) -> int:
    """How many cards of a full state a player cannot see: face down, or in the reserve."""
    return int(state.fd.sum()) + int(np.count_nonzero(state.reserve >= 0))


def _hidden_places(view: ScorpionView) -> list[tuple[int, int]]:
    """The hidden places of ``view`` in a fixed order: (column, depth) of each face-down card,
    then (-1, i) for each reserve card still undealt."""
    places = [(c, d) for c in range(N_COLUMNS) for d in range(int(view.fd[c]))]
    return places + [(-1, i) for i in range(3) if view.reserve[i] == HIDDEN]


def _arrangement(state: ScorpionState, places: list[tuple[int, int]]) -> tuple[int, ...]:
    """The cards a full ``state`` holds at ``places``."""
    return tuple(int(state.reserve[d] if c < 0 else state.tab[c, d]) for c, d in places)


def _arranged(
    view: ScorpionView, places: list[tuple[int, int]], cards: tuple[int, ...]
) -> ScorpionState:
    """The full state of ``view`` with ``cards`` dealt into ``places`` (one arrangement)."""
    s = view.state_arrays()
    tab, _, _, reserve, _, _ = s
    for (c, d), card in zip(places, cards, strict=True):
        if c < 0:
            reserve[d] = card
        else:
            tab[c, d] = card
    return ScorpionState(s)


def looks_like(state: ScorpionState, view: ScorpionView) -> bool:
    """Whether the full ``state`` shows exactly what ``view`` shows (so it is one of its
    determinizations): the same face-up cards in the same places, the same face-down counts,
    the reserve dealt or not and the same removed sequences."""
    up = view.tab != HIDDEN
    slots = slice(rules.M_SLOTS, rules.M_SLOTS + 4)
    return (
        np.array_equal(state.lens, view.lens)
        and np.array_equal(state.fd, view.fd)
        and np.array_equal(state.tab[up], view.tab[up])
        and np.array_equal(state.reserve >= 0, view.reserve == HIDDEN)
        and np.array_equal(state.meta[slots], view.meta[slots])
    )
