"""Fitting speed of ``learned``'s policy network: float32 against bfloat16 autocast, side by side.

Times the recipe's own fit (``examples/train_what_the_shell_policy.py``, its :func:`fit`) in
float32 and with ``--bf16`` on random positions of the recipe's shapes, with the bench's
interleaved repeats (:func:`shell_envs.bench.timing.measure_side_by_side`: a warm-up fit, then
fits of about ``--seconds`` each); prints the median milliseconds per step of each, the spread
(fastest and slowest repeat) and the ratio of the medians.  bfloat16 pays off on CPUs with
AVX512-BF16 or AMX (``lscpu`` flags); elsewhere torch emulates it and it can be slower::

    python benchmarks/wts_policy_fit_speed.py --channels 64 --blocks 6 --threads 2
    python benchmarks/wts_policy_fit_speed.py --channels 96 --blocks 8 --threads 2
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
import train_what_the_shell_policy as recipe  # noqa: E402

from shell_envs.bench.timing import measure_side_by_side  # noqa: E402
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


def fit_steps(data: recipe.az.Replay, options: list[str]) -> Callable[[int], int]:
    """A workload for :func:`measure_side_by_side`: ``run(n)`` fits from scratch for ``n``
    steps with the recipe's ``options`` and returns ``n``."""

    def run(n: int) -> int:
        recipe.fit(data, recipe.parse_args([*options, "--steps", str(n)]), lambda *_: None)
        return n

    return run


def main() -> None:
    """Time both precisions and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per timed fit")
    parser.add_argument("--repeats", type=int, default=5, help="timed fits per precision")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    data = positions(4096, 0)
    common = ["--channels", str(args.channels), "--blocks", str(args.blocks),
              "--batch", str(args.batch), "--eval-every", str(10**9)]  # fmt: skip
    workloads = {
        "float32": ("steps", fit_steps(data, common)),
        "bfloat16": ("steps", fit_steps(data, [*common, "--bf16"])),
    }
    rates = measure_side_by_side(workloads, args.seconds, args.repeats)
    print(f"{args.channels} planes x {args.blocks} blocks, batch {args.batch}, "
          f"{args.threads} thread(s), {args.repeats} repeats of ~{args.seconds} s")  # fmt: skip
    for name, rate in rates.items():
        print(f"  {name:9s} median {1000 / rate.median:7.1f} ms/step "
              f"(spread {1000 / max(rate.rates):.1f} to {1000 / min(rate.rates):.1f})")  # fmt: skip
    print(f"  float32 / bfloat16: {rates['bfloat16'].median / rates['float32'].median:.2f}x")


if __name__ == "__main__":
    main()
