"""Scorpion speed: random-play env steps/s through ``gym.make`` beside CartPole, and playouts.

Both environments run the same random-legal-action loop (`pick_legal`
on a mask): Scorpion with its action mask from ``info`` and its observation encoder,
CartPole with an all-true mask.  The compiled workload is the engine's random playout over
fresh deals.  Warm-up (compilation included) is measured apart from the rates.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, cast

import gymnasium as gym
import numpy as np

from shell_envs.bench.speed import pick_legal
from shell_envs.bench.timing import Rate, measure_side_by_side

ENV_STEPS = "Scorpion-v0 env"
CARTPOLE = "CartPole-v1 env"
PLAYOUT = "Scorpion compiled playout"
RATIOS = [(ENV_STEPS, CARTPOLE, 1.0)]
PLAYOUT_GOAL = 1_000_000.0


def env_steps(env_id: str, seed: int = 0, **kwargs: Any) -> Callable[[int], int]:
    """``run(n)``: ``n`` steps of the random legal-action loop through ``gym.make(env_id)``."""
    env = gym.make(env_id, **kwargs)
    rng = random.Random(seed)
    all_legal = np.ones(cast(gym.spaces.Discrete, env.action_space).n, np.bool_)
    _, info = env.reset(seed=seed)
    mask = info.get("action_mask", all_legal)

    def run(n: int) -> int:
        nonlocal mask
        for _ in range(n):
            _, _, terminated, truncated, info = env.step(pick_legal(mask, rng))
            if terminated or truncated:
                _, info = env.reset()
            mask = info.get("action_mask", all_legal)
        return n

    return run


def playout_moves(rule_set: str = "classic") -> Callable[[int], int]:
    """``run(n)``: ``n`` moves of compiled random playouts over fresh deals (1000 moves at most)."""
    from shell_envs.scorpion import rules
    from shell_envs.scorpion.state import ScorpionState, rule_code

    code = rule_code(rule_set)
    state = ScorpionState()
    seed = [0]

    def run(n: int) -> int:
        seed[0] += 1
        rules.random_playout(*state.arrays, seed[0], n, 1000, code)
        return n

    return run


def scorpion_workloads(
    encoder: str = "tableau", rules: str = "classic", seed: int = 0
) -> dict[str, tuple[str, Callable[[int], int]]]:
    """The Scorpion workloads, ready for `measure_side_by_side`: ``{name: (unit, run)}``."""
    return {
        ENV_STEPS: (
            f"steps ({encoder}, {rules})",
            env_steps("shell_envs/Scorpion-v0", seed, rules=rules, obs_encoder=encoder),
        ),
        CARTPOLE: ("steps", env_steps("CartPole-v1", seed)),
        PLAYOUT: ("moves", playout_moves(rules)),
    }


def run_scorpion_speed(
    seconds: float = 1.0,
    repeats: int = 5,
    encoder: str = "tableau",
    rules: str = "classic",
    seed: int = 0,
) -> dict[str, Rate]:
    """Measure the Scorpion workloads side by side (medians over interleaved repeats)."""
    return measure_side_by_side(scorpion_workloads(encoder, rules, seed), seconds, repeats)


def playout_verdict(rates: dict[str, Rate]) -> str:
    """One line: the compiled playout rate against its goal of a million moves per second."""
    rate = rates[PLAYOUT].median
    verdict = "met" if rate >= PLAYOUT_GOAL else "NOT met"
    return f"compiled random playout: {rate:,.0f} moves/s (goal >= 1,000,000: {verdict})"
