"""Agents as a user would write them, for the open-bench tests (a module and a file)."""

from __future__ import annotations

import numpy as np


def first_legal(observation, action_mask):
    """A plain policy function: the lowest legal action."""
    return int(np.flatnonzero(action_mask)[0])


class SeededAgent:
    """A factory-made agent: uniform over the legal actions, reseeded by ``reset``."""

    def __init__(self, game: str, seed: int | None) -> None:
        self.game = game
        self.rng = np.random.default_rng(seed)

    def reset(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        return int(self.rng.choice(np.flatnonzero(action_mask)))


def make_seeded(game: str, seed: int | None) -> SeededAgent:
    """The factory: called with keywords game and seed."""
    return SeededAgent(game, seed)


def illegal(observation, action_mask):
    """Always an illegal action: the first one the mask forbids, else one past the last."""
    forbidden = np.flatnonzero(~np.asarray(action_mask, bool))
    return int(forbidden[0]) if forbidden.size else len(action_mask)


def not_an_action(observation, action_mask):
    """Not an action index at all."""
    return "left"


class Raising:
    """Raises on its third decision of every game."""

    def __init__(self, game: str, seed: int | None) -> None:
        self.calls = 0

    def reset(self, seed=None):
        self.calls = 0

    def act(self, observation, action_mask):
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("the third move is beyond me")
        return int(np.flatnonzero(action_mask)[0])


def no_reset_factory(game, seed):
    """A factory whose agents have no reset (built afresh for every game)."""

    class NoReset:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])

    return NoReset()
