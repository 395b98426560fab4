"""Side-by-side throughput of shell-envs and its peers, measured in one run.

Usage: python benchmarks/peers.py [--seconds 1.0] [--repeats 5] [--json FILE]
Peers come from the optional extra: pip install -e ".[bench]".
"""

from __future__ import annotations

import argparse
import json

from shell_envs.bench.peers import format_peers, run_peers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (median)")
    parser.add_argument("--json", help="also write the raw rates to this file")
    args = parser.parse_args()
    rates, skipped, memory = run_peers(args.seconds, args.repeats)
    print(format_peers(rates, skipped, memory))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "rates": {
                        k: {
                            "unit": r.unit,
                            "median": r.median,
                            "all": r.rates,
                            "warmup_s": r.warmup_s,
                        }
                        for k, r in rates.items()
                    },
                    "skipped": skipped,
                    "memory_bytes_per_env": memory,
                },
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
