"""Deprecated alias of [`shell_envs.bench.evaluation`][]: evaluating agents is bench code.

Every name forwards there with a ``DeprecationWarning``; ``play_scorpion`` is now
[`evaluate_scorpion`][shell_envs.bench.evaluation.evaluate_scorpion] (it shared its name, not
its signature, with `shell_envs.bench.games.play_scorpion`).
"""

from __future__ import annotations

import warnings
from typing import Any

RENAMED = {"play_scorpion": "evaluate_scorpion"}  # old name here -> name in the new home


def __getattr__(name: str) -> Any:
    """The name from its new home, with a warning that says where it went."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from shell_envs.bench import evaluation

    new_name = RENAMED.get(name, name)
    try:
        value = getattr(evaluation, new_name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    warnings.warn(
        f"{__name__}.{name} moved to {evaluation.__name__}.{new_name}; import it from there "
        "(the old name is removed in 0.4.0)",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
