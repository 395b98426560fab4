"""What a Scorpion player sees: [`ScorpionView`][], its checks and its observation decoder.

Scorpion hides cards: 12 face down and 3 in the reserve.  A view is the position with those
cards masked out (`HIDDEN`) and the list of cards whose place is unknown.  It is built from
a full state, an env, or an observation of the built-in encoders
([`shell_envs.scorpion.encoders`][]); the decoder reads the layouts from the encoders'
own constants, their one home.  The agents (`shell_envs.agents.scorpion`) decide from views
only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shell_envs.scorpion import rules, search
from shell_envs.scorpion.actions import N_ACTIONS, N_ACTIONS_UNDO, N_CARDS, N_COLUMNS, UNDO_ACTION
from shell_envs.scorpion.encoders import (  # the layouts' one home: the encoders
    CARD_DEPTH,
    CARD_FACE_UP,
    CARD_FIELDS,
    CARD_LOCATION,
    CARDS_FACE_DOWN,
    CARDS_REMOVED,
    CARDS_RESERVE,
    EMPTY,
    FACE_DOWN,
    LOC_HIDDEN,
    LOC_REMOVED,
    TABLEAU_CELLS,
    TABLEAU_REMOVED,
    TABLEAU_RESERVE,
    CardsEncoder,
    TableauEncoder,
)
from shell_envs.scorpion.position import check_layout
from shell_envs.scorpion.search import HIDDEN
from shell_envs.scorpion.state import MetaReadings, ScorpionState, rule_code

__all__ = [
    "HIDDEN",
    "ScorpionView",
    "check_view",
    "playable_actions",
]


@dataclass(frozen=True, eq=False)
class ScorpionView(MetaReadings):
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
            check_layout(*state.arrays)
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
    def from_observation(cls, observation: Any, rule_set: str = "classic") -> ScorpionView:
        """Decode a ``"tableau"`` or ``"cards"`` observation (or its Dict) into a view.

        Observations do not carry the rule set, the score or the move count: ``rule_set``
        names the rule set, and score and moves read 0.
        """
        code = rule_code(rule_set)
        if isinstance(observation, dict):
            observation = observation["observation"]
        obs = _integers(observation)
        tab = np.full((N_COLUMNS, rules.MAX_DEPTH), -1, np.int8)
        lens = np.zeros(N_COLUMNS, np.int8)
        fd = np.zeros(N_COLUMNS, np.int8)
        if obs.shape == (TableauEncoder.size,):
            last = TABLEAU_CELLS - 1
            what = f"tableau entries 0–{last} ({EMPTY} empty, 1–{N_CARDS} a card, {FACE_DOWN} down)"
            _check_range(obs[:TABLEAU_CELLS], EMPTY, FACE_DOWN, what)
            _check_reserve(obs[TABLEAU_RESERVE], f"tableau entry {TABLEAU_RESERVE}")
            what = f"tableau entry {TABLEAU_REMOVED} (sequences removed)"
            _check_range(obs[TABLEAU_REMOVED:], 0, 4, what)
            cells = obs[:TABLEAU_CELLS].reshape(N_COLUMNS, rules.MAX_DEPTH)
            for c in range(N_COLUMNS):
                n = int(np.count_nonzero(cells[c]))
                lens[c] = n
                fd[c] = int(np.count_nonzero(cells[c] == FACE_DOWN))
                tab[c, :n] = np.where(cells[c, :n] == FACE_DOWN, HIDDEN, cells[c, :n] - 1)
            in_reserve, removed = int(obs[TABLEAU_RESERVE]), int(obs[TABLEAU_REMOVED])
            gone = _whole_missing_suits(tab, removed)
        elif obs.shape == (CardsEncoder.size,):
            cards = obs[:CARDS_FACE_DOWN].reshape(N_CARDS, CARD_FIELDS)
            _check_range(cards[:, CARD_FACE_UP], 0, 1, "cards face-up flags")
            last = N_COLUMNS - 1
            what = (
                f"cards locations (0–{last} a column, {LOC_HIDDEN} hidden, {LOC_REMOVED} removed)"
            )
            _check_range(cards[:, CARD_LOCATION], 0, LOC_REMOVED, what)
            up = cards[cards[:, CARD_FACE_UP] == 1]
            what = f"cards locations of face-up cards (columns 0–{last})"
            _check_range(up[:, CARD_LOCATION], 0, last, what)
            _check_range(up[:, CARD_DEPTH], 0, rules.MAX_DEPTH - 1, "cards depths (0–51)")
            down = obs[CARDS_FACE_DOWN:CARDS_RESERVE]
            what = f"cards entries {CARDS_FACE_DOWN}–{CARDS_RESERVE - 1} (face-down counts)"
            _check_range(down, 0, 3, what)
            _check_reserve(obs[CARDS_RESERVE], f"cards entry {CARDS_RESERVE}")
            what = f"cards entry {CARDS_REMOVED} (sequences removed)"
            _check_range(obs[CARDS_REMOVED:], 0, 4, what)
            fd[:] = down
            tab[:, :] = -1
            for c in range(N_COLUMNS):
                tab[c, : fd[c]] = HIDDEN
                lens[c] = fd[c]
            for card in np.flatnonzero(cards[:, CARD_FACE_UP] == 1):
                c, d = int(cards[card, CARD_LOCATION]), int(cards[card, CARD_DEPTH])
                tab[c, d] = card
                lens[c] = max(int(lens[c]), d + 1)
            in_reserve, removed = int(obs[CARDS_RESERVE]), int(obs[CARDS_REMOVED])
            gone = sorted(
                {int(i) // 13 for i in np.flatnonzero(cards[:, CARD_LOCATION] == LOC_REMOVED)}
            )
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
        meta[rules.M_RULES] = code
        if code == rules.TRADITIONAL:  # the complete runs are face up: the view sees them
            meta[rules.M_RUNS] = rules.count_runs(tab, lens, fd)
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
        known = np.zeros(N_CARDS, np.bool_)
        known[tab[tab >= 0]] = True
        removed = int(meta[rules.M_REMOVED])
        for s in meta[rules.M_SLOTS : rules.M_SLOTS + removed]:
            if 0 <= s < 4:
                known[int(s) * 13 : int(s) * 13 + 13] = True
        unseen = np.flatnonzero(~known).astype(np.int8)
        frozen = tuple(np.ascontiguousarray(a) for a in (tab, lens, fd, reserve, meta, unseen))
        for array in frozen:
            array.flags.writeable = False
        tab, lens, fd, reserve, meta, unseen = frozen
        if check:
            check_view(tab, lens, fd, reserve, meta, unseen)
        return cls(tab, lens, fd, reserve, meta, unseen, True)

    def legal(self, action_mask: Any) -> np.ndarray:
        """The legal actions of ``action_mask`` (undo left out unless it is the only one).

        The view is checked when it was built directly, and the mask must have 365 or 366
        entries and mark legal only moves that this position allows (under either rule): anything
        else gets a ``ValueError``, since the compiled search plays the marked moves as they are.
        """
        self._require_valid()
        mask = np.asarray(action_mask)
        if mask.shape not in ((N_ACTIONS,), (N_ACTIONS_UNDO,)):
            raise ValueError(f"action_mask must have 365 or 366 entries; got shape {mask.shape}")
        legal = playable_actions(mask)
        allowed = np.zeros(N_ACTIONS_UNDO, np.bool_)
        out = np.empty(N_ACTIONS, np.int64)
        s = self.state_arrays()
        _, _, _, _, meta, _ = s
        # Relaxed's moves are a superset of the others': masks of any rule set pass
        meta[rules.M_RULES] = rules.RELAXED
        k = rules.legal_moves(s, out)
        allowed[out[:k]] = True
        allowed[UNDO_ACTION] = True
        bad = legal[~allowed[legal]]
        if bad.size:
            raise ValueError(
                f"action_mask marks action {int(bad[0])} legal, but the position does not allow it"
            )
        return legal

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

    def state_arrays(self) -> rules.StateArrays:
        """Writable copies of the view's arrays and an empty history: the state arrays ``s``
        the compiled helpers take (`shell_envs.scorpion.search`), hidden cards and all."""
        tab, lens, fd, reserve, meta = self.arrays()
        return tab, lens, fd, reserve, meta, np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)

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
        s = self.state_arrays()
        tab, lens, fd, reserve, _, _ = s
        seed = np.zeros(1, np.int64)
        rules.rng_seed(seed, int(rng.integers(2**62)))
        search.fill_hidden(tab, lens, fd, reserve, self.unseen, len(self.unseen), seed)
        return ScorpionState(s)


def check_view(tab: Any, lens: Any, fd: Any, reserve: Any, meta: Any, unseen: Any) -> None:
    """Raise ``ValueError`` unless the arrays are what a player can see of some game.

    As `check_layout`, with `HIDDEN` in place of every
    face-down card and undealt reserve card, and ``unseen`` listing exactly the cards neither
    face up nor removed, one per hidden place: so the compiled search never reads outside an
    array.
    """
    shapes = (
        ("tab", tab, (N_COLUMNS, rules.MAX_DEPTH), np.int8),
        ("lens", lens, (N_COLUMNS,), np.int8),
        ("fd", fd, (N_COLUMNS,), np.int8),
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
    if places and (unseen.min() < 0 or unseen.max() >= N_CARDS):
        raise ValueError("view.unseen must list card indices 0–51")
    tab, reserve = tab.copy(), reserve.copy()
    tab[hidden] = unseen[:n_hidden]
    reserve[in_reserve] = unseen[n_hidden:]
    check_layout(tab, lens, fd, reserve, meta)


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


def playable_actions(action_mask: Any) -> np.ndarray:
    """The legal actions of a mask, undo left out unless it is the only one (agents never undo
    by choice); a ``ValueError`` when there are none."""
    legal = np.flatnonzero(np.asarray(action_mask))
    if legal.size == 0:
        raise ValueError("the action mask has no legal action")
    moves = legal[legal != UNDO_ACTION]
    return moves if moves.size else legal
