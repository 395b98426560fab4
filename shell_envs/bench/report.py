"""Bench reports: the results as JSON, a Markdown leaderboard and a PNG plot.

The plot is drawn with matplotlib's object API (no pyplot, no display needed): What the
Shell ratings with their intervals, each pair's head-to-head share with its interval against
the 50% line, and Scorpion win rates per rule with Wilson intervals.
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


def _pct(x: float) -> str:
    """A proportion as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def _interval(ci: Any, percent: bool = True) -> str:
    """``[low, high]`` as percentages (or plain numbers)."""
    low, high = ci
    if percent:
        return f"[{_pct(low)}, {_pct(high)}]"
    return f"[{low:+.0f}, {high:+.0f}]"


def _agent_line(spec: dict[str, Any]) -> str:
    """``label`` with its keyword arguments, e.g. ``mcts (iterations=400)``."""
    kwargs = ", ".join(f"{k}={v}" for k, v in spec["kwargs"].items())
    return f"`{spec['label']}`" + (f" ({kwargs})" if kwargs else "")


def markdown(results: dict[str, Any]) -> str:
    """The leaderboard as Markdown: settings, ratings, head-to-head, Scorpion table."""
    meta = results["meta"]
    lines = [
        "# shell-envs bench",
        "",
        f"Mode `{meta['mode']}`, seed {meta['seed']}, {meta['workers']} worker(s), "
        f"{meta['wall_seconds']:.0f} s wall time; {meta['created']}.",
    ]
    if meta.get("interrupted"):
        lines += [
            "",
            f"**Interrupted** (Ctrl-C): only the games of {meta['chunks_finished']} chunks "
            "finished; the figures below cover those alone.",
        ]
    wts = results.get("what_the_shell")
    if wts:
        agents = ", ".join(_agent_line(s) for s in meta["what_the_shell_agents"])
        lines += [
            "",
            "## What the Shell",
            "",
            f"Round robin, {meta['games_per_pair']} games per pair with seats swapped "
            f"(agents: {agents}).",
            "",
            f"Bradley–Terry ratings on the Elo scale, `{wts['anchor']}` = 0, "
            "95% bootstrap intervals:",
            "",
            "| rank | agent | rating | 95% CI |",
            "|---:|---|---:|---|",
        ]
        for rank, r in enumerate(wts["ratings"], 1):
            lines.append(
                f"| {rank} | {r['agent']} | {r['elo']:+.0f} | {_interval(r['ci'], False)} |"
            )
        lines += [
            "",
            "Head to head, from the side of the agent that won more (Wilson 95% intervals; "
            "the verdict needs the interval of its share of decisive games above 50%):",
            "",
            "| pair | games | W / D / L | win rate | draw rate | decisive share | verdict |",
            "|---|---:|---|---|---|---|---|",
        ]
        for p in wts["pairs"]:
            lines.append(
                f"| {p['a']} vs {p['b']} | {p['games']} | {p['wins']} / {p['draws']} / "
                f"{p['losses']} | {_pct(p['win_rate'])} {_interval(p['win_ci'])} | "
                f"{_pct(p['draw_rate'])} {_interval(p['draw_ci'])} | "
                f"{_pct(p['decisive_share'])} {_interval(p['decisive_ci'])} | {p['verdict']} |"
            )
    scorpion = results.get("scorpion")
    if scorpion:
        agents = ", ".join(_agent_line(s) for s in meta["scorpion_agents"])
        lines += [
            "",
            "## Scorpion",
            "",
            f"Every agent plays the same {meta['deals']} numbered deals per rule "
            f"(agents: {agents}).",
            "",
            "| rules | agent | deals | wins | win rate (95% CI) | winnable deals won "
            "| mean score | mean moves |",
            "|---|---|---:|---:|---|---|---:|---:|",
        ]
        for rules, rows in scorpion["rules"].items():
            for r in rows:
                share = r["winnable_won"] / r["winnable_deals"] if r["winnable_deals"] else 0.0
                lines.append(
                    f"| {rules} | {r['agent']} | {r['deals']} | {r['wins']} | "
                    f"{_pct(r['win_rate'])} {_interval(r['win_ci'])} | "
                    f"{r['winnable_won']}/{r['winnable_deals']} ({_pct(share)}) | "
                    f"{r['mean_score']:.1f} | {r['mean_moves']:.1f} |"
                )
        for rules, c in scorpion.get("ceiling", {}).items():
            lines.append(
                f"\nThoughtful ceiling ({rules}): {c['winnable_deals']} of the "
                f"{c['known_deals']} deals with a shipped solver verdict are winnable "
                f"({_pct(c['winnable_share'])}), by a player who sees every card."
            )
    return "\n".join(lines) + "\n"


def plot(results: dict[str, Any], path: str | Path | BinaryIO) -> None:
    """Write the PNG: ratings, head-to-head shares and Scorpion win rates, with intervals."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(15, 4.8), layout="constrained")
    axes = fig.subplots(1, 3)
    wts = results.get("what_the_shell")
    if wts:
        ratings = wts["ratings"][::-1]
        y = np.arange(len(ratings))
        elo = np.array([r["elo"] for r in ratings])
        low = np.array([r["ci"][0] for r in ratings])
        high = np.array([r["ci"][1] for r in ratings])
        ax = axes[0]
        ax.errorbar(elo, y, xerr=[elo - low, high - elo], fmt="o", capsize=5, color="tab:blue")
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_yticks(y, [r["agent"] for r in ratings])
        ax.set_xlabel(f"Elo-scale rating ({wts['anchor']} = 0), 95% CI")
        ax.set_title("What the Shell: Bradley–Terry ratings")
        for yi, e in zip(y, elo, strict=True):
            ax.annotate(
                f"{e:+.0f}", (e, yi), textcoords="offset points", xytext=(0, 8), ha="center"
            )
        ax.margins(x=0.12, y=0.2)
        pairs = wts["pairs"][::-1]
        y = np.arange(len(pairs))
        share = np.array([p["decisive_share"] for p in pairs])
        low = np.array([p["decisive_ci"][0] for p in pairs])
        high = np.array([p["decisive_ci"][1] for p in pairs])
        ax = axes[1]
        ax.errorbar(
            share, y, xerr=[share - low, high - share], fmt="s", capsize=5, color="tab:green"
        )
        ax.axvline(0.5, color="tab:red", lw=1, ls="--")
        ax.set_xlim(0, 1.03)
        ax.margins(y=0.2)
        ax.set_yticks(y, [f"{p['a']} vs {p['b']}" for p in pairs])
        ax.set_xlabel("share of decisive games won, Wilson 95% CI")
        ax.set_title("What the Shell: head to head")
    scorpion = results.get("scorpion")
    if scorpion:
        ax = axes[2]
        groups = list(scorpion["rules"].items())
        agents = list(dict.fromkeys(r["agent"] for _, rows in groups for r in rows))
        width = 0.8 / max(len(groups), 1)
        x = np.arange(len(agents))
        for g, (rules, rows) in enumerate(groups):
            by_agent = {r["agent"]: r for r in rows}
            rate = np.array([by_agent[a]["win_rate"] if a in by_agent else 0.0 for a in agents])
            low = np.array([by_agent[a]["win_ci"][0] if a in by_agent else 0.0 for a in agents])
            high = np.array([by_agent[a]["win_ci"][1] if a in by_agent else 0.0 for a in agents])
            xs = x + (g - (len(groups) - 1) / 2) * width
            bars = ax.bar(xs, 100 * rate, width, label=rules.capitalize())
            ax.bar_label(bars, [f"{100 * r:.0f}%" for r in rate], padding=14, fontsize=8)
            yerr = [100 * (rate - low), 100 * (high - rate)]
            ax.errorbar(xs, 100 * rate, yerr=yerr, fmt="none", ecolor="black", capsize=4)
        ax.set_xticks(x, agents)
        ax.set_ylabel("win rate (%), Wilson 95% CI")
        ax.set_ylim(0, 100)
        ax.set_title(f"Scorpion: win rate over {results['meta']['deals']} deals")
        ax.legend()
    fig.savefig(path, dpi=110, format="png")


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


def write_all(results: dict[str, Any], out: str | Path) -> dict[str, Path]:
    """Write ``results.json``, ``results.md`` and ``results.png`` into ``out``; returns paths.

    Each file is written to a temporary file beside it and then moved into place
    (``os.replace``) with Ctrl-C held back for those few moves, so an interrupt at any moment
    leaves either the old file or the complete new one, never a broken one.
    """
    folder = check_writable(out)
    paths = {
        "json": folder / JSON_NAME,
        "markdown": folder / MARKDOWN_NAME,
        "png": folder / PNG_NAME,
    }
    temps: dict[str, Path] = {}
    try:
        for key, write in (
            ("json", lambda f: f.write((json.dumps(results, indent=2) + "\n").encode())),
            ("markdown", lambda f: f.write(markdown(results).encode())),
            ("png", lambda f: plot(results, f)),
        ):
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
