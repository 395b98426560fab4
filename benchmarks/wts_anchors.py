"""Fit (or re-check) the anchors of What the Shell's fixed rating scale.

A round robin of the anchor agents (:data:`shell_envs.bench.scale.ANCHOR_SPECS`), seats
swapped, gives Bradley–Terry ratings with ``random`` = 0 and percentile-bootstrap intervals;
``--out`` writes them as the shipped table (``shell_envs/data/wts_anchors.json``).  ``--check``
plays a fresh round robin with another seed and checks that the table is reproduced: each
fresh rating inside the table's interval and each table rating inside the fresh interval.

    python benchmarks/wts_anchors.py --games-per-pair 300 --workers 2 \
        --out shell_envs/data/wts_anchors.json
    python benchmarks/wts_anchors.py --check --games-per-pair 100 --seed 1 --workers 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from shell_envs import __version__
from shell_envs.agents.spec import parse_spec
from shell_envs.bench import games, scale, tournament
from shell_envs.bench.runner import MAX_ROUNDS, Task, default_workers, play_tasks, warm_up


def round_robin(
    specs: list[str], games_per_pair: int, seed: int, workers: int, progress: bool = True
) -> tuple[list[tournament.GameResult], float]:
    """Play the round robin; the results and the wall seconds it took."""
    agents = [parse_spec(s) for s in specs]
    matches = tournament.schedule(len(agents), games_per_pair, seed)
    plan = [
        Task(
            "what_the_shell",
            games.play_match,
            (agents[m.black], agents[m.white], m.seed, MAX_ROUNDS, True, k),
        )
        for k, m in enumerate(matches)
    ]
    warm_up(["what_the_shell"], agents=agents, echo=print)
    start = time.perf_counter()
    records, _, interrupted = play_tasks(plan, workers, progress, seed)
    if interrupted:
        sys.exit("interrupted")
    results = [
        tournament.GameResult(m.black, m.white, records[k]["outcome"], records[k]["rounds"])
        for k, m in enumerate(matches)
    ]
    return results, time.perf_counter() - start


def fit(
    specs: list[str], results: list[tournament.GameResult], games_per_pair: int, seed: int
) -> scale.AnchorTable:
    """The anchor table of a round robin (``random`` = 0, 95% bootstrap intervals)."""
    labels = [parse_spec(s).label for s in specs]
    ratings = tournament.bradley_terry(len(specs), results, labels.index("random"), seed=seed)
    per_agent = games_per_pair * (len(specs) - 1)
    anchors = tuple(
        scale.Anchor(
            labels[i],
            parse_spec(specs[i]).spec,
            round(float(ratings.elo[i]), 1),
            (round(float(ratings.low[i]), 1), round(float(ratings.high[i]), 1)),
            per_agent,
        )
        for i in range(len(specs))
    )
    return scale.AnchorTable(
        tuple(sorted(anchors, key=lambda a: a.rating)),
        reference=f"round robin, {games_per_pair} games per pair, seed {seed}",
        date=datetime.now(timezone.utc).date().isoformat(),
        version=__version__,
        games_per_pair=games_per_pair,
        seed=seed,
        max_rounds=MAX_ROUNDS,
    )


def consistent(table: scale.AnchorTable, fresh: scale.AnchorTable) -> list[str]:
    """The anchors whose ratings fall outside the other fit's interval (empty: reproduced)."""
    bad = []
    for label in table.labels:
        a, b = table[label], fresh[label]
        if not (b.ci[0] <= a.rating <= b.ci[1] and a.ci[0] <= b.rating <= a.ci[1]):
            bad.append(
                f"{label}: table {a.rating:+.0f} [{a.ci[0]:+.0f}, {a.ci[1]:+.0f}], "
                f"fresh {b.rating:+.0f} [{b.ci[0]:+.0f}, {b.ci[1]:+.0f}]"
            )
    return bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-per-pair", type=int, default=300, help="games per pair")
    parser.add_argument("--seed", type=int, default=0, help="round-robin seed")
    parser.add_argument("--workers", type=int, default=default_workers(), help="processes")
    parser.add_argument("--out", type=Path, help="write the table here (JSON)")
    parser.add_argument(
        "--check", action="store_true", help="play afresh and check the shipped table"
    )
    args = parser.parse_args()
    specs = list(scale.ANCHOR_SPECS)
    results, seconds = round_robin(specs, args.games_per_pair, args.seed, args.workers)
    table = fit(specs, results, args.games_per_pair, args.seed)
    print(f"{len(results)} games in {seconds:.0f} s on {args.workers} worker(s)")
    for a in table.anchors:
        print(f"  {a.label:10s} {a.rating:+7.1f}  [{a.ci[0]:+7.1f}, {a.ci[1]:+7.1f}]")
    if args.out:
        args.out.write_text(json.dumps(table.to_dict(), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    if args.check:
        bad = consistent(scale.anchor_table(), table)
        print("reproduced" if not bad else "NOT reproduced:\n  " + "\n  ".join(bad))
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
