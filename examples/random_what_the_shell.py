"""Random play in What the Shell through the PettingZoo parallel API.

Usage: python examples/random_what_the_shell.py [--games 3] [--seed 0] [--render]
"""

from __future__ import annotations

import argparse

import numpy as np

from shell_envs import what_the_shell_v0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--render", action="store_true", help="print the board every round")
    args = parser.parse_args()

    env = what_the_shell_v0.parallel_env(render_mode="ansi" if args.render else None)
    rng = np.random.default_rng(args.seed)
    for game in range(args.games):
        observations, infos = env.reset(seed=args.seed + game)
        while env.agents:
            actions = {
                agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
                for agent in env.agents
            }
            observations, rewards, terminations, truncations, infos = env.step(actions)
            if args.render:
                print(env.render())
        result = what_the_shell_v0.OUTCOMES[infos["black"]["outcome"]] or "truncated"
        print(
            f"game {game}: {infos['black']['round']} rounds, black {result}, "
            f"rewards {rewards}, final position {env.position()}"
        )
    env.close()


if __name__ == "__main__":
    main()
