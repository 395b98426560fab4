"""The simple Scorpion agents: ``random``, ``greedy`` and ``lookahead``, and what every fair
agent shares.

They decide from a [`ScorpionView`][shell_envs.scorpion.view.ScorpionView] (the position with
the hidden cards masked out), decoded from the observation in ``act`` or given to
``act_with_state``, never from the hidden cards themselves.  The heavy loops are compiled in
[`shell_envs.scorpion.search`][].  ``pimc`` ([`shell_envs.agents.scorpion_pimc`][]) and
``learned`` ([`shell_envs.agents.scorpion_learned`][]) build on ``_FairAgent`` and
[`LookaheadAgent`][shell_envs.agents.scorpion_simple.LookaheadAgent];
[`shell_envs.agents.scorpion`][] registers them all.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from shell_envs.agents.base import RandomAgent as BaseRandomAgent
from shell_envs.core.validation import positive_int
from shell_envs.scorpion import rules, search
from shell_envs.scorpion.actions import RESERVE_ACTION
from shell_envs.scorpion.rules import RULE_SETS
from shell_envs.scorpion.view import ScorpionView, playable_actions

RULES = RULE_SETS  # the rule sets' names (their home is shell_envs.scorpion.rules)
CLASSIC_SAMPLES = 20
RELAXED_SAMPLES = 6
MAX_SEARCH = 100_000  # lookahead: samples, rollouts and depth at most (compiled int64 loops)
TIE_BREAK = 0.1  # lookahead: weight of a move's immediate gain beside its mean rollout value
TIE_NOISE = 0.01  # greedy: random noise below any real difference in gain, to break ties


def _view(state: Any) -> ScorpionView:
    """``state`` if it is a `ScorpionView`, else a ``ValueError``."""
    if not isinstance(state, ScorpionView):
        raise ValueError(f"state must be a ScorpionView; got {type(state).__name__}")
    return state


def _check_rules(value: str) -> str:
    """Validate a ``rules`` keyword (a rule set's name); returns it."""
    if value not in RULES:
        names = " or ".join(repr(name) for name in RULES)
        raise ValueError(f"rules must be {names}, got {value!r}")
    return value


class _FairAgent(ABC):
    """Shared plumbing: seeding, decoding observations, the memory of positions seen (and, for
    ``pimc``, of the moves played from them), forgotten together when a new game starts."""

    def __init__(self, seed: int | None = None, rules: str = "classic") -> None:
        self.rules = _check_rules(rules)
        self.rng = np.random.default_rng(seed)
        self._visited: set[int] = set()
        self._played: set[tuple[int, int]] = set()
        self._last_moves = 0

    def reset(self, seed: int | None = None) -> None:
        """New game: forget the positions seen; reseed (a None seed keeps the generator)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._visited = set()
        self._played = set()
        self._last_moves = 0

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """Decide from the view decoded from a ``"tableau"`` or ``"cards"`` observation."""
        view = ScorpionView.from_observation(observation, self.rules)
        return self.act_with_state(view, action_mask)

    @abstractmethod
    def act_with_state(self, state: ScorpionView, action_mask: np.ndarray) -> int:
        """A legal action for the player's view ``state``."""

    def _remember(self, view: ScorpionView) -> np.ndarray:
        """Record the current position; returns the sorted hashes of every position seen."""
        moves = int(view.meta[rules.M_MOVES])
        if moves < self._last_moves:
            self._visited = set()
            self._played = set()
        self._last_moves = moves
        self._visited.add(view.position_hash())
        return np.array(sorted(self._visited), np.int64)


class RandomAgent(BaseRandomAgent):
    """Uniform over the legal actions (never undo unless it is the only one)."""

    def candidates(self, action_mask: np.ndarray) -> np.ndarray:
        """The legal actions, undo left out unless it is the only one."""
        return playable_actions(action_mask)


class GreedyAgent(_FairAgent):
    """One move ahead: the move whose result scores best by `search.evaluate`.

    It prefers sequence removals, turning face-down cards and same-suit builds; it never
    shuffles a king-headed column between empty columns, never returns to a position it has
    already been in, and deals the reserve only when no move gains anything.  Ties are broken
    at random (seeded).
    """

    name = "greedy"

    def act_with_state(self, state: ScorpionView, action_mask: np.ndarray) -> int:
        """The greedy move for ``state``."""
        legal = _view(state).legal(action_mask)
        visited = self._remember(state)
        if legal.size == 1:
            return int(legal[0])
        tab, lens, fd, reserve, meta = state.arrays()
        hist = np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)
        rng = np.zeros(1, np.int64)
        rules.rng_seed(rng, int(self.rng.integers(2**62)))
        moves = legal.astype(np.int64)
        n = len(visited)
        choice = search.greedy_choice(
            tab, lens, fd, reserve, meta, hist, moves, len(moves), rng, TIE_NOISE, visited, n
        )
        if choice == search.NO_MOVE:
            return int(self.rng.choice(legal))
        return int(choice)


class LookaheadAgent(_FairAgent):
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
        legal = _view(state).legal(action_mask)
        visited = self._remember(state)
        if legal.size == 1:
            return int(legal[0])
        return self._rollout_choice(state, legal, visited)

    def _rollout_choice(self, state: ScorpionView, legal: np.ndarray, visited: np.ndarray) -> int:
        """The lookahead decision among ``legal`` (two or more moves); ``visited``: seen hashes."""
        tab, lens, fd, reserve, meta = state.arrays()
        roots = np.array(
            [a for a in legal if not search.is_pointless(tab, lens, fd, meta, int(a))], np.int64
        )
        if roots.size == 0:
            return int(self.rng.choice(legal))
        if roots.size == 1:
            return int(roots[0])
        hist = np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)
        hashes = np.empty(roots.size, np.int64)
        gains = np.empty(roots.size, np.float64)
        search.successors(tab, lens, fd, reserve, meta, hist, roots, roots.size, hashes, gains)
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
        tab, lens, fd, reserve, meta = view.arrays()
        values = np.empty(roots.size, np.float64)
        search.rollout_values(
            tab,
            lens,
            fd,
            reserve,
            meta,
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
