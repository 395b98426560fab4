"""The parts every fair Scorpion agent shares, in one place: the check of the view it is given,
the check of its rule set's name, and the base class that keeps its seed and its memory of the
positions seen."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from shell_envs.scorpion import rules
from shell_envs.scorpion.rules import RULE_SETS
from shell_envs.scorpion.state import rule_code
from shell_envs.scorpion.view import ScorpionView


def checked_view(state: Any) -> ScorpionView:
    """``state`` if it is a `ScorpionView`, else a ``ValueError``."""
    if not isinstance(state, ScorpionView):
        raise ValueError(f"state must be a ScorpionView; got {type(state).__name__}")
    return state


def check_rules(value: str) -> str:
    """Validate a ``rules`` keyword (a rule set's name, as `rule_code` reads it); returns it."""
    try:
        rule_code(value)
    except ValueError:
        names = " or ".join(repr(name) for name in RULE_SETS)
        raise ValueError(f"rules must be {names}, got {value!r}") from None
    return value


class FairAgent(ABC):
    """Shared plumbing: seeding, decoding observations, the memory of positions seen (and, for
    ``pimc``, of the moves played from them), forgotten together when a new game starts."""

    def __init__(self, seed: int | None = None, rules: str = "classic") -> None:
        self.rules = check_rules(rules)
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

    def _legal_and_seen(
        self, state: ScorpionView, action_mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions of the checked view ``state``, and the hashes of every position
        seen, this one included (`_remember`)."""
        legal = checked_view(state).legal(action_mask)
        return legal, self._remember(state)

    def _remember(self, view: ScorpionView) -> np.ndarray:
        """Record the current position; returns the sorted hashes of every position seen."""
        moves = int(view.meta[rules.M_MOVES])
        if moves < self._last_moves:
            self._visited = set()
            self._played = set()
        self._last_moves = moves
        self._visited.add(view.position_hash())
        return np.array(sorted(self._visited), np.int64)
