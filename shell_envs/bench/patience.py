"""Scorpion benchmark: every agent plays the same fixed, numbered deals, Classic and Relaxed.

A game ends when it is won, when no legal action is left, when only pointless king shuffles
are left (:func:`shell_envs.scorpion.search.is_dead`: no progress is possible any more),
after :data:`STALL_MOVES` moves that neither turn a card, deal the reserve nor remove a
sequence (the agent is wandering), or at :data:`MAX_MOVES` moves.  Agents decide from a
:class:`~shell_envs.agents.scorpion.ScorpionView`, never from the hidden cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

import shell_envs  # noqa: F401  (registers the environments)
from shell_envs.agents import choose_action
from shell_envs.agents.base import Agent
from shell_envs.agents.scorpion import ScorpionView
from shell_envs.bench.tournament import AgentSpec, wilson_interval
from shell_envs.scorpion import rules as engine
from shell_envs.scorpion import search
from shell_envs.scorpion.solver import WON
from shell_envs.scorpion.winnable import deal_verdicts

GAME = "scorpion"
RULES = ("classic", "relaxed")
MAX_MOVES = 500
STALL_MOVES = 100
ENDS = ("won", "no move", "dead", "stalled", "move cap")


@dataclass(frozen=True)
class DealResult:
    """One game: which agent, rule and deal; won, final score, moves and why it ended."""

    agent: int
    rules: str
    deal: int
    won: bool
    score: int
    moves: int
    end: str


def deal_numbers(n: int, seed: int = 0) -> list[int]:
    """The fixed deal numbers of a benchmark: ``seed * 1_000_000 + 0 … n-1``."""
    return [seed * 1_000_000 + i for i in range(n)]


def play_deal(
    agent: Agent,
    deal: int,
    rules: str,
    max_moves: int = MAX_MOVES,
    stall_moves: int = STALL_MOVES,
) -> tuple[bool, int, int, str]:
    """Play deal number ``deal``; returns ``(won, score, moves, end)`` (see the module doc)."""
    env = gym.make("shell_envs/Scorpion-v0", rules=rules, max_moves=max_moves)
    observation, info = env.reset(seed=deal)
    agent.reset(deal)
    scratch = np.empty(engine.N_ACTIONS, np.int64)
    progress: tuple[int, bool, int] = (-1, False, -1)
    quiet = 0
    end = "move cap"
    while True:
        state = env.unwrapped.get_state()
        view = ScorpionView.from_state(state)
        action = choose_action(agent, observation, info["action_mask"], view)
        observation, _, terminated, truncated, info = env.step(action)
        if info["won"]:
            end = "won"
            break
        if terminated:
            end = "no move"
            break
        if truncated:
            break
        state = env.unwrapped.get_state()
        if search.is_dead(state.tab, state.lens, state.fd, state.reserve, state.meta, scratch):
            end = "dead"
            break
        now = (int(state.fd.sum()), state.reserve_dealt, state.removed)
        quiet = quiet + 1 if now == progress else 0
        progress = now
        if quiet >= stall_moves:
            end = "stalled"
            break
    env.close()
    return bool(info["won"]), int(info["score"]), int(info["moves"]), end


def play_deals(
    specs: Sequence[AgentSpec],
    tasks: Sequence[tuple[int, str, int]],
    max_moves: int = MAX_MOVES,
    stall_moves: int = STALL_MOVES,
) -> list[DealResult]:
    """Play ``(agent index, rules, deal)`` tasks (a worker's share), building each agent once."""
    agents: dict[int, Agent] = {}
    out = []
    for index, rules, deal in tasks:
        if index not in agents:
            agents[index] = specs[index].make(GAME)
        won, score, moves, end = play_deal(agents[index], deal, rules, max_moves, stall_moves)
        out.append(DealResult(index, rules, deal, won, score, moves, end))
    return out


def summarize(
    labels: Sequence[str], results: Sequence[DealResult], confidence: float = 0.95
) -> dict[str, Any]:
    """Per rule and agent: deals, wins, win rate with its Wilson interval, mean score and moves,
    and the winnable deals (from the shipped solver verdicts) won; per rule the ceiling, the
    share of the deals played that the solver proved winnable."""
    out: dict[str, Any] = {
        "agents": list(labels),
        "confidence": confidence,
        "rules": {},
        "ceiling": {},
    }
    for rules in RULES:
        verdicts = deal_verdicts(rules)
        rows = []
        for index, label in enumerate(labels):
            games = [r for r in results if r.agent == index and r.rules == rules]
            if not games:
                continue
            winnable = [r for r in games if r.deal in verdicts and verdicts[r.deal].verdict == WON]
            wins = sum(r.won for r in games)
            scores = np.array([r.score for r in games], float)
            rows.append(
                {
                    "agent": label,
                    "deals": len(games),
                    "wins": wins,
                    "win_rate": wins / len(games),
                    "win_ci": wilson_interval(wins, len(games), confidence),
                    "mean_score": float(scores.mean()),
                    "sd_score": float(scores.std(ddof=1)) if len(games) > 1 else 0.0,
                    "mean_moves": float(np.mean([r.moves for r in games])),
                    "ends": dict(Counter(r.end for r in games)),
                    "known_deals": sum(r.deal in verdicts for r in games),
                    "winnable_deals": len(winnable),
                    "winnable_won": sum(r.won for r in winnable),
                }
            )
        if rows:
            out["rules"][rules] = rows
            deals = {r.deal for r in results if r.rules == rules}
            known = [d for d in deals if d in verdicts]
            won = sum(verdicts[d].verdict == WON for d in known)
            out["ceiling"][rules] = {
                "known_deals": len(known),
                "winnable_deals": won,
                "winnable_share": won / len(known) if known else 0.0,
            }
    return out
