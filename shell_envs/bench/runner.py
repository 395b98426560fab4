"""The ``shell-envs bench`` job: built-in agents on both games, fixed seeds, one results folder.

What the Shell: a round robin of ``random``, ``greedy`` and ``mcts``
(:mod:`shell_envs.bench.tournament`).  Scorpion: ``random``, ``greedy`` and ``lookahead`` on
the same numbered deals under Classic and Relaxed (:mod:`shell_envs.bench.patience`).  Games
are cut into chunks and spread over worker processes (``ProcessPoolExecutor``); every game's
seed depends only on the bench seed and its place in the schedule, so the numbers do not
depend on the number of workers.  Results go to ``results.json``, ``results.md`` and
``results.png`` (:mod:`shell_envs.bench.report`).
"""

from __future__ import annotations

import math
import os
import platform
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tqdm import tqdm

from shell_envs import __version__
from shell_envs.bench import (
    MAX_DEALS,
    MAX_GAMES,
    MAX_SEED,
    MAX_WORKERS,
    patience,
    report,
    tournament,
)
from shell_envs.bench.tournament import AgentSpec
from shell_envs.core.validation import integer, positive_int

WTS_AGENTS = (
    AgentSpec("random", "random"),
    AgentSpec("greedy", "greedy"),
    AgentSpec("mcts", "mcts", {"iterations": 400}),
)
SCORPION_AGENTS = (
    AgentSpec("random", "random"),
    AgentSpec("greedy", "greedy"),
    AgentSpec("lookahead", "lookahead"),
)
ANCHOR = "random"
MAX_ROUNDS = 200
CHUNKS = 10  # chunks per pair (What the Shell) and per agent and rule (Scorpion)


@dataclass(frozen=True)
class Plan:
    """How much the bench plays: games per What the Shell pair, Scorpion deals per rule."""

    games_per_pair: int
    deals: int
    bootstrap: int


PLANS = {"default": Plan(100, 500, 1000), "quick": Plan(30, 50, 300)}


def default_workers() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _chunks(items: Sequence[Any], size: int) -> list[list[Any]]:
    """Consecutive chunks of at most ``size`` items."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def _timed(fn: Callable[..., list[Any]], *args: Any) -> tuple[list[Any], float]:
    """Run ``fn(*args)`` and return its result with the seconds it took (in the worker)."""
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def _cost(specs: Sequence[AgentSpec], indices: Sequence[int], rules: str = "") -> int:
    """A rough relative cost, so that the slowest chunks start first."""
    heavy = sum(specs[i].name in ("mcts", "lookahead") for i in indices)
    return heavy * (20 if rules == "relaxed" else 5) + 1


def _tasks(
    plan: Plan, seed: int, wts_agents: tuple[AgentSpec, ...]
) -> list[tuple[int, str, int, Callable[..., Any], tuple[Any, ...]]]:
    """Every chunk of work as ``(cost, section, size, function, args)``, in schedule order."""
    tasks = []
    matches = tournament.schedule(len(wts_agents), plan.games_per_pair, seed)
    size = max(1, math.ceil(plan.games_per_pair / CHUNKS))
    per_pair: dict[tuple[int, int], list[tournament.Match]] = {}
    for m in matches:
        per_pair.setdefault((min(m.black, m.white), max(m.black, m.white)), []).append(m)
    for pair, games in per_pair.items():
        for chunk in _chunks(games, size):
            args = (wts_agents, chunk, MAX_ROUNDS)
            tasks.append(
                (_cost(wts_agents, pair), "wts", len(chunk), tournament.play_matches, args)
            )
    deals = patience.deal_numbers(plan.deals, seed)
    size = max(1, math.ceil(plan.deals / CHUNKS))
    for rules in patience.RULES:
        for index in range(len(SCORPION_AGENTS)):
            for chunk in _chunks(deals, size):
                work = [(index, rules, d) for d in chunk]
                cost = _cost(SCORPION_AGENTS, [index], rules)
                tasks.append(
                    (cost, "scorpion", len(chunk), patience.play_deals, (SCORPION_AGENTS, work))
                )
    return tasks


def run_bench(
    quick: bool = False,
    workers: int | None = None,
    out: str | Path = "results",
    seed: int = 0,
    games_per_pair: int | None = None,
    deals: int | None = None,
    progress: bool = True,
    extra_agents: Sequence[str] = (),
) -> tuple[dict[str, Any], dict[str, Path]]:
    """Run the bench and write the results folder; returns the results and the files written.

    ``games_per_pair`` and ``deals`` override the plan (``--quick`` or the default), e.g. for
    a smoke test.  ``extra_agents`` adds What the Shell agents by name, e.g. ``"ppo:model.zip"``
    for a trained model.
    """
    wts_agents = WTS_AGENTS + tuple(
        AgentSpec(name.removeprefix("ppo:") if name.startswith("ppo:") else name, name)
        for name in extra_agents
    )
    plan = PLANS["quick" if quick else "default"]
    plan = Plan(
        games_per_pair if games_per_pair is not None else plan.games_per_pair,
        deals if deals is not None else plan.deals,
        plan.bootstrap,
    )
    positive_int("games_per_pair", plan.games_per_pair, high=MAX_GAMES)
    positive_int("deals", plan.deals, high=MAX_DEALS)
    workers = (
        default_workers() if workers is None else positive_int("workers", workers, high=MAX_WORKERS)
    )
    integer("seed", seed, 0, MAX_SEED)
    report.check_writable(out)  # before any game: a bad --out fails now, not after the bench
    start = time.perf_counter()
    tasks = _tasks(plan, seed, wts_agents)
    results: dict[int, list[Any]] = {}
    seconds = {"wts": 0.0, "scorpion": 0.0}
    bars = {
        "wts": tqdm(
            total=sum(t[2] for t in tasks if t[1] == "wts"),
            desc="What the Shell",
            unit="game",
            position=0,
            disable=not progress,
        ),
        "scorpion": tqdm(
            total=sum(t[2] for t in tasks if t[1] == "scorpion"),
            desc="Scorpion      ",
            unit="deal",
            position=1,
            disable=not progress,
        ),
    }

    def collect(k: int, done: tuple[list[Any], float]) -> None:
        results[k], elapsed = done
        seconds[tasks[k][1]] += elapsed
        bars[tasks[k][1]].update(tasks[k][2])

    costliest_first = sorted(range(len(tasks)), key=lambda k: -tasks[k][0])
    interrupted = False
    try:
        if workers == 1:
            for k in costliest_first:
                collect(k, _timed(tasks[k][3], *tasks[k][4]))
        else:
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_interrupts)
            try:
                futures = {
                    pool.submit(_timed, tasks[k][3], *tasks[k][4]): k for k in costliest_first
                }
                for future in as_completed(futures):
                    collect(futures[future], future.result())
            except KeyboardInterrupt:
                _stop(pool)
                raise
            pool.shutdown()
    except KeyboardInterrupt:
        interrupted = True  # stop at once; what finished is kept below
    finally:
        for bar in bars.values():
            bar.close()
    if interrupted and not results:
        raise BenchInterrupted({})
    games = [g for k in sorted(results) if tasks[k][1] == "wts" for g in results[k]]
    played = [d for k in sorted(results) if tasks[k][1] == "scorpion" for d in results[k]]
    summary = {
        "meta": {
            "mode": "quick" if quick else "default",
            "interrupted": interrupted,
            "chunks_finished": f"{len(results)} of {len(tasks)}",
            "seed": seed,
            "workers": workers,
            "games_per_pair": plan.games_per_pair,
            "deals": plan.deals,
            "deal_numbers": f"{patience.deal_numbers(1, seed)[0]} … "
            f"{patience.deal_numbers(plan.deals, seed)[-1]}",
            "what_the_shell_agents": [_spec(s) for s in wts_agents],
            "scorpion_agents": [_spec(s) for s in SCORPION_AGENTS],
            "what_the_shell_max_rounds": MAX_ROUNDS,
            "scorpion_max_moves": patience.MAX_MOVES,
            "scorpion_stall_moves": patience.STALL_MOVES,
            "compute_seconds": {
                "what_the_shell": round(seconds["wts"], 1),
                "scorpion": round(seconds["scorpion"], 1),
            },
            "wall_seconds": round(time.perf_counter() - start, 1),
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "shell_envs": __version__,
            "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        },
        "what_the_shell": _partial(
            interrupted,
            tournament.summarize,
            [s.label for s in wts_agents],
            games,
            ANCHOR,
            n_resamples=plan.bootstrap,
            seed=seed,
        ),
        "scorpion": _partial(
            interrupted, patience.summarize, [s.label for s in SCORPION_AGENTS], played
        ),
    }
    paths = report.write_all(summary, out)
    if interrupted:
        raise BenchInterrupted(paths)
    return summary, paths


def _partial(interrupted: bool, summarize: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``summarize(*args, **kwargs)``; after an interrupt, None when the games that finished
    cannot be summarized (ratings need games of every pair)."""
    if not interrupted:
        return summarize(*args, **kwargs)
    try:
        return summarize(*args, **kwargs)
    except (ValueError, ZeroDivisionError, IndexError, KeyError):
        return None


class BenchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the bench; ``paths`` are the result files of the games that finished."""

    def __init__(self, paths: dict[str, Path]) -> None:
        super().__init__("the bench was interrupted")
        self.paths = paths


def _ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C is the main process's to handle (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: drop the queued chunks and end the workers mid-chunk."""
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)


def _spec(spec: AgentSpec) -> dict[str, Any]:
    """An agent spec as plain JSON data."""
    data = asdict(spec)
    data["kwargs"] = dict(spec.kwargs)
    return data
