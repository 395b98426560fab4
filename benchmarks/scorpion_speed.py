"""Scorpion speed: random-play steps/s through ``gym.make`` vs CartPole-v1, and compiled playouts.

Run ``python benchmarks/scorpion_speed.py`` (``--help`` for options).  Both environments are
driven by the same random-legal-action loop (a mask, ``np.flatnonzero``, one random pick),
Scorpion with its action mask from ``info`` and its observation encoder, CartPole with an
all-true mask.  Compilation happens before timing and is reported on its own line.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np


def _compile_seconds() -> float:
    """Import Scorpion and run one step and one playout, so every rule function is compiled."""
    start = time.perf_counter()
    import shell_envs  # noqa: F401
    from shell_envs.scorpion import rules
    from shell_envs.scorpion.state import ScorpionState

    env = gym.make("shell_envs/Scorpion-v0")
    env.reset(seed=0)
    env.step(364)
    env.close()
    rules.random_playout(*ScorpionState().arrays, 0, 100, 100, False)
    return time.perf_counter() - start


def env_steps_per_second(env_id: str, steps: int, seed: int, **kwargs: object) -> float:
    """Steps/s of a random legal-action loop through ``gym.make(env_id)``."""
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    all_legal = np.ones(env.action_space.n, np.bool_)
    mask = info.get("action_mask", all_legal)
    start = time.perf_counter()
    for _ in range(steps):
        legal = np.flatnonzero(mask)
        action = legal[rng.integers(len(legal))]
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()
        mask = info.get("action_mask", all_legal)
    elapsed = time.perf_counter() - start
    env.close()
    return steps / elapsed


def playout_moves_per_second(moves: int, seed: int, relaxed: bool) -> tuple[float, int]:
    """Moves/s of compiled random playouts (fresh deals, 1000 moves at most each) and games."""
    from shell_envs.scorpion import rules
    from shell_envs.scorpion.state import ScorpionState

    state = ScorpionState()
    start = time.perf_counter()
    games = rules.random_playout(*state.arrays, seed, moves, 1000, relaxed)
    return moves / (time.perf_counter() - start), int(games)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="env steps per repeat")
    parser.add_argument("--moves", type=int, default=5_000_000, help="compiled moves per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats; medians are reported")
    parser.add_argument("--encoder", default="tableau", help="Scorpion obs_encoder")
    parser.add_argument("--rules", default="classic", choices=["classic", "relaxed"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    compile_s = _compile_seconds()
    scorpion, cartpole, playout = [], [], []
    games = 0
    for r in range(args.repeats):
        scorpion.append(
            env_steps_per_second(
                "shell_envs/Scorpion-v0",
                args.steps,
                args.seed + r,
                rules=args.rules,
                obs_encoder=args.encoder,
            )
        )
        cartpole.append(env_steps_per_second("CartPole-v1", args.steps, args.seed + r))
        rate, games = playout_moves_per_second(args.moves, args.seed + r, args.rules == "relaxed")
        playout.append(rate)
    s, c, p = (statistics.median(x) for x in (scorpion, cartpole, playout))
    print(f"compile + first use (excluded below): {compile_s:.2f} s")
    print(f"{'measure':<44} {'median':>14}")
    print(f"{'Scorpion-v0 env steps/s (' + args.encoder + ', ' + args.rules + ')':<44} {s:>14,.0f}")
    print(f"{'CartPole-v1 env steps/s':<44} {c:>14,.0f}")
    print(f"{'ratio Scorpion / CartPole (goal >= 1.0)':<44} {s / c:>14.2f}")
    print(f"{'compiled random playout moves/s (goal >= 1e6)':<44} {p:>14,.0f}")
    print(f"{'  games per playout run':<44} {games:>14,}")


if __name__ == "__main__":
    main()
