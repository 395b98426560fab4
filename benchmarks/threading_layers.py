"""numba's threading layers and loop schedules for the CPU batched envs, measured (issue 54).

numba runs a ``prange`` loop on one of three threading layers: ``workqueue`` (numba's own),
``omp`` (the system's OpenMP) and ``tbb`` (Intel TBB, where the ``tbb`` package installs;
its library is put on the loader's path here).  The layer is fixed per process, so each runs
in a process of its own; in each, the batched envs' random-play loop (``bench.peers``) and a
plain compute-bound ``prange`` loop (``bench.threads.ceiling_workload``, the machine's own
ceiling) are measured side by side at each thread count and at each chunk size of
``numba.set_parallel_chunksize`` (0: numba's default, an equal share a thread; k: threads take
k iterations at a time, which balances steps of uneven cost).

Usage: python benchmarks/threading_layers.py [--threads 1 2] [--sizes 4096 16384]
[--chunks 0 64 512] [--seconds 0.5] [--repeats 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

LAYERS = ("workqueue", "omp", "tbb")


def tbb_library() -> str | None:
    """The folder of ``libtbb.so.12`` from the ``tbb`` package, if it is installed."""
    try:
        files = importlib.metadata.files("tbb") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name.startswith("libtbb.so.12"):
            return str(Path(f.locate()).parent)
    return None


def worker(args: argparse.Namespace) -> dict[str, Any]:
    """This process's layer: steps/s of each workload at each thread count and chunk size."""
    import numba

    from shell_envs.bench.peers import scorpion_batched, what_the_shell_batched
    from shell_envs.bench.threads import ceiling_workload
    from shell_envs.bench.timing import measure_side_by_side

    makers = {
        "what_the_shell": lambda n: what_the_shell_batched("planes_uint8", n),
        "scorpion": scorpion_batched,
    }
    runs = {f"{game} {n}": make(n) for game, make in makers.items() for n in args.sizes}
    runs["ceiling"] = ceiling_workload()

    def at(threads: int, chunk: int, run):
        def limited(n: int) -> int:
            numba.set_num_threads(threads)
            numba.set_parallel_chunksize(chunk)
            return run(n)

        return limited

    workloads = {
        f"{name} t{t} c{c}": ("steps", at(t, c, run))
        for name, run in runs.items()
        for t in args.threads
        for c in args.chunks
    }
    rates = measure_side_by_side(workloads, args.seconds, args.repeats)
    return {
        "layer": numba.threading_layer(),
        "rates": {name: rate.rates for name, rate in rates.items()},
    }


def summarise(results: dict[str, Any], args: argparse.Namespace) -> str:
    """Markdown: per layer and chunk size, each workload's rate at each thread count and the
    speedup from the fewest threads to the most, beside the ceiling loop's."""
    low, high = min(args.threads), max(args.threads)
    lines = [
        f"| layer | chunk | workload | steps/s at {low} | at {high} | speedup | ceiling's |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for layer, result in results.items():
        if "error" in result:
            lines.append(f"| {layer} | - | {result['error']} | | | | |")
            continue
        rates = {k: statistics.median(v) for k, v in result["rates"].items()}
        for c in args.chunks:
            ceiling = rates[f"ceiling t{high} c{c}"] / rates[f"ceiling t{low} c{c}"]
            for name in sorted({k.rsplit(" t", 1)[0] for k in rates} - {"ceiling"}):
                a, b = rates[f"{name} t{low} c{c}"], rates[f"{name} t{high} c{c}"]
                lines.append(
                    f"| {result['layer']} | {c} | {name} | {a:,.0f} | {b:,.0f} | "
                    f"{b / a:.2f}× | {ceiling:.2f}× |"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 16384])
    parser.add_argument("--chunks", type=int, nargs="+", default=[0, 64, 512])
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--layers", nargs="+", default=list(LAYERS), choices=LAYERS)
    parser.add_argument("--json", help="also write every repeat's rate here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args)))
        return
    results = {}
    for layer in args.layers:
        env = dict(os.environ, NUMBA_THREADING_LAYER=layer)
        if layer == "tbb":
            folder = tbb_library()
            if folder is None:
                results[layer] = {"error": "tbb is not installed (pip install tbb)"}
                continue
            paths = [folder, *filter(None, [env.get("LD_LIBRARY_PATH")])]
            env["LD_LIBRARY_PATH"] = os.pathsep.join(paths)
        done = subprocess.run(
            [sys.executable, __file__, "--worker", *sys.argv[1:]],
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            results[layer] = {"error": done.stderr.strip().splitlines()[-1]}
        else:
            results[layer] = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"measured {layer}", file=sys.stderr, flush=True)
    print(summarise(results, args))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
