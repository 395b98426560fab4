"""Built-in Scorpion agents: ``random``, ``greedy``, ``lookahead``, ``pimc``, ``learned``: all fair.

Scorpion hides cards: 12 face down and 3 in the reserve.  The agents decide from a
`ScorpionView`, the position with those cards masked out (`HIDDEN`) and the list
of cards whose place is unknown, never from the hidden cards themselves.  Whoever runs a game
passes ``ScorpionView.from_env(env)`` to `act_with_state` (or the agent decodes the
same view from a ``"tableau"`` or ``"cards"`` observation in `act`).  The heavy loops
are compiled in `shell_envs.scorpion.search` and play moves with the rules engine.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shell_envs.agents.base import RandomAgent as BaseRandomAgent
from shell_envs.agents.base import legal_actions, register_agent
from shell_envs.core.validation import flag, positive_int
from shell_envs.scorpion import rules, search, solver
from shell_envs.scorpion.state import ScorpionState, check_layout

GAME = "scorpion"
HIDDEN = search.HIDDEN
RULES = ("classic", "relaxed")
CLASSIC_SAMPLES = 20
RELAXED_SAMPLES = 6
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
MAX_EXACT = 5_040  # pimc: arrangements of the hidden cards enumerated at most (7!)
MAX_PLAN = 4  # pimc: moves of a fair plan at most (its search grows as moves^plan)
UNSOLVED = "unsolved"  # pimc: a fresh determinization, not solved yet
MAX_SEARCH = 100_000  # lookahead: samples, rollouts and depth at most (compiled int64 loops)
TIE_BREAK = 0.1  # lookahead: weight of a move's immediate gain beside its mean rollout value
TIE_NOISE = 0.01  # greedy: random noise below any real difference in gain, to break ties
_TABLEAU_SIZE = 366
_CARDS_SIZE = 217


@dataclass(frozen=True, eq=False)
class ScorpionView:
    """What a Scorpion player sees: the rule arrays with the hidden cards masked out.

    ``tab``, ``lens``, ``fd``, ``reserve`` and ``meta`` follow `shell_envs.scorpion.rules`,
    except that every face-down card in ``tab`` and every reserve card still undealt is
    `HIDDEN` (``-2``), and ``meta`` keeps no undo history.  ``unseen`` lists, sorted, the
    cards that are neither face up nor removed: the ones whose place the player does not know.
    All arrays are read-only copies.
    """

    tab: np.ndarray
    lens: np.ndarray
    fd: np.ndarray
    reserve: np.ndarray
    meta: np.ndarray
    unseen: np.ndarray
    checked: bool = field(default=False, repr=False, compare=False)

    @classmethod
    def from_state(cls, state: ScorpionState, check: bool = True) -> ScorpionView:
        """The player's view of a full game state: face-down and reserve cards are masked.

        The state's layout is checked first (``ValueError`` naming what is wrong), unless
        ``check=False`` (the caller vouches, as for an env's own state).
        """
        if not isinstance(state, ScorpionState):
            raise ValueError(f"from_state needs a ScorpionState; got {type(state).__name__}")
        if check:
            check_layout(state.arrays)
        tab = state.tab.copy()
        depth = np.arange(rules.MAX_DEPTH)
        tab[depth[None, :] < state.fd[:, None]] = HIDDEN
        reserve = np.where(state.reserve >= 0, HIDDEN, -1).astype(np.int8)
        meta = state.meta.copy()
        meta[rules.M_HIST_COUNT] = 0
        meta[rules.M_HIST_HEAD] = 0
        return cls._build(tab, state.lens.copy(), state.fd.copy(), reserve, meta, check=False)

    @classmethod
    def from_env(cls, env: Any) -> ScorpionView:
        """The view of the game in a ``Scorpion-v0`` env (wrapped or not)."""
        return cls.from_state(env.unwrapped.get_state(), check=False)  # env states are valid

    @classmethod
    def from_observation(cls, observation: Any, relaxed: bool = False) -> ScorpionView:
        """Decode a ``"tableau"`` or ``"cards"`` observation (or its Dict) into a view.

        Observations do not carry the rule, the score or the move count: ``relaxed`` gives the
        rule, and score and moves read 0.
        """
        if isinstance(observation, dict):
            observation = observation["observation"]
        obs = _integers(observation)
        tab = np.full((rules.N_COLUMNS, rules.MAX_DEPTH), -1, np.int8)
        lens = np.zeros(rules.N_COLUMNS, np.int8)
        fd = np.zeros(rules.N_COLUMNS, np.int8)
        if obs.shape == (_TABLEAU_SIZE,):
            _check_range(obs[:364], 0, 53, "tableau entries 0–363 (0 empty, 1–52 a card, 53 down)")
            _check_reserve(obs[364], "tableau entry 364")
            _check_range(obs[365:], 0, 4, "tableau entry 365 (sequences removed)")
            cells = obs[:364].reshape(rules.N_COLUMNS, rules.MAX_DEPTH)
            for c in range(rules.N_COLUMNS):
                n = int(np.count_nonzero(cells[c]))
                lens[c] = n
                fd[c] = int(np.count_nonzero(cells[c] == 53))
                tab[c, :n] = np.where(cells[c, :n] == 53, HIDDEN, cells[c, :n] - 1)
            in_reserve, removed = int(obs[364]), int(obs[365])
            gone = _whole_missing_suits(tab, removed)
        elif obs.shape == (_CARDS_SIZE,):
            cards = obs[:208].reshape(rules.N_CARDS, 4)
            _check_range(cards[:, 3], 0, 1, "cards face-up flags")
            _check_range(cards[:, 0], 0, 8, "cards locations (0–6 a column, 7 hidden, 8 removed)")
            up = cards[cards[:, 3] == 1]
            _check_range(up[:, 0], 0, 6, "cards locations of face-up cards (columns 0–6)")
            _check_range(up[:, 1], 0, rules.MAX_DEPTH - 1, "cards depths (0–51)")
            _check_range(obs[208:215], 0, 3, "cards entries 208–214 (face-down counts)")
            _check_reserve(obs[215], "cards entry 215")
            _check_range(obs[216:], 0, 4, "cards entry 216 (sequences removed)")
            fd[:] = obs[208:215]
            tab[:, :] = -1
            for c in range(rules.N_COLUMNS):
                tab[c, : fd[c]] = HIDDEN
                lens[c] = fd[c]
            for card in np.flatnonzero(cards[:, 3] == 1):
                c, d = int(cards[card, 0]), int(cards[card, 1])
                tab[c, d] = card
                lens[c] = max(int(lens[c]), d + 1)
            in_reserve, removed = int(obs[215]), int(obs[216])
            gone = sorted({int(i) // 13 for i in np.flatnonzero(cards[:, 0] == 8)})
        else:
            raise ValueError(
                f"cannot read a Scorpion position from an observation of shape {obs.shape}: use "
                "the 'tableau' or 'cards' encoder, or call act_with_state with a ScorpionView"
            )
        meta = np.zeros(rules.META_SIZE, np.int32)
        meta[rules.M_SLOTS : rules.M_SLOTS + 4] = -1
        meta[rules.M_SLOTS : rules.M_SLOTS + len(gone)] = gone
        meta[rules.M_REMOVED] = removed
        meta[rules.M_RESERVE_DEALT] = 0 if in_reserve else 1
        meta[rules.M_RELAXED] = 1 if relaxed else 0
        reserve = np.full(3, HIDDEN if in_reserve else -1, np.int8)
        return cls._build(tab, lens, fd, reserve, meta)

    @classmethod
    def _build(
        cls,
        tab: np.ndarray,
        lens: np.ndarray,
        fd: np.ndarray,
        reserve: np.ndarray,
        meta: Any,
        check: bool = True,
    ) -> ScorpionView:
        """Freeze the arrays, work out the unseen cards and check that a game can look so."""
        known = np.zeros(rules.N_CARDS, np.bool_)
        known[tab[tab >= 0]] = True
        removed = int(meta[rules.M_REMOVED])
        for s in meta[rules.M_SLOTS : rules.M_SLOTS + removed]:
            if 0 <= s < 4:
                known[int(s) * 13 : int(s) * 13 + 13] = True
        unseen = np.flatnonzero(~known).astype(np.int8)
        arrays = []
        for array in (tab, lens, fd, reserve, meta, unseen):
            array = np.ascontiguousarray(array)
            array.flags.writeable = False
            arrays.append(array)
        if check:
            check_view(*arrays)
        return cls(*arrays, True)

    def legal(self, action_mask: Any) -> np.ndarray:
        """The legal actions of ``action_mask`` (undo left out unless it is the only one).

        The view is checked when it was built directly, and the mask must have 365 or 366
        entries and mark legal only moves that this position allows (under either rule): anything
        else gets a ``ValueError``, since the compiled search plays the marked moves as they are.
        """
        self._require_valid()
        mask = np.asarray(action_mask)
        if mask.shape not in ((rules.N_ACTIONS,), (rules.N_ACTIONS_UNDO,)):
            raise ValueError(f"action_mask must have 365 or 366 entries; got shape {mask.shape}")
        legal = _legal(mask)
        allowed = np.zeros(rules.N_ACTIONS_UNDO, np.bool_)
        out = np.empty(rules.N_ACTIONS, np.int64)
        tab, lens, fd, reserve, meta = self.arrays()
        meta[rules.M_RELAXED] = 1  # a superset of the Classic moves: masks of either rule pass
        k = rules.legal_moves(tab, lens, fd, reserve, meta, out)
        allowed[out[:k]] = True
        allowed[rules.UNDO_ACTION] = True
        bad = legal[~allowed[legal]]
        if bad.size:
            raise ValueError(
                f"action_mask marks action {int(bad[0])} legal, but the position does not allow it"
            )
        return legal

    @property
    def relaxed(self) -> bool:
        """Whether the Relaxed rule is in force."""
        return bool(self.meta[rules.M_RELAXED])

    @property
    def hidden_count(self) -> int:
        """Places whose card is unknown: face-down cards plus undealt reserve cards."""
        return int(np.count_nonzero(self.tab == HIDDEN) + np.count_nonzero(self.reserve == HIDDEN))

    def arrays(self) -> tuple[np.ndarray, ...]:
        """Writable copies of ``(tab, lens, fd, reserve, meta)`` for the compiled helpers."""
        return (
            self.tab.copy(),
            self.lens.copy(),
            self.fd.copy(),
            self.reserve.copy(),
            self.meta.copy(),
        )

    def _require_valid(self) -> None:
        """Check a view built directly (not by a ``from_*`` method) before compiled code runs."""
        if not self.checked:
            check_view(self.tab, self.lens, self.fd, self.reserve, self.meta, self.unseen)

    def position_hash(self) -> int:
        """A hash of the visible layout, the same for positions a player cannot tell apart."""
        self._require_valid()
        return int(search.position_hash(self.tab, self.lens, self.fd, self.meta))

    def determinize(self, rng: np.random.Generator) -> ScorpionState:
        """One full state consistent with the view: the unseen cards dealt at random into it."""
        self._require_valid()
        tab, lens, fd, reserve, meta = self.arrays()
        seed = np.zeros(1, np.int64)
        rules.rng_seed(seed, int(rng.integers(2**62)))
        search.fill_hidden(tab, lens, fd, reserve, self.unseen, len(self.unseen), seed)
        hist = np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)
        return ScorpionState((tab, lens, fd, reserve, meta, hist))


def check_view(tab: Any, lens: Any, fd: Any, reserve: Any, meta: Any, unseen: Any) -> None:
    """Raise ``ValueError`` unless the arrays are what a player can see of some game.

    As `check_layout`, with `HIDDEN` in place of every
    face-down card and undealt reserve card, and ``unseen`` listing exactly the cards neither
    face up nor removed, one per hidden place: so the compiled search never reads outside an
    array.
    """
    shapes = (
        ("tab", tab, (rules.N_COLUMNS, rules.MAX_DEPTH), np.int8),
        ("lens", lens, (rules.N_COLUMNS,), np.int8),
        ("fd", fd, (rules.N_COLUMNS,), np.int8),
        ("reserve", reserve, (3,), np.int8),
        ("meta", meta, (rules.META_SIZE,), np.int32),
    )
    for name, array, shape, dtype in shapes:
        if not isinstance(array, np.ndarray) or array.shape != shape or array.dtype != dtype:
            raise ValueError(f"view.{name} must be {np.dtype(dtype).name} of shape {shape}")
    if not isinstance(unseen, np.ndarray) or unseen.ndim != 1 or unseen.dtype.kind not in "iu":
        raise ValueError("view.unseen must be a 1-D integer array of card indices")
    if lens.min() < 0 or lens.max() > rules.MAX_DEPTH or fd.min() < 0 or fd.max() > 3:
        raise ValueError(f"view.lens {lens.tolist()} must be 0–52 and view.fd {fd.tolist()} 0–3")
    # a full state with the hidden places filled by the unseen cards must be a possible game
    down = np.arange(rules.MAX_DEPTH)[None, :] < fd[:, None]
    hidden = tab == HIDDEN
    if np.any(hidden != down):
        c = int(np.flatnonzero(np.any(hidden != down, axis=1))[0])
        raise ValueError(
            f"view.tab column {c + 1}: exactly its {int(fd[c])} face-down cards must be hidden (-2)"
        )
    in_reserve = reserve == HIDDEN
    if np.any(~in_reserve & (reserve != -1)):
        raise ValueError(f"view.reserve must be all hidden (-2) or all dealt (-1); got {reserve}")
    n_hidden = int(hidden.sum())
    places = n_hidden + int(in_reserve.sum())
    if len(unseen) != places or len(set(unseen.tolist())) != places:
        raise ValueError(
            f"view.unseen lists {len(unseen)} cards for {places} hidden places (face-down cards "
            "and undealt reserve cards): the view is not one a game can show"
        )
    if places and (unseen.min() < 0 or unseen.max() >= rules.N_CARDS):
        raise ValueError("view.unseen must list card indices 0–51")
    tab, reserve = tab.copy(), reserve.copy()
    tab[hidden] = unseen[:n_hidden]
    reserve[in_reserve] = unseen[n_hidden:]
    check_layout((tab, lens, fd, reserve, meta))


def _integers(observation: Any) -> np.ndarray:
    """An observation as int64, refusing non-numbers and non-integral or non-finite values."""
    obs = np.asarray(observation)
    if obs.dtype.kind == "f":
        if not np.all(np.isfinite(obs)) or np.any(obs != np.round(obs)):
            raise ValueError("a Scorpion observation holds whole numbers; got fractions or nan/inf")
    elif obs.dtype.kind not in "iub":
        raise ValueError(f"a Scorpion observation holds numbers; got dtype {obs.dtype}")
    if obs.size and (obs.min() < -(2**31) or obs.max() > 2**31):
        raise ValueError("a Scorpion observation holds small whole numbers; got huge values")
    return obs.astype(np.int64)


def _check_reserve(value: np.integer, what: str) -> None:
    """The reserve count of an observation must be 0 or 3."""
    if int(value) not in (0, 3):
        raise ValueError(f"observation {what} (cards in the reserve) must be 0 or 3; got {value}")


def _check_range(values: np.ndarray, low: int, high: int, what: str) -> None:
    """Raise ``ValueError`` naming ``what`` unless every value is in ``[low, high]``."""
    bad = values[(values < low) | (values > high)]
    if bad.size:
        raise ValueError(f"observation {what} must be {low}–{high}; got {int(bad[0])}")


def _whole_missing_suits(tab: np.ndarray, removed: int) -> list[int]:
    """The first ``removed`` suits none of whose cards is face up (the removed sequences)."""
    visible = {int(c) // 13 for c in tab[tab >= 0]}
    return [s for s in range(4) if s not in visible][:removed]


def _legal(action_mask: np.ndarray) -> np.ndarray:
    """The legal actions, undo left out unless it is the only one; an error when there are none."""
    legal = legal_actions(action_mask)
    moves = legal[legal != rules.UNDO_ACTION]
    return moves if moves.size else legal


def _view(state: Any) -> ScorpionView:
    """``state`` if it is a `ScorpionView`, else a ``ValueError``."""
    if not isinstance(state, ScorpionView):
        raise ValueError(f"state must be a ScorpionView; got {type(state).__name__}")
    return state


def _check_rules(value: str) -> bool:
    """Validate a ``rules`` keyword; True for Relaxed."""
    if value not in RULES:
        raise ValueError(f"rules must be 'classic' or 'relaxed', got {value!r}")
    return value == "relaxed"


class _FairAgent:
    """Shared plumbing: seeding, decoding observations, the memory of positions seen (and, for
    ``pimc``, of the moves played from them), forgotten together when a new game starts."""

    def __init__(self, seed: int | None = None, rules: str = "classic") -> None:
        self.relaxed = _check_rules(rules)
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
        view = ScorpionView.from_observation(observation, self.relaxed)
        return self.act_with_state(view, action_mask)

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
        return _legal(action_mask)


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
            [a for a in legal if not search.is_pointless(tab, lens, fd, int(a))], np.int64
        )
        if roots.size == 0:
            return int(self.rng.choice(legal))
        if roots.size == 1:
            return int(roots[0])
        hist = np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)
        hashes = np.empty(roots.size, np.int64)
        gains = np.empty(roots.size, np.float64)
        search.successors(tab, lens, fd, reserve, meta, hist, roots, roots.size, hashes, gains)
        deal = roots == rules.RESERVE_ACTION
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


@dataclass(eq=False)
class _Sample:
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
        self._pool: list[_Sample] = []

    def reset(self, seed: int | None = None) -> None:
        """New game: forget the positions seen and the samples; reseed (a None seed keeps the
        generator)."""
        super().reset(seed)
        self._pool = []

    def option(self, key: str, relaxed: bool) -> Any:
        """The value of option ``key`` in a game under Relaxed (or Classic) rules."""
        return self.options.get(key, PIMC_DEFAULTS["relaxed" if relaxed else "classic"][key])

    def act_with_state(self, state: ScorpionView, action_mask: np.ndarray) -> int:
        """The move that wins in the most solved determinizations (see the class notes)."""
        legal = _view(state).legal(action_mask)
        visited = self._remember(state)
        self._pool = [s for s in self._pool if _looks_like(s.state, state)]
        if legal.size == 1:
            choice = int(legal[0])
        else:
            budget = self.option("max_nodes", state.relaxed)
            self._fill(state, budget)
            tab, lens, fd, _, _ = state.arrays()
            roots = [int(a) for a in legal if not search.is_pointless(tab, lens, fd, int(a))]
            if self.option("every_move", state.relaxed):
                votes = self._votes(roots, budget)
            else:
                votes = dict.fromkeys(roots, 0)
                for sample in self._pool:
                    if sample.verdict == solver.WON and sample.line[0] in votes:
                        votes[sample.line[0]] += 1
                proposed = [m for m in roots if votes[m] > 0]
                # with `widen`, the moves no line proposes are candidates too (tried last)
                candidates = roots if proposed and self.option("widen", state.relaxed) else proposed
                if self.option("check_lines", state.relaxed) and len(candidates) > 1:
                    best = self._check_lines(state, candidates, votes, visited, budget)
                    if self.option("plan", state.relaxed):
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
        deepen = self.option("deepen", view.relaxed)
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
        reveal = self._reveals(candidates) if self.option("reveal_first", view.relaxed) else {}
        rollout = self.option("rollout_order", view.relaxed)
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
        deepen = self.option("deepen", view.relaxed)
        turns = self._reveals(roots)
        if turns.get(best, 0) and all(self._wins(s, best, budget, deepen) for s in won):
            return best
        moves = [best] + [m for m in candidates if m != best]
        moves += [m for m in roots if turns[m] and m not in moves]
        seen = {int(h) for h in visited}
        seen.add(view.position_hash())
        depth = self.option("plan", view.relaxed) - 1
        scores: dict[int, int] = {}
        top = -1
        for move in moves:
            if turns.get(move, 0):
                score = sum(self._wins(s, move, budget, deepen) for s in won)
            else:
                after = [s.state.copy() for s in won]
                for state in after:
                    rules.apply_action(*state.arrays, move)
                score, found = _best_reveal(after, depth, budget, deepen, seen, max(top, 0))
                if not found:  # no card to turn within reach: the plain count
                    score = sum(self._wins(s, move, budget, deepen) for s in won)
            scores[move] = score
            top = max(top, score)
        return next(m for m in moves if scores[m] == top)

    @staticmethod
    def _wins(sample: _Sample, move: int, budget: int, deepen: int) -> bool:
        """Whether ``move`` wins in the won ``sample`` (its line's first move, or solved and
        kept in its children)."""
        if sample.line and sample.line[0] == move:
            return True
        if move not in sample.children:
            sample.children[move] = PimcAgent._solve_child(sample, move, budget, deepen)
        return sample.children[move][0] == solver.WON

    @staticmethod
    def _solve_child(sample: _Sample, move: int, budget: int, deepen: int) -> tuple[str, list[int]]:
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
        limit = self.option("exact", view.relaxed)
        if math.factorial(n) > limit:
            return False
        places = _hidden_places(view)
        pool: dict[tuple[int, ...], _Sample] = {}
        for sample in self._pool:
            pool.setdefault(_arrangement(sample.state, places), sample)
        self._pool = []
        for cards in itertools.permutations(int(c) for c in view.unseen):
            sample = pool.get(cards)
            if sample is None:
                sample = _Sample(_arranged(view, places, cards), UNSOLVED, [])
            self._pool.append(sample)
        return True

    def _fill(self, view: ScorpionView, budget: int) -> None:
        """Fill the pool (of samples that look like ``view``) with fresh determinizations and
        solve them; samples whose verdict is unknown are solved again only when none is won and
        fewer than half are lost, or with ``resolve`` when fewer than half are won (otherwise
        they cost much and change little), on a budget growing while none is won."""
        exact = self._enumerate(view)
        if self.option("refresh", view.relaxed) and not exact:
            self._pool = []
        while len(self._pool) < self.option("samples", view.relaxed) and not exact:
            self._pool.append(_Sample(view.determinize(self.rng), UNSOLVED, []))
        verdicts = [sample.verdict for sample in self._pool]
        again = solver.WON not in verdicts and 2 * verdicts.count(solver.LOST) < len(verdicts)
        resolve = self.option("resolve", view.relaxed)
        if exact:  # fewer arrangements than samples: the same nodes over fewer solves
            budget *= max(1, self.option("samples", view.relaxed) // len(self._pool))
        # none won: an undecided sample is solved again on twice its last budget, up to `grow`x
        grow = self.option("grow", view.relaxed) if solver.WON not in verdicts else 1
        # with `resolve`, a sample whose line the move left is solved again at once, and one
        # the budget ran out on while fewer than half are won
        again = again or (resolve and 2 * verdicts.count(solver.WON) < len(verdicts))
        settle = self.option("settle", view.relaxed)
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
        target = self.option("won_target", view.relaxed)
        while won < target and len(self._pool) < self.option("max_samples", view.relaxed):
            sample = _Sample(view.determinize(self.rng), UNSOLVED, [])
            self._solve(sample, budget)
            self._pool.append(sample)
            won += sample.verdict == solver.WON

    @staticmethod
    def _solve(sample: _Sample, budget: int) -> None:
        """Solve ``sample`` from where it stands on ``budget`` nodes."""
        result = solver.solve_quick(sample.state, budget, check=False)
        sample.verdict, sample.line, sample.nodes = result.verdict, list(result.moves), budget

    @staticmethod
    def _gains(view: ScorpionView, moves: np.ndarray, visited: np.ndarray) -> np.ndarray:
        """The immediate gain of each of ``moves``, less a penalty for a position seen before."""
        tab, lens, fd, reserve, meta = view.arrays()
        hist = np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)
        roots = moves.astype(np.int64)
        hashes = np.empty(roots.size, np.int64)
        gains = np.empty(roots.size, np.float64)
        search.successors(tab, lens, fd, reserve, meta, hist, roots, roots.size, hashes, gains)
        gains[np.isin(hashes, visited)] -= search.REVISIT_PENALTY
        return gains

    def _break_tie(self, view: ScorpionView, moves: np.ndarray, visited: np.ndarray) -> int:
        """Among ``moves``, the best immediate gain (revisits last), then the generator."""
        if moves.size == 1:
            return int(moves[0])
        roots = moves.astype(np.int64)
        if self.option("reveal_first", view.relaxed) and self._pool:
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
            rules.apply_action(*sample.state.arrays, action)
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
    moves = np.empty(rules.N_ACTIONS, np.int64)
    n = rules.legal_moves(*first.arrays[:5], moves)
    for move in moves[:n].tolist():
        if search.is_pointless(first.tab, first.lens, first.fd, move):
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
                rules.apply_action(*state.arrays, move)
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
    rules.apply_action(*after.arrays, move)
    return _hidden(after) < _hidden(state)


def _hidden(state: ScorpionState) -> int:
    """How many cards of a full state a player cannot see: face down, or in the reserve."""
    return int(state.fd.sum()) + int(np.count_nonzero(state.reserve >= 0))


def _hidden_places(view: ScorpionView) -> list[tuple[int, int]]:
    """The hidden places of ``view`` in a fixed order: (column, depth) of each face-down card,
    then (-1, i) for each reserve card still undealt."""
    places = [(c, d) for c in range(rules.N_COLUMNS) for d in range(int(view.fd[c]))]
    return places + [(-1, i) for i in range(3) if view.reserve[i] == HIDDEN]


def _arrangement(state: ScorpionState, places: list[tuple[int, int]]) -> tuple[int, ...]:
    """The cards a full ``state`` holds at ``places``."""
    return tuple(int(state.reserve[d] if c < 0 else state.tab[c, d]) for c, d in places)


def _arranged(
    view: ScorpionView, places: list[tuple[int, int]], cards: tuple[int, ...]
) -> ScorpionState:
    """The full state of ``view`` with ``cards`` dealt into ``places`` (one arrangement)."""
    tab, lens, fd, reserve, meta = view.arrays()
    for (c, d), card in zip(places, cards, strict=True):
        if c < 0:
            reserve[d] = card
        else:
            tab[c, d] = card
    hist = np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)
    return ScorpionState((tab, lens, fd, reserve, meta, hist))


def _looks_like(state: ScorpionState, view: ScorpionView) -> bool:
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


def _learned(**kwargs: Any) -> Any:
    """The ``learned`` agent ([`shell_envs.agents.scorpion_learned`][]), imported when asked
    for: this module is what registers it, and that one builds on this one."""
    from shell_envs.agents.scorpion_learned import LearnedAgent

    return LearnedAgent(**kwargs)


register_agent(GAME, "random", RandomAgent)
register_agent(GAME, "greedy", GreedyAgent)
register_agent(GAME, "lookahead", LookaheadAgent)
register_agent(GAME, "pimc", PimcAgent)
register_agent(GAME, "learned", _learned)
