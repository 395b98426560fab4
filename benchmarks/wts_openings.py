"""Build What the Shell's opening book (`shell_envs.bench.openings`), checked for balance.

1. Candidates: from the empty board, 2 to 4 rounds (drawn uniformly) of seeded random legal
   joint moves played through the env (each player picks an empty cell uniformly and on its
   own, so a collision lays an egg as in a game); a position whose game is over is dropped,
   and so is one equal to an earlier candidate up to the board's eight symmetries and a swap
   of the colours (`openings.canonical`: the rules treat both colours alike, and a match
   plays every opening with the seats swapped anyway).
2. Balance filter: from each candidate the reference agent (``mcts:iterations=50``, cheap
   and decisive; ``greedy`` against itself draws most games) plays ``--games`` games against
   itself, seats swapped in pairs, each game with its own seeds.  A candidate where one seat
   scores at least ``--lopsided`` of the points is dropped (a lopsided opening decides a
   pair's games by seat, not by strength); the first ``--openings`` that pass, in candidate
   order, make the book.
3. Independent check: the kept book is played again with fresh seeds (``--check-games`` per
   opening), and black's score there, with its 95 % interval, is the figure the book
   reports (the filter's own games are biased toward balance by the filtering).

The file records the command, seed and settings, the balance figures and the positions'
checksum; `openings.load` checks them.  The shipped ``wts_openings_v1.json`` was made by

    python benchmarks/wts_openings.py --seed 0 --openings 500 --workers 1 \
        --out shell_envs/data/wts_openings_v1.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from shell_envs import what_the_shell_v0
from shell_envs.agents.spec import parse_spec
from shell_envs.bench import games, openings
from shell_envs.bench.runner import MAX_ROUNDS, Task, game_seed, play_tasks, warm_up_games

REFERENCE = "mcts:iterations=50"
DEPTHS = (2, 3, 4)


def candidates(n: int, seed: int) -> list[tuple[dict[str, Any], int]]:
    """``n`` distinct candidate openings ``(position, rounds)`` in generation order."""
    rng = np.random.default_rng(seed)
    env = what_the_shell_v0.parallel_env()
    seen: set[tuple] = set()
    out: list[tuple[dict[str, Any], int]] = []
    tries = 0
    while len(out) < n:
        tries += 1
        if tries > 100 * n:
            raise RuntimeError(f"only {len(out)} distinct openings in {tries - 1} tries")
        rounds = int(rng.choice(DEPTHS))
        observations, _ = env.reset()
        for _ in range(rounds):
            empty = np.flatnonzero(observations["black"]["action_mask"])
            choice = {seat: int(rng.choice(empty)) for seat in ("black", "white")}
            observations, *_ = env.step(choice)
            if not env.agents:
                break
        if not env.agents:
            continue
        position = env.position()
        key = openings.canonical(position)
        if key not in seen:
            seen.add(key)
            out.append((position, rounds))
    env.close()
    return out


def black_points(
    positions: list[dict[str, Any]], per_opening: int, seed: int, label: str, workers: int
) -> np.ndarray:
    """Black's points (win 1, draw 0.5) in ``per_opening`` reference self-play games from
    each position: an array ``(openings, per_opening)``.  Every game has seeds of its own
    (a game and its seat swap with the same seeds would be the same self-play game)."""
    black = parse_spec(f"reference={REFERENCE}")
    white = parse_spec(f"reference-2={REFERENCE}")  # its own object: no state shared
    plan = []
    for i, position in enumerate(positions):
        for g in range(per_opening):
            pair = (black, white) if g % 2 == 0 else (white, black)
            game = game_seed(seed, label, i, g)
            args = (*pair, game, MAX_ROUNDS, True, len(plan), position)
            plan.append(Task("what_the_shell", games.play_what_the_shell, args))
    records, _, interrupted = play_tasks(plan, workers, progress=True, seed=seed)
    if interrupted:
        sys.exit(130)
    outcomes = np.array([records[k]["outcome"] for k in range(len(plan))], float)
    return ((outcomes + 1) / 2).reshape(len(positions), per_opening)


def seat_balance(points: np.ndarray) -> dict[str, Any]:
    """Black's mean score over all games, its 95 % interval (normal, over openings, whose
    games share a position), and the share of decisive games."""
    per_opening = points.mean(axis=1)
    mean = float(per_opening.mean())
    half = 1.96 * float(per_opening.std(ddof=1)) / math.sqrt(per_opening.size)
    return {
        "games": int(points.size),
        "black_score": round(mean, 4),
        "black_score_ci95": [round(mean - half, 4), round(mean + half, 4)],
        "black_wins": int((points == 1).sum()),
        "draws": int((points == 0.5).sum()),
        "white_wins": int((points == 0).sum()),
    }


def build(args: argparse.Namespace) -> dict[str, Any]:
    """The book's data, as the file holds it."""
    start = time.perf_counter()
    warm_up_games(["what_the_shell"], agents=[parse_spec(REFERENCE)], workers=args.workers)
    pool = candidates(math.ceil(args.openings * args.oversample), args.seed)
    points = black_points([p for p, _ in pool], args.games, args.seed, "filter", args.workers)
    limit = args.lopsided * args.games
    black_totals = points.sum(axis=1)
    passes = [bool(max(t, args.games - t) < limit) for t in black_totals]
    kept = [i for i, ok in enumerate(passes) if ok]
    if len(kept) < args.openings:
        raise SystemExit(
            f"only {len(kept)} of {len(pool)} candidates pass the balance filter; "
            "raise --oversample"
        )
    kept = kept[: args.openings]
    positions = [pool[i][0] for i in kept]
    check = black_points(positions, args.check_games, args.seed, "check", args.workers)
    depths = [pool[i][1] for i in kept]
    command = "python benchmarks/wts_openings.py " + " ".join(sys.argv[1:])
    return {
        "format": openings.FORMAT,
        "game": openings.GAME,
        "version": openings.VERSION,
        "build": {
            "command": command.strip(),
            "seed": args.seed,
            "method": "2-4 rounds (uniform) of seeded random legal joint moves from the empty "
            "board; positions not over, distinct up to the board's 8 symmetries and the "
            "colours; filtered for seat balance by reference self-play",
            "rounds": {str(d): depths.count(d) for d in DEPTHS},
            "candidates": len(pool),
            "seconds": round(time.perf_counter() - start, 1),
        },
        "balance": {
            "reference": REFERENCE,
            "filter": {
                "games_per_opening": args.games,
                "dropped_when_one_seat_scores_at_least": limit,
                "candidates_dropped": passes.count(False),
                "all_candidates": seat_balance(points),
            },
            "check": {"games_per_opening": args.check_games, **seat_balance(check)},
        },
        "checksum": openings.checksum(positions),
        "positions": positions,
    }


def book_text(data: dict[str, Any]) -> str:
    """The file's text: the header indented, one position a line."""
    head = json.dumps({k: v for k, v in data.items() if k != "positions"}, indent=1)
    rows = ",\n".join("  " + json.dumps(p, separators=(",", ":")) for p in data["positions"])
    return head[:-2] + ',\n "positions": [\n' + rows + "\n ]\n}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--openings", type=int, default=500, help="openings in the book")
    parser.add_argument("--oversample", type=float, default=1.3, help="candidates per opening kept")
    parser.add_argument("--games", type=int, default=8, help="reference games per candidate (even)")
    parser.add_argument(
        "--lopsided",
        type=float,
        default=7 / 8,
        help="drop a candidate where one seat scores at least this share of the points",
    )
    parser.add_argument(
        "--check-games", type=int, default=2, help="fresh games per kept opening (even)"
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if args.games % 2 or args.check_games % 2:
        parser.error("--games and --check-games must be even (seats swapped in pairs)")
    data = build(args)
    args.out.write_text(book_text(data), encoding="utf-8")
    book = openings.load(args.out)
    print(f"wrote {args.out}: {len(book)} openings, {book.checksum}")
    print(json.dumps(data["build"], indent=1))
    print(json.dumps(data["balance"], indent=1))


if __name__ == "__main__":
    main()
