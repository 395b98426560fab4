"""Where a fair Scorpion agent loses a winnable deal, and whether a fair player could have known.

For each winnable deal the agent loses, the game is replayed and, after each move, the real
position is solved with every card visible (:func:`solver.solve_quick`, ``--full-nodes``): the
deciding move is the first one after which the deal is no longer proven winnable (``after``:
proven lost, or unknown when the budget ran out, as it can early under Relaxed, where the real
deciding move may then come later; ``proven_lost`` counts the first kind).  At that
decision every legal move is then solved in ``--samples`` fresh determinizations of what the
player saw (``--nodes`` each), the share a fair player can estimate.  A loss where the move
played had the best share (within ``--margin``) was a guess a fair player could not avoid; one
where another move had a clearly better share is a mistake of the agent::

    python benchmarks/scorpion_pimc_losses.py --rules classic --first 0 --deals 40 \\
        --out benchmarks/results/scorpion_pimc_losses_classic
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym
import numpy as np

import shell_envs  # noqa: F401  (registers the envs)
from shell_envs.agents import make_agent
from shell_envs.agents.scorpion import ScorpionView
from shell_envs.bench.games import play_scorpion
from shell_envs.bench.patience import MAX_MOVES, STALL_MOVES
from shell_envs.scorpion import solver
from shell_envs.scorpion.state import ScorpionState
from shell_envs.scorpion.winnable import winnable_seeds


def positions(rules: str, deal: int, actions: list[int]) -> list[tuple[ScorpionState, np.ndarray]]:
    """The real position (and its legal mask) before each of ``actions`` and after the last."""
    env = gym.make("shell_envs/Scorpion-v0", rules=rules, max_moves=MAX_MOVES)
    _, info = env.reset(seed=deal)
    out = [(env.unwrapped.get_state(), info["action_mask"])]
    for action in actions:
        _, _, _, _, info = env.step(action)
        out.append((env.unwrapped.get_state(), info["action_mask"]))
    return out


def deciding_move(
    played: list[tuple[ScorpionState, np.ndarray]], nodes: int
) -> tuple[int | None, str]:
    """The index of the first move after which the real deal is not proven winnable, and the
    verdict there (lost, or unknown when the budget ran out: then the move may not decide)."""
    for i, (state, _) in enumerate(played[1:]):
        verdict = solver.solve_quick(state, nodes).verdict
        if verdict != solver.WON:
            return i, verdict
    return None, solver.WON


def shares(state: ScorpionState, mask: np.ndarray, seed: int, args: argparse.Namespace):
    """Each legal move's real verdict and its won share over fresh determinizations."""
    view = ScorpionView.from_state(state, check=False)
    rng = np.random.default_rng(seed)
    samples = [view.determinize(rng) for _ in range(args.samples)]
    out = {}
    for move in np.flatnonzero(mask).tolist():
        real = solver.solve_children(state, [move], args.full_nodes)[0].verdict
        won = sum(
            solver.solve_children(s, [move], args.nodes)[0].verdict == solver.WON for s in samples
        )
        out[move] = {"real": real, "share": won / args.samples}
    return len(view.unseen), out


def main(argv: list[str] | None = None) -> dict:
    """Play, find the deciding moves, write the results; returns them."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic", choices=("classic", "relaxed"))
    p.add_argument("--agent", default="pimc")
    p.add_argument("--first", type=int, default=0, help="first deal number (dev: 0)")
    p.add_argument("--deals", type=int, default=40, help="winnable deals from --first")
    p.add_argument("--samples", type=int, default=60)
    p.add_argument("--nodes", type=int, default=200_000)
    p.add_argument("--full-nodes", type=int, default=2_000_000)
    p.add_argument("--margin", type=float, default=0.05)
    p.add_argument("--out", type=Path, default=Path("scorpion_pimc_losses"))
    args = p.parse_args(argv)
    deals = [d for d in sorted(winnable_seeds(args.rules)) if d >= args.first][: args.deals]
    rows = []
    for deal in deals:
        agent = make_agent("scorpion", args.agent, seed=0, rules=args.rules)
        record, _ = play_scorpion(agent, deal, args.rules, deal, MAX_MOVES, STALL_MOVES, True)
        if record["won"]:
            rows.append({"deal": deal, "won": True})
            continue
        played = positions(args.rules, deal, record["actions"])
        at, after = deciding_move(played, args.full_nodes)
        row = {"deal": deal, "won": False, "end": record["end"], "move": at, "after": after}
        if at is not None:
            hidden, moves = shares(*played[at], deal, args)
            move = record["actions"][at]
            best = max(m["share"] for m in moves.values())
            row |= {"hidden": hidden, "played": move, "played_share": moves[move]["share"],
                    "best_share": best, "guess": moves[move]["share"] >= best - args.margin,
                    "moves": moves}  # fmt: skip
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "moves"}), flush=True)
    lost = [r for r in rows if not r["won"]]
    guesses = sum(bool(r.get("guess")) for r in lost)
    proven = sum(r["after"] == solver.LOST for r in lost)
    summary = {"rules": args.rules, "agent": args.agent, "winnable": len(rows),
               "won": len(rows) - len(lost), "lost": len(lost), "guesses": guesses,
               "proven_lost": proven}  # fmt: skip
    print(json.dumps(summary))
    results = {"summary": summary, "deals": rows}
    args.out.with_suffix(".json").write_text(json.dumps(results))
    return results


if __name__ == "__main__":
    main()
