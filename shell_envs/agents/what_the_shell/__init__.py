"""Built-in What the Shell agents: ``random``, ``greedy``, ``mcts``, ``learned``, ``mcts-learned``.

All follow [`Agent`][].  ``greedy`` and ``mcts`` read the
whole position through `act_with_state` with a [`WhatTheShellView`][]; their ``act``
decodes the position from a ``"planes"`` or ``"flat"`` observation instead (the round count is
not in the observation, and nothing else is lost).  The heuristics and the searches are compiled
and run on the rules engine (`shell_envs.what_the_shell.search`).

This package registers the agents and is their public surface; each family lives in its own
module, laid out as Scorpion's agents are: what they share in
`shell_envs.agents.what_the_shell.common`, ``random`` and ``greedy`` in
`shell_envs.agents.what_the_shell.simple`, ``mcts`` and ``mcts-learned`` in
`shell_envs.agents.what_the_shell.search`, ``learned`` in
`shell_envs.agents.what_the_shell.learned`.
"""

from __future__ import annotations

from shell_envs.agents.base import register_agents
from shell_envs.agents.what_the_shell.learned import LearnedAgent
from shell_envs.agents.what_the_shell.search import (
    GUIDED_SELECTIONS,
    MAX_NODES,
    SELECTIONS,
    SOURCES,
    GuidedMCTSAgent,
    MCTSAgent,
)
from shell_envs.agents.what_the_shell.simple import GreedyAgent, RandomAgent
from shell_envs.what_the_shell.view import WhatTheShellView

__all__ = [
    "GAME",
    "GUIDED_SELECTIONS",
    "MAX_NODES",
    "SELECTIONS",
    "SOURCES",
    "GreedyAgent",
    "GuidedMCTSAgent",
    "LearnedAgent",
    "MCTSAgent",
    "RandomAgent",
    "WhatTheShellView",
]

GAME = "what_the_shell"

# each built-in agent registers under its class's ``name``, in this order
register_agents(GAME, (RandomAgent, GreedyAgent, MCTSAgent, LearnedAgent, GuidedMCTSAgent))
