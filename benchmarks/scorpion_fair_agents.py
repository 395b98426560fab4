"""Fair Scorpion agents against the thoughtful ceiling, on the bench's numbered deals.

    python benchmarks/scorpion_fair_agents.py --rules classic relaxed --first 5000 --deals 1000 \\
        --agents pimc --out benchmarks/results/scorpion_fair_agents

Every agent plays each deal exactly as the bench does (:func:`shell_envs.bench.patience.
play_deal`; ``--workers`` processes, one game at a time each), deciding from a
:class:`~shell_envs.agents.scorpion.ScorpionView` only.  The bench's ``test`` deals are
numbers 5000–9999 (``dev``, 0–4999, is for tuning).  Each game goes to ``OUT.jsonl`` as it
ends (agent, rules, deal, won, score, moves, seconds spent deciding; each process compiles
first, untimed), so a stopped run resumes where it left off.  The Markdown table (``OUT.md``)
gives per rule and agent: deals, win rate with a Wilson 95% interval, the share of the
winnable deals won, mean score, mean moves, mean decision time per move, and the thoughtful
ceiling of the same deals (the share the shipped solver verdicts,
:func:`shell_envs.scorpion.winnable.deal_verdicts`, prove winnable).  With ``--winnable`` only
the deals proven winnable are played (no fair agent wins another), which makes comparing agents
under Classic about eight times cheaper; the win rate is then over winnable deals.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from shell_envs.agents import make_agent
from shell_envs.bench.patience import play_deal
from shell_envs.bench.tournament import wilson_interval
from shell_envs.scorpion.solver import WON
from shell_envs.scorpion.winnable import deal_verdicts


class TimedAgent:
    """Wraps an agent and adds up the seconds its decisions take."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds = 0.0

    def reset(self, seed: int | None = None) -> None:
        """Reset the wrapped agent."""
        self.agent.reset(seed)

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """The wrapped agent's action, timed."""
        t0 = time.perf_counter()
        action = self.agent.act(observation, action_mask)
        self.seconds += time.perf_counter() - t0
        return action

    def act_with_state(self, state: Any, action_mask: np.ndarray) -> int:
        """The wrapped agent's action from the view, timed."""
        t0 = time.perf_counter()
        action = self.agent.act_with_state(state, action_mask)
        self.seconds += time.perf_counter() - t0
        return action


def warm(rules: str, agent_name: str) -> None:
    """Compile what ``agent_name`` runs, untimed: a few moves of a deal far from every set."""
    play_deal(make_agent("scorpion", agent_name, seed=0, rules=rules), 2**40, rules, max_moves=5)


def play(rules: str, agent_name: str, deal: int) -> dict[str, Any]:
    """One game of ``agent_name`` on ``deal``, as its JSON record (seconds spent deciding)."""
    agent = TimedAgent(make_agent("scorpion", agent_name, seed=0, rules=rules))
    won, score, moves, end = play_deal(agent, deal, rules)
    game = {"rules": rules, "agent": agent_name, "deal": deal, "won": won}
    game.update(score=score, moves=moves, end=end, seconds=agent.seconds)
    return game


def run(rules: str, agent_name: str, deals: list[int], path: Path, workers: int = 1) -> None:
    """Play ``deals`` not yet in ``path`` (on ``workers`` processes) and append one JSON line
    per game as it ends."""
    done = {(g["rules"], g["agent"], g["deal"]) for g in read_games(path)}
    todo = [d for d in deals if (rules, agent_name, d) not in done]
    if not todo:
        return
    with (
        path.open("a", encoding="utf-8") as out,
        ProcessPoolExecutor(workers, initializer=warm, initargs=(rules, agent_name)) as pool,
    ):
        futures = [pool.submit(play, rules, agent_name, deal) for deal in todo]
        for future in as_completed(futures):
            out.write(json.dumps(future.result()) + "\n")
            out.flush()


def read_games(path: Path) -> list[dict[str, Any]]:
    """The games recorded in ``path`` (none when it does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def winnable_deals(rules: str, deals: list[int]) -> list[int]:
    """The deals of ``deals`` that the shipped verdicts prove winnable under ``rules``."""
    verdicts = deal_verdicts(rules)
    return [d for d in deals if verdicts[d].verdict == WON]


def table(games: list[dict[str, Any]], deals: list[int], winnable_only: bool = False) -> str:
    """The Markdown table of ``games`` restricted to ``deals`` (with ``winnable_only``, to
    those of them proven winnable under each game's rule)."""
    wanted = set(deals)
    lines = [
        "| rules | agent | deals | win rate [Wilson 95%] | winnable deals won | mean score "
        "| mean moves | decision time per move | thoughtful ceiling [Wilson 95%] |",
        "|---|---|---:|---|---:|---:|---:|---:|---|",
    ]
    keys = sorted({(g["rules"], g["agent"]) for g in games if g["deal"] in wanted})
    for rules, agent in keys:
        verdicts = deal_verdicts(rules)
        rows = [g for g in games if (g["rules"], g["agent"]) == (rules, agent)]
        rows = [g for g in rows if g["deal"] in wanted]
        if winnable_only:
            rows = [g for g in rows if verdicts[g["deal"]].verdict == WON]
        n = len(rows)
        wins = sum(g["won"] for g in rows)
        winnable = [g for g in rows if verdicts[g["deal"]].verdict == WON]
        low, high = wilson_interval(wins, n)
        c_low, c_high = wilson_interval(len(winnable), n)
        won_winnable = sum(g["won"] for g in winnable)
        share = won_winnable / len(winnable) if winnable else 0.0
        moves = sum(g["moves"] for g in rows)
        ms = 1000 * sum(g["seconds"] for g in rows) / max(moves, 1)
        lines.append(
            f"| {rules} | {agent} | {n:,} | {wins / n:.1%} [{low:.1%}, {high:.1%}] "
            f"| {won_winnable}/{len(winnable)} ({share:.0%}) "
            f"| {np.mean([g['score'] for g in rows]):.1f} | {moves / n:.1f} | {ms:.1f} ms "
            f"| {len(winnable) / n:.1%} [{c_low:.1%}, {c_high:.1%}] |"
        )
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments, play what is missing, write and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", nargs="+", default=["classic", "relaxed"])
    parser.add_argument("--agents", nargs="+", default=["pimc"])
    parser.add_argument("--first", type=int, default=5000, help="first deal number (test: 5000)")
    parser.add_argument("--deals", type=int, default=1000, help="how many deals from --first")
    parser.add_argument("--out", default="benchmarks/results/scorpion_fair_agents")
    parser.add_argument("--workers", type=int, default=1, help="processes playing deals")
    parser.add_argument("--report", action="store_true", help="only write the table")
    parser.add_argument(
        "--winnable",
        action="store_true",
        help="only the deals proven winnable under each rule (no agent wins the others)",
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    games_path = out.with_suffix(".jsonl")
    deals = list(range(args.first, args.first + args.deals))
    if not args.report:
        for rules in args.rules:
            todo = winnable_deals(rules, deals) if args.winnable else deals
            for agent in args.agents:
                run(rules, agent, todo, games_path, args.workers)
    which = "winnable deals" if args.winnable else "deals"
    text = (
        f"Scorpion fair agents, {which} {args.first}–{args.first + args.deals - 1}, "
        f"{datetime.date.today()}\n\n{table(read_games(games_path), deals, args.winnable)}\n\n"
        f"Command: `python benchmarks/scorpion_fair_agents.py --rules {' '.join(args.rules)} "
        f"--first {args.first} --deals {args.deals} --agents {' '.join(args.agents)}"
        f"{' --winnable' if args.winnable else ''}`\n"
    )
    out.with_suffix(".md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
