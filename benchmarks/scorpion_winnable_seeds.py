"""Write the shipped winnable-deal lists from the winnability study's results.

    python benchmarks/scorpion_winnable_seeds.py --results results/scorpion_winnability \\
        --rules classic relaxed --limit 1000

Reads ``RESULTS_<rules>.jsonl`` and writes ``shell_envs/data/scorpion_winnable_<rules>.txt``:
one proven-winnable deal per line, ``seed`` followed by its winning line as env actions.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "shell_envs" / "data"


def winnable_records(path: Path) -> list[dict]:
    """The won records of a study file, by seed."""
    records: dict[int, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if rec.get("verdict") == "won":
            records[int(rec["seed"])] = rec
    return [records[s] for s in sorted(records)]


def write_list(rules: str, records: list[dict], limit: int | None, out_dir: Path) -> Path:
    """Write the seed list of one rule set; returns its path."""
    chosen = records if limit is None else records[:limit]
    header = (
        f"# Scorpion ({rules}) deal numbers proven winnable by shell_envs.scorpion.solver;\n"
        "# each line: seed, then a winning line as env actions (card * 7 + column, 364 = deal).\n"
    )
    body = "".join(f"{r['seed']} {' '.join(map(str, r['moves']))}\n" for r in chosen)
    path = out_dir / f"scorpion_winnable_{rules}.txt"
    path.write_text(header + body, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and write the lists."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results/scorpion_winnability")
    ap.add_argument("--rules", nargs="+", default=["classic", "relaxed"])
    ap.add_argument("--limit", type=int, default=None, help="keep the lowest LIMIT seeds")
    ap.add_argument("--out-dir", default=str(DATA))
    args = ap.parse_args(argv)
    for rules in args.rules:
        records = winnable_records(Path(f"{args.results}_{rules}.jsonl"))
        path = write_list(rules, records, args.limit, Path(args.out_dir))
        print(f"{rules}: {min(len(records), args.limit or len(records))} seeds → {path}")


if __name__ == "__main__":
    main()
