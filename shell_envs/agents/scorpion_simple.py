"""Deprecated home of the simple Scorpion agents: read them from `shell_envs.agents.scorpion`.

Scorpion's agents became a package laid out as What the Shell's: ``random`` and ``greedy`` now
live in `shell_envs.agents.scorpion.simple`, ``lookahead`` and its constants in
`shell_envs.agents.scorpion.search`, the rule sets' names in `shell_envs.scorpion.rules`.  Names
read here are forwarded to their new home with a ``DeprecationWarning``; the package itself never
imports this module.
"""

from __future__ import annotations

from shell_envs.core.deprecation import alias_module

# the names that went elsewhere than the simple agents' module: their new module and name
__getattr__ = alias_module(
    __name__,
    "shell_envs.agents.scorpion.simple",
    "0.5.0",
    moved={
        **{
            name: ("shell_envs.agents.scorpion.search", name)
            for name in (
                "CLASSIC_SAMPLES", "LookaheadAgent", "MAX_SEARCH", "RELAXED_SAMPLES", "TIE_BREAK"
            )
        },
        "RULES": ("shell_envs.scorpion.rules", "RULE_SETS"),
    },
)  # fmt: skip
