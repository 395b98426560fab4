"""Benchmarks behind ``shell-envs bench`` and ``shell-envs speed`` and benchmarks/ scripts."""

# Limits of the bench's options, here so that the command line can check them without
# importing the bench itself: beyond them numbers would overflow or exhaust memory.
MAX_SEED = 2**32 - 1
MAX_GAMES = 100_000  # per What the Shell pair
MAX_DEALS = 1_000_000  # per Scorpion agent and rule
MAX_WORKERS = 1024
