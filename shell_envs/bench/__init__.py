"""Benchmarks behind ``shell-envs bench`` and ``shell-envs speed`` (and the scripts in benchmarks/)."""
