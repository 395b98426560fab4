"""Side-by-side throughput measurement: interleaved repeats, medians, compile time apart."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from shell_envs.core import background


@dataclass
class Rate:
    """Throughput of one workload: the median over repeats, and its first-call (warm-up) time."""

    name: str
    unit: str
    rates: list[float] = field(default_factory=list)
    warmup_s: float = 0.0

    @property
    def median(self) -> float:
        """Median of the measured rates (units per second)."""
        return statistics.median(self.rates)


def measure_side_by_side(
    workloads: dict[str, tuple[str, Callable[[int], int]]], seconds: float, repeats: int
) -> dict[str, Rate]:
    """Run each workload ``repeats`` times, interleaved, for about ``seconds`` each time.

    A workload is ``(unit, run)`` where ``run(n)`` does ``n`` units of work and returns how many
    it did.  Each is first called once untimed-for-rate (its warm-up and compile time is kept
    apart, a compile in the background included: until it is done, the rules run as plain
    Python, which is not the speed to measure); then an ``n`` lasting about ``seconds`` is
    calibrated and the repeats are interleaved, so machine noise falls on all workloads alike.
    """
    results: dict[str, Rate] = {}
    sizes: dict[str, int] = {}
    for name, (unit, run) in workloads.items():
        start = time.perf_counter()
        run(1)
        if background.pending():
            background.wait()
            run(1)  # loads the compiled code the background process cached
        rate = Rate(name, unit, warmup_s=time.perf_counter() - start)
        n = 64
        while True:
            start = time.perf_counter()
            done = run(n)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds / 4:
                break
            n *= 4
        sizes[name] = max(1, int(done * seconds / max(elapsed, 1e-9)))
        results[name] = rate
    for _ in range(repeats):
        for name, (_, run) in workloads.items():
            start = time.perf_counter()
            done = run(sizes[name])
            results[name].rates.append(done / (time.perf_counter() - start))
    return results
