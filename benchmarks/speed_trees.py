"""`shell-envs speed` for two checkouts side by side: did a change slow any workload down?

Each repeat runs ``shell-envs speed --repeats 1`` once per tree, in a fresh process with that
tree's package first on ``PYTHONPATH``, the trees alternating so that both meet the same load.
The table gives each workload's median rate per tree, the median of the per-repeat ratios
(last tree over first) and their range.  Same-process peers (PettingZoo's connect four,
CartPole) are timed too: their ratio shows how much the load alone moved.  With
``--batched N`` each run also times both games' CPU batched envs (``N`` games, one thread,
through ``benchmarks/cpu_scaling.py``), whose host side a restructuring may touch.

Usage::

    git worktree add /tmp/before HEAD~1
    python benchmarks/speed_trees.py --tree before=/tmp/before --tree after=. --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROW = re.compile(r"^\| (?P<name>[^|]+?) \| (?P<rate>[\d,]+) \| (?P<unit>[^|]+?) \|", re.M)
RUN = "import sys; from shell_envs.cli import main; sys.exit(main())"
SCALING = Path(__file__).resolve().parent / "cpu_scaling.py"


def measure(tree: Path, seconds: float) -> dict[str, float]:
    """One ``shell-envs speed`` run with the package under ``tree``: rate per workload."""
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    command = [sys.executable, "-c", RUN, "speed", "--seconds", str(seconds), "--repeats", "1"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    rates = {m["name"]: float(m["rate"].replace(",", "")) for m in ROW.finditer(done.stdout)}
    if not rates:
        raise RuntimeError(f"no rates in the output of {tree}:\n{done.stdout}{done.stderr}")
    return rates


def measure_batched(tree: Path, seconds: float, num_envs: int) -> dict[str, float]:
    """Both games' CPU batched envs (one thread) with the package under ``tree``: steps/s."""
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "rates.json"
        command = [sys.executable, str(SCALING), "--threads", "1", "--num-envs", str(num_envs),
                   "--seconds", str(seconds), "--repeats", "1", "--json", str(out)]  # fmt: skip
        subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        games = json.loads(out.read_text(encoding="utf-8"))["games"]
    return {f"{game} batched, {num_envs} envs": r["1"]["median"] for game, r in games.items()}


def table(runs: dict[str, list[dict[str, float]]]) -> str:
    """Markdown: median rate per tree, then the median and range of last/first per repeat."""
    first, last = list(runs)[0], list(runs)[-1]
    names = [n for n in runs[first][0] if all(n in r for rs in runs.values() for r in rs)]
    head = " | ".join(f"{t} (median/s)" for t in runs)
    lines = [
        f"| workload | {head} | {last} / {first}, median | range |",
        "|---|" + "---:|" * (len(runs) + 2),
    ]
    for name in names:
        medians = " | ".join(f"{statistics.median(r[name] for r in runs[t]):,.0f}" for t in runs)
        ratios = [b[name] / a[name] for a, b in zip(runs[first], runs[last], strict=True)]
        lines.append(
            f"| {name} | {medians} | {statistics.median(ratios):.3f} | "
            f"{min(ratios):.3f}–{max(ratios):.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    """Measure, print and return the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tree", action="append", required=True, metavar="NAME=PATH", help="repeatable"
    )
    parser.add_argument("--repeats", type=int, default=5, help="runs per tree (default 5)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per workload")
    parser.add_argument("--out", type=Path, default=None, help="also write the table here")
    parser.add_argument(
        "--batched", type=int, default=0, metavar="N", help="also time the batched envs at N games"
    )
    args = parser.parse_args(argv)
    trees = dict(t.split("=", 1) for t in args.tree)
    if len(trees) < 2:
        parser.error("give at least two --tree NAME=PATH")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for repeat in range(args.repeats):
        order = list(trees) if repeat % 2 == 0 else list(reversed(trees))
        for name in order:
            rates = measure(Path(trees[name]), args.seconds)
            if args.batched:
                rates.update(measure_batched(Path(trees[name]), args.seconds, args.batched))
            runs[name].append(rates)
    command = "python benchmarks/speed_trees.py " + " ".join(sys.argv[1:] if argv is None else argv)
    text = f"Command: `{command}`\n\n{table(runs)}\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return text


if __name__ == "__main__":
    main()
