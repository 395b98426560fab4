"""Deprecated home of the ``pimc`` Scorpion agent: read it from `shell_envs.agents.scorpion.search`.

Scorpion's agents became a package laid out as What the Shell's; ``pimc`` and its helpers live
in its search module beside ``lookahead``.  Names read here are forwarded there with a
``DeprecationWarning``; the package itself never imports this module.
"""

from __future__ import annotations

from shell_envs.core.deprecation import alias_module

__getattr__ = alias_module(__name__, "shell_envs.agents.scorpion.search", "0.5.0")
