"""Benchmarks behind ``shell-envs bench`` and ``shell-envs speed`` and benchmarks/ scripts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shell_envs.bench.limits import MAX_DEALS, MAX_GAMES, MAX_SEED, MAX_WORKERS

if TYPE_CHECKING:
    from shell_envs.bench.report import BenchReport

__all__ = ["MAX_DEALS", "MAX_GAMES", "MAX_SEED", "MAX_WORKERS", "evaluate"]


def evaluate(agent: Any, **kwargs: Any) -> BenchReport:
    """Benchmark one agent; see `shell_envs.bench.runner.evaluate` (imported lazily,
    so that the limits above stay cheap to import)."""
    from shell_envs.bench.runner import evaluate as run_evaluate

    return run_evaluate(agent, **kwargs)
