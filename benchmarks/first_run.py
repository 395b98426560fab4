"""How long a new user waits the first time: each case in a fresh process, with an empty cache.

Every repeat of every case runs in a new Python process whose compile cache
(``NUMBA_CACHE_DIR``) is a new empty folder, so it pays what a first run on a new machine
pays: interpreter start, imports and all the compilation the case needs.  Times are taken
from outside the process.  The goals (issue #14, on the project's 2-core machine):

- the first ``gym.make`` + ``reset`` + ``step`` of any one environment within 8 s;
- the first ``shell-envs bench --quick`` within 90 s.

An environment case reports two times: until its first ``step`` returns (the goal: the
rules run as plain Python while a background process compiles them), and until a ``step``
runs compiled code (the case then waits for that compile, and steps once more).  The batched
envs (``gym.make_vec("shell_envs/Scorpion-v0", num_envs=8)`` and What the Shell's
``vector_env(8)``) have the same goal (issue #41): their batch loops run as plain Python too.

``--tree NAME=PATH`` (repeatable) runs every case with the package found under ``PATH`` (as
``PYTHONPATH``), the trees interleaved within each repeat, so that two versions (e.g. a
checkout of the code before a change, and after it) are compared under the same load.

Usage::

    python benchmarks/first_run.py                      # every case, 3 repeats each
    python benchmarks/first_run.py --cases scorpion what-the-shell-parallel --repeats 5
    python benchmarks/first_run.py --out benchmarks/results/first_run
    python benchmarks/first_run.py --cases scorpion-vector --tree before=/tmp/old --tree after=.

Measure on a quiet machine: compilation is single-threaded CPU work, so other jobs on the
cores lengthen every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

# each environment case prints STEPPED after its first step and COMPILED after a compiled one
COMPILED = """
print("STEPPED", flush=True)
from shell_envs.core import background
background.wait()
{step}
print("COMPILED", flush=True)
"""
STEP = """
import gymnasium as gym
import numpy as np
import shell_envs
env = gym.make({env_id!r})
env.reset(seed=0)
def step():
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
step()
""" + COMPILED.format(step="step()")
PARALLEL = """
from shell_envs import what_the_shell_v0
env = what_the_shell_v0.parallel_env()
obs, _ = env.reset(seed=0)
def step():
    global obs
    obs, *_ = env.step({a: int(obs[a]["action_mask"].argmax()) for a in env.agents})
step()
""" + COMPILED.format(step="step()")
VECTOR = """
import gymnasium as gym
import numpy as np
import shell_envs
env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=8, vectorization_mode="vector_entry_point")
env.reset(seed=0)
def step():
    env.step(np.array([np.flatnonzero(m)[0] for m in env.unwrapped.action_masks()]))
step()
""" + COMPILED.format(step="step()")
WTS_VECTOR = """
import numpy as np
from shell_envs import what_the_shell_v0
env = what_the_shell_v0.vector_env(8)
obs, _ = env.reset(seed=0)
def step():
    global obs
    obs, *_ = env.step({a: obs[a]["action_mask"].argmax(axis=1) for a in ("black", "white")})
step()
""" + COMPILED.format(step="step()")

# name -> (command given the scratch folder, goal in seconds)
CASES = {
    "scorpion": (
        lambda tmp: [sys.executable, "-c", STEP.format(env_id="shell_envs/Scorpion-v0")],
        8,
    ),
    "what-the-shell-single": (
        lambda tmp: [sys.executable, "-c", STEP.format(env_id="shell_envs/WhatTheShell-v0")],
        8,
    ),
    "what-the-shell-parallel": (lambda tmp: [sys.executable, "-c", PARALLEL], 8),
    "scorpion-vector": (lambda tmp: [sys.executable, "-c", VECTOR], 8),
    "what-the-shell-vector": (lambda tmp: [sys.executable, "-c", WTS_VECTOR], 8),
    "bench-quick": (
        lambda tmp: [
            sys.executable,
            "-m",
            "shell_envs.cli",
            "bench",
            "--quick",
            "--no-progress",
            "--out",
            str(Path(tmp) / "results"),
        ],
        90,
    ),
}


def run_once(name: str, tree: Path | None = None) -> tuple[float, float | None]:
    """Seconds one fresh process takes for case ``name``, with an empty compile cache: until
    its first step (or its end, for a case that prints no ``STEPPED``), and until it ran
    compiled code (None for a case that does not say).  With ``tree``, the package is the one
    under that folder."""
    command, _ = CASES[name]
    marks: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="shell-envs-first-run-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / "cache"))
        if tree is not None:
            env["PYTHONPATH"] = str(tree.resolve())
        start = time.perf_counter()
        with subprocess.Popen(
            command(tmp), env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        ) as process:  # fmt: skip
            for line in process.stdout:
                marks.setdefault(line.strip(), time.perf_counter() - start)
            stderr = process.stderr.read()
        end = time.perf_counter() - start
    if process.returncode != 0:
        raise RuntimeError(f"{name} failed (exit {process.returncode}):\n{stderr[-2000:]}")
    return marks.get("STEPPED", end), marks.get("COMPILED")


def measure(
    names: list[str], repeats: int, trees: dict[str, Path] | None = None
) -> dict[str, dict[str, object]]:
    """Median, fastest and slowest of ``repeats`` runs per case (and per tree of ``trees``,
    a case's result then named ``case [tree]``), repeats and trees interleaved."""
    runs_of = [(name, None, None) for name in names]
    if trees:
        runs_of = [(name, label, path) for name in names for label, path in trees.items()]
    keys = [name if label is None else f"{name} [{label}]" for name, label, _ in runs_of]
    times: dict[str, list[float]] = {key: [] for key in keys}
    compiled: dict[str, list[float]] = {key: [] for key in keys}
    for _ in range(repeats):
        for key, (name, _, path) in zip(keys, runs_of, strict=True):
            first, then = run_once(name, path)
            times[key].append(first)
            if then is not None:
                compiled[key].append(then)
            print(f"  {key}: {first:.1f} s", file=sys.stderr, flush=True)
    results: dict[str, dict[str, object]] = {}
    for key, (name, _, _) in zip(keys, runs_of, strict=True):
        runs = times[key]
        goal = CASES[name][1]
        results[key] = {
            "median_s": statistics.median(runs),
            "min_s": min(runs),
            "max_s": max(runs),
            "runs_s": runs,
            "compiled_median_s": statistics.median(compiled[key]) if compiled[key] else None,
            "compiled_runs_s": compiled[key],
            "goal_s": goal,
            "met": None if goal is None else statistics.median(runs) <= goal,
        }
    return results


def markdown(results: dict[str, dict[str, object]], when: str) -> str:
    """The results as a Markdown table."""
    rows = [
        f"First run with an empty compile cache ({when}, {os.cpu_count()} CPUs)",
        "",
        "| case | median (s) | fastest – slowest (s) | compiled code runs (median, s) "
        "| goal (s) | verdict |",
        "|---|---:|---|---:|---:|---|",
    ]
    for name, r in results.items():
        then = "-" if r["compiled_median_s"] is None else f"{r['compiled_median_s']:.1f}"
        verdict = {None: "-", True: "met", False: "NOT met"}[r["met"]]
        rows.append(
            f"| {name} | {r['median_s']:.1f} | {r['min_s']:.1f} – {r['max_s']:.1f} | {then} "
            f"| {r['goal_s'] or '-'} | {verdict} |"
        )
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> dict[str, dict[str, object]]:
    """Measure the chosen cases, print the table, and write it under ``--out`` if given."""
    parser = argparse.ArgumentParser(
        description=textwrap.dedent(__doc__ or ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--repeats", type=int, default=3, help="runs per case (default 3)")
    parser.add_argument("--out", type=Path, default=None, help="write OUT.json and OUT.md")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="run every case with the package under PATH too, labelled NAME (repeatable)",
    )
    args = parser.parse_args(argv)
    trees = {}
    for spec in args.tree:
        label, sep, path = spec.partition("=")
        if not (sep and label and (Path(path) / "shell_envs").is_dir()):
            parser.error(f"--tree takes NAME=PATH with a shell_envs package under PATH: {spec}")
        trees[label] = Path(path)
    results = measure(args.cases, args.repeats, trees)
    table = markdown(results, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print(table)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
        args.out.with_suffix(".md").write_text(table)
    return results


if __name__ == "__main__":
    main()
