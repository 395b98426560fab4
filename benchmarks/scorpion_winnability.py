"""Winnability of Scorpion: solve seeded deals exactly and report % winnable with a 95% interval.

    python benchmarks/scorpion_winnability.py --rules classic relaxed traditional \\
        --deals 10000 --workers 2 --max-nodes 20000000 --out results/scorpion_winnability

Each deal's verdict goes to ``OUT_<rules>.jsonl`` as it finishes (seed, verdict, nodes, seconds,
node budget, moves), so a stopped study resumes where it left off: seeds already in the file
are skipped, except those left unknown under a smaller budget, which are solved again.
The Markdown summary (winnable with a Wilson 95% interval, proven lost, unknown, nodes/s,
time) is printed and written to ``OUT.md``.  A node budget keeps every verdict deterministic;
nearly all deals need far less than the default (a 20,000,000-node search takes about a
minute and at most 0.5 GB).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from scipy.stats import norm
from tqdm import tqdm

from shell_envs.scorpion.rules import RULE_SETS
from shell_envs.scorpion.solver import solve


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``k / n``."""
    if n == 0:
        return 0.0, 1.0
    z = float(norm.ppf(0.5 + level / 2))
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _solve_one(job: tuple[int, str, int, float | None]) -> dict:
    """Solve one seed in a worker process; returns the JSONL record."""
    seed, rules, max_nodes, max_seconds = job
    r = solve(seed, rules=rules, max_nodes=max_nodes, max_seconds=max_seconds)
    return {
        "seed": seed,
        "verdict": r.verdict,
        "nodes": r.nodes,
        "seconds": round(r.seconds, 4),
        "max_nodes": max_nodes,
        "moves": r.moves,
    }


def load(path: Path) -> dict[int, dict]:
    """Records already in a results file, by seed (a torn last line is ignored)."""
    records: dict[int, dict] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            records[int(rec["seed"])] = rec
    return records


def decided(record: dict | None, max_nodes: int) -> bool:
    """Whether a stored record settles its seed: a verdict, or unknown under ``max_nodes`` or more.

    An unknown record without a budget (older files) does not count: its seed is solved again.
    """
    if record is None:
        return False
    return record["verdict"] != "unknown" or record.get("max_nodes", 0) >= max_nodes


def run(
    rules: str,
    seeds: range,
    workers: int,
    max_nodes: int,
    max_seconds: float | None,
    path: Path,
) -> float:
    """Solve every seed ``path`` does not decide and append the records; returns the wall time."""
    done = load(path)
    todo = [
        (s, rules, max_nodes, max_seconds) for s in seeds if not decided(done.get(s), max_nodes)
    ]
    t0 = time.perf_counter()
    if not todo:
        return 0.0
    path.parent.mkdir(parents=True, exist_ok=True)
    with (
        path.open("a", encoding="utf-8") as out,
        ProcessPoolExecutor(workers) as pool,
        tqdm(total=len(todo), desc=rules, unit="deal") as bar,
    ):
        for rec in pool.map(_solve_one, todo, chunksize=4):
            out.write(json.dumps(rec) + "\n")
            out.flush()
            bar.update()
    return time.perf_counter() - t0


def summary_row(rules: str, records: list[dict], wall: float) -> dict:
    """The study's figures for one rule set."""
    n = len(records)
    won = sum(r["verdict"] == "won" for r in records)
    lost = sum(r["verdict"] == "lost" for r in records)
    unknown = n - won - lost
    nodes = sum(r["nodes"] for r in records)
    cpu = sum(r["seconds"] for r in records)
    lo, hi = wilson(won, n)
    return {
        "rules": rules,
        "deals": n,
        "won": won,
        "lost": lost,
        "unknown": unknown,
        "winnable_pct": 100 * won / n if n else 0.0,
        "ci95": [100 * lo, 100 * hi],
        "lost_pct": 100 * lost / n if n else 0.0,
        "unknown_pct": 100 * unknown / n if n else 0.0,
        "nodes": nodes,
        "nodes_per_s": nodes / cpu if cpu else 0.0,
        "solve_seconds_sum": cpu,
        "wall_s_this_run": wall,
    }


def markdown(rows: list[dict], command: str, max_nodes: int) -> str:
    """The summary table in Markdown."""
    lines = [
        f"Scorpion winnability, {datetime.date.today().isoformat()}, node budget {max_nodes:,}",
        "",
        "| rules | deals | winnable | 95% CI (Wilson) | proven lost | unknown "
        "| nodes/s | solve time (sum) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['rules']} | {r['deals']:,} | {r['winnable_pct']:.2f}% "
            f"| {r['ci95'][0]:.2f}–{r['ci95'][1]:.2f}% | {r['lost_pct']:.2f}% "
            f"| {r['unknown_pct']:.2f}% | {r['nodes_per_s']:,.0f} "
            f"| {r['solve_seconds_sum'] / 60:.1f} min |"
        )
    lines += ["", f"Command: `{command}`"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run (or resume) the study and print the summary."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=list(RULE_SETS))
    ap.add_argument("--deals", type=int, default=10_000)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--max-nodes", type=int, default=20_000_000)
    ap.add_argument("--max-seconds", type=float, default=None)
    ap.add_argument("--out", default="results/scorpion_winnability")
    ap.add_argument("--summary-only", action="store_true", help="report without solving")
    args = ap.parse_args(argv)
    seeds = range(args.first_seed, args.first_seed + args.deals)
    rows = []
    for rules in args.rules:
        path = Path(f"{args.out}_{rules}.jsonl")
        wall = 0.0
        if not args.summary_only:
            wall = run(rules, seeds, args.workers, args.max_nodes, args.max_seconds, path)
        records = [r for s, r in load(path).items() if s in seeds]
        rows.append(summary_row(rules, records, wall))
    command = "python benchmarks/scorpion_winnability.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    text = markdown(rows, command, args.max_nodes)
    print(text)
    Path(f"{args.out}.md").parent.mkdir(parents=True, exist_ok=True)
    Path(f"{args.out}.md").write_text(text + "\n", encoding="utf-8")
    Path(f"{args.out}.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
