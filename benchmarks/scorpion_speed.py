"""Scorpion speed: env steps/s through ``gym.make`` vs CartPole-v1, and compiled playouts.

Usage: python benchmarks/scorpion_speed.py [--seconds 1.0] [--repeats 5] [--encoder tableau]
[--rules classic].  The workloads live in :mod:`shell_envs.bench.speed`, shared with
``shell-envs speed``.
"""

from __future__ import annotations

import argparse

from shell_envs.bench.speed import (
    SCORPION_RATIOS,
    format_table,
    playout_verdict,
    run_scorpion_speed,
)
from shell_envs.registry import GAMES


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (median)")
    parser.add_argument("--encoder", default="tableau", help="Scorpion obs_encoder")
    parser.add_argument("--rules", default="classic", choices=list(GAMES["scorpion"].rule_sets))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rates = run_scorpion_speed(args.seconds, args.repeats, args.encoder, args.rules, args.seed)
    print(format_table(rates, SCORPION_RATIOS))
    print("\n" + playout_verdict(rates))


if __name__ == "__main__":
    main()
