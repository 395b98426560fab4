"""Two Scorpion agents on the same deals, paired: by default ``learned`` against ``greedy``.

    python benchmarks/scorpion_fair_agents.py --rules classic --first 5000 --deals 1000 \\
        --agents learned greedy --out benchmarks/results/scorpion_learned
    python benchmarks/scorpion_learned.py --games benchmarks/results/scorpion_learned.jsonl
    python benchmarks/scorpion_learned.py --games benchmarks/results/scorpion_fair_agents.jsonl \\
        --agent pimc --against lookahead

Reads the games the fair-agents bench recorded (one JSON line per game) and writes, per rule
set, each agent's win rate with its Wilson 95% interval and mean score with a t 95% interval,
then the paired comparison on the deals both played: the mean score difference with a paired
t 95% interval, and the deals only one of them won with an exact binomial (McNemar) test.
Writes the Markdown next to the games file (``_paired.md``) and prints it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from shell_envs.bench.tournament import wilson_interval


def summary(games: list[dict[str, Any]], rules: str, agent: str, other: str) -> list[str]:
    """The Markdown lines of one rule set: both agents, then the paired differences."""
    by = {
        name: {g["deal"]: g for g in games if g["rules"] == rules and g["agent"] == name}
        for name in (agent, other)
    }
    deals = sorted(set(by[agent]) & set(by[other]))
    if len(deals) < 2:
        return []
    lines = [
        f"### {rules}: `{agent}` against `{other}`, {len(deals):,} deals ({deals[0]}–{deals[-1]})",
        "",
        "| agent | wins | win rate [Wilson 95%] | mean score [t 95%] |",
        "|---|---:|---|---|",
    ]
    scores = {}
    for name in (agent, other):
        won = np.array([by[name][d]["won"] for d in deals], bool)
        scores[name] = np.array([by[name][d]["score"] for d in deals], float)
        low, high = wilson_interval(int(won.sum()), len(deals))
        mean = scores[name].mean()
        s_low, s_high = stats.t.interval(
            0.95, len(deals) - 1, loc=mean, scale=stats.sem(scores[name])
        )
        lines.append(
            f"| {name} | {int(won.sum())} | {won.mean():.1%} [{low:.1%}, {high:.1%}] "
            f"| {mean:.1f} [{s_low:.1f}, {s_high:.1f}] |"
        )
    paired = stats.ttest_rel(scores[agent], scores[other])
    ci = paired.confidence_interval(0.95)
    diff = scores[agent] - scores[other]
    only = [sum(by[a][d]["won"] and not by[b][d]["won"] for d in deals) for a, b in
            ((agent, other), (other, agent))]  # fmt: skip
    mcnemar = stats.binomtest(only[0], only[0] + only[1]) if sum(only) else None
    lines += [
        "",
        f"- mean score difference ({agent} − {other}), paired: {diff.mean():+.1f} "
        f"[{ci.low:+.1f}, {ci.high:+.1f}] (t 95%, p = {paired.pvalue:.2g}); "
        f"{agent} scored more on {int((diff > 0).sum())} deals, less on "
        f"{int((diff < 0).sum())}, the same on {int((diff == 0).sum())}",
        f"- deals won by {agent} only: {only[0]}; by {other} only: {only[1]}"
        + (f" (exact McNemar p = {mcnemar.pvalue:.2g})" if mcnemar else ""),
        "",
    ]
    return lines


def main(argv: list[str] | None = None) -> str:
    """Parse the arguments (``argv``, else the command line), write, print and return the
    paired report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--games", type=Path, default=Path("benchmarks/results/scorpion_learned.jsonl")
    )
    parser.add_argument("--agent", default="learned")
    parser.add_argument("--against", default="greedy")
    args = parser.parse_args(argv)
    games = [
        json.loads(line) for line in args.games.read_text(encoding="utf-8").splitlines() if line
    ]
    lines = [f"# `{args.agent}` against `{args.against}`, paired on the same deals", ""]
    for rules in ("classic", "relaxed"):
        lines += summary(games, rules, args.agent, args.against)
    lines.append(
        f"Command: `python benchmarks/scorpion_learned.py --games {args.games} "
        f"--agent {args.agent} --against {args.against}`"
    )
    text = "\n".join(lines) + "\n"
    args.games.with_name(args.games.stem + "_paired.md").write_text(text, encoding="utf-8")
    print(text)
    return text


if __name__ == "__main__":
    main()
