"""Agents for both games behind one policy protocol (see `shell_envs.agents.base`).

Build one from any agent spec (`shell_envs.agents.spec`): a built-in name with
settings, a user callable, or a trained model, e.g.
``make_agent("what_the_shell", "mcts:iterations=1600", seed=0)``.
"""

from __future__ import annotations

from shell_envs.agents.base import (
    Agent,
    PolicyAgent,
    StateAgent,
    agent_names,
    choose_action,
    make_builtin,
    register_agent,
)
from shell_envs.agents.spec import AgentSpec, AgentSpecError, make_agent, parse_spec
from shell_envs.agents.what_the_shell import (
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    WhatTheShellView,
)

__all__ = [
    "Agent",
    "AgentSpec",
    "AgentSpecError",
    "GreedyAgent",
    "MCTSAgent",
    "PolicyAgent",
    "RandomAgent",
    "StateAgent",
    "WhatTheShellView",
    "agent_names",
    "choose_action",
    "make_agent",
    "make_builtin",
    "parse_spec",
    "register_agent",
]
