"""CPU batched envs' steps/s at several thread counts, side by side, and the scaling ratios.

Usage: python benchmarks/cpu_scaling.py [--threads 2 16] [--num-envs 16384] [--seconds 1.0]
[--repeats 5] [--games what_the_shell scorpion] [--encoder planes_uint8] [--json FILE].
Without ``--threads``: 1, 2, 4, ... up to all of numba's threads.  ``--serial-share``
measures instead the share of a 1-thread step spent outside the parallel loops (which bounds
the scaling, and which a machine busy with other work does not hide).
"""

from __future__ import annotations

import argparse
import json

import numba

from shell_envs.bench.threads import (
    GAMES,
    amdahl,
    breakdown_json,
    format_breakdown,
    format_scaling,
    run_scaling,
    scaling_breakdown,
    scaling_json,
    serial_share,
)


def _default_threads() -> list[int]:
    """1, 2, 4, ... and all of numba's threads."""
    most = numba.config.NUMBA_NUM_THREADS
    counts = [1]
    while counts[-1] * 2 < most:
        counts.append(counts[-1] * 2)
    return sorted({*counts, most})


def main() -> None:
    """Measure and print the table (and write JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", help="thread counts, first = baseline")
    parser.add_argument("--num-envs", type=int, default=16384)
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (median)")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--encoder", default="planes_uint8", help="What the Shell obs_encoder")
    parser.add_argument("--json", help="also write the rates to this file")
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="instead: where a step's time goes at each thread count (--sizes), the serial "
        "share, the speedup and a plain parallel loop's speedup in the same run",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 16384],
                        help="batch sizes of --breakdown")  # fmt: skip
    parser.add_argument(
        "--serial-share",
        action="store_true",
        help="instead: the share of a 1-thread step outside the parallel loops, and its bound",
    )
    args = parser.parse_args()
    if args.breakdown:
        threads = tuple(args.threads or (1, 2))
        results = scaling_breakdown(tuple(args.games), tuple(args.sizes), threads,
                                    args.seconds, args.repeats, args.encoder)  # fmt: skip
        print(format_breakdown(results))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(breakdown_json(results), f, indent=2)
        return
    if args.serial_share:
        for game in args.games:
            share = serial_share(game, args.num_envs, args.seconds * args.repeats)
            print(
                f"{game}: {share:.1%} of a 1-thread step is serial; at most "
                f"{amdahl(share, 2, 16):.2f}x from 2 to 16 threads (Amdahl)"
            )
        return
    threads = args.threads or _default_threads()
    results = run_scaling(
        threads, tuple(args.games), args.num_envs, args.seconds, args.repeats, args.encoder
    )
    print(format_scaling(results, args.num_envs))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(scaling_json(results, args.num_envs), f, indent=2)


if __name__ == "__main__":
    main()
