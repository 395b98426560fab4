"""Train MaskablePPO at What the Shell by self-play, rated on the bench's Elo scale as it trains.

One policy plays both seats of every game (``WhatTheShellSelfPlayVecEnv``, the ``flat``
encoder).  Every ``--rate-every`` steps a ``RatingCallback`` saves the model and rates it in a
background process, as ``shell-envs bench`` would: ``--games-per-anchor`` games against each
anchor of the fixed scale, seats swapped, the same games every time, giving the Elo rating
and its exact 95% interval.  Training does not wait for it.  The ratings go to SB3's logger
(``logs/progress.csv``, and TensorBoard event files under ``logs/`` when tensorboard is
installed: ``tensorboard --logdir OUT/logs``), and under ``--out`` to ``ratings.json``,
``ratings.csv`` and ``rating_curve.png`` (Elo against training steps, with the interval as
a band); the model is saved as ``model.zip``::

    python examples/train_with_ratings.py                 # about 5 min on 2 cores
    python examples/train_with_ratings.py --smoke --out /tmp/ratings   # seconds, for tests

Needs the extra ``train`` (stable-baselines3, sb3-contrib, matplotlib).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure

from shell_envs.integrations.sb3 import RatingCallback, WhatTheShellSelfPlayVecEnv


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; ``--smoke`` shrinks every budget to a few seconds."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--timesteps", type=int, default=1_200_000, help="PPO steps (all rows)")
    p.add_argument("--num-games", type=int, default=8, help="games side by side (2 rows each)")
    p.add_argument("--n-steps", type=int, default=256, help="rollout length per row")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--rate-every", type=int, default=50_000, help="steps between ratings")
    p.add_argument("--games-per-anchor", type=int, default=20, help="games a rating plays")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads of the training")
    p.add_argument("--out", type=Path, default=Path("runs/train_with_ratings"))
    p.add_argument("--smoke", action="store_true", help="tiny budgets, for tests")
    args = p.parse_args(argv)
    if args.smoke:
        args.timesteps, args.num_games, args.n_steps, args.batch_size = 256, 2, 32, 64
        args.n_epochs, args.rate_every, args.games_per_anchor = 1, 128, 1
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train with ratings in the background; returns what ``results.json`` holds."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    env = WhatTheShellSelfPlayVecEnv(args.num_games, obs_encoder="flat")
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        policy_kwargs={"net_arch": [256, 256]},
        seed=args.seed,
        device="cpu",
    )
    outputs = ["csv"] + (["tensorboard"] if importlib.util.find_spec("tensorboard") else [])
    model.set_logger(configure(str(args.out / "logs"), outputs))
    ratings = RatingCallback(
        "what_the_shell",
        every_steps=args.rate_every,
        games_per_anchor=args.games_per_anchor,
        seed=args.seed,
        verbose=1,
    )
    start = time.perf_counter()
    model.learn(args.timesteps, callback=ratings)
    seconds = time.perf_counter() - start
    model.save(args.out / "model.zip")
    rater = ratings.rater
    rater.write_json(args.out / "ratings.json")
    rater.write_csv(args.out / "ratings.csv")
    rater.plot(args.out / "rating_curve.png")
    results = {
        "example": "train_with_ratings",
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "timesteps": int(model.num_timesteps),
        "wall_seconds": round(seconds, 1),
        "rating_seconds": round(sum(r.seconds for r in rater.results), 1),
        "ratings": [r.to_dict() for r in rater.results],
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    first, last = rater.results[0], rater.results[-1]
    print(
        f"{model.num_timesteps:,} steps in {seconds:.0f} s (ratings included: "
        f"{len(rater.results)} of them, {results['rating_seconds']:.0f} s in the background); "
        f"step {first.step}: {first.describe()}; step {last.step}: {last.describe()}; "
        f"saved to {args.out}",
        flush=True,
    )
    return results


if __name__ == "__main__":
    main()
