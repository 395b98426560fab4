"""GPU throughput: our GPU batched envs, our CPU batched envs and pgx, in one run (issues 43, 49).

Measures, with random legal moves every step (observations and masks for both players):

- What the Shell on the GPU at N = 8,192, 65,536 and 262,144: ``planes_uint8`` and float32
  ``planes`` with struct-of-arrays state, and ``planes_uint8`` with the naive game-major
  state for comparison (actions drawn on the device by ``sample_actions``);
- Scorpion on the GPU in both layouts (its observation and mask;
  ``shell_envs.bench.gpu.scorpion_gpu_rows``);
- pgx ``connect_four``, ``othello`` and ``go_9x9`` on the same GPU when pgx is importable,
  measured as pgx's own benchmark does: ``jit(vmap(auto_reset(step)))`` (pgx >= 2: a key
  per game) with ``jit(act_randomly)``, ``block_until_ready`` at the end of each run;
- our CPU batched envs at N = 16,384 on 2 threads and on all threads of this machine
  (``numba.set_num_threads``; compiled samplers).

Each GPU row also gives the host's microseconds a step (the time to queue 64 steps'
launches, the GPU left to catch up after).  A section that raises is listed as failed and
the run exits non-zero after writing the others' figures.

Each figure is the median of ``--repeats`` runs of about ``--seconds`` with the spread
(min–max); compile and warm-up time is reported apart.  Sections run in that order and the
results are written after each one (JSON and markdown), so a run stopped by ``--budget``
still leaves the figures so far.  Without a CUDA device the GPU rows are skipped with the
reason; under numba's simulator (``NUMBA_ENABLE_CUDASIM=1 NUMBA_DISABLE_JIT=1``) they run at
tiny sizes, to check the plumbing.

Usage::

    python benchmarks/gpu.py                 # the full run, under 5 minutes on an H200
    python benchmarks/gpu.py --quick         # a smoke run of about a minute
    python benchmarks/gpu.py --out benchmarks/results/gpu
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("SHELL_ENVS_BACKGROUND_COMPILE", "0")  # measure compiled code only
# pgx runs last, in this process: JAX takes GPU memory as it needs it, not 75% of it up front
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np  # noqa: E402

from shell_envs.bench.gpu import gpu_env_rows, rate_row  # noqa: E402

SIZES = (8192, 65536, 262144)
CPU_BATCH = 16384
PGX_SIZES = {"connect_four": (65536, 262144), "othello": (262144,), "go_9x9": (65536,)}
GOAL_WTS = 200e6  # What the Shell joint steps/s with planes_uint8 and masks, both players
GOAL_SCORPION = 100e6
GOAL_OVER_CPU = 20.0  # each GPU env against the same machine's CPU cores
GOAL_CPU_SCALING = 6.0  # CPU batched envs from 2 to 16 threads


def gpu_status() -> str | None:
    """None when GPU rows can run here (a device, or the simulator), else why not."""
    try:
        from shell_envs.core import cuda

        cuda.require()
        cuda.torch()
    except Exception as exc:  # the one clear error, or anything else that stops the GPU path
        return f"{type(exc).__name__}: {exc}"
    return None


def what_the_shell_gpu(sizes, seconds, repeats) -> list[dict[str, Any]]:
    """What the Shell's GPU rows: planes_uint8 and planes (SoA), planes_uint8 game-major."""
    from shell_envs.what_the_shell.gpu import WhatTheShellGpuVectorEnv

    rows = []
    for encoder, layouts in (("planes_uint8", ("soa", "game_major")), ("planes", ("soa",))):

        def make(n, layout, encoder=encoder):
            return WhatTheShellGpuVectorEnv(n, obs_encoder=encoder, layout=layout)

        workload = f"What the Shell GPU ({encoder} + masks, both players)"
        rows += gpu_env_rows(make, workload, sizes, layouts, seconds, repeats)
    return rows


def scorpion_gpu(sizes, seconds, repeats) -> list[dict[str, Any]]:
    """Scorpion's GPU rows, from ``shell_envs.bench.gpu.scorpion_gpu_rows``."""
    from shell_envs.bench.gpu import scorpion_gpu_rows

    rows = scorpion_gpu_rows(sizes=sizes, seconds=seconds, repeats=repeats)
    from shell_envs.core import cuda

    for row in rows:
        row.setdefault("device", "simulator" if cuda.simulated() else "cuda")
        row.setdefault("repeats", repeats)
    return rows


def _timed(run: Callable[[int], int], seconds: float, repeats: int) -> tuple[list[float], float]:
    """Rates of ``run(k)`` (k steps, returns units done) over ``repeats`` runs of about
    ``seconds``, and the warm-up time of its first call."""
    start = time.perf_counter()
    run(1)
    warmup = time.perf_counter() - start
    k, rates = 1, []
    for _ in range(repeats):
        while True:
            t0 = time.perf_counter()
            done = run(k)
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
            k = max(2 * k, int(1.1 * k * seconds / max(elapsed, 1e-9)))
        rates.append(done / elapsed)
    return rates, warmup


def _wts_cpu(n: int, encoder: str) -> Callable[[int], int]:
    """``run(k)``: k steps of the CPU batched What the Shell env, compiled sampler."""
    from shell_envs import what_the_shell_v0
    from shell_envs.core.sampling import random_legal_actions

    env = what_the_shell_v0.vector_env(n, obs_encoder=encoder, copy=False)
    obs, _ = env.reset(seed=0)

    def run(k: int) -> int:
        nonlocal obs
        for _ in range(k):
            actions = {a: random_legal_actions(obs[a]["action_mask"]) for a in ("black", "white")}
            obs, *_ = env.step(actions)
        return k * n

    return run


def _scorpion_cpu(n: int) -> Callable[[int], int]:
    """``run(k)``: k steps of the CPU batched Scorpion env, compiled sampler."""
    import gymnasium as gym

    import shell_envs  # noqa: F401  (registers the ids)
    from shell_envs.core.sampling import random_legal_actions

    env = gym.make_vec(
        "shell_envs/Scorpion-v0", num_envs=n, vectorization_mode="vector_entry_point"
    )
    env.reset(seed=0)

    def run(k: int) -> int:
        for _ in range(k):
            env.step(random_legal_actions(env.action_masks()))
        return k * n

    return run


def cpu_rows(n, seconds, repeats) -> list[dict[str, Any]]:
    """Our CPU batched envs at ``n`` games on 2 threads and on all threads."""
    import numba

    all_threads = numba.config.NUMBA_NUM_THREADS
    workloads = {
        "What the Shell CPU vector_env (planes_uint8 + masks, both players)": lambda: _wts_cpu(
            n, "planes_uint8"
        ),
        "What the Shell CPU vector_env (planes + masks, both players)": lambda: _wts_cpu(
            n, "planes"
        ),
        "Scorpion CPU make_vec (observation + mask)": lambda: _scorpion_cpu(n),
    }
    rows = []
    for workload, make in workloads.items():
        run = make()
        for threads in sorted({min(2, all_threads), all_threads}):
            numba.set_num_threads(threads)
            rates, warmup = _timed(run, seconds, repeats)
            rows.append(rate_row(workload, f"cpu, {threads} threads", "-", n, rates, warmup))
        numba.set_num_threads(all_threads)
    return rows


def _pgx_run(env_id: str, n: int) -> Callable[[int], int]:
    """``run(k)``: k batched steps of pgx ``env_id`` as pgx's benchmark steps it."""
    import jax
    import pgx
    from pgx.experimental import act_randomly, auto_reset

    env = pgx.make(env_id)
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    act = jax.jit(act_randomly)
    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, n))

    def run(k: int) -> int:
        nonlocal state, key
        for _ in range(k):
            key, act_key, step_key = jax.random.split(key, 3)
            action = act(act_key, state.legal_action_mask)
            state = step(state, action, jax.random.split(step_key, n))
        jax.block_until_ready(state)
        return k * n

    return run


def pgx_rows(sizes: dict[str, tuple[int, ...]], seconds, repeats) -> list[dict[str, Any]]:
    """pgx's rows on JAX's default device."""
    import jax

    device = str(jax.devices()[0].platform)
    rows = []
    for env_id, ns in sizes.items():
        for n in ns:
            rates, warmup = _timed(_pgx_run(env_id, n), seconds, repeats)
            workload = f"pgx {env_id} (jit + vmap)"
            rows.append(rate_row(workload, f"jax {device}", "-", n, rates, warmup))
    return rows


def _best(rows, prefix, device=None) -> float | None:
    """The highest median among rows whose workload starts with ``prefix``."""
    rates = [
        r["steps_per_s"]
        for r in rows
        if r["workload"].startswith(prefix) and (device is None or r["device"] == device)
    ]
    return max(rates) if rates else None


def goals(rows) -> list[str]:
    """The issue's goals, checked against this run's figures."""
    lines = []
    wts = _best([r for r in rows if r.get("layout") == "soa"], "What the Shell GPU (planes_uint8")
    scorpion = _best(rows, "Scorpion GPU")
    cpu_devices = sorted({r["device"] for r in rows if r["device"].startswith("cpu")})
    all_cpu = cpu_devices[-1] if cpu_devices else None
    if wts is not None:
        verdict = "met" if wts >= GOAL_WTS else "NOT met"
        lines.append(
            f"What the Shell GPU planes_uint8 ≥ 200 M joint steps/s: {wts / 1e6:,.1f} M ({verdict})"
        )
    if scorpion is not None:
        verdict = "met" if scorpion >= GOAL_SCORPION else "NOT met"
        lines.append(f"Scorpion GPU ≥ 100 M steps/s: {scorpion / 1e6:,.1f} M ({verdict})")
    for name, gpu, cpu_prefix in (
        ("What the Shell", wts, "What the Shell CPU vector_env (planes_uint8"),
        ("Scorpion", scorpion, "Scorpion CPU"),
    ):
        cpu = _best(rows, cpu_prefix, all_cpu) if all_cpu else None
        if gpu is not None and cpu:
            ratio = gpu / cpu
            verdict = "met" if ratio >= GOAL_OVER_CPU else "NOT met"
            lines.append(f"{name} GPU ≥ 20× the CPU env on {all_cpu}: {ratio:,.1f}× ({verdict})")
    two = [d for d in cpu_devices if d.startswith("cpu, 2 ")]
    if two and all_cpu != two[0]:
        for prefix in ("What the Shell CPU vector_env (planes_uint8", "Scorpion CPU"):
            low, high = _best(rows, prefix, two[0]), _best(rows, prefix, all_cpu)
            if low and high:
                lines.append(
                    f"{prefix.split(' (')[0]} scaling from 2 threads to {all_cpu[5:]}: "
                    f"{high / low:.2f}× (goal ≥ 6× from 2 to 16 threads)"
                )
    return lines


def machine() -> dict[str, Any]:
    """What this run ran on."""
    import numba

    info = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "cpu_count": os.cpu_count(),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "simulator": os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"),
    }
    try:
        import torch

        info["torch"] = torch.__version__
        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
    except ImportError:
        pass
    try:
        import numba_cuda

        info["numba_cuda"] = getattr(numba_cuda, "__version__", "?")
    except ImportError:
        pass
    return info


def markdown(result: dict[str, Any]) -> str:
    """The results as a markdown table, with the machine, the goals and what was skipped."""
    m = result["machine"]
    lines = [
        f"# GPU benchmark, {m['date_utc']} UTC",
        "",
        f"Machine: {m.get('gpu', 'no GPU')}, {m['cpu_count']} CPU cores; Python {m['python']}, "
        f"numpy {m['numpy']}, numba {m['numba']}, numba-cuda {m.get('numba_cuda', '-')}, "
        f"torch {m.get('torch', '-')}. Command: `{result['command']}`.",
        "",
        "| workload | device | layout | batch | steps/s (median) | spread (min–max) | host µs a step | warm-up + compile (s) |",  # noqa: E501
        "|---|---|---|---:|---:|---|---:|---:|",
    ]
    for r in result["rows"]:
        host = r.get("host_us_per_step")
        lines.append(
            f"| {r['workload']} | {r['device']} | {r['layout']} | {r['batch']:,} | "
            f"{r['steps_per_s']:,.0f} | {r['min']:,.0f}–{r['max']:,.0f} | "
            f"{'-' if host is None else f'{host:.1f}'} | {r['compile_s']:.1f} |"
        )
    lines += ["", f"Median of {result['repeats']} runs of about {result['seconds']} s each."]
    if result["goals"]:
        lines += ["", "Goals:", ""] + [f"- {g}" for g in result["goals"]]
    if result["skipped"]:
        lines += ["", "Skipped:", ""] + [f"- {s}" for s in result["skipped"]]
    if result["failed"]:
        lines += ["", "FAILED:", ""] + [f"- {s}" for s in result["failed"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run of about a minute")
    parser.add_argument("--seconds", type=float, help="seconds per timed run (0.5; quick 0.2)")
    parser.add_argument("--repeats", type=int, help="timed runs per figure (3; quick 2)")
    parser.add_argument("--sizes", type=int, nargs="+", help="GPU batch sizes (8192 65536 262144)")
    parser.add_argument("--cpu-batch", type=int, default=CPU_BATCH, help="CPU batch size")
    parser.add_argument("--pgx-batch", type=int, help="one batch size for each pgx game")
    parser.add_argument("--no-pgx", action="store_true", help="skip the pgx peers")
    parser.add_argument("--budget", type=float, default=290.0, help="seconds before the "
                        "remaining sections are skipped (each section finishes first)")  # fmt: skip
    parser.add_argument("--out", default="benchmarks/results/gpu", help="writes OUT.json, OUT.md")
    args = parser.parse_args()
    simulator = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
    seconds = args.seconds or (0.2 if args.quick else 0.5)
    repeats = args.repeats or (2 if args.quick else 3)
    sizes = tuple(args.sizes or ((8,) if simulator else (8192,) if args.quick else SIZES))
    pgx_sizes = {"connect_four": (8192,)} if args.quick else PGX_SIZES
    if args.pgx_batch:
        pgx_sizes = {env_id: (args.pgx_batch,) for env_id in pgx_sizes}
    started = time.perf_counter()
    result: dict[str, Any] = {
        "command": "python benchmarks/gpu.py" + (" --quick" if args.quick else ""),
        "machine": machine(),
        "seconds": seconds,
        "repeats": repeats,
        "rows": [],
        "goals": [],
        "skipped": [],
        "failed": [],
    }
    why_not_gpu = gpu_status()
    sections: list[tuple[str, Callable[[], list[dict[str, Any]]], str | None]] = [
        ("What the Shell GPU", lambda: what_the_shell_gpu(sizes, seconds, repeats), why_not_gpu),
        ("Scorpion GPU", lambda: scorpion_gpu(sizes, seconds, repeats), why_not_gpu),
        (
            "pgx",
            lambda: pgx_rows(pgx_sizes, seconds, repeats),
            "--no-pgx" if args.no_pgx else _missing("pgx", "jax"),
        ),
        ("CPU batched envs", lambda: cpu_rows(args.cpu_batch, seconds, repeats), None),
    ]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for name, section, why_not in sections:
        if why_not is None and time.perf_counter() - started > args.budget:
            why_not = f"the --budget of {args.budget:.0f} s was spent"
        if why_not is not None:
            result["skipped"].append(f"{name}: {why_not}")
            print(f"skipped {name}: {why_not}", flush=True)
            continue
        print(f"measuring {name} ...", flush=True)
        try:
            rows = section()
        except Exception as exc:  # one failing section must not cost the others' figures
            traceback.print_exc()
            result["failed"].append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        result["rows"] += rows
        if not simulator:  # simulated figures say nothing about speed
            result["goals"] = goals(result["rows"])
        out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
        out.with_suffix(".md").write_text(markdown(result))
    result["total_s"] = time.perf_counter() - started
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))
    print(
        f"written: {out.with_suffix('.json')}, {out.with_suffix('.md')} ({result['total_s']:.0f} s)"
    )
    if result["failed"]:
        sys.exit(f"{len(result['failed'])} section(s) failed: {'; '.join(result['failed'])}")


def _missing(*modules: str) -> str | None:
    """Why a section cannot run: the first of ``modules`` that is not importable."""
    import importlib.util

    for module in modules:
        if importlib.util.find_spec(module) is None:
            return f'{module} is not installed (pip install -e ".[bench]")'
    return None


if __name__ == "__main__":
    main()
