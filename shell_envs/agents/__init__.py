"""Agents for both games behind one policy protocol (see :mod:`shell_envs.agents.base`).

Build one by name: ``make_agent("what_the_shell", "mcts", seed=0)``.
"""

from __future__ import annotations

from shell_envs.agents.base import (
    Agent,
    PolicyAgent,
    StateAgent,
    agent_names,
    choose_action,
    make_agent,
    register_agent,
)
from shell_envs.agents.what_the_shell import (
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    WhatTheShellView,
)

__all__ = [
    "Agent",
    "GreedyAgent",
    "MCTSAgent",
    "PolicyAgent",
    "RandomAgent",
    "StateAgent",
    "WhatTheShellView",
    "agent_names",
    "choose_action",
    "make_agent",
    "register_agent",
]
