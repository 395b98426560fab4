"""Write the shipped per-deal verdicts and winnable-deal lists from the winnability study.

    python benchmarks/scorpion_winnable_seeds.py --results results/scorpion_winnability \\
        --rules classic relaxed --limit 2000

Reads ``RESULTS_<rules>.jsonl`` and writes, under ``shell_envs/data/``,
``scorpion_verdicts_<rules>.tsv`` (every deal: seed, verdict, nodes, winning line length) and
``scorpion_winnable_<rules>.txt`` (the lowest LIMIT won deals: seed, then the winning line as
env actions).  A study with an ``unknown`` deal is refused: every shipped verdict is decided.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "shell_envs" / "data"


def study_records(path: Path) -> list[dict]:
    """Every record of a study file, by seed (the last record of a seed wins)."""
    records: dict[int, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        records[int(rec["seed"])] = rec
    undecided = [s for s, r in records.items() if r["verdict"] not in ("won", "lost")]
    if undecided:
        raise SystemExit(f"{path}: {len(undecided)} deals undecided, e.g. {undecided[:5]}")
    return [records[s] for s in sorted(records)]


def write_verdicts(rules: str, records: list[dict], out_dir: Path) -> Path:
    """Write the per-deal verdict table of one rule set; returns its path."""
    header = (
        f"# Scorpion ({rules}) verdicts of shell_envs.scorpion.solver on deals "
        f"{records[0]['seed']} … {records[-1]['seed']}; re-check one with "
        "`shell-envs solve --seed N --check`.\n"
        "seed\tverdict\tnodes\tline_length\n"
    )
    body = "".join(
        f"{r['seed']}\t{r['verdict']}\t{r['nodes']}\t{len(r['moves'])}\n" for r in records
    )
    path = out_dir / f"scorpion_verdicts_{rules}.tsv"
    path.write_text(header + body, encoding="utf-8")
    return path


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
    ap.add_argument("--rules", nargs="+", default=["classic", "relaxed", "traditional"])
    ap.add_argument("--limit", type=int, default=None, help="keep the lowest LIMIT seeds")
    ap.add_argument("--out-dir", default=str(DATA))
    args = ap.parse_args(argv)
    for rules in args.rules:
        records = study_records(Path(f"{args.results}_{rules}.jsonl"))
        table = write_verdicts(rules, records, Path(args.out_dir))
        won = [r for r in records if r["verdict"] == "won"]
        path = write_list(rules, won, args.limit, Path(args.out_dir))
        print(f"{rules}: {len(records)} verdicts → {table}; ", end="")
        print(f"{min(len(won), args.limit or len(won))} winnable seeds → {path}")


if __name__ == "__main__":
    main()
