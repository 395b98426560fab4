"""Bench reports: the results as JSON, a Markdown leaderboard and a PNG plot.

The plot is drawn with matplotlib's object API (no pyplot, no display needed): What the
Shell ratings on the fixed scale with their intervals and the anchors marked, each agent's
score and W/D/L against each anchor, and Scorpion win rates per rule with Wilson intervals
and the thoughtful ceiling.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

JSON_NAME = "results.json"
MARKDOWN_NAME = "results.md"
PNG_NAME = "results.png"
GAMES_NAME = "games.jsonl"


def _pct(x: float) -> str:
    """A proportion as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def _ms(seconds: float) -> str:
    """Seconds as milliseconds with three significant digits."""
    return f"{1000 * seconds:.3g}"


def _interval(ci: Any, percent: bool = True) -> str:
    """``[low, high]`` as percentages (or plain numbers)."""
    low, high = ci
    if percent:
        return f"[{_pct(low)}, {_pct(high)}]"
    return f"[{low:+.0f}, {high:+.0f}]"


def _problems(section: dict[str, Any], title: str) -> list[str]:
    """Markdown lines for the illegal actions and errors of a section (none: no lines)."""
    lines: list[str] = []
    for key, what in (("illegal", "Illegal actions"), ("errors", "Errors")):
        counts = section[key]["counts"]
        if not counts:
            continue
        per_agent = ", ".join(f"{agent} {n}" for agent, n in counts.items())
        lines += ["", f"**{what} ({title})**: {per_agent}. The first ones:", ""]
        for case in section[key]["first"]:
            if key == "illegal":
                where = case.get("round", case.get("move"))
                lines.append(
                    f"- game record {case['record']}, {case['agent']}, "
                    f"{'round' if 'round' in case else 'move'} {where}: played "
                    f"{case['action']}: {case['reason']}; position: "
                    f"`{json.dumps(case['position'], separators=(',', ':'))}`"
                )
            else:
                lines.append(
                    f"- game record {case['record']}, {case['agent']}, {case['where']}: "
                    f"{case['error']} (at {case['at']})"
                )
    return lines


def markdown(results: dict[str, Any]) -> str:
    """The leaderboard as Markdown: settings, ratings on the fixed scale, Scorpion tables."""
    settings, run = results["settings"], results["run"]
    lines = [
        "# shell-envs bench",
        "",
        f"Mode `{settings['mode']}`, seed {settings['seed']}, {settings['workers']} worker(s), "
        f"{run['wall_seconds']:.0f} s wall time; {run['created']}; shell-envs "
        f"{results['version']}.",
    ]
    if run.get("interrupted"):
        lines += [
            "",
            f"**Interrupted** (Ctrl-C): only {run['games_finished']} games finished; the "
            "figures below cover those alone.",
        ]
    wts = results.get("what_the_shell")
    if wts:
        scale = wts["scale"]
        n = settings["what_the_shell"]["games_per_anchor"]
        lines += [
            "",
            "## What the Shell",
            "",
            f"Each agent played {n} games against each anchor, seats swapped. Ratings are "
            "Bradley–Terry on the Elo scale with the anchors held at their reference values "
            f"({scale['reference']}; random = 0), with 95% bootstrap intervals.",
            "",
            "| rank | agent | rating | 95% CI | games | score | ms / move |",
            "|---:|---|---:|---|---:|---:|---:|",
        ]
        ranked = sorted(wts["ratings"].items(), key=lambda item: -item[1]["rating"])
        for rank, (agent, r) in enumerate(ranked, 1):
            lines.append(
                f"| {rank} | {agent} | {r['rating']:+.0f} | {_interval(r['ci'], False)} | "
                f"{r['games']} | {_pct(r['score'])} | {_ms(r['move_seconds'])} |"
            )
        anchors = ", ".join(
            f"{label} {a['rating']:+.0f} {_interval(a['ci'], False)}"
            for label, a in scale["anchors"].items()
        )
        lines += [
            "",
            f"The scale's anchors: {anchors}.",
            "",
            "Against each anchor (W / D / L from the agent's side; win rate with its Wilson "
            "95% interval):",
            "",
            "| agent | anchor | games | W / D / L | win rate | score |",
            "|---|---|---:|---|---|---:|",
        ]
        for p in wts["pairs"]:
            lines.append(
                f"| {p['a']} | {p['b']} | {p['games']} | {p['wins_a']} / {p['draws']} / "
                f"{p['wins_b']} | {_pct(p['win_rate_a'])} {_interval(p['ci'])} | "
                f"{_pct(p['score_a'])} |"
            )
        lines += _problems(wts, "What the Shell")
    scorpion = results.get("scorpion")
    if scorpion:
        lines += [
            "",
            "## Scorpion",
            "",
            f"Every agent plays the same deals of the `{scorpion['set']}` set (win rate with its "
            "Wilson 95% interval; winnable: the deals the solver proved winnable).",
            "",
            "| rules | agent | deals | wins | win rate (95% CI) | winnable deals won "
            "| mean score | mean moves | ms / move |",
            "|---|---|---:|---:|---|---|---:|---:|---:|",
        ]
        ceilings = []
        for rules in ("classic", "relaxed"):
            section = scorpion.get(rules)
            if not section:
                continue
            for agent, r in section["agents"].items():
                lines.append(
                    f"| {rules} | {agent} | {r['deals']} | {r['wins']} | "
                    f"{_pct(r['win_rate'])} {_interval(r['ci'])} | "
                    f"{r['winnable_won']}/{r['winnable_deals']} ({_pct(r['winnable_share'])}) | "
                    f"{r['mean_score']:.1f} | {r['mean_moves']:.1f} | {_ms(r['move_seconds'])} |"
                )
            c = section["ceiling"]
            ceilings.append(
                f"Thoughtful ceiling ({rules}, deals {section['first_deal']}–"
                f"{section['last_deal']}): {c['winnable_deals']} of the {c['known_deals']} "
                f"deals with a shipped solver verdict are winnable "
                f"({_pct(c['winnable_share'])}), by a player who sees every card."
            )
        lines += [""] + ceilings
        for rules in ("classic", "relaxed"):
            if scorpion.get(rules):
                lines += _problems(scorpion[rules], f"Scorpion {rules}")
    return "\n".join(lines) + "\n"


def plot(results: dict[str, Any], path: str | Path | BinaryIO) -> None:
    """Write the PNG: ratings on the scale, results against each anchor, Scorpion win rates."""
    from matplotlib.figure import Figure

    settings = results["settings"]
    fig = Figure(figsize=(16, 5.2), layout="constrained")
    fig.suptitle(
        f"shell-envs bench: mode {settings['mode']}, seed {settings['seed']}, "
        f"{results['run']['created'][:10]}"
    )
    axes = fig.subplots(1, 3)
    wts = results.get("what_the_shell")
    if wts:
        _plot_ratings(axes[0], wts)
        _plot_pairs(axes[1], wts)
    else:
        axes[0].set_axis_off()
        axes[1].set_axis_off()
    scorpion = results.get("scorpion")
    if scorpion:
        _plot_scorpion(axes[2], scorpion)
    else:
        axes[2].set_axis_off()
    fig.savefig(path, dpi=110, format="png")


def _plot_ratings(ax: Any, wts: dict[str, Any]) -> None:
    """The agents' ratings with intervals; the anchors as grey reference lines."""
    ratings = sorted(wts["ratings"].items(), key=lambda item: item[1]["rating"])
    y = np.arange(len(ratings))
    elo = np.array([r["rating"] for _, r in ratings])
    low = np.array([r["ci"][0] for _, r in ratings])
    high = np.array([r["ci"][1] for _, r in ratings])
    for label, a in wts["scale"]["anchors"].items():
        ax.axvline(a["rating"], color="grey", lw=0.8, ls="--")
        ax.annotate(
            label,
            (a["rating"], 1.0),
            xycoords=("data", "axes fraction"),
            rotation=90,
            ha="right",
            va="top",
            fontsize=7,
            color="grey",
        )
    ax.errorbar(elo, y, xerr=[elo - low, high - elo], fmt="o", capsize=5, color="tab:blue")
    ax.set_yticks(y, [name for name, _ in ratings])
    for yi, e in zip(y, elo, strict=True):
        ax.annotate(f"{e:+.0f}", (e, yi), textcoords="offset points", xytext=(0, 8), ha="center")
    ax.set_xlabel("rating on the fixed scale (random = 0), 95% CI")
    ax.set_title("What the Shell: ratings")
    ax.margins(x=0.12, y=0.25)


def _plot_pairs(ax: Any, wts: dict[str, Any]) -> None:
    """Each agent's score against each anchor, W/D/L written beside."""
    pairs = wts["pairs"][::-1]
    y = np.arange(len(pairs))
    score = np.array([p["score_a"] for p in pairs])
    ax.barh(y, 100 * score, color="tab:green", alpha=0.7)
    ax.axvline(50, color="tab:red", lw=1, ls="--")
    for yi, p in zip(y, pairs, strict=True):
        ax.annotate(
            f"{p['wins_a']}/{p['draws']}/{p['wins_b']}  {100 * p['score_a']:.1f}%",
            (100 * p["score_a"], yi),
            textcoords="offset points",
            xytext=(4, -3),
            fontsize=7,
        )
    ax.set_yticks(y, [f"{p['a']} vs {p['b']}" for p in pairs], fontsize=7)
    ax.set_xlim(0, 125)
    ax.set_xlabel("score against the anchor (%), W/D/L beside")
    ax.set_title("What the Shell: against each anchor")


def _plot_scorpion(ax: Any, scorpion: dict[str, Any]) -> None:
    """Win rates per rule set and agent with Wilson intervals, the ceiling as a line."""
    groups = [(rules, scorpion[rules]) for rules in ("classic", "relaxed") if rules in scorpion]
    agents = list(dict.fromkeys(a for _, section in groups for a in section["agents"]))
    width = 0.8 / max(len(groups), 1)
    x = np.arange(len(agents))
    for g, (rules, section) in enumerate(groups):
        rows = section["agents"]
        rate = np.array([rows[a]["win_rate"] if a in rows else 0.0 for a in agents])
        low = np.array([rows[a]["ci"][0] if a in rows else 0.0 for a in agents])
        high = np.array([rows[a]["ci"][1] if a in rows else 0.0 for a in agents])
        xs = x + (g - (len(groups) - 1) / 2) * width
        bars = ax.bar(xs, 100 * rate, width, label=f"{rules.capitalize()}")
        ax.bar_label(bars, [f"{100 * r:.1f}%" for r in rate], padding=14, fontsize=8)
        ax.errorbar(
            xs,
            100 * rate,
            yerr=[100 * (rate - low), 100 * (high - rate)],
            fmt="none",
            ecolor="black",
            capsize=4,
        )
        ceiling = 100 * section["ceiling"]["winnable_share"]
        ax.axhline(ceiling, color=bars.patches[0].get_facecolor(), lw=1, ls=":")
        ax.annotate(
            f"{rules} ceiling {ceiling:.1f}%",
            (1.0, ceiling),
            xycoords=("axes fraction", "data"),
            ha="right",
            va="bottom",
            fontsize=7,
        )
    ax.set_xticks(x, agents)
    ax.set_ylabel("win rate (%), Wilson 95% CI")
    ax.set_ylim(0, 105)
    ax.set_title(f"Scorpion: win rate, {scorpion['set']} deals")
    ax.legend(loc="upper left")


def check_writable(out: str | Path) -> Path:
    """Make sure the results folder ``out`` exists and takes files; ``ValueError`` if not.

    Called before any game starts, so a read-only or impossible place fails at once instead
    of after the whole bench.
    """
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(
            f"cannot write the results to {str(folder)!r}: {exc.strerror or exc}"
        ) from None
    return folder


class BenchReport:
    """A bench's figures (`to_dict`, the ``results.json`` data) and its game records.

    `markdown` and `plot` present the figures; `write` writes the results
    folder: ``results.json``, ``results.md``, ``results.png`` and ``games.jsonl`` (one record
    per game, replayable with ``shell-envs replay``).
    """

    def __init__(self, data: dict[str, Any], records: list[dict[str, Any]]) -> None:
        self.data = data
        self.records = records

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON data (what ``results.json`` holds)."""
        return self.data

    def markdown(self) -> str:
        """The leaderboard as Markdown."""
        return markdown(self.data)

    def plot(self, path: str | Path | BinaryIO) -> None:
        """Write the PNG figure to ``path``."""
        plot(self.data, path)

    def write(self, out: str | Path) -> dict[str, Path]:
        """Write the results folder ``out``; returns the files written by kind."""
        return write_all(self.data, out, self.records)


def write_all(
    results: dict[str, Any], out: str | Path, records: list[dict[str, Any]] | None = None
) -> dict[str, Path]:
    """Write ``results.json``, ``results.md``, ``results.png`` (and ``games.jsonl`` when
    ``records`` are given) into ``out``; returns the paths.

    Each file is written to a temporary file beside it and then moved into place
    (``os.replace``) with Ctrl-C held back for those few moves, so an interrupt at any moment
    leaves either the old file or the complete new one, never a broken one.
    """
    folder = check_writable(out)
    writers: dict[str, tuple[str, Any]] = {
        "json": (JSON_NAME, lambda f: f.write((json.dumps(results, indent=2) + "\n").encode())),
        "markdown": (MARKDOWN_NAME, lambda f: f.write(markdown(results).encode())),
        "png": (PNG_NAME, lambda f: plot(results, f)),
    }
    if records is not None:
        writers["games"] = (
            GAMES_NAME,
            lambda f: f.writelines(
                (json.dumps(r, separators=(",", ":")) + "\n").encode() for r in records
            ),
        )
    paths = {key: folder / name for key, (name, _) in writers.items()}
    temps: dict[str, Path] = {}
    try:
        for key, (_, write) in writers.items():
            fd, name = tempfile.mkstemp(prefix=f".{paths[key].name}.", dir=folder)
            temps[key] = Path(name)
            with os.fdopen(fd, "wb") as f:
                write(f)
            os.chmod(temps[key], 0o666 & ~_umask())  # as an ordinary new file, not mkstemp's 0600
        with _holding_interrupts():
            for key, temp in temps.items():
                os.replace(temp, paths[key])
    finally:
        for temp in temps.values():
            if temp.exists():
                temp.unlink()
    return paths


def _umask() -> int:
    """The process's file-creation mask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _holding_interrupts():
    """Delay Ctrl-C (SIGINT) until the block is done; a no-op outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[Any] = []
    previous = signal.signal(signal.SIGINT, lambda *args: caught.append(args))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt
