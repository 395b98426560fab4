"""How the CPU batched envs scale with threads: steps/s at each thread count, side by side.

Each game's batched env runs the random-legal-move loop of `shell_envs.bench.peers`
(compiled sampler, ``step``, autoreset) at ``N`` games; one workload per thread count sets
``numba.set_num_threads`` and steps the same env, and the repeats are interleaved across thread
counts, so machine noise falls on all of them alike.  The ratio of each thread count's median
to the first one's is the scaling; the spread is the min–max of the repeats.
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np

from shell_envs.bench.peers import scorpion_batched, what_the_shell_batched
from shell_envs.bench.timing import Rate, measure_side_by_side
from shell_envs.core import background
from shell_envs.core.jit import jit_parallel, prange
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


# the parts of a random-play step, each a list of ``module:function`` or
# ``module:Class.method``; a part's time excludes the other parts it calls, and what no part
# covers is the rest of the Python of ``step`` and of the loop
STEP_PARTS = {
    "parallel loops": PARALLEL_LOOPS,
    "sampler, host side": ("shell_envs.core.sampling:random_legal_actions",),
    "argument checks": (
        "shell_envs.what_the_shell.vector:WhatTheShellVectorEnv._as_actions",
        "shell_envs.scorpion.vector:ScorpionVectorEnv._as_actions",
    ),
    "result buffers": (
        "shell_envs.core.buffers:BufferPool.take",
        "shell_envs.core.buffers:BufferPool.copy_of",
        "shell_envs.scorpion.vector:info_arrays",
        "shell_envs.core.buffers:BufferSets.take",
    ),
    "result dicts": (
        "shell_envs.what_the_shell.vector:WhatTheShellVectorEnv._observations",
        "shell_envs.what_the_shell.batch:infos_of",
        "shell_envs.scorpion.vector:ScorpionVectorEnv._observations",
        "shell_envs.scorpion.vector:as_infos",
    ),
}
OTHER = "other Python (step and loop)"


def _resolve(target: str) -> tuple[object, str, object] | None:
    """``(owner, attribute, function)`` of ``module:function`` or ``module:Class.method``."""
    module_name, path = target.split(":")
    owner: Any = importlib.import_module(module_name)
    *outer, name = path.split(".")
    for part in outer:
        owner = getattr(owner, part, None)
    function = getattr(owner, name, None) if owner is not None else None
    return None if function is None else (owner, name, function)


@contextmanager
def _timed_parts(parts: dict[str, tuple[str, ...]], spent: dict[str, float]) -> Iterator[None]:
    """Add the exclusive wall time of each call of each part's functions to ``spent[part]``
    meanwhile (a call's time minus that of the timed calls it makes).  Every module of the
    package that bound such a function by name gets the timed one too."""
    stack: list[float] = []  # the child time of each timed call in progress
    patched = []
    for part, targets in parts.items():
        for target in targets:
            found = _resolve(target)
            if found is None:
                continue
            owner, name, function = found

            def timed(*args, _function=function, _part=part, **kwargs):
                stack.append(0.0)
                start = time.perf_counter()
                try:
                    return _function(*args, **kwargs)
                finally:
                    elapsed = time.perf_counter() - start
                    children = stack.pop()
                    spent[_part] += elapsed - children
                    if stack:
                        stack[-1] += elapsed

            holders = [(owner, name)]
            if not isinstance(owner, type):
                holders += [
                    (module, attr)
                    for module in list(sys.modules.values())
                    if getattr(module, "__name__", "").startswith("shell_envs")
                    and module is not owner
                    for attr, value in list(vars(module).items())
                    if value is function
                ]
            for holder, attr in holders:
                setattr(holder, attr, timed)
                patched.append((holder, attr, function))
    try:
        yield
    finally:
        for holder, attr, function in reversed(patched):
            setattr(holder, attr, function)


CEILING = "ceiling"


def scaling_breakdown(
    games: tuple[str, ...] = GAMES,
    sizes: tuple[int, ...] = (4096, 16384),
    threads: tuple[int, ...] = (1, 2),
    seconds: float = 1.0,
    repeats: int = 5,
    encoder: str = "planes_uint8",
) -> dict[tuple[str, int], dict[int, list[dict[str, float]]]]:
    """Where a random-play step's wall time goes, per game, batch size and thread count:
    ``{(game, N): {threads: [one {part: milliseconds a step} per repeat]}}`` with the parts of
    `STEP_PARTS`, `OTHER` and ``"total"``; and ``{(CEILING, 0): {threads: [{"total": ...}]}}``
    for `ceiling_workload` (milliseconds a pass).  The repeats are interleaved across
    workloads and thread counts, so machine noise falls on all of them alike."""
    make = {
        "what_the_shell": lambda n: what_the_shell_batched(encoder, n),
        "scorpion": lambda n: scorpion_batched(n),
    }
    spent = dict.fromkeys(STEP_PARTS, 0.0)
    before = numba.get_num_threads()
    with _timed_parts(STEP_PARTS, spent):
        runs = {(game, n): (n, make[game](n)) for game in games for n in sizes}  # timed names
        ceiling = ceiling_workload()
        runs[(CEILING, 0)] = (CEILING_UNIT, ceiling)
        out: dict[tuple[str, int], dict[int, list[dict[str, float]]]] = {
            key: {t: [] for t in threads} for key in runs
        }
        try:
            steps = {}
            for key, (unit, run) in runs.items():
                run(unit)
                background.wait()
                for t in threads:  # warm at every thread count
                    numba.set_num_threads(t)
                    run(unit * 2)
                numba.set_num_threads(threads[0])
                start = time.perf_counter()
                run(unit * 3)
                steps[key] = max(3, int(3 * seconds / max(time.perf_counter() - start, 1e-9)))
            for _ in range(repeats):
                for t in threads:
                    numba.set_num_threads(t)
                    for key, (unit, run) in runs.items():
                        for part in spent:
                            spent[part] = 0.0
                        start = time.perf_counter()
                        run(unit * steps[key])
                        total = 1e3 * (time.perf_counter() - start) / steps[key]
                        row = {part: 1e3 * value / steps[key] for part, value in spent.items()}
                        row[OTHER] = total - sum(row.values())
                        row["total"] = total
                        out[key][t].append(row if key[0] != CEILING else {"total": total})
        finally:
            numba.set_num_threads(before)
    return out


@jit_parallel
def _ceiling_loop(x, out, rounds):
    """A plain compute-bound parallel loop: each element iterated ``rounds`` times in
    registers, nothing shared, nothing allocated."""
    for i in prange(x.shape[0]):
        value = x[i]
        for _ in range(rounds):
            value = value * 0.999999 + 1e-7
        out[i] = value


def _spread(values: list[float], fmt: str) -> str:
    """``median (min–max)`` of ``values`` in format ``fmt``."""
    return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}–{max(values):{fmt}})"


def breakdown_summary(
    results: dict[tuple[str, int], dict[int, list[dict[str, float]]]],
) -> dict[tuple[str, int], dict[str, list[float]]]:
    """Per game and size, per repeat: the serial share of a 1-thread step (what is not the
    parallel loops), the speedup from the first thread count to the last, the ceiling loop's
    speedup in the same repeat, and their ratio."""
    ceiling = results[(CEILING, 0)]
    low, high = min(ceiling), max(ceiling)
    ceiling_up = [a["total"] / b["total"] for a, b in zip(ceiling[low], ceiling[high], strict=True)]
    out = {}
    for key, by_threads in results.items():
        if key[0] == CEILING:
            continue
        ups = [a["total"] / b["total"] for a, b in zip(by_threads[low], by_threads[high],
                                                       strict=True)]  # fmt: skip
        out[key] = {
            "serial_share": [1 - r["parallel loops"] / r["total"] for r in by_threads[low]],
            "speedup": ups,
            "ceiling_speedup": ceiling_up,
            "of_ceiling": [u / c for u, c in zip(ups, ceiling_up, strict=True)],
        }
    return out


def format_breakdown(results: dict[tuple[str, int], dict[int, list[dict[str, float]]]]) -> str:
    """Markdown: for each game and size, milliseconds a step by part at each thread count and
    the share of each at the first, then the serial share, the speedup and the ceiling's."""
    summary = breakdown_summary(results)
    lines = []
    for key, by_threads in results.items():
        if key[0] == CEILING:
            continue
        game, n = key
        counts = list(by_threads)
        lines += [
            f"**{game}, N = {n:,}** (ms a step, median of {len(by_threads[counts[0]])} repeats)",
            "",
            "| part | " + " | ".join(f"{t} thread{'s' * (t > 1)}" for t in counts)
            + f" | share at {counts[0]} |",
            "|---|" + "---:|" * (len(counts) + 1),
        ]  # fmt: skip
        parts = [*STEP_PARTS, OTHER, "total"]
        first_total = statistics.median(r["total"] for r in by_threads[counts[0]])
        for part in parts:
            medians = [statistics.median(r[part] for r in by_threads[t]) for t in counts]
            share = medians[0] / first_total
            lines.append(f"| {part} | " + " | ".join(f"{m:.3f}" for m in medians)
                         + f" | {share:.1%} |")  # fmt: skip
        s = summary[key]
        lines += [
            "",
            f"- serial share of a {counts[0]}-thread step: {_spread(s['serial_share'], '.1%')}",
            f"- speedup {counts[0]} → {counts[-1]} threads: {_spread(s['speedup'], '.2f')}×; "
            f"the ceiling loop: {_spread(s['ceiling_speedup'], '.2f')}×; the env's speedup is "
            f"{_spread(s['of_ceiling'], '.1%')} of the ceiling's",
            "",
        ]
    return "\n".join(lines)


def breakdown_json(results: dict[tuple[str, int], dict[int, list[dict[str, float]]]]) -> dict:
    """`scaling_breakdown`'s results and their summary as plain data (every repeat kept)."""
    summary = breakdown_summary(results)
    return {
        f"{game} {n}" if game != CEILING else CEILING: {
            "threads": {str(t): rows for t, rows in by_threads.items()},
            **({"summary": summary[(game, n)]} if (game, n) in summary else {}),
        }
        for (game, n), by_threads in results.items()
    }


CEILING_UNIT = 1 << 16  # elements of one pass of the ceiling loop


def ceiling_workload(rounds: int = 200) -> Callable[[int], int]:
    """``run(n)``: ``n // CEILING_UNIT`` passes of `_ceiling_loop` over `CEILING_UNIT`
    elements: what the machine's threads give a loop with no serial part, for judging an env's
    scaling against it."""
    x = np.linspace(0.0, 1.0, CEILING_UNIT)
    out = np.empty_like(x)

    def run(n: int) -> int:
        passes = max(1, n // CEILING_UNIT)
        for _ in range(passes):
            _ceiling_loop(x, out, rounds)
        return passes * CEILING_UNIT

    return run


@contextmanager
def _timed_loops(spent: list[float]) -> Iterator[None]:
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
