"""The policy protocol every agent follows, learned or built in, and the registry of agents.

An agent is any object with::

    name: str
    reset(seed: int | None = None) -> None          # new game; reseeds its randomness
    act(observation, action_mask) -> int            # the encoded observation and the mask in

``action_mask`` is the 0/1 (or bool) array of legal actions; ``act`` returns one legal index.
Search agents may also read the full game state, which is fair in What the Shell because
everything is visible except the opponent's simultaneous choice.  They implement::

    act_with_state(state, action_mask) -> int       # a read-only view of the whole game

(for What the Shell the state is a [`WhatTheShellView`][]).
Whoever runs a game calls [`choose_action`][], which uses ``act_with_state`` when the agent
has it and a state is given, and ``act`` otherwise.  A trained model fits the same protocol
through [`PolicyAgent`][].

Built-in agents are made by name with [`make_builtin`][] (and any agent spec with
[`shell_envs.agents.spec.make_agent`][]); a game's agents live in ``shell_envs.agents.<game>``
and register themselves with [`register_agent`][] when that module is imported, so
``make_agent("scorpion", ...)`` finds Scorpion's agents the same way.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """A policy: observation and action mask in, a legal action out; seeded by ``reset``."""

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` makes the agent's choices reproducible."""

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """A legal action for ``observation`` (``action_mask`` marks the legal actions)."""


@runtime_checkable
class StateAgent(Agent, Protocol):
    """An agent that can also decide from a read-only view of the full game state."""

    def act_with_state(self, state: Any, action_mask: np.ndarray) -> int:
        """A legal action for the game ``state`` (documented per game)."""


def choose_action(
    agent: Agent, observation: Any, action_mask: np.ndarray, state: Any | None = None
) -> int:
    """``agent``'s action: through ``act_with_state`` when it has one and ``state`` is given."""
    act_with_state = getattr(agent, "act_with_state", None)
    if state is not None and callable(act_with_state):
        return int(act_with_state(state, action_mask))
    return int(agent.act(observation, action_mask))


class PolicyAgent:
    """Wrap a trained model or a plain function as an [`Agent`][].

    ``policy`` is either an object with ``predict(observation, ...)`` (a Stable-Baselines3 model;
    ``action_masks`` is passed when ``predict`` accepts it, as MaskablePPO's does) or a callable
    ``policy(observation, action_mask) -> int``.  The wrapper keeps no state, so ``reset`` only
    records the seed.
    """

    def __init__(self, policy: Any, name: str = "policy", deterministic: bool = True) -> None:
        predict = getattr(policy, "predict", None)
        if not callable(predict) and not callable(policy):
            raise ValueError(
                "policy must have a predict(observation, ...) method (a Stable-Baselines3 model) "
                f"or be a callable policy(observation, action_mask), got {policy!r}"
            )
        self.policy = policy
        self.name = name
        self.deterministic = deterministic
        self.seed: int | None = None
        self._predict = predict if callable(predict) else None
        self._masked = self._predict is not None and (
            "action_masks" in inspect.signature(self._predict).parameters
        )

    def reset(self, seed: int | None = None) -> None:
        """Record ``seed``; the wrapped policy decides how (or whether) it is random."""
        self.seed = seed

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """The policy's action for ``observation``."""
        if self._predict is None:
            return int(self.policy(observation, action_mask))
        if self._masked:
            action, _ = self._predict(
                observation,
                action_masks=np.asarray(action_mask, dtype=bool),
                deterministic=self.deterministic,
            )
        else:
            action, _ = self._predict(observation, deterministic=self.deterministic)
        return int(np.asarray(action).item())


AgentFactory = Callable[..., Agent]
_REGISTRY: dict[str, dict[str, AgentFactory]] = {}
_LOADED: set[str] = set()


def register_agent(game: str, name: str, factory: AgentFactory, *, overwrite: bool = False) -> None:
    """Make ``make_agent(game, name, seed=..., **kwargs)`` build ``factory(seed=..., **kwargs)``."""
    if not isinstance(game, str) or not game or not isinstance(name, str) or not name:
        raise ValueError(f"game and agent name must be non-empty strings, got {game!r}, {name!r}")
    if not callable(factory):
        raise ValueError(f"agent factory for {game}/{name} must be callable, got {factory!r}")
    agents = _REGISTRY.setdefault(game, {})
    if name in agents and not overwrite:
        raise ValueError(
            f"{game} already has an agent named {name!r}; pass overwrite=True to replace it"
        )
    agents[name] = factory


def register_agents(game: str, agents: Iterable[type[Agent]]) -> None:
    """Register each agent class of ``agents`` under its ``name`` ([`register_agent`][])."""
    for agent in agents:
        register_agent(game, agent.name, agent)


def _load(game: str) -> None:
    """Import ``shell_envs.agents.<game>`` once, so the game's built-in agents register."""
    if game in _LOADED or not game.isidentifier():
        return
    _LOADED.add(game)
    module = f"shell_envs.agents.{game}"
    if importlib.util.find_spec(module) is not None:
        importlib.import_module(module)


def agent_names(game: str) -> list[str]:
    """The agent names registered for ``game``, sorted (empty for an unknown game)."""
    _load(game)
    return sorted(_REGISTRY.get(game, {}))


def make_builtin(game: str, name: str, seed: int | None = None, **kwargs: Any) -> Agent:
    """Build the agent registered as ``name`` for ``game`` with ``kwargs`` and seed it.

    [`shell_envs.agents.make_agent`][] takes any agent spec and comes here for built-in names.
    """
    _load(game)
    if game not in _REGISTRY:
        known = ", ".join(repr(g) for g in sorted(_REGISTRY)) or "none"
        raise ValueError(f"no agents for game {game!r}; games with agents: {known}")
    factory = _REGISTRY[game].get(name)
    if factory is None:
        raise ValueError(
            f"unknown {game} agent {name!r}; registered: {', '.join(agent_names(game))}"
        )
    agent = factory(seed=seed, **kwargs)
    agent.reset(seed)
    return agent


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """The legal action indices of a mask; a clear error when there are none."""
    legal = np.flatnonzero(np.asarray(action_mask))
    if legal.size == 0:
        raise ValueError("the action mask has no legal action")
    return legal


class RandomAgent:
    """Uniform over the legal actions (`candidates`), seeded."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed (a None seed keeps the current generator)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def candidates(self, action_mask: np.ndarray) -> np.ndarray:
        """The actions drawn from: every legal one."""
        return legal_actions(action_mask)

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """A uniformly random candidate action."""
        return int(self.rng.choice(self.candidates(action_mask)))
