"""Speed workloads of both games: the environments and engines beside the peers they are judged by.

Every environment workload runs the same random-legal-move loop: read the mask from the
observation (Scorpion: from ``info``; CartPole: an all-true mask), pick a uniformly random
legal action, step, reset when the game ends.  What the Shell is measured beside PettingZoo's
``connect_four_v3``, Scorpion through ``gym.make`` beside ``CartPole-v1``; the compiled
workloads are each engine's random playouts.  Warm-up (compilation included) is measured apart
from the rates.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, cast

import gymnasium as gym
import numpy as np

from shell_envs.bench.timing import Rate, measure_side_by_side


def pick_legal(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random legal action from a 0/1 mask.

    The standard library's generator costs ~40 ns a draw against ~1 µs for a numpy
    ``Generator`` call, so the loop's own overhead stays small beside the env being timed.
    """
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])


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


def what_the_shell_env_steps() -> Callable[[int], int]:
    """Joint steps (one ``step`` for both players, observations and masks included)."""
    from shell_envs import what_the_shell_v0

    env = what_the_shell_v0.parallel_env()
    rng = random.Random(0)
    obs, _ = env.reset(seed=0)

    def run(n: int) -> int:
        nonlocal obs
        for _ in range(n):
            actions = {
                "black": pick_legal(obs["black"]["action_mask"], rng),
                "white": pick_legal(obs["white"]["action_mask"], rng),
            }
            obs, _, _, _, _ = env.step(actions)
            if not env.agents:
                obs, _ = env.reset()
        return n

    return run


def what_the_shell_engine_rounds() -> Callable[[int], int]:
    """Rounds of compiled random playouts on the bare engine."""
    from shell_envs.what_the_shell import rules

    seed = [0]

    def run(n: int) -> int:
        games = max(1, n // 30)
        seed[0] += 1
        return int(rules.random_games(games, 1000, seed[0]))

    return run


def connect_four_moves() -> Callable[[int], int]:
    """Moves of PettingZoo's ``connect_four_v3.env()`` (AEC) under the same loop."""
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    env.reset(seed=0)
    rng = random.Random(0)

    def run(n: int) -> int:
        moves = 0
        while moves < n:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                continue
            env.step(pick_legal(obs["action_mask"], rng))
            moves += 1
        return moves

    return run


WORKLOADS: dict[str, tuple[str, Callable[[], Callable[[int], int]]]] = {
    "what_the_shell parallel_env": ("joint steps", what_the_shell_env_steps),
    "what_the_shell engine": ("rounds", what_the_shell_engine_rounds),
    "pettingzoo connect_four_v3": ("moves", connect_four_moves),
}


def run_speed(
    names: list[str] | None = None, seconds: float = 1.0, repeats: int = 5
) -> dict[str, Rate]:
    """Measure the named workloads (all by default) side by side."""
    chosen = names or list(WORKLOADS)
    unknown = [n for n in chosen if n not in WORKLOADS]
    if unknown:
        raise ValueError(f"unknown workloads {unknown}; available: {list(WORKLOADS)}")
    workloads = {name: (WORKLOADS[name][0], WORKLOADS[name][1]()) for name in chosen}
    return measure_side_by_side(workloads, seconds, repeats)


WHAT_THE_SHELL_RATIOS = [("what_the_shell parallel_env", "pettingzoo connect_four_v3", 5.0)]

SCORPION_ENV_STEPS = "Scorpion-v0 env"
CARTPOLE_ENV_STEPS = "CartPole-v1 env"
SCORPION_PLAYOUT = "Scorpion compiled playout"
SCORPION_RATIOS = [(SCORPION_ENV_STEPS, CARTPOLE_ENV_STEPS, 1.0)]
SCORPION_PLAYOUT_GOAL = 1_000_000.0


def scorpion_playout_moves(rule_set: str = "classic") -> Callable[[int], int]:
    """``run(n)``: ``n`` moves of compiled random playouts over fresh deals (1000 moves at most)."""
    from shell_envs.scorpion import rules
    from shell_envs.scorpion.state import ScorpionState, rule_code

    code = rule_code(rule_set)
    state = ScorpionState()
    seed = [0]

    def run(n: int) -> int:
        seed[0] += 1
        rules.random_playout(state.arrays, seed[0], n, 1000, code)
        return n

    return run


def scorpion_workloads(
    encoder: str = "tableau", rules: str = "classic", seed: int = 0
) -> dict[str, tuple[str, Callable[[int], int]]]:
    """The Scorpion workloads, ready for `measure_side_by_side`: ``{name: (unit, run)}``."""
    return {
        SCORPION_ENV_STEPS: (
            f"steps ({encoder}, {rules})",
            env_steps("shell_envs/Scorpion-v0", seed, rules=rules, obs_encoder=encoder),
        ),
        CARTPOLE_ENV_STEPS: ("steps", env_steps("CartPole-v1", seed)),
        SCORPION_PLAYOUT: ("moves", scorpion_playout_moves(rules)),
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
    rate = rates[SCORPION_PLAYOUT].median
    verdict = "met" if rate >= SCORPION_PLAYOUT_GOAL else "NOT met"
    return f"compiled random playout: {rate:,.0f} moves/s (goal >= 1,000,000: {verdict})"


def format_table(rates: dict[str, Rate], ratios: list[tuple[str, str, float]]) -> str:
    """A Markdown table of medians, then each ratio with its goal."""
    lines = [
        "| workload | median per second | unit | warm-up (s) |",
        "|---|---:|---|---:|",
    ]
    for rate in rates.values():
        lines.append(f"| {rate.name} | {rate.median:,.0f} | {rate.unit} | {rate.warmup_s:.2f} |")
    for top, bottom, goal in ratios:
        if top in rates and bottom in rates:
            ratio = rates[top].median / rates[bottom].median
            verdict = "met" if ratio >= goal else "NOT met"
            lines.append(f"\n{top} / {bottom}: **{ratio:.2f}x** (goal >= {goal}x: {verdict})")
    return "\n".join(lines)
