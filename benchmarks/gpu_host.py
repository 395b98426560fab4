"""Host time of a GPU env step, measured on the CPU with a stand-in CUDA driver (issue 49).

A random-play step of a GPU env (``env.step(env.sample_actions())``) costs the host what
Python, numba-cuda and cuda-core do to launch its kernels; on a GPU that is all the host does
while the device works, so at small batches it bounds the step rate.  This runs the envs'
real launch code in a process whose driver is ``tests/gpu/fake_driver.c`` (launches record
and return at once; the compile and torch's CUDA tensors are stubbed, see
``tests/gpu/fake_driver.py``), so the figure is the host's own cost, on any machine.

For both games, both layouts, ``copy=False`` (the benchmark loop) and ``copy=True`` (fresh
result buffers a step; torch's allocator is stubbed, so on a GPU add a few microseconds a
buffer), at ``--num-envs`` games: microseconds a step (median of ``--repeats`` runs of
``--steps`` steps, with the spread) and kernel launches a step.  For comparison, in the same
run: one launch of the step kernel through numba-cuda's own ``launch``, which marshals every
argument at every call (what each launch cost before issue 49).  Goal: at most 30 µs a step.

Usage: python benchmarks/gpu_host.py [--num-envs 8192] [--steps 2000] [--repeats 5]
[--out benchmarks/results/gpu_host]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the stand-in driver lives with the GPU tests

from tests.gpu import fake_driver  # noqa: E402

GOAL_US = 30.0
MARKER = "SHELL_ENVS_FAKE_DRIVER"


def _timed(step: Callable[[], None], steps: int, repeats: int) -> list[float]:
    """Microseconds a call of ``step``, one figure per repeat of ``steps`` calls."""
    for _ in range(min(steps, 200)):  # warm: caches, allocator, branch predictors
        step()
    figures = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        figures.append((time.perf_counter() - start) / steps * 1e6)
    return figures


def _row(what: str, layout: str, copy: Any, figures: list[float], launches: float) -> dict:
    return {
        "workload": what,
        "layout": layout,
        "copy": copy,
        "us_per_step": statistics.median(figures),
        "min": min(figures),
        "max": max(figures),
        "launches_per_step": launches,
    }


def measure(n: int, steps: int, repeats: int) -> list[dict[str, Any]]:
    """The rows, in this process (whose driver must be the stand-in)."""
    from shell_envs.core import cuda
    from shell_envs.scorpion import gpu as scorpion_gpu
    from shell_envs.what_the_shell import gpu as wts_gpu

    fake_driver.stub_torch()
    for module in (wts_gpu, scorpion_gpu):
        for value in vars(module).values():
            for kernel in value.values() if isinstance(value, dict) else [value]:
                if isinstance(kernel, cuda.Kernel):
                    fake_driver.stub_compile(kernel.compiled)
    launches = fake_driver.Launches()
    launches.expect([])
    makers = {
        "What the Shell (planes_uint8 + masks, both players)": lambda layout, copy: (
            wts_gpu.WhatTheShellGpuVectorEnv(
                n, obs_encoder="planes_uint8", layout=layout, copy=copy
            )  # fmt: skip
        ),
        "Scorpion (tableau + mask)": lambda layout, copy: scorpion_gpu.ScorpionGpuVectorEnv(
            n, layout=layout, copy=copy
        ),
    }
    rows = []
    for what, make in makers.items():
        for layout in ("soa", "game_major"):
            for copy in (False, True):
                env = make(layout, copy)
                env.reset(seed=0)

                def step(env=env) -> None:
                    env.step(env.sample_actions())

                before = launches.count
                figures = _timed(step, steps, repeats)
                per_step = (launches.count - before) / (steps * repeats + min(steps, 200))
                rows.append(_row(what, layout, copy, figures, per_step))
                print(f"{what}, {layout}, copy={copy}: {figures[0]:.1f} µs", flush=True)
        # the step kernel through numba-cuda's own launch: every argument marshalled per call
        launch = env._step
        compiled = launch.kernel.compiled.compile(
            tuple(launch.kernel.compiled.typeof_pyval(v) for v in (launch.n, *launch.args))
        )
        grid, block = (launch.blocks, 1, 1), (launch.threads, 1, 1)
        values = (launch.n, *launch.args)

        def numba_launch(compiled=compiled, values=values, grid=grid, block=block) -> None:
            compiled.launch(values, grid, block, cuda.default_stream(), 0)

        figures = _timed(numba_launch, max(steps // 10, 20), repeats)
        name = f"{what}: step kernel, numba-cuda's launch"
        rows.append(_row(name, "game_major", "-", figures, 1))
        print(f"{name}: {figures[0]:.1f} µs", flush=True)
    return rows


def markdown(result: dict[str, Any]) -> str:
    """The table, with the machine and the command."""
    m = result["machine"]
    lines = [
        f"# GPU env host time a step, {m['date_utc']} UTC",
        "",
        f"{m['cpu']}, Python {m['python']}, numba-cuda {m['numba_cuda']}, cuda-core "
        f"{m['cuda_core']}; stand-in driver (tests/gpu/fake_driver.c), {result['num_envs']:,} "
        f"games. Command: `{result['command']}`.",
        "",
        "| workload | layout | copy | µs a step (median) | spread (min–max) | launches a step |",
        "|---|---|---|---:|---|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['workload']} | {r['layout']} | {r['copy']} | {r['us_per_step']:.1f} | "
            f"{r['min']:.1f}–{r['max']:.1f} | {r['launches_per_step']:.2f} |"
        )
    lines += ["", f"Median of {result['repeats']} runs of {result['steps']:,} steps each."]
    lines += [f"Goal: at most {GOAL_US:.0f} µs a step (copy=False, the benchmark loop)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=8192)
    parser.add_argument("--steps", type=int, default=2000, help="steps a timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (median, spread)")
    parser.add_argument("--out", default="benchmarks/results/gpu_host", help="OUT.json, OUT.md")
    args = parser.parse_args()
    if os.environ.get(MARKER) != "1":  # run again on the stand-in driver
        with tempfile.TemporaryDirectory() as tmp:
            env = fake_driver.environment(fake_driver.build(Path(tmp)))
            env[MARKER] = "1"
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
            sys.exit(subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env).returncode)
    import cuda.core
    import numba_cuda

    rows = measure(args.num_envs, args.steps, args.repeats)
    result = {
        "command": "python benchmarks/gpu_host.py " + " ".join(sys.argv[1:]),
        "machine": {
            "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "python": platform.python_version(),
            "cpu": platform.processor() or platform.machine(),
            "numba_cuda": numba_cuda.__version__,
            "cuda_core": cuda.core.__version__,
        },
        "num_envs": args.num_envs,
        "steps": args.steps,
        "repeats": args.repeats,
        "rows": rows,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
