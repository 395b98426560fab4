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
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tqdm import tqdm

from shell_envs import __version__
from shell_envs.bench import patience, report, tournament
from shell_envs.bench.tournament import AgentSpec

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
    if plan.games_per_pair < 1 or plan.deals < 1:
        raise ValueError("games per pair and deals must be at least 1")
    workers = default_workers() if workers is None else int(workers)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
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
    try:
        if workers == 1:
            for k in costliest_first:
                collect(k, _timed(tasks[k][3], *tasks[k][4]))
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = {
                    pool.submit(_timed, tasks[k][3], *tasks[k][4]): k for k in costliest_first
                }
                for future in as_completed(futures):
                    collect(futures[future], future.result())
    finally:
        for bar in bars.values():
            bar.close()
    games = [g for k in range(len(tasks)) if tasks[k][1] == "wts" for g in results[k]]
    played = [d for k in range(len(tasks)) if tasks[k][1] == "scorpion" for d in results[k]]
    summary = {
        "meta": {
            "mode": "quick" if quick else "default",
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
        "what_the_shell": tournament.summarize(
            [s.label for s in wts_agents], games, ANCHOR, n_resamples=plan.bootstrap, seed=seed
        ),
        "scorpion": patience.summarize([s.label for s in SCORPION_AGENTS], played),
    }
    paths = report.write_all(summary, out)
    return summary, paths


def _spec(spec: AgentSpec) -> dict[str, Any]:
    """An agent spec as plain JSON data."""
    data = asdict(spec)
    data["kwargs"] = dict(spec.kwargs)
    return data
