"""Speed workloads: the project's environments and engines beside the peers they are judged by.

Every environment workload runs the same random-legal-move loop: read the mask from the
observation, pick a uniformly random legal action, step, reset when the game ends.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from shell_envs.bench.timing import Rate, measure_side_by_side


def pick_legal(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random legal action from a 0/1 mask.

    The standard library's generator costs ~40 ns a draw against ~1 µs for a numpy
    ``Generator`` call, so the loop's own overhead stays small beside the env being timed.
    """
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])


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


RATIOS = [("what_the_shell parallel_env", "pettingzoo connect_four_v3", 5.0)]
