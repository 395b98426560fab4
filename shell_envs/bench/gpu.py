"""Throughput of the GPU batched envs: device-sampled random legal moves, timed to a sync.

Shared by ``benchmarks/gpu.py`` and the games' own benchmark rows.  Imports nothing of CUDA
until called.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

MAX_STEPS = 2**20  # timed steps in one run at most


HOST_STEPS = 64  # steps whose launches are timed on the host alone (well under the queue)


def rate_row(
    workload: str,
    device: str,
    layout: str,
    n: int,
    rates: Sequence[float],
    compile_s: float,
    host_us: float | None = None,
) -> dict[str, Any]:
    """One row of a throughput table: the median of ``rates`` (steps/s) with the spread, and
    the host's microseconds a step where measured (None elsewhere)."""
    return {
        "workload": workload,
        "device": device,
        "layout": layout,
        "batch": n,
        "steps_per_s": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "repeats": len(rates),
        "compile_s": compile_s,
        "host_us_per_step": host_us,
    }


def host_microseconds(step: Callable[[], object], synchronize: Callable[[], None]) -> float:
    """The host's time a call of ``step`` (launches that return before the GPU is done):
    `HOST_STEPS` calls after a synchronisation, timed before the next one."""
    synchronize()
    start = time.perf_counter()
    for _ in range(HOST_STEPS):
        step()
    elapsed = time.perf_counter() - start
    synchronize()
    return elapsed / HOST_STEPS * 1e6


def gpu_env_rows(
    make: Callable[[int, str], Any],
    workload: str,
    sizes: Sequence[int],
    layouts: Sequence[str],
    seconds: float,
    repeats: int,
) -> list[dict[str, Any]]:
    """Steps/s of ``make(n, layout)`` (a GPU env with ``reset``, ``step`` and
    ``sample_actions``) for each layout and batch size ``n``.

    Each step draws random legal actions on the device and steps every game (observations
    and masks included).  A run of about ``seconds`` ends with a device synchronisation;
    rows give the median of ``repeats`` runs with the spread (``min``, ``max``),
    ``compile_s``: the first reset and step, compilation included, and the host's
    microseconds a step (`host_microseconds`).
    """
    from shell_envs.core import cuda

    rows = []
    for layout in layouts:
        for n in sizes:
            start = time.perf_counter()
            env = make(n, layout)
            env.reset(seed=0)
            env.step(env.sample_actions())
            cuda.synchronize()
            compile_s = time.perf_counter() - start
            steps = 4
            rates = []
            for _ in range(repeats):
                while True:
                    t0 = time.perf_counter()
                    for _ in range(steps):
                        env.step(env.sample_actions())
                    cuda.synchronize()
                    elapsed = time.perf_counter() - t0
                    if elapsed >= seconds or steps >= MAX_STEPS:
                        break
                    steps = min(
                        MAX_STEPS, max(2 * steps, int(1.1 * steps * seconds / max(elapsed, 1e-9)))
                    )
                rates.append(steps * n / elapsed)
            # mypy cannot type a lambda's default argument (the env of this iteration)
            host_us = host_microseconds(lambda env=env: env.step(env.sample_actions()),  # type: ignore[misc]
                                        cuda.synchronize)  # fmt: skip
            device = "simulator" if cuda.simulated() else "cuda"
            rows.append(rate_row(workload, device, layout, n, rates, compile_s, host_us))
            env.close()
            del env
    return rows


def scorpion_gpu_rows(
    sizes: Sequence[int] = (8192, 65536, 262144),
    seconds: float = 2.0,
    repeats: int = 3,
    layouts: Sequence[str] | None = None,
    obs_encoder: str = "tableau",
) -> list[dict[str, Any]]:
    """Scorpion's rows for ``benchmarks/gpu.py``: steps/s of the GPU env with its observation
    and mask, random legal actions drawn on the device, for each batch size and layout
    (``layouts``: all of `shell_envs.scorpion.gpu.LAYOUTS` by default), by [`gpu_env_rows`][].

    Here, in the bench, rather than in the game package, which must not import the bench."""
    from shell_envs.scorpion.gpu import LAYOUTS, ScorpionGpuVectorEnv

    def make(n: int, layout: str) -> ScorpionGpuVectorEnv:
        return ScorpionGpuVectorEnv(n, obs_encoder=obs_encoder, layout=layout)

    workload = f"Scorpion GPU env ({obs_encoder} observation + mask)"
    chosen = LAYOUTS if layouts is None else layouts
    return gpu_env_rows(make, workload, sizes, chosen, seconds, repeats)
