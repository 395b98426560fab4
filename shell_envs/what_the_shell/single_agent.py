"""Deprecated home of the single-agent env, `WhatTheShellSingleEnv`: read it from its new one.

The single-agent env builds its opponent from the agents, so it moved up a layer, to
`shell_envs.agents.single_agent`.  Names read here are forwarded there with a
``DeprecationWarning``; the rules package itself imports nothing from the agents (the new
module is loaded by name, only when a name is read).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NEW_HOME = "shell_envs.agents.single_agent"  # tests/test_layers.py allows this one import


def __getattr__(name: str) -> Any:
    """``name`` from `shell_envs.agents.single_agent`, with a ``DeprecationWarning``."""
    if name.startswith("__"):
        raise AttributeError(name)
    warnings.warn(
        f"shell_envs.what_the_shell.single_agent is deprecated and is removed in 0.4.0; "
        f"import {name} from {_NEW_HOME}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module("shell_envs.agents.single_agent"), name)
