"""The CPU and GPU batched Scorpion envs share their host side through `scorpion.batch`: the
GPU env's module reads nothing of the CPU env's module (issue 53)."""

from __future__ import annotations

import ast
from pathlib import Path

import shell_envs.scorpion as scorpion

GPU = Path(scorpion.__file__).with_name("gpu.py")


def imported_modules(source: str) -> set[str]:
    """Every module an ``import`` or ``from ... import`` of ``source`` names (and, for a
    ``from`` import, each name as a submodule), at any depth."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_gpu_env_does_not_import_the_cpu_env_module():
    assert "shell_envs.scorpion.vector" not in imported_modules(GPU.read_text())


def test_both_batched_envs_are_built_on_the_shared_base():
    from shell_envs.scorpion.batch import BatchedScorpionEnv
    from shell_envs.scorpion.gpu import ScorpionGpuVectorEnv
    from shell_envs.scorpion.vector import ScorpionVectorEnv

    assert issubclass(ScorpionVectorEnv, BatchedScorpionEnv)
    assert issubclass(ScorpionGpuVectorEnv, BatchedScorpionEnv)
