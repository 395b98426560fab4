"""A best response to a frozen What the Shell agent: MaskablePPO trained against it alone.

How exploitable is an agent?  For each opponent (an agent spec such as
``learned:temperature=0.25,top_p=0.5``; default: ``learned`` and ``greedy``) a fresh
MaskablePPO (sb3-contrib defaults, the ``flat`` encoder, a random seat each game, one torch
thread) trains for ``--timesteps`` steps against that opponent only, then plays ``--games``
games against it, seats swapped; its win rate (Wilson 95% interval) is reported beside the
same budget's figure against the other opponents.  Needs the extra ``train``::

    python benchmarks/wts_best_response.py --timesteps 100000 --games 200 --out results/br.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO

import shell_envs  # noqa: F401  (registers the Gymnasium ids)
from shell_envs.agents import make_agent
from shell_envs.bench.tournament import wilson_interval

ENV_ID = "shell_envs/WhatTheShell-v0"
GAME = "what_the_shell"


def train(opponent: str, timesteps: int, seed: int) -> MaskablePPO:
    """MaskablePPO trained ``timesteps`` steps against ``opponent`` (an agent spec, as the bench
    takes them; a random seat each game)."""
    env = gym.make(ENV_ID, opponent=make_agent(GAME, opponent), seat="random", obs_encoder="flat")
    model = MaskablePPO("MlpPolicy", env, seed=seed, verbose=0, device="cpu")
    model.learn(total_timesteps=timesteps)
    return model


def play(model: MaskablePPO, opponent: str, games: int) -> dict[str, float]:
    """``games`` games of ``model`` against ``opponent``, seats swapped: W/D/L and win rate."""
    wins = draws = losses = 0
    agent = make_agent(GAME, opponent)  # each game's reset reseeds it
    for g in range(games):
        seat = "black" if g % 2 == 0 else "white"
        env = gym.make(ENV_ID, opponent=agent, seat=seat, obs_encoder="flat")
        obs, _ = env.reset(seed=g)
        done, reward = False, 0.0
        while not done:
            mask = env.unwrapped.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(int(action))
            done = terminated or truncated
        wins, draws, losses = wins + (reward > 0), draws + (reward == 0), losses + (reward < 0)
        env.close()
    low, high = wilson_interval(wins, games)
    return {"games": games, "wins": wins, "draws": draws, "losses": losses,
            "win_rate": wins / games, "wilson95": [low, high]}  # fmt: skip


def main() -> None:
    """Train a best response to each opponent and report its win rate against it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponents", nargs="+", default=["learned", "greedy"])
    parser.add_argument("--timesteps", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(1)
    np.random.seed(args.seed)
    results = {}
    for opponent in args.opponents:
        start = time.perf_counter()
        model = train(opponent, args.timesteps, args.seed)
        row = play(model, opponent, args.games)
        row["timesteps"], row["seconds"] = args.timesteps, time.perf_counter() - start
        results[opponent] = row
        print(f"best response to {opponent}: {json.dumps(row)}", flush=True)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
