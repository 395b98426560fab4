"""Deprecated home of the simple Scorpion agents: read them from `shell_envs.agents.scorpion`.

Scorpion's agents became a package laid out as What the Shell's: ``random`` and ``greedy`` now
live in `shell_envs.agents.scorpion.simple`, ``lookahead`` and its constants in
`shell_envs.agents.scorpion.search`, the rule sets' names in `shell_envs.scorpion.rules`.  Names
read here are forwarded to their new home with a ``DeprecationWarning``; the package itself never
imports this module.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NEW_HOME = "shell_envs.agents.scorpion.simple"
_SEARCH = "shell_envs.agents.scorpion.search"
# the names that went elsewhere: their new module and name
_MOVED = {
    "CLASSIC_SAMPLES": (_SEARCH, "CLASSIC_SAMPLES"),
    "LookaheadAgent": (_SEARCH, "LookaheadAgent"),
    "MAX_SEARCH": (_SEARCH, "MAX_SEARCH"),
    "RELAXED_SAMPLES": (_SEARCH, "RELAXED_SAMPLES"),
    "RULES": ("shell_envs.scorpion.rules", "RULE_SETS"),
    "TIE_BREAK": (_SEARCH, "TIE_BREAK"),
}


def __getattr__(name: str) -> Any:
    """The public ``name`` from its new home, with a ``DeprecationWarning``."""
    home, new = _MOVED.get(name, (_NEW_HOME, name))
    module = importlib.import_module(home)
    if name.startswith("_") or not hasattr(module, new):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"shell_envs.agents.scorpion_simple is deprecated and is removed in 0.5.0; "
        f"import {new} from {home}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(module, new)
