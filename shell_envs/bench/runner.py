"""The ``shell-envs bench`` job: any agents, both games, one fixed scale, full game records.

What the Shell: every agent plays ``games`` games against each anchor of the fixed rating
scale (`shell_envs.bench.scale`), in pairs from one opening of the opening book with the
seats swapped, as the anchors' own games were (the same openings against every anchor), and
is rated with the anchors held at their shipped values.  Scorpion: every agent plays the
same deals of a fixed deal set (`DEAL_SETS`) under Classic and/or Relaxed.  Each game is one
task for a pool of worker processes (``ProcessPoolExecutor``), so the progress bars tick per
finished game; a game's seeds depend only on the bench seed and its place in the schedule,
so the figures do not depend on the number of workers.  Compiled code is built once, before
the workers start: in the main process, and the second game's at the same time in a process
of its own (`warm_up_games`).  With a Ray cluster's address the games are Ray tasks on its
nodes instead (`shell_envs.bench.cluster`), with the same records.  `run_bench` writes the
results folder (`shell_envs.bench.report`); `evaluate` returns the report of one agent.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import platform
import signal
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from shell_envs._version import __version__
from shell_envs.agents.spec import AgentSpec, AgentSpecError, object_spec, parse_spec
from shell_envs.bench import cluster, games, patience, report, scale, tournament
from shell_envs.bench.limits import MAX_DEALS, MAX_GAMES, MAX_SEED, MAX_WORKERS
from shell_envs.core.validation import integer, positive_int
from shell_envs.registry import GAMES as _REGISTRY
from shell_envs.scorpion.rules import RULE_SETS

GAMES = tuple(_REGISTRY)  # every game, in the registry's order
DEFAULT_AGENTS = ("random", "greedy", "mcts", "lookahead")
MAX_ROUNDS = 200


@dataclass(frozen=True)
class Plan:
    """How much the bench plays: games per agent and anchor, deals per agent and rule set."""

    games: int
    deals: int


PLANS = {"default": Plan(100, 500), "quick": Plan(10, 50)}


@dataclass(frozen=True)
class Settings:
    """Everything that decides a bench's figures (timing aside)."""

    agents: tuple[AgentSpec, ...]
    games: tuple[str, ...] = GAMES
    rules: tuple[str, ...] = patience.DEFAULT_RULES
    games_per_anchor: int = PLANS["default"].games
    deals: int = PLANS["default"].deals
    deal_set: str = "test"
    seed: int = 0
    mode: str = "default"
    fail_fast: bool = False
    max_rounds: int = MAX_ROUNDS
    max_moves: int = patience.MAX_MOVES
    stall_moves: int = patience.STALL_MOVES
    table: scale.AnchorTable = field(default_factory=scale.anchor_table)
    unfit: frozenset[tuple[str, str]] = frozenset()  # (model label, game) it cannot play

    def players(self, game: str) -> list[AgentSpec]:
        """The agents that play ``game`` (a built-in agent exists for one game only, a model
        fits one game's observations)."""
        return [
            a
            for a in self.agents
            if game in self.games and a.plays(game) and (a.label, game) not in self.unfit
        ]

    def to_dict(self, workers: int) -> dict[str, Any]:
        """The settings as JSON data."""
        return {
            "mode": self.mode,
            "games": list(self.games),
            "rules": list(self.rules),
            "seed": self.seed,
            "workers": workers,
            "agents": {a.label: a.spec for a in self.agents},
            "what_the_shell": {
                "agents": [a.label for a in self.players("what_the_shell")],
                "games_per_anchor": self.games_per_anchor,
                "anchors": {a.label: a.spec for a in self.table.anchors},
                **({} if self.table.openings is None else {"openings": dict(self.table.openings)}),
                "max_rounds": self.max_rounds,
            },
            "scorpion": {
                "agents": [a.label for a in self.players("scorpion")],
                "deal_set": self.deal_set,
                "deals": self.deals,
                "max_moves": self.max_moves,
                "stall_moves": self.stall_moves,
            },
        }


@dataclass(frozen=True)
class Task:
    """One game: which section, the function playing it and its arguments."""

    section: str
    run: Callable[..., tuple[dict[str, Any], Any]]
    args: tuple[Any, ...]
    pairing: dict[str, Any] | None = None


def default_workers() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def game_seed(seed: int, *keys: int | str) -> int:
    """A game's seed from the bench seed and its place in the schedule (labels hashed)."""
    words = [seed] + [zlib.crc32(k.encode()) if isinstance(k, str) else int(k) for k in keys]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def tasks(settings: Settings) -> list[Task]:
    """Every game of the bench, in schedule order (the order of ``games.jsonl``)."""
    out: list[Task] = []
    s = settings
    book = s.table.book() if s.players("what_the_shell") else None
    starts = tournament.opening_starts(book, s.seed, s.games_per_anchor)
    for candidate in s.players("what_the_shell"):
        for anchor in s.table.anchors:
            for g in range(s.games_per_anchor):
                seat = "black" if g % 2 == 0 else "white"
                pair = (candidate, anchor.agent) if seat == "black" else (anchor.agent, candidate)
                seed = game_seed(s.seed, anchor.label, g)
                pairing: dict[str, Any] = {"candidate": candidate.label, "anchor": anchor.label}
                pairing["candidate_seat"] = seat
                if starts[g] is not None:
                    pairing["opening"] = starts[g]
                position = tournament.start_position(book, starts[g])
                args: tuple[Any, ...] = (*pair, seed, s.max_rounds, s.fail_fast, len(out), position)
                out.append(Task("what_the_shell", games.play_what_the_shell, args, pairing))
    deals = patience.deal_numbers(s.deals, s.deal_set) if "scorpion" in s.games else []
    for rules in s.rules:
        for candidate in s.players("scorpion"):
            for deal in deals:
                agent_seed = game_seed(s.seed, deal)
                args = (candidate, deal, rules, agent_seed, s.max_moves, s.stall_moves)
                out.append(Task("scorpion", games.play_scorpion, (*args, s.fail_fast, len(out))))
    return out


def _play(task: Task) -> tuple[dict[str, Any], Any]:
    """Play one task (in a worker or in this process)."""
    return task.run(*task.args)


def check_agents(settings: Settings) -> Settings:
    """Build every agent once for every game it plays: a bad spec fails before any game.

    A saved model that loads for some of the games only (its observations are one game's)
    plays those; the settings returned say so.  A model that fits none, and any other agent
    that fails to load, raises [`AgentSpecError`][].
    """
    unfit: set[tuple[str, str]] = set()
    for spec in settings.agents:
        errors = []
        games_for_spec = [g for g in settings.games if spec.plays(g)]
        for game in games_for_spec:
            try:
                spec.make(game, 0)
            except AgentSpecError as exc:
                if spec.kind not in ("ppo", "rllib"):
                    raise
                errors.append(exc)
                unfit.add((spec.label, game))
        if games_for_spec and len(errors) == len(games_for_spec):
            raise errors[0]
    settings = dataclasses.replace(settings, unfit=frozenset(unfit))
    if not any(settings.players(g) for g in settings.games):
        raise AgentSpecError(
            "none of the agents plays " + " or ".join(settings.games).replace("_", " ")
        )
    return settings


def _compiled_entry_points(games_played: Sequence[str]) -> list[Any]:
    """The outermost compiled functions a bench of ``games_played`` runs (each compiles the
    rule functions it calls)."""
    functions: list[Any] = []
    if "what_the_shell" in games_played:
        from shell_envs.what_the_shell import encoders, search

        functions += [encoders.step_planes, search.score_cells, search.run_search]
    if "scorpion" in games_played:
        from shell_envs.scorpion import encoders as scorpion_encoders
        from shell_envs.scorpion import search as scorpion_search

        functions += [
            scorpion_encoders.step_and_encode,
            scorpion_search.greedy_choice,
            scorpion_search.rollout_values,
            scorpion_search.is_dead,
        ]
    return functions


def warm_up(
    games_played: Sequence[str],
    rules: Sequence[str] = (),
    agents: Sequence[AgentSpec] = (),
    notice: bool = True,
) -> None:
    """Compile the game code a bench of ``games_played`` and ``agents`` needs, once, here.

    A few moves of each built-in agent (and of the anchors) compile what they use.  Run
    before the workers start, so that they load it from the disk cache instead of each
    compiling it again.  With ``notice``, when the code is not cached yet,
    one line says so and where the cache lives ([`shell_envs.core.jit.compile_notice`][]).
    """
    from shell_envs.core.jit import compile_notice

    if notice:
        compile_notice(*_compiled_entry_points(games_played), what="the games and agents")
    builtin = [a for a in agents if a.kind == "builtin"]
    if "what_the_shell" in games_played:
        probe = parse_spec("mcts:iterations=8")
        for spec in [parse_spec("greedy"), *(a for a in builtin if a.plays("what_the_shell"))]:
            games.play_what_the_shell(spec, probe, seed=0, max_rounds=4)
    if "scorpion" in games_played:
        for spec in [a for a in builtin if a.plays("scorpion")]:
            for rule_set in rules:
                games.play_scorpion(spec, 0, rule_set, 0, max_moves=3, stall_moves=3)


def warm_up_games(
    games_played: Sequence[str],
    rules: Sequence[str] = (),
    agents: Sequence[AgentSpec] = (),
    workers: int = 1,
    notice: bool = True,
) -> None:
    """`warm_up`, with each game after the first compiled at the same time in a
    process of its own when ``workers`` allows and its code is not cached yet.

    The other process only fills the disk cache (the games share no compiled code), and this
    process then loads from it what that one compiled: on two cores the first bench of both
    games waits for the slower game's compile instead of for the sum of both.  Anything that
    fails there fails again here, where it is reported.
    """
    from shell_envs.core.jit import compile_notice, is_cached

    if notice:
        compile_notice(*_compiled_entry_points(games_played), what="the games and agents")
    builtin = tuple(a for a in agents if a.kind == "builtin")
    others = [g for g in games_played[1:] if not is_cached(*_compiled_entry_points([g]))][
        : max(workers - 1, 0)
    ]
    context = _process_context()
    helpers = [
        context.Process(target=_fill_cache, args=([g], tuple(rules), builtin), daemon=True)
        for g in others
    ]
    try:
        for helper in helpers:
            helper.start()
        warm_up(games_played[:1], rules, agents, notice=False)
        for helper in helpers:
            helper.join()
        warm_up(games_played[1:], rules, agents, notice=False)
    finally:
        for helper in helpers:
            if helper.is_alive():
                helper.kill()
                helper.join()


def _process_context() -> Any:
    """How the bench starts its processes: the platform's default (forked on Linux), spawned
    once torch has run here (a model agent loaded by check_agents), since a forked copy of
    such a process can hang in torch's thread pool."""
    return multiprocessing.get_context("spawn" if "torch" in sys.modules else None)


def _fill_cache(games_played: list[str], rules: tuple[str, ...], agents: tuple) -> None:
    """Compile what a bench of ``games_played`` runs into the disk cache, quietly; Ctrl-C is
    the main process's to handle (it stops this one)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with open(os.devnull, "w") as sink:
        sys.stderr = sink
        try:
            warm_up(games_played, rules, agents, notice=False)
        except Exception:  # reported when the main process compiles the same code
            os._exit(1)


def run(
    settings: Settings,
    workers: int = 1,
    progress: bool = True,
    on: cluster.Cluster | None = None,
) -> report.BenchReport:
    """Play the bench ``settings`` describe and return its report (nothing is written);
    ``on`` a Ray cluster (`shell_envs.bench.cluster`), ``workers`` games at a time there.

    Ctrl-C stops at once: `BenchInterrupted` carries the report of the finished games.
    """
    start = time.perf_counter()
    settings = check_agents(settings)
    plan = tasks(settings)
    playing = [g for g in settings.games if settings.players(g)]
    try:
        warm_up_games(playing, settings.rules, settings.agents, workers, notice=progress)
    except KeyboardInterrupt:  # while compiling: no game has started
        raise BenchInterrupted(summarize(settings, plan, {}, {}, workers, start, True)) from None
    records, clocks, interrupted = play_tasks(plan, workers, progress, settings.seed, on)
    result = summarize(settings, plan, records, clocks, workers, start, interrupted)
    if interrupted:
        raise BenchInterrupted(result)
    return result


def play_tasks(
    plan: list[Task],
    workers: int,
    progress: bool = True,
    seed: int = 0,
    on: cluster.Cluster | None = None,
) -> tuple[dict[int, dict[str, Any]], dict[int, Any], bool]:
    """Play every task on ``workers`` processes (or as Ray tasks ``on`` a cluster, `run_pool`)
    with a progress bar per section.

    Returns the records and clocks by task index and whether Ctrl-C stopped the play (then
    only the finished games are there).  Tasks start in a fixed shuffled order, so that the
    rate, and the ETA, is representative from the start.
    """
    records: dict[int, dict[str, Any]] = {}
    clocks: dict[int, Any] = {}
    width = max(len(g.title) for g in _REGISTRY.values())
    sections = {g.name: (g.title.ljust(width), g.bench_unit) for g in _REGISTRY.values()}
    bars = {
        section: tqdm(
            total=sum(t.section == section for t in plan),
            desc=desc,
            unit=unit,
            disable=not progress,
            position=i,
            dynamic_ncols=True,
        )
        for i, (section, (desc, unit)) in enumerate(sections.items())
        if any(t.section == section for t in plan)
    }

    def collect(k: int, result: tuple[dict[str, Any], Any]) -> None:
        records[k], clocks[k] = result
        if plan[k].pairing is not None:
            records[k]["pairing"] = plan[k].pairing
        bars[plan[k].section].update(1)

    order = np.random.default_rng(seed).permutation(len(plan))
    interrupted = False
    try:
        run_pool(plan, order, workers, collect, on)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        for bar in bars.values():
            bar.close()
    return records, clocks, interrupted


def run_pool(
    plan: Sequence[Task],
    order: Sequence[int] | np.ndarray,
    workers: int,
    collect: Callable[[int, tuple[dict[str, Any], Any]], None],
    on: cluster.Cluster | None = None,
) -> None:
    """Play the tasks numbered ``order`` and ``collect(k, result)`` each as it finishes: as
    Ray tasks ``on`` a cluster, ``workers`` at a time (`shell_envs.bench.cluster`), else in
    this process (one worker) or on ``workers`` processes.

    Whatever stops it (Ctrl-C, an exception from ``collect``) stops the games still running
    and is raised again; the games collected stay collected.
    """
    if on is not None:
        on.play(plan, order, workers, collect)
    elif workers == 1:
        for k in order:
            collect(int(k), _play(plan[k]))
    else:
        _run_processes(plan, order, workers, collect)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started safely for compiled code, which leave Ctrl-C
    to this process (it stops them)."""
    return ProcessPoolExecutor(
        workers, mp_context=_process_context(), initializer=_ignore_interrupts
    )


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a worker pool now: drop the queued tasks and end the workers mid-task (a bench's
    games, a background rating)."""
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)


def _run_processes(
    plan: Sequence[Task],
    order: Sequence[int] | np.ndarray,
    workers: int,
    collect: Callable[[int, tuple[dict[str, Any], Any]], None],
) -> None:
    """Play the tasks on ``workers`` processes, collecting each as it finishes."""
    pool = worker_pool(workers)
    try:
        pending = {pool.submit(_play, plan[k]): int(k) for k in order}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                k = pending.pop(future)
                collect(k, future.result())
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown()


def summarize(
    settings: Settings,
    plan: list[Task],
    records: dict[int, dict[str, Any]],
    clocks: dict[int, Any],
    workers: int,
    start: float,
    interrupted: bool,
) -> report.BenchReport:
    """The report of the finished games."""
    ordered = [records[k] for k in sorted(records)]
    seconds: dict[Any, list[float]] = {}
    for k in records:
        task = plan[k]
        if task.pairing is not None:
            key: Any = task.pairing["candidate"]
            clock = clocks[k][task.pairing["candidate_seat"]]
        else:
            key, clock = (records[k]["rules"], records[k]["agent"]), clocks[k]
        total = seconds.setdefault(key, [0.0, 0])
        total[0] += clock[0]
        total[1] += clock[1]
    per_move = {k: s / max(n, 1) for k, (s, n) in seconds.items()}
    data: dict[str, Any] = {
        "version": __version__,
        "settings": settings.to_dict(workers),
        "run": {
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "wall_seconds": round(time.perf_counter() - start, 1),
            "interrupted": interrupted,
            "games_finished": f"{len(records)} of {len(plan)}",
            "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        },
    }
    # each game's section: its summary, the type of its seconds' keys, its summary's setting
    sections: dict[str, tuple[Callable[..., dict[str, Any]], type, Any]] = {
        "what_the_shell": (scale.summarize, str, settings.table),
        "scorpion": (patience.summarize, tuple, settings.deal_set),
    }
    for game, (summarize_game, key_type, setting) in sections.items():
        played = [r for r in ordered if r["game"] == game]
        if played:
            data[game] = summarize_game(
                played,
                [a.label for a in settings.players(game)],
                {k: v for k, v in per_move.items() if isinstance(k, key_type)},
                setting,
            )
    return report.BenchReport(data, ordered)


class BenchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the bench; ``report`` covers the games that finished (``paths`` once
    `run_bench` has written them)."""

    def __init__(self, result: report.BenchReport, paths: dict[str, Path] | None = None) -> None:
        super().__init__("the bench was interrupted")
        self.report = result
        self.paths = paths or {}


def _ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C is the main process's to handle (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def make_settings(
    agents: Sequence[str | AgentSpec] | None = None,
    game: str = "all",
    rules: str = "both",
    games_per_anchor: int | None = None,
    deals: int | None = None,
    deal_set: str = "test",
    seed: int = 0,
    quick: bool = False,
    fail_fast: bool = False,
) -> Settings:
    """Checked `Settings` from the command line's choices (``ValueError`` if bad)."""
    game_choices = {"all": GAMES}
    game_choices.update({g.cli_name: (g.name,) for g in _REGISTRY.values()})
    game_choices.update({g: (g,) for g in GAMES})
    if game not in game_choices:
        names = ", ".join(g.cli_name for g in _REGISTRY.values())
        raise ValueError(f"game must be {names} or all, got {game!r}")
    rule_choices = {
        "both": patience.DEFAULT_RULES,
        "all": RULE_SETS,
        **{r: (r,) for r in RULE_SETS},
    }
    if rules not in rule_choices:
        raise ValueError(f"rules must be {', '.join(RULE_SETS)}, both or all, got {rules!r}")
    plan = PLANS["quick" if quick else "default"]
    games_per_anchor = plan.games if games_per_anchor is None else games_per_anchor
    deals = plan.deals if deals is None else deals
    positive_int("games", games_per_anchor, high=MAX_GAMES)
    positive_int("deals", deals, high=MAX_DEALS)
    patience.deal_numbers(deals, deal_set)  # the set exists and is large enough
    integer("seed", seed, 0, MAX_SEED)
    specs = [a if isinstance(a, AgentSpec) else parse_spec(a) for a in agents or DEFAULT_AGENTS]
    labels = [a.label for a in specs]
    twice = sorted({x for x in labels if labels.count(x) > 1})
    if twice:
        raise AgentSpecError(
            f"two agents are named {', '.join(twice)}; name them apart with --agent NAME=SPEC"
        )
    return Settings(
        agents=tuple(specs),
        games=game_choices[game],
        rules=rule_choices[rules],
        games_per_anchor=games_per_anchor,
        deals=deals,
        deal_set=deal_set,
        seed=seed,
        mode="quick" if quick else "default",
        fail_fast=fail_fast,
    )


def run_bench(
    out: str | Path = "results",
    agents: Sequence[str | AgentSpec] | None = None,
    *,
    workers: int | None = None,
    progress: bool = True,
    overwrite: bool = False,
    ray: str | None = None,
    **settings: Any,
) -> tuple[report.BenchReport, dict[str, Path]]:
    """Run the bench and write the results folder; returns the report and the files written.

    ``agents`` are agent specs (`shell_envs.agents.spec`; default: the built-in
    ``random``, ``greedy``, ``mcts`` and ``lookahead``, each in the games it plays).
    ``settings`` are the other keywords of `make_settings` (``game``, ``rules``,
    ``games_per_anchor``, ``deals``, ``deal_set``, ``seed``, ``quick``, ``fail_fast``), with
    its defaults and checks.  A folder ``out`` that holds results already stops the bench
    before any game (`ResultsExist`) unless ``overwrite`` is true.  A bench that stops before
    writing (a bad agent, ``fail_fast``, a Ray cluster that does not answer) leaves no folder
    it made.

    ``ray``, a Ray cluster's address (or ``"auto"``), plays the games as Ray tasks there
    (`shell_envs.bench.cluster`; the same records), ``workers`` at a time (default: the
    cluster's CPUs); `shell_envs.bench.cluster.ClusterError` when Ray is missing or nothing
    answers there.
    """
    checked = make_settings(agents, **settings)
    if workers is not None:
        workers = positive_int("workers", workers, high=MAX_WORKERS)
    # before any game: a bad --out, or one holding results, fails now, not after the bench
    with report.results_folder(out, overwrite), cluster.connect(ray) as on:
        if on is not None:
            for spec in checked.agents:
                cluster.portable(spec)  # an agent that cannot go fails before any game
        if workers is None:
            workers = min(on.cpus, MAX_WORKERS) if on is not None else default_workers()
        try:
            result = run(checked, workers, progress, on)
        except BenchInterrupted as stop:
            if stop.report.records:
                stop.paths = stop.report.write(out, overwrite=True)  # checked above
            raise
        return result, result.write(out, overwrite=True)


def evaluate(
    agent: Any,
    game: str = "all",
    rules: str = "both",
    games_per_anchor: int | None = None,
    deals: int | None = None,
    deal_set: str = "test",
    workers: int = 1,
    seed: int = 0,
    quick: bool = False,
    name: str | None = None,
    progress: bool = False,
) -> report.BenchReport:
    """Benchmark one agent as ``shell-envs bench --agent`` does; returns its report.

    ``agent`` is an agent spec (text or [`AgentSpec`][]), an agent
    object (``act(observation, action_mask)``, played in this process) or a policy function
    ``f(observation, action_mask) -> int``.  The figures are those the command line gives
    for the same settings; ``report.markdown()``, ``report.to_dict()``, ``report.plot(path)``
    and ``report.write(folder)`` present them.
    """
    if isinstance(agent, str | AgentSpec):
        spec = parse_spec(agent) if isinstance(agent, str) else agent
        if name is not None:
            spec = AgentSpec(name, spec.spec, spec.kind, spec.target, spec.options)
    else:
        if game == "all":
            raise ValueError(
                "an agent object plays one game: pass game='what_the_shell' or game='scorpion'"
            )
        spec = object_spec(agent, name)
        workers = 1  # an object lives in this process
    settings = make_settings(
        [spec], game, rules, games_per_anchor, deals, deal_set, seed, quick, fail_fast=False
    )
    workers = positive_int("workers", workers, high=MAX_WORKERS)
    return run(settings, workers, progress)
