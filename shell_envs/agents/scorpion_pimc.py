"""Deprecated home of the ``pimc`` Scorpion agent: read it from `shell_envs.agents.scorpion.search`.

Scorpion's agents became a package laid out as What the Shell's; ``pimc`` and its helpers live
in its search module beside ``lookahead``.  Names read here are forwarded there with a
``DeprecationWarning``; the package itself never imports this module.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NEW_HOME = "shell_envs.agents.scorpion.search"


def __getattr__(name: str) -> Any:
    """The public ``name`` from `shell_envs.agents.scorpion.search`, with a
    ``DeprecationWarning``."""
    module = importlib.import_module(_NEW_HOME)
    if name.startswith("_") or not hasattr(module, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"shell_envs.agents.scorpion_pimc is deprecated and is removed in 0.5.0; "
        f"import {name} from {_NEW_HOME}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(module, name)
