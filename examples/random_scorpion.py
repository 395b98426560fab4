"""Play Scorpion with uniformly random legal actions, using the env's action masks.

python examples/random_scorpion.py --episodes 3 --rules relaxed --show
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

import shell_envs  # noqa: F401  (registers shell_envs/Scorpion-v0)


def main() -> None:
    """Run a few random episodes and print their outcome."""
    parser = argparse.ArgumentParser(description="Random legal play of Scorpion.")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0, help="deal number of the first episode")
    parser.add_argument("--rules", choices=["classic", "relaxed"], default="classic")
    parser.add_argument("--max-moves", type=int, default=1000)
    parser.add_argument("--show", action="store_true", help="print the final layout of each game")
    args = parser.parse_args()

    env = gym.make(
        "shell_envs/Scorpion-v0", rules=args.rules, max_moves=args.max_moves, render_mode="ansi"
    )
    rng = np.random.default_rng(args.seed)
    for episode in range(args.episodes):
        _, info = env.reset(seed=args.seed + episode)
        total, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            legal = np.flatnonzero(env.unwrapped.action_masks())
            _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            total += float(reward)
        end = "won" if info["won"] else "stuck" if terminated else "move limit"
        print(
            f"deal {args.seed + episode}: {end} after {info['moves']} moves, "
            f"score {info['score']}, sequences removed {info['removed']}, return {total:.0f}"
        )
        if args.show:
            print(env.render())
    env.close()


if __name__ == "__main__":
    main()
