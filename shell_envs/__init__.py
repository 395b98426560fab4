"""shell-envs: What the Shell (PettingZoo) and Scorpion (Gymnasium) game environments.

Importing the package registers the Gymnasium environments, so ``gym.make`` finds them::

    import gymnasium as gym
    import shell_envs

    env = gym.make("shell_envs/Scorpion-v0")
"""

from __future__ import annotations

from typing import Any

from gymnasium.envs.registration import register
from gymnasium.envs.registration import registry as _gym_registry

from shell_envs._version import __version__


def scorpion_vector_env(num_envs: int, device: Any = "cpu", **kwargs: Any) -> Any:
    """Scorpion's vector entry point: ``num_envs`` deals batched on ``device`` (``"cpu"``: the
    compiled parallel loop; ``"cuda"``, ``"cuda:N"`` or a ``torch.device``: one GPU thread per
    deal, needs the ``cuda`` extra)."""
    from shell_envs.core import validation

    if validation.device("device", device)[0] == "cuda":
        from shell_envs.scorpion.gpu import ScorpionGpuVectorEnv

        return ScorpionGpuVectorEnv(num_envs, device=device, **kwargs)
    from shell_envs.scorpion.vector import ScorpionVectorEnv

    return ScorpionVectorEnv(num_envs, **kwargs)


def _register() -> None:
    """Register every Gymnasium environment id of the package (idempotent)."""
    if "shell_envs/Scorpion-v0" not in _gym_registry:
        register(
            id="shell_envs/Scorpion-v0",
            entry_point="shell_envs.scorpion.env:ScorpionEnv",
            vector_entry_point="shell_envs:scorpion_vector_env",
        )
    if "shell_envs/WhatTheShell-v0" not in _gym_registry:
        register(
            id="shell_envs/WhatTheShell-v0",
            entry_point="shell_envs.agents.single_agent:WhatTheShellSingleEnv",
        )


_register()

__all__ = ["__version__", "scorpion_vector_env"]
