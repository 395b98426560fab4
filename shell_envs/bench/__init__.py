"""Benchmarks behind ``shell-envs bench`` and ``shell-envs speed`` and benchmarks/ scripts."""
