"""Where a lost `pimc` game stands when no determinization in its pool is won any more.

Each deal that ``--agent`` lost in a fair-agents results file (``--results``, written by
``scorpion_fair_agents.py``), or each of ``--only``, is replayed exactly as that benchmark
plays it (:func:`shell_envs.bench.patience.play_deal`, agent seed 0).  At the first decision
that leaves no determinization of the agent's pool won, the real position there (before that
move) is solved with every card visible on ``--full-nodes``: ``lost`` means an earlier move
decided the game, ``won`` that a larger budget once nothing is won could have saved it, and
``unknown`` a position too large to settle.  Deals where some determinization stays won to the
end are counted as ``never``::

    python benchmarks/scorpion_pimc_stuck.py --rules relaxed \\
        --out benchmarks/results/scorpion_pimc_stuck_relaxed
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from shell_envs.agents import make_agent
from shell_envs.agents.scorpion import ScorpionView
from shell_envs.bench.patience import play_deal
from shell_envs.scorpion import rules, solver
from shell_envs.scorpion.state import ScorpionState


class PoolWatch:
    """Wraps a `pimc` agent, records its moves and the first decision after which no
    determinization in its pool is won (with the hidden cards and the pool's verdicts)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.actions: list[int] = []
        self.stuck: dict[str, Any] | None = None

    def reset(self, seed: int | None = None) -> None:
        """Reset the wrapped agent."""
        self.agent.reset(seed)

    def act_with_state(self, view: ScorpionView, action_mask: np.ndarray) -> int:
        """The wrapped agent's move; notes the first one that leaves no sample won."""
        action = self.agent.act_with_state(view, action_mask)
        verdicts = Counter(sample.verdict for sample in self.agent._pool)
        if self.stuck is None and verdicts and not verdicts[solver.WON]:
            self.stuck = {"move": len(self.actions), "hidden": len(view.unseen),
                          "pool": dict(sorted(verdicts.items()))}  # fmt: skip
        self.actions.append(action)
        return action


def trace(agent: str, deal: int, rules_name: str, full_nodes: int) -> dict[str, Any]:
    """One replayed game of ``agent`` on ``deal``: its end, and where its pool stopped winning
    with the real verdict there (``never`` when it did not)."""
    watch = PoolWatch(make_agent("scorpion", agent, seed=0, rules=rules_name))
    won, _, moves, end = play_deal(watch, deal, rules_name)
    row: dict[str, Any] = {"deal": deal, "won": won, "end": end, "moves": moves}
    if watch.stuck is None:
        return row | {"real": "never"}
    state = ScorpionState.from_number(deal, rules_name)
    for action in watch.actions[: watch.stuck["move"]]:
        rules.apply_action(state.arrays, action)
    real = solver.solve_quick(state, full_nodes).verdict
    return row | watch.stuck | {"real": real, "actions": watch.actions}


def lost_deals(path: Path, rules_name: str, agent: str) -> list[int]:
    """The deals ``agent`` lost under ``rules_name`` in a fair-agents results file."""
    games = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return sorted(
        g["deal"]
        for g in games
        if g["rules"] == rules_name and g["agent"] == agent and not g["won"]
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Replay the lost games, solve where each pool stopped winning, write the results."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="relaxed", choices=rules.RULE_SETS)
    p.add_argument("--agent", default="pimc")
    p.add_argument(
        "--results", type=Path, default=Path("benchmarks/results/scorpion_fair_agents.jsonl")
    )
    p.add_argument("--only", type=int, nargs="+", help="these deals instead of the lost ones")
    p.add_argument("--full-nodes", type=int, default=3_000_000)
    p.add_argument("--out", type=Path, default=Path("scorpion_pimc_stuck"))
    args = p.parse_args(argv)
    deals = args.only or lost_deals(args.results, args.rules, args.agent)
    rows = []
    for deal in deals:
        rows.append(trace(args.agent, deal, args.rules, args.full_nodes))
        print(json.dumps({k: v for k, v in rows[-1].items() if k != "actions"}), flush=True)
    real = Counter(row["real"] for row in rows)
    summary = {"rules": args.rules, "agent": args.agent, "deals": len(rows),
               "won_games": sum(row["won"] for row in rows), "real": dict(sorted(real.items())),
               "one_hidden_unknown": sum(row.get("hidden") == 1 and row["real"] == solver.UNKNOWN
                                         for row in rows)}  # fmt: skip
    print(json.dumps(summary))
    results = {"summary": summary, "deals": rows}
    args.out.with_suffix(".json").write_text(json.dumps(results))
    return results


if __name__ == "__main__":
    main()
