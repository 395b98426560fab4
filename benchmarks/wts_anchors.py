"""Fit (or re-check) the anchors of What the Shell's fixed rating scale
(:mod:`shell_envs.bench.anchors`).

A round robin of the anchor agents (:data:`shell_envs.bench.scale.ANCHOR_SPECS`), in
pairs of games from one opening of the shipped opening book, seats swapped, gives
Bradley–Terry ratings with ``random`` = 0 and percentile-bootstrap intervals; ``--out``
writes them as the shipped table (``shell_envs/data/wts_anchors.json``).  ``--check``
plays a fresh round robin of the same size with another seed and checks that the table is
reproduced: each fresh rating inside the table's interval and each table rating inside the
fresh interval.  (``random`` loses nearly every game, so its gap to the others is set by the
fit's one virtual draw per pair: compare fits of the same size.)

    python benchmarks/wts_anchors.py --games-per-pair 300 --workers 2 \
        --out shell_envs/data/wts_anchors.json --pairs-out benchmarks/results/wts_anchors_pairs.json
    python benchmarks/wts_anchors.py --check --seed 1 --workers 2 \
        --pairs-out benchmarks/results/wts_anchors_pairs_check.json

``--pairs-out`` also writes each pair's head-to-head record (W / D / L, score, the win rate's
Wilson 95% interval).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from shell_envs.agents.spec import parse_spec
from shell_envs.bench import anchors, openings, scale, tournament
from shell_envs.bench.runner import default_workers


def pair_records(specs: list[str], results: list[tournament.GameResult]) -> list[dict]:
    """Each pair's record from the first agent's side: W / D / L, score, win-rate interval."""
    labels = [parse_spec(s).label for s in specs]
    rows = []
    for (i, j), scores in tournament.pair_scores(results).items():
        wins, draws = int((scores == 1.0).sum()), int((scores == 0.5).sum())
        low, high = tournament.wilson_interval(wins, scores.size)
        rows.append(
            {
                "agent": labels[i],
                "opponent": labels[j],
                "games": int(scores.size),
                "wins": wins,
                "draws": draws,
                "losses": int(scores.size) - wins - draws,
                "score": round(float(scores.mean()), 4),
                "win_rate_wilson95": [round(low, 4), round(high, 4)],
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games-per-pair",
        type=int,
        default=None,
        help="games per pair (default: 300, or with --check the shipped table's)",
    )
    parser.add_argument("--seed", type=int, default=0, help="round-robin seed")
    parser.add_argument("--workers", type=int, default=default_workers(), help="processes")
    parser.add_argument("--out", type=Path, help="write the table here (JSON)")
    parser.add_argument(
        "--check", action="store_true", help="play afresh and check the shipped table"
    )
    parser.add_argument("--pairs-out", type=Path, help="write each pair's record here (JSON)")
    args = parser.parse_args()
    specs = list(scale.ANCHOR_SPECS)
    if args.games_per_pair is None:
        args.games_per_pair = scale.anchor_table().games_per_pair if args.check else 300
    book = openings.load()
    results, seconds = anchors.round_robin(
        specs, args.games_per_pair, args.seed, args.workers, book=book
    )
    table = anchors.fit(specs, results, args.games_per_pair, args.seed, book=book)
    print(f"{len(results)} games in {seconds:.0f} s on {args.workers} worker(s)")
    for a in table.anchors:
        print(f"  {a.label:10s} {a.rating:+7.1f}  [{a.ci[0]:+7.1f}, {a.ci[1]:+7.1f}]")
    if args.pairs_out:
        rows = pair_records(specs, results)
        args.pairs_out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
        for r in rows:
            print(
                f"  {r['agent']:>12s} vs {r['opponent']:12s} {r['wins']:3d} / {r['draws']:3d} / "
                f"{r['losses']:3d}  score {100 * r['score']:5.1f}%"
            )
        print(f"wrote {args.pairs_out}")
    if args.out:
        args.out.write_text(json.dumps(table.to_dict(), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    if args.check:
        bad = anchors.consistent(scale.anchor_table(), table)
        print("reproduced" if not bad else "NOT reproduced:\n  " + "\n  ".join(bad))
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
