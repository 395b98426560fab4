"""Scorpion benchmark: every agent plays the same fixed, numbered deals under each rule set.

A game ends when it is won, when no legal action is left, when only pointless king shuffles
are left (`shell_envs.scorpion.search.is_dead`: no progress is possible any more),
after `STALL_MOVES` moves that neither turn a card, deal the reserve nor remove a
sequence (the agent is wandering), at `MAX_MOVES` moves, or when the agent plays an
illegal action or raises.  Deals come from two fixed sets (`DEAL_SETS`).  Agents decide from a
`ScorpionView`, never from the hidden cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from shell_envs.agents.base import Agent
from shell_envs.bench.games import play_scorpion
from shell_envs.bench.scale import problems
from shell_envs.bench.tournament import wilson_interval
from shell_envs.core.deprecation import RENAMED, moved_names
from shell_envs.registry import game
from shell_envs.scorpion.rules import RULE_SETS
from shell_envs.scorpion.solver import WON
from shell_envs.scorpion.winnable import deal_verdicts

GAME = game("scorpion").name
DEFAULT_RULES = ("classic", "relaxed")  # the ones it plays unless asked ("both")
MAX_MOVES = 500
STALL_MOVES = 100
ENDS = ("won", "no move", "dead", "stalled", "move cap", "illegal", "error")


DEAL_SETS = {"dev": (0, 5_000), "test": (5_000, 10_000)}


def deal_numbers(n: int, deal_set: str = "test") -> list[int]:
    """The first ``n`` deal numbers of a fixed deal set (``dev``: 0–4999, ``test``: 5000–9999).

    Both sets have a shipped solver verdict for every deal; ``test`` is the one to report,
    ``dev`` the one to tune on.
    """
    if deal_set not in DEAL_SETS:
        raise ValueError(f"deal set must be one of {', '.join(DEAL_SETS)}, got {deal_set!r}")
    first, end = DEAL_SETS[deal_set]
    if not 1 <= n <= end - first:
        raise ValueError(f"the {deal_set} set has {end - first} deals; asked for {n}")
    return list(range(first, first + n))


def play_deal(
    agent: Agent,
    deal: int,
    rules: str,
    max_moves: int = MAX_MOVES,
    stall_moves: int = STALL_MOVES,
) -> tuple[bool, int, int, str]:
    """Play deal number ``deal`` as the bench does (agent seeded with ``deal``).

    Returns ``(won, score, moves, end)``; ``end`` is one of `ENDS`.  An agent that
    raises stops the game with `AgentError`.
    """
    record, _ = play_scorpion(agent, deal, rules, deal, max_moves, stall_moves, True)
    return record["won"], record["score"], record["moves"], record["end"]


def summarize(
    records: list[dict[str, Any]],
    labels: Sequence[str],
    move_seconds: dict[tuple[str, str], float],
    deal_set: str,
    confidence: float = 0.95,
    examples: int = 5,
) -> dict[str, Any]:
    """The Scorpion section of the results, per rule set: the deals, the thoughtful ceiling of
    those deals (the share the solver proved winnable) and, per agent, win rate with its
    Wilson interval, winnable deals won, mean score and moves, seconds per move, how games
    ended; then illegal actions and errors (counts and first cases)."""
    out: dict[str, Any] = {"set": deal_set, "confidence": confidence}
    for rules in RULE_SETS:
        games = [r for r in records if r["rules"] == rules]
        if not games:
            continue
        verdicts = deal_verdicts(rules)
        deals = sorted({r["deal"] for r in games})
        known = [d for d in deals if d in verdicts]
        winnable = {d for d in known if verdicts[d].verdict == WON}
        agents: dict[str, Any] = {}
        for label in labels:
            mine = [r for r in games if r["agent"] == label]
            if not mine:
                continue
            wins = sum(r["won"] for r in mine)
            scores = np.array([r["score"] for r in mine], float)
            won_winnable = sum(r["won"] for r in mine if r["deal"] in winnable)
            played_winnable = sum(r["deal"] in winnable for r in mine)
            agents[label] = {
                "deals": len(mine),
                "wins": wins,
                "win_rate": wins / len(mine),
                "ci": list(wilson_interval(wins, len(mine), confidence)),
                "winnable_deals": played_winnable,
                "winnable_won": won_winnable,
                "winnable_share": won_winnable / played_winnable if played_winnable else 0.0,
                "mean_score": float(scores.mean()),
                "sd_score": float(scores.std(ddof=1)) if len(mine) > 1 else 0.0,
                "mean_moves": float(np.mean([r["moves"] for r in mine])),
                "move_seconds": float(move_seconds.get((rules, label), 0.0)),
                "ends": dict(Counter(r["end"] for r in mine)),
            }
        out[rules] = {
            "deals": len(deals),
            "first_deal": deals[0],
            "last_deal": deals[-1],
            "ceiling": {
                "known_deals": len(known),
                "winnable_deals": len(winnable),
                "winnable_share": len(winnable) / len(known) if known else 0.0,
            },
            "agents": agents,
            **problems(games, examples),
        }
    return out


# RULES, the old name of RULE_SETS, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__, "0.5.0", {"RULES": ("shell_envs.scorpion.rules", "RULE_SETS")}, RENAMED
)
