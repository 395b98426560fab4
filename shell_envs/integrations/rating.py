"""Rate a policy while it trains, in a background process, on the bench's fixed scales.

[`BackgroundRater`][] rates snapshots of a policy as `shell_envs.bench.evaluate` does:
What the Shell on the fixed rating scale of the anchors (the Elo rating and its exact 95%
interval), Scorpion by its win rate on the same deals of a fixed deal set (with its Wilson
95% interval).  A rating runs in one worker process (a ``ProcessPoolExecutor``, started the
way the bench starts its processes), so the training loop only takes the snapshot and goes
on; `BackgroundRater.poll` hands back the ratings that finished, in step order.  The
framework adapters build on it: `shell_envs.integrations.sb3.RatingCallback` (a
Stable-Baselines3 callback) and `shell_envs.integrations.torchrl.RatingHook` (TorchRL or
plain torch).

At most one rating is in flight.  One that falls due while the previous one still runs is not
queued and not dropped: it waits, and the snapshot is taken at the first step after the
previous rating finished.  So the points are at least ``every_steps`` apart, none piles up
behind another, and each point rates the policy of the step it is plotted at.  Every rating
plays the same games (the same ``seed``): the points differ by the policy alone.

The worker is a fresh process (spawned once torch has run here), which imports the module
that started the training again: a training script keeps its work under
``if __name__ == "__main__":``.
"""

from __future__ import annotations

import csv
import json
import math
import pickle
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from shell_envs.agents.spec import parse_spec
from shell_envs.bench.limits import MAX_WORKERS
from shell_envs.bench.runner import PLANS, evaluate, make_settings, stop_pool, worker_pool
from shell_envs.core.validation import flag, positive_int
from shell_envs.scorpion.rules import RULE_SETS

METRICS = {"what_the_shell": "elo", "scorpion": "win_rate"}  # what a rating measures, per game
AgentSource = str | Callable[[], Any]  # an agent spec, or a picklable function making the agent


@dataclass(frozen=True)
class Rating:
    """One rated snapshot: the training step, the figure and its 95% interval, and the cost.

    What the Shell: ``rating`` is the Elo rating on the fixed scale (``random`` = 0) and
    ``score`` the mean score against the anchors (win 1, draw ½); ``rating`` is ``None``
    when the games give no finite value (nothing scored, or every game won), and an end of
    the interval is ``None`` where only a bound is known.  Scorpion: ``rating`` is the win
    rate on the deals, the interval Wilson's, ``score`` the mean final score.  ``games`` is
    the games (deals) played, ``seconds`` the wall time of the rating in its process.
    """

    step: int
    game: str
    rating: float | None
    lower: float | None
    upper: float | None
    games: int
    score: float
    seconds: float

    @property
    def metric(self) -> str:
        """``"elo"`` (What the Shell) or ``"win_rate"`` (Scorpion)."""
        return METRICS[self.game]

    def to_dict(self) -> dict[str, Any]:
        """The rating as JSON data, with its metric."""
        return {**asdict(self), "metric": self.metric}

    def scalars(self) -> dict[str, float | int]:
        """What a training logger records: the figure and its interval's ends under the
        metric's name (``elo``, ``elo_lower``, ``elo_upper``; an open end left out), the games,
        the score and the seconds."""
        name = self.metric
        values = {
            name: self.rating,
            f"{name}_lower": self.lower,
            f"{name}_upper": self.upper,
            "games": self.games,
            "score": self.score,
            "seconds": self.seconds,
        }
        return {key: value for key, value in values.items() if value is not None}

    def describe(self) -> str:
        """The rating in words: ``elo +412 [+250, +580] from 70 games in 12.3 s``."""
        percent = self.game == "scorpion"

        def show(x: float | None) -> str:
            if x is None:
                return "open"
            return f"{100 * x:.1f}%" if percent else f"{x:+.0f}"

        return (
            f"{self.metric} {show(self.rating)} [{show(self.lower)}, {show(self.upper)}] "
            f"from {self.games} {'deals' if percent else 'games'} in {self.seconds:.1f} s"
        )


class RatingFailed(RuntimeError):
    """A rating raised in the worker process; says which step's snapshot and why."""


def check_picklable(value: Any, what: str) -> None:
    """``TypeError`` naming ``what`` unless ``value`` can go to the worker process: it pickles,
    and a function of the script that was run lives in a file that process can import."""
    import __main__

    module = getattr(value, "__module__", None) or getattr(
        getattr(value, "func", None), "__module__", None
    )
    if module == "__main__" and not getattr(__main__, "__file__", None):
        raise TypeError(
            f"{what} is defined in an interactive session, which the worker process cannot "
            "import; define it in a module (a .py file)"
        )
    try:
        pickle.dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise TypeError(
            f"{what} must be picklable to reach the worker process (a function defined at the "
            f"top of a module, or a functools.partial of one): {exc}"
        ) from None


def _finite(x: float | None) -> float | None:
    """``x`` when it is a finite number, else ``None``."""
    return None if x is None or not math.isfinite(x) else float(x)


def rate(
    game: str,
    agent: AgentSource,
    step: int,
    *,
    name: str = "policy",
    rules: str = "classic",
    **settings: Any,
) -> Rating:
    """Rate one snapshot now, in this process (what the worker runs): ``agent`` is an agent
    spec (``"ppo:PATH"``, …) or a function that makes the agent object; ``settings`` are the
    bench's (`evaluate`'s ``games_per_anchor``, ``deals``, ``deal_set``, ``workers``,
    ``seed``), as `BackgroundRater` passes them; games and deals default to the ``--quick``
    plan's."""
    start = time.perf_counter()
    quick = PLANS["quick"]
    settings = {"games_per_anchor": quick.games, "deals": quick.deals} | settings
    report = evaluate(
        agent if isinstance(agent, str) else agent(),
        game=game,
        rules=rules,
        name=name,
        **settings,
    ).to_dict()
    seconds = time.perf_counter() - start
    if game == "what_the_shell":
        row = report["what_the_shell"]["ratings"][name]
        low, high = row["ci"]
        return Rating(step, game, _finite(row["rating"]), _finite(low), _finite(high),
                      int(row["games"]), float(row["score"]), seconds)  # fmt: skip
    row = report["scorpion"][rules]["agents"][name]
    return Rating(step, game, float(row["win_rate"]), float(row["ci"][0]), float(row["ci"][1]),
                  int(row["deals"]), float(row["mean_score"]), seconds)  # fmt: skip


class BackgroundRater:
    """Rate snapshots of a policy every ``every_steps`` training steps in a worker process.

    ``game`` is ``"what_the_shell"`` (``games_per_anchor`` games against each anchor of the
    fixed scale, seats swapped) or ``"scorpion"`` (``deals`` deals of ``deal_set`` under
    ``rules``); the defaults are the bench's ``--quick`` plan.  ``workers`` is the processes
    a rating's games may use when the snapshot is an agent spec (an agent object plays in the
    worker itself); ``seed`` the bench seed of every rating.  ``at_start``: the first rating is
    due at step 0 (the untrained policy), else at ``every_steps``.  Bad settings raise
    ``ValueError`` here, before training.

    The loop asks `due` and, when it is, takes a snapshot and gives it to `submit`; `poll`
    returns the ratings that finished since the last call; `close` waits for the one in
    flight (up to a timeout) and ends the worker.  ``results`` keeps every rating, in step
    order; `write_json`, `write_csv` and `plot` save them.
    """

    def __init__(
        self,
        game: str,
        every_steps: int,
        games_per_anchor: int = PLANS["quick"].games,
        deals: int = PLANS["quick"].deals,
        deal_set: str = "test",
        rules: str = "classic",
        workers: int = 1,
        seed: int = 0,
        name: str = "policy",
        at_start: bool = True,
    ) -> None:
        if game not in METRICS:
            raise ValueError(f"game must be 'what_the_shell' or 'scorpion', got {game!r}")
        if rules not in RULE_SETS:
            raise ValueError(f"rules must be {' or '.join(RULE_SETS)}, got {rules!r}")
        self.every_steps = positive_int("every_steps", every_steps)
        if not isinstance(name, str) or parse_spec(f"{name}=random").label != name:
            raise ValueError(f"name must be a label of letters, digits and _.+-()[], got {name!r}")
        # the bench's own checks of the settings (games, deals, deal set, seed)
        make_settings([f"{name}=random"], game, rules, games_per_anchor, deals, deal_set, seed)
        positive_int("workers", workers, high=MAX_WORKERS)
        flag("at_start", at_start)
        self.game = game
        self.options: dict[str, Any] = {
            "name": name,
            "games_per_anchor": games_per_anchor,
            "deals": deals,
            "deal_set": deal_set,
            "rules": rules,
            "workers": workers,
            "seed": seed,
        }
        self.next_step = 0 if at_start else self.every_steps
        self.results: list[Rating] = []
        self.last_submitted: int | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._folder: Path | None = None
        self._running: tuple[int, Future, list[Path]] | None = None
        self._exit_hook = False

    @property
    def busy(self) -> bool:
        """Whether a rating is in flight."""
        return self._running is not None

    def due(self, step: int) -> bool:
        """Whether to take a snapshot at ``step``: one is due and none is in flight."""
        return not self.busy and step >= self.next_step

    def snapshot_path(self, step: int, suffix: str = ".zip") -> Path:
        """A file name in the rater's scratch folder for the snapshot of ``step`` saved to
        disk (give it to `submit` in ``files``: it is deleted once rated)."""
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="shell-envs-rating-"))
        return self._folder / f"step-{int(step)}{suffix}"

    def submit(self, step: int, agent: AgentSource, files: Sequence[Path] = ()) -> None:
        """Rate ``agent`` (an agent spec, or a picklable function making the agent) as the
        snapshot of ``step``, in the worker; ``files`` are deleted once it is rated.

        ``RuntimeError`` if a rating is in flight (ask `due` first).
        """
        if self.busy:
            raise RuntimeError("a rating is in flight; submit when due(step) says so")
        if not isinstance(agent, str) and not callable(agent):
            raise TypeError(
                "agent must be an agent spec or a function that makes the agent, "
                f"got {type(agent).__name__}"
            )
        if self._pool is None:
            # Ctrl-C is the training process's: the worker ignores it (close ends the worker)
            self._pool = worker_pool(1)
            if not self._exit_hook:
                _at_exit(weakref.WeakMethod(self._shutdown))
                self._exit_hook = True
        future = self._pool.submit(rate, self.game, agent, int(step), **self.options)
        self._running = (int(step), future, [Path(f) for f in files])
        self.last_submitted = int(step)
        self.next_step = int(step) + self.every_steps

    def poll(self) -> list[Rating]:
        """The ratings finished since the last call (none or one), without waiting.

        [`RatingFailed`][] if the rating raised in the worker.
        """
        if self._running is None or not self._running[1].done():
            return []
        return [self._collect()]

    def wait(self, timeout: float | None = None) -> list[Rating]:
        """Wait up to ``timeout`` seconds (``None``: as long as it takes) for the rating in
        flight; returns it when it finished, else nothing (it keeps running)."""
        if self._running is None:
            return []
        try:
            self._running[1].result(timeout)
        except FutureTimeout:
            return []
        except Exception:  # raised by the rating: reported by _collect
            pass
        return [self._collect()]

    def close(self, timeout: float | None = None) -> list[Rating]:
        """Wait up to ``timeout`` seconds for the rating in flight, then end the worker
        (stopping a rating still running) and delete the scratch files; returns the rating
        that finished.  A later `submit` starts a new worker."""
        try:
            finished = self.wait(timeout)
        finally:
            self._shutdown()
        return finished

    def __enter__(self) -> BackgroundRater:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(timeout=0 if exc[0] is not None else None)

    def write_json(self, path: str | Path) -> Path:
        """Write the ratings to ``path`` as JSON (the game, the settings, one row a rating)."""
        data = {
            "game": self.game,
            "metric": METRICS[self.game],
            "every_steps": self.every_steps,
            "settings": self.options,
            "ratings": [r.to_dict() for r in self.results],
        }
        path = Path(path)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        return path

    def write_csv(self, path: str | Path) -> Path:
        """Write the ratings to ``path`` as CSV, one row a rating (empty cells: no value)."""
        path = Path(path)
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow([f.name for f in fields(Rating)])
            for r in self.results:
                writer.writerow(["" if v is None else v for v in asdict(r).values()])
        return path

    def plot(self, path: str | Path, title: str | None = None) -> Path:
        """Write the curve of the ratings to ``path`` (PNG): see [`plot_ratings`][]."""
        return plot_ratings(self.results, path, title)

    def _collect(self) -> Rating:
        """Take the finished rating in flight: keep it, delete its files, or raise its error."""
        assert self._running is not None
        step, future, files = self._running
        self._running = None
        for path in files:
            path.unlink(missing_ok=True)
        try:
            result = future.result()
        except Exception as exc:
            raise RatingFailed(
                f"rating the snapshot of step {step} failed: {type(exc).__name__}: {exc}"
            ) from exc
        self.results.append(result)
        return result

    def _shutdown(self) -> None:
        """End the worker (now, stopping it, if a rating still runs) and delete scratch files."""
        pool, self._pool = self._pool, None
        running, self._running = self._running, None
        if running is not None:
            for path in running[2]:
                path.unlink(missing_ok=True)
        if pool is not None and running is None:  # idle: let the worker leave by itself
            pool.shutdown(wait=True)
        elif pool is not None:
            stop_pool(pool)
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def seconds_left(deadline: float | None) -> float | None:
    """Seconds left until ``deadline``, a `time.monotonic` time (``None``: no deadline)."""
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _at_exit(shutdown: weakref.WeakMethod) -> None:
    """End a rater at interpreter exit, if it is still alive and open: its worker is stopped
    and its scratch folder removed, as `BackgroundRater.close` does.  Registered where
    ``concurrent.futures`` registers its own exit hook, so it runs before that hook, which
    would otherwise wait for a rating still running (a training run that raised never calls
    ``close``)."""

    def end() -> None:
        method = shutdown()
        if method is not None:
            method()

    register = getattr(threading, "_register_atexit", None)
    if register is None:  # an interpreter without it: the plain exit hook
        import atexit

        atexit.register(end)
    else:
        register(end)


def plot_ratings(ratings: Iterable[Rating], path: str | Path, title: str | None = None) -> Path:
    """Draw ratings against training steps, with their 95% intervals as a band, to a PNG.

    What the Shell: Elo on the fixed scale, with the anchors next to the curve (the nearest
    below and above it, and any it crosses) as dotted lines; Scorpion: the win rate in
    percent.  An open end of an interval (only a bound known) runs the band to the edge of
    the plot.
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import EngFormatter

    from shell_envs.bench.scale import anchor_table
    from shell_envs.registry import GAMES

    rows = sorted(ratings, key=lambda r: r.step)
    if not rows:
        raise ValueError("no ratings to plot")
    game = rows[0].game
    scale = 1.0 if game == "what_the_shell" else 100.0
    known = [scale * x for r in rows for x in (r.rating, r.lower, r.upper) if x is not None]
    low_end, high_end = min(known, default=0.0), max(known, default=0.0)
    anchors = []
    if game == "what_the_shell":
        table = sorted(anchor_table().anchors, key=lambda a: a.rating)
        below = [a for a in table if a.rating <= low_end][-1:]
        above = [a for a in table if a.rating >= high_end][:1]
        anchors = below + [a for a in table if low_end < a.rating < high_end] + above
        low_end = min([low_end, *(a.rating for a in anchors)])
        high_end = max([high_end, *(a.rating for a in anchors)])
    span = max(high_end - low_end, 100.0 if game == "what_the_shell" else 5.0)
    bottom, top = low_end - 0.08 * span, high_end + 0.08 * span
    if game == "scorpion":
        bottom, top = max(bottom, 0.0), min(top, 100.0)
    steps = [r.step for r in rows]
    low = [scale * r.lower if r.lower is not None else bottom for r in rows]
    high = [scale * r.upper if r.upper is not None else top for r in rows]
    fig = Figure(figsize=(7.5, 4.5), layout="constrained")
    ax = fig.subplots()
    ax.fill_between(steps, low, high, color="tab:blue", alpha=0.2, lw=0, label="95% interval")
    shown = [(r.step, scale * r.rating) for r in rows if r.rating is not None]
    if shown:
        ax.plot(*zip(*shown, strict=True), "o-", color="tab:blue", lw=2, ms=5,
                label="Elo" if game == "what_the_shell" else "win rate")  # fmt: skip
    for anchor in anchors:
        ax.axhline(anchor.rating, color="0.55", lw=0.9, ls=":", zorder=0)
        ax.annotate(f"{anchor.label} {anchor.rating:+.0f}", (1.0, anchor.rating),
                    xycoords=("axes fraction", "data"), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8, color="0.35", annotation_clip=False)  # fmt: skip
    if game == "what_the_shell":
        ax.set_ylabel("Elo on the fixed scale (random = 0)")
        what = f"{rows[-1].games} games a rating against the anchors"
    else:
        ax.set_ylabel("win rate (%)")
        what = f"{rows[-1].games} deals a rating"
    ax.set_ylim(bottom, top)
    ax.set_xlabel("training steps")
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    ax.grid(color="0.92")
    ax.set_axisbelow(True)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title or f"{GAMES[game].title}: ratings during training ({what})", fontsize=10)
    path = Path(path)
    fig.savefig(path, dpi=110, format="png")
    return path
