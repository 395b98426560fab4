"""Fitting speed of ``learned``'s policy network: float32 against bfloat16 autocast, side by side.

Each repeat times ``--steps`` steps of the recipe's own fit
(``examples/train_what_the_shell_policy.py``, its :func:`fit`) once in float32 and once with
``--bf16``, in alternating order, on random positions of the recipe's shapes; prints the
median seconds per step of each, the spread (lowest and highest repeat) and the ratio of the
medians.  bfloat16 pays off on CPUs with AVX512-BF16 or AMX (``lscpu`` flags); elsewhere
torch emulates it and it can be slower::

    python benchmarks/wts_policy_fit_speed.py --channels 64 --blocks 6
    python benchmarks/wts_policy_fit_speed.py --channels 96 --blocks 8 --threads 2 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
import train_what_the_shell_policy as recipe  # noqa: E402

from shell_envs.what_the_shell import network  # noqa: E402


def positions(n: int, seed: int) -> recipe.az.Replay:
    """``n`` random positions of the recipe's shapes (features, visit shares, outcomes)."""
    rng = np.random.default_rng(seed)
    data = recipe.az.Replay(n, rng)
    x = (rng.random((n, network.N_FEATURES)) < 0.2).astype(np.float32)
    pi = rng.random((n, network.N_LOGITS)).astype(np.float32)
    pi /= pi.sum(1, keepdims=True) / 2  # each head sums to about 1
    data.add(x, pi, rng.integers(0, 2, n).astype(np.float32))
    return data


def seconds_per_step(data: recipe.az.Replay, options: list[str]) -> float:
    """Wall seconds per step of one :func:`recipe.fit` from scratch with ``options``."""
    args = recipe.parse_args(options)
    start = time.perf_counter()
    recipe.fit(data, args, lambda *_: None)
    return (time.perf_counter() - start) / args.steps


def main() -> None:
    """Time both precisions and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=10, help="steps per timed fit")
    parser.add_argument("--repeats", type=int, default=5, help="timed fits per precision")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    data = positions(4096, 0)
    common = ["--channels", str(args.channels), "--blocks", str(args.blocks), "--steps",
              str(args.steps), "--batch", str(args.batch), "--eval-every", str(10**9)]  # fmt: skip
    modes = {"float32": common, "bfloat16": [*common, "--bf16"]}
    for options in modes.values():  # warm up: allocator, oneDNN kernels
        seconds_per_step(data, options)
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    for r in range(args.repeats):
        order = list(modes) if r % 2 == 0 else list(reversed(modes))
        for mode in order:
            times[mode].append(seconds_per_step(data, modes[mode]))
    medians = {mode: statistics.median(t) for mode, t in times.items()}
    print(f"{args.channels} planes x {args.blocks} blocks, batch {args.batch}, "
          f"{args.threads} thread(s), {args.repeats} repeats of {args.steps} steps")  # fmt: skip
    for mode, t in times.items():
        print(f"  {mode:9s} median {1000 * medians[mode]:7.1f} ms/step "
              f"(spread {1000 * min(t):.1f} to {1000 * max(t):.1f})")  # fmt: skip
    print(f"  float32 / bfloat16: {medians['float32'] / medians['bfloat16']:.2f}x")


if __name__ == "__main__":
    main()
