"""Play one bench game of either game and keep its full record.

Every game returns a record (plain JSON data: the seeds, every action, the result, the final
position, any illegal action with the position it was played in, any error an agent raised)
and the agents' decision times.  Agent code is untrusted: an action that is not a legal index
loses the game (What the Shell) or ends the deal (Scorpion); an exception is caught and
recorded, and the agent that raised loses, unless ``fail_fast`` asks to stop at once
(`AgentError`).  Agents are built once per process and spec and reseeded for each
game, so a game's record depends only on its seeds, not on the worker that played it.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym
import numpy as np

from shell_envs.agents.scorpion import ScorpionView
from shell_envs.agents.spec import AgentSpec, UserAgent
from shell_envs.agents.what_the_shell import WhatTheShellView
from shell_envs.registry import game
from shell_envs.scorpion import rules as scorpion_rules
from shell_envs.scorpion import search
from shell_envs.what_the_shell import rules as wts_rules

if TYPE_CHECKING:
    from shell_envs.scorpion.env import ScorpionEnv

WTS = game("what_the_shell").name  # the games' names, as the registry spells them
SCORPION = game("scorpion").name
_AGENTS: dict[tuple[str, str, str], Any] = {}
_RAISED = object()  # what `_ask` answers for an agent that raised


class AgentError(RuntimeError):
    """An agent raised and the bench runs with ``fail_fast``: says which agent, game and why."""


def agent_for(game: str, spec: AgentSpec, seed: int) -> Any:
    """``spec``'s agent for ``game``, built once per process (the games reseed it).

    A user agent without ``reset`` cannot be reseeded, so it is built afresh for every game.
    """
    key = (game, spec.label, spec.spec)
    agent = _AGENTS.get(key)
    if agent is None or (isinstance(agent, UserAgent) and not agent.resettable):
        agent = spec.make(game, seed)
        _AGENTS[key] = agent
    return agent


def as_action(value: Any, n_actions: int) -> int | None:
    """``value`` as an action index in ``[0, n_actions)``, or None when it is not one."""
    try:
        array = np.asarray(value)
        if array.size != 1 or not np.issubdtype(array.dtype, np.integer):
            return None
        action = int(array.reshape(()))
    except (TypeError, ValueError, OverflowError):
        return None
    return action if 0 <= action < n_actions else None


def _decide(agent: Any, observation: Any, mask: np.ndarray, view: Any) -> Any:
    """The agent's raw answer, through ``act_with_state`` when it has one."""
    act_with_state = getattr(agent, "act_with_state", None)
    if callable(act_with_state):
        return act_with_state(view, mask.copy())
    return agent.act(observation, mask.copy())


def _timed_decision(
    agent: Any, observation: Any, mask: np.ndarray, view: Any, clock: list[float]
) -> Any:
    """Call the agent, adding its seconds and one move to ``clock``."""
    start = time.perf_counter()
    try:
        return _decide(agent, observation, mask, view)
    finally:
        clock[0] += time.perf_counter() - start
        clock[1] += 1


@dataclass
class _Player:
    """One agent in one game: the object, its label, its seat (two-player games only) and its
    clock, ``[seconds, moves]`` of its decisions."""

    agent: Any
    label: str
    seat: str | None = None
    clock: list[float] = field(default_factory=lambda: [0.0, 0])


def _player(game: str, agent: Any, seed: int, seat: str | None = None) -> _Player:
    """A spec's agent (built once a process) or the agent object, with its label."""
    if isinstance(agent, AgentSpec):
        return _Player(agent_for(game, agent, seed), agent.label, seat)
    return _Player(agent, str(getattr(agent, "name", None) or type(agent).__name__), seat)


_STEP = {WTS: "round", SCORPION: "move"}  # what a game's records count their actions in


def _new_record(game: str, index: int, **fields: Any) -> dict[str, Any]:
    """A game's record before its first action: the game, its index, ``fields`` (the seeds and
    the players), then the actions, illegal actions and errors to come."""
    return {"game": game, "index": index, **fields, "actions": [], "illegal": [], "errors": []}


def _where(record: dict[str, Any]) -> str:
    """The game as an `AgentError` names it."""
    if record["game"] == WTS:
        return f"in What the Shell game {record['index']} (seed {record['seed']})"
    return f"on Scorpion deal {record['deal']} ({record['rules']})"


def _error(exc: BaseException, player: _Player, game: str, step: str) -> dict[str, str]:
    """An exception as record data: the agent (and its seat in a two-player game), the game,
    the error and its last frame."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    case = {
        "agent": player.label,
        "where": step,
        "error": f"{type(exc).__name__}: {exc}",
        "at": last,
        "game": game,
    }
    if player.seat is not None:
        case["seat"] = player.seat
    return case


def _ask(
    player: _Player,
    observation: Any,
    mask: np.ndarray,
    view: Any,
    record: dict[str, Any],
    fail_fast: bool,
) -> Any:
    """The player's answer, timed on its clock; `_RAISED` when the agent raised, recorded in
    ``record`` (or, with ``fail_fast``, the bench stops: `AgentError`)."""
    try:
        return _timed_decision(player.agent, observation, mask, view, player.clock)
    except Exception as exc:
        if fail_fast:
            raise AgentError(
                f"agent {player.label!r} raised {_where(record)}: {type(exc).__name__}: {exc}"
            ) from None
        game = record["game"]
        step = f"{_STEP[game]} {len(record['actions'])}"
        record["errors"].append(_error(exc, player, game, step))
        return _RAISED


def _record_illegal(
    record: dict[str, Any],
    player: _Player,
    value: Any,
    reason: str,
    position: dict[str, Any],
) -> None:
    """Record the agent's illegal answer ``value``, why it is illegal and the position it was
    played in."""
    case: dict[str, Any] = {"agent": player.label}
    if player.seat is not None:
        case["seat"] = player.seat
    case[_STEP[record["game"]]] = len(record["actions"])
    case.update(action=repr(value), reason=reason, position=position)
    record["illegal"].append(case)


def _finish(record: dict[str, Any], env: Any, **result: Any) -> dict[str, Any]:
    """The record completed with the game's ``result``; the env is closed."""
    record.update(result)
    env.close()
    return record


def play_what_the_shell(
    black: AgentSpec | Any,
    white: AgentSpec | Any,
    seed: int,
    max_rounds: int,
    fail_fast: bool = False,
    index: int = 0,
    position: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """One game, ``black`` against ``white`` (agent specs or agent objects); returns the record
    and ``{seat: [seconds, moves]}``.

    The game starts from the empty board, or from ``position`` (as ``env.position()`` gives
    it, recorded as ``"start"``): an opening, since the rules have no randomness and two
    searches that break few ties would otherwise replay a handful of games.  The env is reset
    with ``seed``; black's agent is seeded with ``seed`` and white's with ``seed + 1``.  The
    result is the sign of black's reward minus white's (both players playing illegally is a
    draw); a move cap reached is a draw.
    """
    from shell_envs import what_the_shell_v0

    env = what_the_shell_v0.parallel_env(max_rounds=max_rounds)
    options = None if position is None else {"position": position}
    observations, _ = env.reset(seed=seed, options=options)
    players = {"black": _player(WTS, black, seed, "black"),
               "white": _player(WTS, white, seed + 1, "white")}  # fmt: skip
    players["black"].agent.reset(seed)
    players["white"].agent.reset(seed + 1)
    record = _new_record(
        WTS,
        index,
        seed=seed,
        black=players["black"].label,
        white=players["white"].label,
        agent_seeds={"black": seed, "white": seed + 1},
        max_rounds=max_rounds,
    )
    if position is not None:
        record["start"] = position
    loser = None
    rewards = {"black": 0.0, "white": 0.0}
    truncated = {"black": False}
    while env.agents:
        chosen: dict[str, int] = {}
        for seat in env.agents:
            player = players[seat]
            mask = np.asarray(observations[seat]["action_mask"])
            view = WhatTheShellView.from_env(env, seat)
            value = _ask(player, observations[seat]["observation"], mask, view, record, fail_fast)
            if value is _RAISED:
                loser = seat
                break
            action = as_action(value, wts_rules.CELLS)
            if action is None or not mask[action]:
                reason = (
                    env.explain(action) or "not legal now"
                    if action is not None
                    else f"returned {value!r}, not a cell index 0-80"
                )
                _record_illegal(record, player, value, reason, env.position())
            chosen[seat] = -1 if action is None else action
        if loser is not None:
            break
        observations, rewards, _, truncated, _ = env.step(chosen)
        record["actions"].append([chosen["black"], chosen["white"]])
    outcome, end = _what_the_shell_result(loser, rewards, truncated, bool(record["illegal"]))
    record = _finish(
        record,
        env,
        result={1: "black", 0: "draw", -1: "white"}[outcome],
        outcome=outcome,
        end=end,
        rounds=int(env.meta[wts_rules.ROUNDS]),
        final=env.position(),
    )
    return record, {seat: player.clock for seat, player in players.items()}


def _what_the_shell_result(
    loser: str | None, rewards: dict[str, float], truncated: dict[str, bool], illegal: bool
) -> tuple[int, str]:
    """Black's outcome (1, 0 or -1) and how the game ended: the seat that raised loses; else
    the sign of black's reward minus white's decides."""
    if loser is not None:
        return (-1 if loser == "black" else 1), "error"
    outcome = int(np.sign(rewards["black"] - rewards["white"]))
    if illegal:
        return outcome, "illegal"
    if truncated.get("black", False):
        return outcome, "move cap"
    return outcome, "draw" if outcome == 0 else "win"


def play_scorpion(
    agent: AgentSpec | Any,
    deal: int,
    rules: str,
    agent_seed: int,
    max_moves: int,
    stall_moves: int,
    fail_fast: bool = False,
    index: int = 0,
) -> tuple[dict[str, Any], list[float]]:
    """Deal number ``deal`` played by an agent spec's agent or an agent object, seeded with
    ``agent_seed``; returns the record and ``[seconds, moves]``.

    The game ends as `shell_envs.bench.patience` describes; an illegal action or an
    exception ends it too (``end`` is ``"illegal"`` or ``"error"``).
    """
    player = _player(SCORPION, agent, agent_seed)
    player.agent.reset(agent_seed)
    env = gym.make(
        "shell_envs/Scorpion-v0",
        rules=rules,
        max_moves=max_moves,
        obs_encoder=getattr(player.agent, "obs_encoder", "tableau"),
        mask_in_obs=getattr(player.agent, "mask_in_obs", False),
    )
    scorpion = cast("ScorpionEnv", env.unwrapped)
    observation, info = env.reset(seed=deal)
    record = _new_record(
        SCORPION,
        index,
        rules=rules,
        deal=deal,
        agent=player.label,
        agent_seed=agent_seed,
        max_moves=max_moves,
    )
    scratch = np.empty(scorpion_rules.N_ACTIONS, np.int64)
    progress: tuple[int, bool, int] = (-1, False, -1)
    quiet = 0
    end = "move cap"
    while True:
        state = scorpion.get_state()
        view = ScorpionView.from_state(state, check=False)
        mask = np.asarray(info["action_mask"])
        value = _ask(player, observation, mask, view, record, fail_fast)
        if value is _RAISED:
            end = "error"
            break
        action = as_action(value, mask.size)
        if action is None or not mask[action]:
            reason = (
                f"returned {value!r}, not an action index 0-{mask.size - 1}"
                if action is None
                else scorpion.explain(action) or "not legal now"
            )
            _record_illegal(record, player, value, reason, state.position())
            end = "illegal"
            break
        observation, _, terminated, truncated, info = env.step(action)
        record["actions"].append(action)
        if info["won"]:
            end = "won"
            break
        if terminated:
            end = "no move"
            break
        if truncated:
            break
        state = scorpion.get_state()
        if search.is_dead(state.arrays, scratch):
            end = "dead"
            break
        # completed sequences: removed, or (traditional) complete runs standing
        now = (int(state.fd.sum()), state.reserve_dealt, state.removed + state.runs)
        quiet = quiet + 1 if now == progress else 0
        progress = now
        if quiet >= stall_moves:
            end = "stalled"
            break
    record = _finish(
        record,
        env,
        won=bool(info["won"]),
        score=int(info["score"]),
        moves=int(info["moves"]),
        end=end,
        final=scorpion.get_state().position(),
    )
    return record, player.clock
