"""Deprecated alias of [`shell_envs.bench.evaluation`][]: evaluating agents is bench code.

Every name forwards there with a ``DeprecationWarning``; ``play_scorpion`` is now
[`evaluate_scorpion`][shell_envs.bench.evaluation.evaluate_scorpion] (it shared its name, not
its signature, with `shell_envs.bench.games.play_scorpion`).
"""

from __future__ import annotations

from shell_envs.core.deprecation import MOVED, alias_module

__getattr__ = alias_module(
    __name__,
    "shell_envs.bench.evaluation",
    "0.4.0",
    MOVED,
    moved={"play_scorpion": ("shell_envs.bench.evaluation", "evaluate_scorpion")},
)
