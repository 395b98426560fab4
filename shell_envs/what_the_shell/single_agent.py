"""Deprecated home of the single-agent env, `WhatTheShellSingleEnv`: read it from its new one.

The single-agent env builds its opponent from the agents, so it moved up a layer, to
`shell_envs.agents.single_agent`.  Names read here are forwarded there with a
``DeprecationWarning``; the rules package itself imports nothing from the agents (the new
module is loaded by name, only when a name is read).
"""

from __future__ import annotations

from shell_envs.core.deprecation import alias_module

# tests/test_layers.py allows this one import, lazy: made only when a name is read
__getattr__ = alias_module(__name__, "shell_envs.agents.single_agent", "0.4.0")
