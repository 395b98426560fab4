"""How the CPU batched envs scale with threads: steps/s at each thread count, side by side.

Each game's batched env runs the random-legal-move loop of :mod:`shell_envs.bench.peers`
(compiled sampler, ``step``, autoreset) at ``N`` games; one workload per thread count sets
``numba.set_num_threads`` and steps the same env, and the repeats are interleaved across thread
counts, so machine noise falls on all of them alike.  The ratio of each thread count's median
to the first one's is the scaling; the spread is the min–max of the repeats.
"""

from __future__ import annotations

from collections.abc import Callable

import numba

from shell_envs.bench.peers import scorpion_batched, what_the_shell_batched
from shell_envs.bench.timing import Rate, measure_side_by_side

GAMES = ("what_the_shell", "scorpion")


def _at_threads(threads: int, run: Callable[[int], int]) -> Callable[[int], int]:
    """``run`` with numba's parallel loops limited to ``threads`` threads."""

    def limited(n: int) -> int:
        numba.set_num_threads(threads)
        return run(n)

    return limited


def run_scaling(
    threads: list[int],
    games: tuple[str, ...] = GAMES,
    num_envs: int = 16384,
    seconds: float = 1.0,
    repeats: int = 5,
    encoder: str = "planes_uint8",
) -> dict[str, dict[int, Rate]]:
    """Steps/s of each game's batched env at each thread count: ``{game: {threads: Rate}}``."""
    available = numba.config.NUMBA_NUM_THREADS
    bad = [t for t in threads if not 1 <= t <= available]
    if bad:
        raise ValueError(f"thread counts {bad} outside 1-{available} (numba's threads here)")
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise ValueError(f"unknown games {unknown}; choose from {list(GAMES)}")
    makers = {
        "what_the_shell": lambda: what_the_shell_batched(encoder, num_envs),
        "scorpion": lambda: scorpion_batched(num_envs),
    }
    units = {"what_the_shell": f"joint steps ({encoder})", "scorpion": "steps"}
    workloads = {}
    for game in games:
        run = makers[game]()
        for t in threads:
            workloads[f"{game} {t}"] = (units[game], _at_threads(t, run))
    try:
        rates = measure_side_by_side(workloads, seconds, repeats)
    finally:
        numba.set_num_threads(available)
    return {game: {t: rates[f"{game} {t}"] for t in threads} for game in games}


def format_scaling(results: dict[str, dict[int, Rate]], num_envs: int) -> str:
    """A Markdown table: medians, spread and the ratio to the first thread count, per game."""
    lines = [
        f"| env (N = {num_envs:,}) | threads | median per second | min–max | × first |",
        "|---|---:|---:|---:|---:|",
    ]
    for game, by_threads in results.items():
        base = next(iter(by_threads.values())).median
        for t, rate in by_threads.items():
            lines.append(
                f"| {game} | {t} | {rate.median:,.0f} | {min(rate.rates):,.0f}–"
                f"{max(rate.rates):,.0f} | {rate.median / base:.2f} |"
            )
    return "\n".join(lines)


def scaling_json(results: dict[str, dict[int, Rate]], num_envs: int) -> dict:
    """The results as plain data (every repeat's rate kept)."""
    return {
        "num_envs": num_envs,
        "games": {
            game: {
                str(t): {"unit": r.unit, "median": r.median, "all": r.rates}
                for t, r in by_threads.items()
            }
            for game, by_threads in results.items()
        },
    }
