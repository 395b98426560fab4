"""How the CPU batched envs scale with threads: steps/s at each thread count, side by side.

Each game's batched env runs the random-legal-move loop of `shell_envs.bench.peers`
(compiled sampler, ``step``, autoreset) at ``N`` games; one workload per thread count sets
``numba.set_num_threads`` and steps the same env, and the repeats are interleaved across thread
counts, so machine noise falls on all of them alike.  The ratio of each thread count's median
to the first one's is the scaling; the spread is the min–max of the repeats.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from contextlib import contextmanager

import numba

from shell_envs.bench.peers import scorpion_batched, what_the_shell_batched
from shell_envs.bench.timing import Rate, measure_side_by_side
from shell_envs.core import background
from shell_envs.registry import GAMES as _REGISTRY

GAMES = tuple(_REGISTRY)
# the parallel loops of a random-play step, as ``module:function`` (absent ones are skipped)
PARALLEL_LOOPS = (
    "shell_envs.what_the_shell.vector:batch_step",
    "shell_envs.scorpion.vector:batch_step",
    "shell_envs.scorpion.vector:batch_infos",
    "shell_envs.core.sampling:_sample_blocks",
    "shell_envs.core.buffers:_copy_bytes",
)


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


@contextmanager
def _timed_loops(spent: list[float]):
    """Add the wall time of every call of `PARALLEL_LOOPS` to ``spent[0]`` meanwhile."""
    patched = []
    for target in PARALLEL_LOOPS:
        module_name, name = target.split(":")
        module = importlib.import_module(module_name)
        loop = getattr(module, name, None)
        if loop is None:
            continue

        def timed(*args, _loop=loop):
            start = time.perf_counter()
            try:
                return _loop(*args)
            finally:
                spent[0] += time.perf_counter() - start

        setattr(module, name, timed)
        patched.append((module, name, loop))
    try:
        yield
    finally:
        for module, name, loop in patched:
            setattr(module, name, loop)


def serial_share(game: str, num_envs: int = 16384, seconds: float = 2.0) -> float:
    """The share of a 1-thread random-play step spent outside the parallel loops.

    That part does not speed up with threads, so it bounds the scaling (Amdahl): with a share
    ``s`` at 1 thread, going from ``a`` to ``b`` threads gains at most
    ``(s + (1 - s) / a) / (s + (1 - s) / b)``.  A machine busy with other work slows both parts
    alike, so the share is measured even where the thread counts cannot be.
    """
    if game == "what_the_shell":
        run = what_the_shell_batched("planes_uint8", num_envs)
    else:
        run = scorpion_batched(num_envs)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        run(num_envs)
        background.wait()  # the compiled loops, not their plain-Python stand-ins meanwhile
        run(num_envs * 3)  # compiled and warm
        spent = [0.0]
        with _timed_loops(spent):
            start = time.perf_counter()
            done = 0
            while time.perf_counter() - start < seconds:
                done += run(num_envs)
            total = time.perf_counter() - start
    finally:
        numba.set_num_threads(before)
    return 1.0 - spent[0] / total


def amdahl(share: float, low: int, high: int) -> float:
    """The most that going from ``low`` to ``high`` threads can gain with serial ``share``."""
    return (share + (1 - share) / low) / (share + (1 - share) / high)
