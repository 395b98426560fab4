"""Check the shipped Scorpion verdicts: each pruning switched off in turn, and the reference.

    python benchmarks/scorpion_soundness.py --rules classic relaxed traditional --deals 2000 \\
        --max-nodes 2000000 --reference-deals 200 --reference-nodes 50000 --workers 2

For deals 0 … DEALS-1 the solver is run again with one pruning switched off (each of
:data:`shell_envs.scorpion.solver.PRUNINGS` that the rule set uses, in turn), and for
deals 0 … REFERENCE_DEALS-1 the plain reference search
(:mod:`shell_envs.scorpion.reference`, no pruning at all, in plain Python) is run under its
own node budget.
A verdict that differs from the shipped one (``shell_envs/data/scorpion_verdicts_<rules>.tsv``)
is a bug; ``unknown`` means the budget ran out.  Won lines are replayed in the reference: the
reference search's own, and every shipped winning line
(``shell_envs/data/scorpion_winnable_<rules>.txt``, row "every shipped winning line").
Prints one Markdown table and exits non-zero on any disagreement.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from tqdm import tqdm

from shell_envs.scorpion import reference
from shell_envs.scorpion.solver import PRUNINGS, solve
from shell_envs.scorpion.state import ScorpionState
from shell_envs.scorpion.winnable import deal_verdicts, stored_solution, winnable_seeds


def _check(job: tuple[int, str, str, int, int]) -> tuple[str, str, str]:
    """(variant, shipped verdict, verdict found) for one deal and one variant."""
    seed, rules, variant, max_nodes, ref_nodes = job
    if variant == "replay":
        state = reference.from_position(ScorpionState.from_number(seed, rules).position())
        line = list(stored_solution(rules, seed) or ())
        verdict = "won" if reference.replay(state, rules, line) else "lost"
    elif variant == "reference":
        state = reference.from_position(ScorpionState.from_number(seed, rules).position())
        found = reference.search(state, rules, ref_nodes)
        assert found.verdict != "won" or reference.replay(state, rules, found.line)
        verdict = found.verdict
    else:
        verdict = solve(seed, rules=rules, max_nodes=max_nodes, disable=[variant]).verdict
    return variant, deal_verdicts(rules)[seed].verdict, verdict


def main(argv: list[str] | None = None) -> int:
    """Run the checks and print the table; returns 1 if any verdict disagrees."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=["classic", "relaxed"])
    ap.add_argument("--deals", type=int, default=2000, help="deals 0 … DEALS-1")
    ap.add_argument("--max-nodes", type=int, default=2_000_000, help="solver budget")
    ap.add_argument("--reference-deals", type=int, default=200, help="deals for the reference")
    ap.add_argument("--reference-nodes", type=int, default=50_000, help="reference budget")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    # the prunings a rule set does not use: switching them off changes nothing
    only = {
        "classic": ("stuck", "starved"),
        "relaxed": ("cyclic", "safe_move"),
        "traditional": ("stuck", "starved"),
    }
    print(
        "| rules | switched off | deals | agree | unknown | disagree |\n|---|---|---|---|---|---|"
    )
    bad = 0
    for rules in args.rules:
        variants = [*(p for p in PRUNINGS if p not in only[rules]), "reference", "replay"]
        seeds = {
            "reference": range(args.reference_deals),
            "replay": winnable_seeds(rules),
        }
        jobs = [
            (seed, rules, v, args.max_nodes, args.reference_nodes)
            for v in variants
            for seed in seeds.get(v, range(args.deals))
        ]
        counts: dict[str, Counter] = {v: Counter() for v in variants}
        with ProcessPoolExecutor(args.workers) as pool:
            results = pool.map(_check, jobs, chunksize=8)
            for variant, shipped, found in tqdm(results, total=len(jobs), desc=rules):
                kind = "unknown" if found == "unknown" else "agree" if found == shipped else "bad"
                counts[variant][kind] += 1
        for v in variants:
            c = counts[v]
            bad += c["bad"]
            name = {
                "reference": "everything (reference)",
                "replay": "every shipped winning line (reference replay)",
            }.get(v, v)
            n = sum(c.values())
            print(f"| {rules} | {name} | {n} | {c['agree']} | {c['unknown']} | {c['bad']} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
