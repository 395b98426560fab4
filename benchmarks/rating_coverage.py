"""How often the bench's 95% intervals hold the truth: its ratings and its Scorpion win rates.

    python benchmarks/rating_coverage.py --reps 4000 --played 30 --workers 2 \\
        --out benchmarks/results/rating_coverage

**What the Shell.**  Each anchor is re-rated under another name, as ``shell-envs bench --agent
g2=greedy`` would (its games against all seven anchors, itself included, ``--games`` 4, 10, 20
and 100 each), ``--reps`` times, and the share of intervals holding the anchor's table rating
is its coverage.  The games are drawn from the anchors' own round robin
(``benchmarks/results/wts_anchors_pairs.json``, 300 games a pair from the opening book, the
fit behind the shipped table): a game of the re-named anchor against another anchor is a
draw from that pair's recorded wins, draws and losses, which is what playing it afresh would
give.  A game against itself is a fair coin (no draws: for a score that averages ½ the
widest spread, the hardest case).  Rating and interval are
:func:`shell_envs.bench.scale.rate_on_scale`'s.

``--played K`` ties the resampling to the real bench: ``K`` benches through the bench's own
code (:func:`shell_envs.bench.runner.run`, seeds 0 … K-1) of ``g2=greedy``, ``r2=random`` and
``m2=mcts:iterations=100`` against the cheap anchors ``random``, ``greedy`` and ``mcts-100``
only (at the table's ratings), ``--played-games`` games each: each pair's played wins, draws
and losses against the recorded ones (a chi-square test), and the coverage of the played
intervals beside the resampling's for the same setting.

**Scorpion.**  An agent's Wilson interval from ``--deals`` 10, 50, 100 and 500 deals drawn
with replacement from its 1,000 recorded test deals (``benchmarks/results/
scorpion_fair_agents.jsonl``): the share of intervals holding its win rate over the 1,000.

Coverage comes with its Clopper–Pearson 95% interval.  Writes ``OUT.json`` and ``OUT.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest, chi2_contingency

from shell_envs.agents.spec import parse_spec
from shell_envs.bench import runner, scale
from shell_envs.bench.tournament import wilson_interval

RESULTS = Path(__file__).with_name("results")
GAMES = (4, 10, 20, 100)
DEALS = (10, 50, 100, 500)
PLAYED_AGENTS = ("g2=greedy", "r2=random", "m2=mcts:iterations=100")
PLAYED_ANCHORS = ("random", "greedy", "mcts-100")
SELF = np.array([0.5, 0.0, 0.5])  # win, draw, loss of a game against oneself: a fair coin


def recorded_pairs(path: Path = RESULTS / "wts_anchors_pairs.json") -> dict[tuple[str, str], Any]:
    """``(agent, opponent)``: the agent's recorded wins, draws and losses against it."""
    out = {}
    for row in json.loads(path.read_text(encoding="utf-8")):
        wdl = np.array([row["wins"], row["draws"], row["losses"]])
        out[row["agent"], row["opponent"]] = wdl
        out[row["opponent"], row["agent"]] = wdl[::-1]
    return out


def coverage_row(hits: int, n: int) -> dict[str, Any]:
    """A coverage count with its Clopper–Pearson 95% interval."""
    ci = binomtest(hits, n).proportion_ci(0.95, method="exact")
    return {"coverage": hits / n, "ci": [ci.low, ci.high], "n": n}


@cache
def interval(total: float, games: int, anchors: tuple[str, ...]) -> tuple[float, float, float]:
    """Rating and interval of an agent with ``total`` score from ``games`` games against each
    of ``anchors``.  With the anchors held fixed the total score is sufficient: which games
    the score came from does not matter, so any split of it will do."""
    flat = np.zeros(games * len(anchors))
    flat[: int(total)] = 1.0
    if total > int(total):
        flat[int(total)] = 0.5  # a draw
    scores = dict(zip(anchors, flat.reshape(len(anchors), games), strict=True))
    rating, (low, high) = scale.rate_on_scale(scores)
    return rating, low, high


def wts_coverage(
    agent: str,
    anchors: tuple[str, ...],
    games: int,
    reps: int,
    rng: np.random.Generator,
    pairs: dict[tuple[str, str], Any],
) -> dict[str, Any]:
    """Re-rate ``agent`` ``reps`` times from resampled games against ``anchors``."""
    table = scale.anchor_table()
    truth = table[agent].rating
    totals = np.zeros(reps)
    for anchor in anchors:
        wdl = SELF if anchor == agent else pairs[agent, anchor] / pairs[agent, anchor].sum()
        counts = rng.multinomial(games, wdl, size=reps)
        totals += counts[:, 0] + 0.5 * counts[:, 1]
    found = np.array([interval(float(t), games, anchors) for t in totals])
    low, high = found[:, 1], found[:, 2]
    width = high - low
    few = np.array([scale.too_few_games((lo, hi)) for lo, hi in zip(low, high, strict=True)])
    return {
        "agent": agent,
        "games": games,
        "table_rating": truth,
        **coverage_row(int(np.sum((low <= truth) & (truth <= high))), reps),
        "median_width": float(np.median(width)),
        "one_sided": float(np.mean(~np.isfinite(width))),
        "too_few_games": float(np.mean(few)),
    }


def population_ratings(pairs: dict[tuple[str, str], Any]) -> dict[str, float]:
    """Each anchor's rating from its recorded expected score against the table (anchors
    fixed), with as many games against each: what the re-rating converges to."""
    table = scale.anchor_table()
    out = {}
    for agent in table.labels:
        scores = {}
        for anchor in table.labels:
            wdl = SELF if anchor == agent else pairs[agent, anchor] / pairs[agent, anchor].sum()
            scores[anchor] = np.full(300, wdl[0] + 0.5 * wdl[1])
        out[agent] = scale.fit_rating(scores, {a.label: a.rating for a in table.anchors})
    return out


def played_check(
    runs: int, games: int, workers: int, reps: int, rng: np.random.Generator, pairs: dict
) -> dict[str, Any]:
    """``runs`` real benches of :data:`PLAYED_AGENTS` against :data:`PLAYED_ANCHORS`."""
    full = scale.anchor_table()
    table = dataclasses.replace(full, anchors=tuple(full[label] for label in PLAYED_ANCHORS))
    agents = tuple(parse_spec(s) for s in PLAYED_AGENTS)
    names = {a.label: a.spec.replace(":iterations=", "-") for a in agents}  # g2 -> greedy ...
    played: dict[tuple[str, str], np.ndarray] = defaultdict(lambda: np.zeros(3, int))
    hits: dict[str, int] = defaultdict(int)
    for seed in range(runs):
        settings = runner.Settings(
            agents=agents, games=("what_the_shell",), games_per_anchor=games, seed=seed, table=table
        )
        wts = runner.run(settings, workers, progress=False).to_dict()["what_the_shell"]
        for p in wts["pairs"]:
            played[names[p["a"]], p["b"]] += [p["wins_a"], p["draws"], p["wins_b"]]
        for label, r in wts["ratings"].items():
            low, high = (
                math.inf * s if x is None else x for x, s in zip(r["ci"], (-1, 1), strict=True)
            )
            hits[label] += low <= table[names[label]].rating <= high
        print(f"  played bench seed {seed}: {dict(hits)} intervals hold the table rating")
    rows = []
    for (agent, anchor), wdl in sorted(played.items()):
        reference = SELF * wdl.sum() if agent == anchor else pairs.get((agent, anchor))
        row = {"agent": agent, "anchor": anchor, "played": wdl.tolist()}
        if agent != anchor:
            table_2x3 = np.array([wdl, reference])
            keep = table_2x3.sum(axis=0) > 0
            row["recorded"] = reference.tolist()
            row["p_value"] = (
                float(chi2_contingency(table_2x3[:, keep]).pvalue) if keep.sum() > 1 else 1.0
            )
        rows.append(row)
    coverage = []
    for label, name in names.items():
        resampled = wts_coverage(name, PLAYED_ANCHORS, games, reps, rng, pairs)
        coverage.append(
            {
                "agent": f"{label}={name}",
                "played": coverage_row(hits[label], runs),
                "resampled": resampled["coverage"],
            }
        )
    return {
        "runs": runs,
        "games": games,
        "anchors": list(PLAYED_ANCHORS),
        "pairs": rows,
        "coverage": coverage,
    }


def scorpion_coverage(
    reps: int, rng: np.random.Generator, path: Path = RESULTS / "scorpion_fair_agents.jsonl"
) -> list[dict[str, Any]]:
    """Wilson coverage of each recorded agent's win rate on deals drawn from its 1,000."""
    won: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        won[r["rules"], r["agent"]].append(r["won"])
    rows = []
    for (rules, agent), outcomes in sorted(won.items()):
        if len(outcomes) < 1000:
            continue
        truth = float(np.mean(outcomes))
        for deals in DEALS:
            wins = rng.binomial(deals, truth, size=reps)  # deals drawn with replacement
            bounds = {w: wilson_interval(int(w), deals) for w in np.unique(wins)}
            hit = sum(bounds[w][0] <= truth <= bounds[w][1] for w in wins)
            rows.append(
                {
                    "rules": rules,
                    "agent": agent,
                    "deals": deals,
                    "win_rate": truth,
                    **coverage_row(int(hit), reps),
                }
            )
    return rows


def pooled(rows: list[dict[str, Any]], key: str, sizes: tuple[int, ...]) -> list[dict]:
    """Coverage over all agents at each size, with its interval."""
    out = []
    for size in sizes:
        chosen = [r for r in rows if r[key] == size]
        hits = sum(round(r["coverage"] * r["n"]) for r in chosen)
        out.append({key: size, **coverage_row(hits, sum(r["n"] for r in chosen))})
    return out


def pct(x: float) -> str:
    """A share as a percentage, one decimal."""
    return f"{100 * x:.1f}%"


def markdown(data: dict[str, Any]) -> str:
    """The tables of the results."""
    lines = [
        "# Coverage of the bench's 95% intervals",
        "",
        f"Command: `{data['command']}`",
        "",
        f"## What the Shell ratings: anchors re-rated, {data['reps']} resampled benches each",
        "",
        "| --games | coverage, all anchors | Clopper–Pearson 95% |",
        "|---:|---:|---|",
    ]
    for r in data["wts_pooled"]:
        lines.append(
            f"| {r['games']} | {pct(r['coverage'])} | [{pct(r['ci'][0])}, {pct(r['ci'][1])}] |"
        )
    lines += [
        "",
        "| anchor | table rating | re-rated limit | --games | coverage | 95% | median width "
        "| one-sided | too few games |",
        "|---|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in data["wts"]:
        lines.append(
            f"| {r['agent']} | {r['table_rating']:+.0f} | {data['limits'][r['agent']]:+.0f} | "
            f"{r['games']} | {pct(r['coverage'])} | [{pct(r['ci'][0])}, {pct(r['ci'][1])}] | "
            f"{r['median_width']:.0f} | {pct(r['one_sided'])} | {pct(r['too_few_games'])} |"
        )
    played = data.get("played")
    if played:
        lines += [
            "",
            f"## Played benches: {played['runs']} runs, --games {played['games']}, anchors "
            f"{', '.join(played['anchors'])}",
            "",
            "| agent | anchor | played W / D / L | recorded W / D / L | chi-square p |",
            "|---|---|---|---|---:|",
        ]
        for r in played["pairs"]:
            rec = " / ".join(map(str, r["recorded"])) if "recorded" in r else "(itself)"
            p = f"{r['p_value']:.2f}" if "p_value" in r else ""
            lines.append(
                f"| {r['agent']} | {r['anchor']} | {' / '.join(map(str, r['played']))} "
                f"| {rec} | {p} |"
            )
        lines += [
            "",
            "| agent | played coverage | 95% | resampled coverage |",
            "|---|---:|---|---:|",
        ]
        for r in played["coverage"]:
            c = r["played"]
            lines.append(
                f"| {r['agent']} | {pct(c['coverage'])} | [{pct(c['ci'][0])}, "
                f"{pct(c['ci'][1])}] | {pct(r['resampled'])} |"
            )
    lines += [
        "",
        f"## Scorpion win rates: Wilson intervals, {data['reps']} resampled deal sets each",
        "",
        "| --deals | coverage, all agents | Clopper–Pearson 95% | lowest agent |",
        "|---:|---:|---|---:|",
    ]
    for r in data["scorpion_pooled"]:
        worst = min(
            (x for x in data["scorpion"] if x["deals"] == r["deals"]), key=lambda x: x["coverage"]
        )
        lines.append(
            f"| {r['deals']} | {pct(r['coverage'])} | [{pct(r['ci'][0])}, {pct(r['ci'][1])}] | "
            f"{pct(worst['coverage'])} ({worst['rules']} {worst['agent']}, win rate "
            f"{pct(worst['win_rate'])}) |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=4000, help="resampled benches per setting")
    parser.add_argument("--played", type=int, default=0, help="real benches to play (0: none)")
    parser.add_argument("--played-games", type=int, default=10, help="their --games")
    parser.add_argument("--workers", type=int, default=runner.default_workers())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS / "rating_coverage")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    pairs = recorded_pairs()
    labels = tuple(scale.anchor_table().labels)
    command = f"python benchmarks/rating_coverage.py --reps {args.reps} --played {args.played}"
    if args.played:
        command += f" --played-games {args.played_games} --workers {args.workers}"
    data: dict[str, Any] = {"command": command + f" --seed {args.seed}", "reps": args.reps}
    data["limits"] = population_ratings(pairs)
    data["wts"] = []
    for games in GAMES:
        for agent in labels:
            data["wts"].append(wts_coverage(agent, labels, games, args.reps, rng, pairs))
            r = data["wts"][-1]
            print(
                f"{agent:>12s} --games {games:3d}: coverage {pct(r['coverage'])}, "
                f"median width {r['median_width']:.0f}"
            )
    data["wts_pooled"] = pooled(data["wts"], "games", GAMES)
    data["scorpion"] = scorpion_coverage(args.reps, rng)
    data["scorpion_pooled"] = pooled(data["scorpion"], "deals", DEALS)
    if args.played:
        data["played"] = played_check(
            args.played, args.played_games, args.workers, args.reps, rng, pairs
        )
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(data), encoding="utf-8")
    print(markdown(data))
    print(f"wrote {args.out.with_suffix('.json')} and {args.out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
