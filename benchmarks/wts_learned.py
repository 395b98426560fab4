"""Head-to-head matches of the learned What the Shell agents, seats swapped, with Wilson intervals.

Each pairing plays ``--games`` games (the first agent black in the even games, white in the
odd ones; game ``g`` uses seed ``--first-seed`` + ``g``, so disjoint seed ranges give fresh
games, e.g. to confirm a setting on games other than those it was chosen on); the first
agent's score counts a win 1 and a draw ½, and its 95% Wilson interval is computed on that
score.  The agents' only randomness is tie-breaking, so from the empty board most games
repeat one another (the count of distinct games is reported) and the interval, which takes
the games as independent, is too narrow; ``--opening-rounds N`` starts each pair of games
(same opening, seats swapped) from N rounds of random moves instead.  The default pairings are the
issue's goals: ``mcts-learned`` against ``mcts`` at the same 400 iterations, ``learned``
against ``greedy`` and against ``mcts``::

    python benchmarks/wts_learned.py --games 200 --out results/wts_learned.json
    python benchmarks/wts_learned.py --games 20 --pair learned mcts:iterations=100
    python benchmarks/wts_learned.py --games 200 --first-seed 1000 --pair mcts-learned mcts
    python benchmarks/wts_learned.py --games 200 --opening-rounds 4 --pair mcts-learned mcts
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import norm

from shell_envs import what_the_shell_v0
from shell_envs.agents.spec import parse_spec
from shell_envs.bench.games import play_what_the_shell

PAIRS = (("mcts-learned", "mcts"), ("learned", "greedy"), ("learned", "mcts"))


def wilson(score: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score`` observed over ``n`` trials."""
    z = norm.ppf(0.5 + confidence / 2)
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def opening(rounds: int, seed: int) -> dict[str, Any] | None:
    """The position after ``rounds`` rounds of uniformly random legal moves by both players
    from the empty board (drawn from ``seed``; one that ends the game is drawn again), as
    ``env.position()`` gives it; None for no rounds."""
    if rounds == 0:
        return None
    rng = np.random.default_rng(seed)
    while True:
        env = what_the_shell_v0.parallel_env()
        observations, _ = env.reset()
        for _ in range(rounds):
            if not env.agents:
                break
            observations, *_ = env.step(
                {
                    a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"])))
                    for a in env.agents
                }
            )
        position = env.position() if env.agents else None
        env.close()
        if position is not None:
            return position


def match(
    first: str,
    second: str,
    games: int,
    max_rounds: int = 200,
    first_seed: int = 0,
    opening_rounds: int = 0,
) -> dict[str, Any]:
    """``games`` games of ``first`` against ``second``, seats swapped, game ``g`` seeded with
    ``first_seed + g``; the first's results.

    With ``opening_rounds``, each pair of games (``g`` even and ``g + 1``: the same opening,
    seats swapped) starts from an :func:`opening` drawn from seed ``first_seed + g``.
    ``distinct`` counts the different games played: the agents' only randomness is
    tie-breaking, so from the empty board most games repeat one another and the Wilson
    interval, which takes the games as independent, is far too narrow.
    """
    a, b = parse_spec(first), parse_spec(second)
    wins = draws = losses = 0
    seconds = {a.label: [0.0, 0], b.label: [0.0, 0]}
    seen: set[tuple[int, str, str]] = set()  # (seat of first, opening, moves)
    start: dict[str, Any] | None = None
    for g in range(games):
        black, white = (a, b) if g % 2 == 0 else (b, a)
        if g % 2 == 0:
            start = opening(opening_rounds, first_seed + g)
        record, clocks = play_what_the_shell(
            black, white, first_seed + g, max_rounds, position=start
        )
        seen.add((g % 2, json.dumps(start), json.dumps(record["actions"])))
        mine = record["outcome"] if g % 2 == 0 else -record["outcome"]
        wins, draws, losses = wins + (mine > 0), draws + (mine == 0), losses + (mine < 0)
        for seat, spec in (("black", black), ("white", white)):
            seconds[spec.label][0] += clocks[seat][0]
            seconds[spec.label][1] += clocks[seat][1]
    score = (wins + draws / 2) / games
    return {
        "first": a.label,
        "second": b.label,
        "games": games,
        "seeds": [first_seed, first_seed + games - 1],
        "opening_rounds": opening_rounds,
        "distinct": len(seen),
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": score,
        "wilson95": list(wilson(score, games)),
        "ms_per_move": {k: 1000 * s / max(n, 1) for k, (s, n) in seconds.items()},
    }


def main() -> None:
    """Play the pairings and print (and optionally write) the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--opening-rounds", type=int, default=0,
                        help="random rounds before each pair of games (0: none)")  # fmt: skip
    parser.add_argument("--pair", nargs=2, action="append", metavar=("FIRST", "SECOND"),
                        help="two agent specs (repeatable; default: the goals)")  # fmt: skip
    parser.add_argument("--out", type=Path, help="write the results here (JSON)")
    args = parser.parse_args()
    results = []
    for first, second in args.pair or PAIRS:
        start = time.perf_counter()
        row = match(first, second, args.games, first_seed=args.first_seed,
                    opening_rounds=args.opening_rounds)  # fmt: skip
        row["seconds"] = time.perf_counter() - start
        low, high = row["wilson95"]
        print(f"{row['first']} vs {row['second']}: +{row['wins']} ={row['draws']} "
              f"-{row['losses']}, score {row['score']:.3f} [{low:.3f}, {high:.3f}], "
              f"{row['distinct']} distinct games, "
              f"ms/move {row['ms_per_move']}", flush=True)  # fmt: skip
        results.append(row)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
