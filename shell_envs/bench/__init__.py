"""Benchmarks behind ``shell-envs bench`` and ``shell-envs speed`` and benchmarks/ scripts."""

# Limits of the bench's options, here so that the command line can check them without
# importing the bench itself: beyond them numbers would overflow or exhaust memory.
MAX_SEED = 2**32 - 1
MAX_GAMES = 100_000  # per What the Shell agent and anchor
MAX_DEALS = 5_000  # per Scorpion agent and rule set: the size of a deal set
MAX_WORKERS = 1024


def evaluate(agent: object, **kwargs: object) -> object:
    """Benchmark one agent; see `shell_envs.bench.runner.evaluate` (imported lazily,
    so that the limits above stay cheap to import)."""
    from shell_envs.bench.runner import evaluate as run_evaluate

    return run_evaluate(agent, **kwargs)
