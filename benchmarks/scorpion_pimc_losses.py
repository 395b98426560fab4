"""Where a fair Scorpion agent loses a winnable deal, and whether a fair player could have known.

For each winnable deal the agent loses, the game is replayed and, after each move, the real
position is solved with every card visible (:func:`solver.solve_quick`, ``--full-nodes``): the
deciding move is the first one after which the deal is no longer proven winnable (``after``:
proven lost, or unknown when the budget ran out, as it can early under Relaxed, where the real
deciding move may then come later; ``proven_lost`` counts the first kind).  At that
decision every legal move is then solved in ``--samples`` fresh determinizations of what the
player saw (``--nodes`` each), the share a fair player can estimate.  A loss where the move
played had the best share (within ``--margin``) was a guess a fair player could not avoid; one
where another move had a clearly better share is a mistake of the agent.  That share is still
a perfect-information measure: a move that turns no card keeps every determinization that is
won, won, however the cards lie (strategy fusion), so it can look better than any move a fair
player can make.  So the deciding move is also rated as a plan: the best share of a move that
turns a card, played after at most ``--prep`` moves that turn none (the same in every
determinization), before the deciding move and after it (``reveal_before``, ``reveal_after``,
on ``--reveal-samples`` determinizations of ``--reveal-nodes`` each); a loss where the move
kept that best share (within ``--margin``) is a ``fair_guess``::

    python benchmarks/scorpion_pimc_losses.py --rules classic --first 0 --deals 40 \\
        --out benchmarks/results/scorpion_pimc_losses_classic
    python benchmarks/scorpion_pimc_losses.py --rules relaxed --full-nodes 20000000 \\
        --samples 40 --nodes 100000 --only 10 74 104 138 161 163 190 193 212 215 222 278 297 \\
        --out benchmarks/results/scorpion_pimc_losses_relaxed
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym
import numpy as np

import shell_envs  # noqa: F401  (registers the envs)
from shell_envs.agents import make_agent
from shell_envs.agents.scorpion import ScorpionView, turns_a_card
from shell_envs.bench.games import play_scorpion
from shell_envs.bench.patience import MAX_MOVES, STALL_MOVES
from shell_envs.scorpion import rules, search, solver
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
        out[move] = {"real": real, "share": won_share(samples, move, args.nodes)}
    return len(view.unseen), out


def won_share(samples: list[ScorpionState], move: int, nodes: int) -> float:
    """The share of ``samples`` in which the solver (``nodes`` each) wins after ``move``."""
    outcomes = (solver.solve_children(s, [move], nodes)[0] for s in samples)
    return sum(o.verdict == solver.WON for o in outcomes) / len(samples)


def best_reveal(samples: list[ScorpionState], depth: int, nodes: int) -> tuple[float, list[int]]:
    """The best won share over ``samples`` (determinizations of one view) of a move that turns
    a card, played after at most ``depth`` moves that turn none: those are the same in every
    determinization, so this is a plan a fair player can follow up to its next reveal (after
    it, each determinization's solve still knows the cards)."""
    seen: set[int] = set()
    best: tuple[float, list[int]] = (0.0, [])
    moves = np.empty(rules.N_ACTIONS, np.int64)

    def visit(states: list[ScorpionState], path: list[int], left: int) -> None:
        nonlocal best
        first = states[0]
        n = rules.legal_moves(first.arrays, moves)
        for move in moves[:n].tolist():
            if search.is_pointless(first.tab, first.lens, first.fd, first.meta, move):
                continue
            if turns_a_card(first, move):
                share = won_share(states, move, nodes)
                if share > best[0]:
                    best = (share, path + [move])
                continue
            if left == 0:
                continue
            nxt = [s.copy() for s in states]
            for s in nxt:
                rules.apply_action(s.arrays, move)
            key = ScorpionView.from_state(nxt[0], check=False).position_hash()
            if key not in seen:
                seen.add(key)
                visit(nxt, path + [move], left - 1)

    seen.add(ScorpionView.from_state(samples[0], check=False).position_hash())
    visit(samples, [], depth)
    return best


def reveals(state: ScorpionState, move: int, seed: int, args: argparse.Namespace) -> dict:
    """The best reveal share a fair plan reaches (:func:`best_reveal`) before ``move`` and after
    it (``move``'s own share when it turns a card), on the same fresh determinizations."""
    view = ScorpionView.from_state(state, check=False)
    rng = np.random.default_rng(seed)
    samples = [view.determinize(rng) for _ in range(args.reveal_samples)]
    before, path = best_reveal(samples, args.prep, args.reveal_nodes)
    if turns_a_card(state, move):
        after = won_share(samples, move, args.reveal_nodes)
    else:
        for s in samples:
            rules.apply_action(s.arrays, move)
        after = best_reveal(samples, args.prep, args.reveal_nodes)[0]
    return {"reveal_before": before, "reveal_path": path, "reveal_after": after,
            "fair_guess": after >= before - args.margin}  # fmt: skip


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
    p.add_argument("--prep", type=int, default=2, help="moves turning no card before a reveal")
    p.add_argument("--reveal-samples", type=int, default=30)
    p.add_argument("--reveal-nodes", type=int, default=50_000)
    p.add_argument("--only", type=int, nargs="+", help="only these winnable deals")
    p.add_argument("--out", type=Path, default=Path("scorpion_pimc_losses"))
    args = p.parse_args(argv)
    deals = [d for d in sorted(winnable_seeds(args.rules)) if d >= args.first][: args.deals]
    if args.only:
        deals = sorted(set(args.only) & set(winnable_seeds(args.rules)))
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
            row |= reveals(played[at][0], move, deal, args)
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "moves"}), flush=True)
    lost = [r for r in rows if not r["won"]]
    guesses = sum(bool(r.get("guess")) for r in lost)
    fair = sum(bool(r.get("fair_guess")) for r in lost)
    proven = sum(r["after"] == solver.LOST for r in lost)
    summary = {"rules": args.rules, "agent": args.agent, "winnable": len(rows),
               "won": len(rows) - len(lost), "lost": len(lost), "guesses": guesses,
               "fair_guesses": fair, "proven_lost": proven}  # fmt: skip
    print(json.dumps(summary))
    results = {"summary": summary, "deals": rows}
    args.out.with_suffix(".json").write_text(json.dumps(results))
    return results


if __name__ == "__main__":
    main()
