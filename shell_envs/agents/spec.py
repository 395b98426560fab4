"""Agent specs: one string names any agent, built in, trained, or written by the user.

Accepted wherever an agent is named (``shell-envs bench``, ``shell-envs play``,
[`make_agent`][], `shell_envs.bench.evaluate`):

``random``, ``greedy``, ``mcts``, ``lookahead``, …
    A built-in agent, optionally with settings: ``mcts:iterations=1600,candidates=8``.
``module.path:callable`` or ``path/to/file.py:callable``
    A user callable: either a factory, called with the keywords ``game`` and ``seed``, that
    returns an object with ``act(observation, action_mask) -> int`` (and optionally
    ``reset(seed)``), or a plain policy function ``f(observation, action_mask) -> int``.
    A callable whose signature has a ``game`` parameter (or ``**kwargs``) is a factory.
``ppo:PATH`` or ``ppo:PATH?encoder=flat``
    A saved Stable-Baselines3 / sb3-contrib model (extra ``train``), either game; the
    observation encoder is read from the model's observation space unless given.
``rllib:CHECKPOINT`` or ``rllib:CHECKPOINT?module=ID``
    A saved RLlib module or algorithm checkpoint (extra ``rllib``; What the Shell).

``NAME=SPEC`` gives the agent the label ``NAME``; without it [`parse_spec`][] derives a
readable one (``mcts:iterations=1600`` is ``mcts-1600``); see [`parse_spec`][].
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import numpy as np

from shell_envs.agents.base import agent_names, make_builtin
from shell_envs.registry import GAMES as _REGISTRY

GAMES = tuple(_REGISTRY)  # every game's name, from the registry
_OBJECTS: dict[str, Any] = {}  # agent objects given to object_spec, by their spec text
# The loader of each saved-model kind, as "module:function" text imported only when a model
# is loaded: the optional extras live in upper layers, which this module does not import.
LOADERS: dict[str, str] = {
    "ppo": "shell_envs.integrations.sb3:load_agent",
    "rllib": "shell_envs.integrations.rllib:load_agent",
}
EXTRAS: dict[str, str] = {"ppo": "train", "rllib": "rllib"}  # the pip extra of each kind
MODEL_KINDS = tuple(LOADERS)
_LABEL = re.compile(r"^[A-Za-z0-9_.+\-()\[\]]+$")


class AgentSpecError(ValueError):
    """A spec that cannot be parsed or loaded; the message names the spec and the problem."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: its label, the spec text and what it names.

    ``kind`` is ``"builtin"``, ``"callable"``, ``"ppo"``, ``"rllib"`` or ``"object"`` (an
    agent object of this process, `object_spec`); ``target`` the agent name,
    ``module:callable`` text or path; ``options`` the settings (built-in keyword
    arguments, or the ``?key=value`` options of a model).
    """

    label: str
    spec: str
    kind: str
    target: str
    options: tuple[tuple[str, Any], ...] = ()

    def plays(self, game: str) -> bool:
        """Whether this agent can play ``game`` (built-in agents exist per game)."""
        if self.kind == "builtin":
            return self.target in agent_names(game)
        if self.kind == "rllib":
            return game == "what_the_shell"
        return game in GAMES

    def make(self, game: str, seed: int | None = None) -> Any:
        """Build the agent for ``game``, seeded; [`AgentSpecError`][] if it cannot be."""
        if not self.plays(game):
            raise AgentSpecError(f"agent spec {self.spec!r}: there is no {game} agent of that name")
        kwargs = dict(self.options)
        try:
            if self.kind == "builtin":
                return make_builtin(game, self.target, seed=seed, **kwargs)
            if self.kind == "ppo":
                load = loader(self.kind)
                return load(self.target, game=game, name=self.label, seed=seed, **kwargs)
            if self.kind == "rllib":
                return loader(self.kind)(self.target, name=self.label, **kwargs)
            if self.kind == "object":
                return _OBJECTS[self.target]
            return _user_agent(_load_callable(self.target), game, seed, self.label)
        except AgentSpecError:
            raise
        except ImportError as exc:
            extra = EXTRAS.get(self.kind)
            hint = f" (install the extra: pip install 'shell-envs[{extra}]')" if extra else ""
            raise AgentSpecError(f"agent spec {self.spec!r}: {exc}{hint}") from exc
        except (ValueError, TypeError, OSError) as exc:
            raise AgentSpecError(f"agent spec {self.spec!r}: {exc}") from exc


def loader(kind: str) -> Callable[..., Any]:
    """The loader of saved models of ``kind`` (`LOADERS`), imported now; ImportError when its
    module (or the extra it needs) is missing, KeyError for a kind without a loader."""
    module_name, _, attr = LOADERS[kind].partition(":")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImportError(f"{module_name} has no loader {attr!r}") from None


def parse_spec(text: str) -> AgentSpec:
    """Parse ``[NAME=]SPEC`` (see the module doc); [`AgentSpecError`][] when malformed."""
    if not isinstance(text, str) or not text.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, got {text!r}")
    text = text.strip()
    label = None
    head, eq, rest = text.partition("=")
    if eq and _LABEL.match(head) and ":" not in head:
        label, text = head, rest.strip()
        if not text:
            raise AgentSpecError(f"agent spec {label}=: nothing after '='")
    spec = _parse_spec(text)
    if label is not None:
        spec = AgentSpec(label, spec.spec, spec.kind, spec.target, spec.options)
    return spec


def _parse_spec(text: str) -> AgentSpec:
    """The spec without a ``NAME=`` label, with its derived label."""
    kind, colon, rest = text.partition(":")
    if kind in MODEL_KINDS:
        if not colon or not rest:
            raise AgentSpecError(f"agent spec {text!r}: {kind}: needs a path, e.g. {kind}:model")
        path, _, query = rest.partition("?")
        options = tuple(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
        allowed = {"ppo": ("encoder", "deterministic"), "rllib": ("module", "encoder")}[kind]
        for key, _ in options:
            if key not in allowed:
                raise AgentSpecError(
                    f"agent spec {text!r}: unknown option {key!r}; {kind} takes "
                    + ", ".join(allowed)
                )
        typed = tuple((k, _value(v)) for k, v in options)
        return AgentSpec(f"{kind}-{_stem(path)}", text, kind, path, typed)
    module, _, attr = text.rpartition(":")
    if module.endswith(".py") or (module and kind not in _builtin_names()):
        if not attr.isidentifier():
            raise AgentSpecError(
                f"agent spec {text!r}: after ':' comes the name of a callable, got {attr!r}"
            )
        return AgentSpec(attr, text, "callable", text)
    if kind not in _builtin_names():
        known = ", ".join(sorted(_builtin_names()))
        raise AgentSpecError(
            f"agent spec {text!r}: not a built-in agent ({known}), ppo:PATH, rllib:CHECKPOINT, "
            "module:callable or file.py:callable"
        )
    options = _settings(text, rest) if colon else ()
    return AgentSpec(_builtin_label(kind, options), text, "builtin", kind, options)


def _settings(text: str, rest: str) -> tuple[tuple[str, Any], ...]:
    """``key=value,key=value`` as typed pairs (numbers, booleans, None, else strings)."""
    pairs = []
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise AgentSpecError(
                f"agent spec {text!r}: settings are key=value pairs separated by commas, "
                f"got {item!r}"
            )
        pairs.append((key, _value(value.strip())))
    return tuple(pairs)


def _value(text: str) -> Any:
    """A setting's value: a Python literal when it reads as one, else the text itself."""
    if text in ("true", "false"):
        return text == "true"
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def _builtin_label(name: str, options: tuple[tuple[str, Any], ...]) -> str:
    """``mcts-1600`` for one numeric setting, ``mcts(a=1,b=2)`` otherwise (a flag too:
    ``mcts-learned(uniform=True)``), plain ``name``."""
    if not options:
        return name
    value = options[0][1]
    if len(options) == 1 and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{name}-{value}"
    return f"{name}(" + ",".join(f"{k}={v}" for k, v in options) + ")"


def _stem(path: str) -> str:
    """A model's readable name: its file or folder name without the extension."""
    name = Path(path.rstrip("/")).name
    return Path(name).stem or name or "model"


def _builtin_names() -> set[str]:
    """Every built-in agent name of any game."""
    return {name for game in GAMES for name in agent_names(game)}


def _load_callable(target: str) -> Callable[..., Any]:
    """Import ``module:callable`` or ``file.py:callable``."""
    module_name, _, attr = target.rpartition(":")
    if module_name.endswith(".py"):
        path = Path(module_name).expanduser().resolve()
        if not path.is_file():
            raise AgentSpecError(f"agent spec {target!r}: no file {str(path)!r}")
        name = f"shell_envs_user_{abs(hash(str(path)))}"
        module = sys.modules.get(name)
        if module is None:
            loader = importlib.util.spec_from_file_location(name, path)
            if loader is None or loader.loader is None:
                raise AgentSpecError(f"agent spec {target!r}: cannot import {str(path)!r}")
            module = importlib.util.module_from_spec(loader)
            sys.modules[name] = module
            try:
                loader.loader.exec_module(module)
            except Exception as exc:
                del sys.modules[name]
                raise AgentSpecError(
                    f"agent spec {target!r}: importing {path.name} failed: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
    else:
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            raise AgentSpecError(
                f"agent spec {target!r}: cannot import module {module_name!r}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
    fn = getattr(module, attr, None)
    if fn is None:
        raise AgentSpecError(f"agent spec {target!r}: {module_name} has no {attr!r}")
    if not callable(fn):
        raise AgentSpecError(f"agent spec {target!r}: {attr!r} is not callable")
    return fn


def _is_factory(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` is an agent factory (takes ``game``) rather than a policy function."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "game" or p.kind is p.VAR_KEYWORD for p in parameters)


def _user_agent(fn: Callable[..., Any], game: str, seed: int | None, label: str) -> Any:
    """The agent a user callable names: the factory's product or the wrapped policy."""
    if not _is_factory(fn):
        return FunctionAgent(fn, label)
    try:
        agent = fn(game=game, seed=seed)
    except Exception as exc:
        raise AgentSpecError(
            f"agent spec {label!r}: the factory raised {type(exc).__name__}: {exc}"
        ) from exc
    if not callable(getattr(agent, "act", None)):
        raise AgentSpecError(
            f"agent spec {label!r}: the factory returned {type(agent).__name__}, which has no "
            "act(observation, action_mask) method"
        )
    return UserAgent(agent, label)


class FunctionAgent:
    """A plain policy function ``f(observation, action_mask) -> int`` as an agent."""

    def __init__(self, fn: Callable[[Any, np.ndarray], Any], name: str) -> None:
        self.fn = fn
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """A function keeps no state: nothing to reset."""

    def act(self, observation: Any, action_mask: np.ndarray) -> Any:
        """The function's action (checked by whoever runs the game)."""
        return self.fn(observation, action_mask)


class UserAgent:
    """A factory-made agent, with ``reset`` optional and a name supplied."""

    def __init__(self, agent: Any, name: str) -> None:
        self.agent = agent
        self.name = str(getattr(agent, "name", None) or name)
        self._reset = getattr(agent, "reset", None)

    def reset(self, seed: int | None = None) -> None:
        """The agent's own ``reset`` when it has one."""
        if callable(self._reset):
            self._reset(seed)

    def act(self, observation: Any, action_mask: np.ndarray) -> Any:
        """The agent's action (checked by whoever runs the game)."""
        return self.agent.act(observation, action_mask)

    @property
    def resettable(self) -> bool:
        """Whether the agent can be reseeded (else the bench builds it afresh per game)."""
        return callable(self._reset)


def make_agent(game: str, spec: str | AgentSpec, seed: int | None = None, **kwargs: Any) -> Any:
    """Build the agent ``spec`` names for ``game`` and seed it (see the module doc).

    A built-in name takes its settings as keyword arguments too:
    ``make_agent("what_the_shell", "mcts", iterations=1600)`` is
    ``make_agent("what_the_shell", "mcts:iterations=1600")``.
    """
    if isinstance(spec, str) and spec.isidentifier():  # a plain name: the registry's errors
        return make_builtin(game, spec, seed=seed, **kwargs)
    parsed = spec if isinstance(spec, AgentSpec) else parse_spec(spec)
    if kwargs:
        if parsed.kind != "builtin":
            raise AgentSpecError(
                f"agent spec {parsed.spec!r}: keyword settings are for built-in agents only"
            )
        parsed = AgentSpec(
            parsed.label,
            parsed.spec,
            parsed.kind,
            parsed.target,
            (*parsed.options, *kwargs.items()),
        )
    return parsed.make(game, seed)


def object_spec(agent: Any, name: str | None = None) -> AgentSpec:
    """A spec for an agent object or a policy function of this process (not picklable text).

    The object is used as it is for every game; a function ``f(observation, action_mask)``
    is wrapped as a `FunctionAgent`.
    """
    if callable(getattr(agent, "act", None)):
        label = name or str(getattr(agent, "name", None) or type(agent).__name__)
        wrapped: Any = UserAgent(agent, label)
    elif callable(agent):
        label = name or str(getattr(agent, "__name__", "policy"))
        wrapped = FunctionAgent(agent, label)
    else:
        raise AgentSpecError(
            f"an agent must have act(observation, action_mask) or be a policy function; "
            f"got {type(agent).__name__}"
        )
    key = f"object:{id(agent)}"
    _OBJECTS[key] = wrapped
    return AgentSpec(label, key, "object", key)
