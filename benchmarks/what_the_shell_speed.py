"""What the Shell speed: env joint steps/s vs PettingZoo connect_four_v3, and the bare engine.

Usage: python benchmarks/what_the_shell_speed.py [--seconds 1.0] [--repeats 5]
"""

from __future__ import annotations

import argparse

from shell_envs.bench.speed import WHAT_THE_SHELL_RATIOS, format_table, run_speed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (median)")
    args = parser.parse_args()
    rates = run_speed(
        ["what_the_shell parallel_env", "what_the_shell engine", "pettingzoo connect_four_v3"],
        args.seconds,
        args.repeats,
    )
    print(format_table(rates, WHAT_THE_SHELL_RATIOS))
    engine = rates["what_the_shell engine"].median
    print(
        f"\nbare engine: {engine:,.0f} rounds/s (goal >= 1,000,000: "
        f"{'met' if engine >= 1e6 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
