"""Bench reports: the results as JSON, a Markdown leaderboard and a PNG plot.

The plot is drawn with matplotlib's object API (no pyplot, no display needed), one panel
per thing measured: What the Shell ratings and the scale's anchors as one ladder with their
intervals (an open end, where only a bound is known, as an arrow), each agent's score and
W/D/L against each anchor as a coloured table, and per Scorpion rule set the win rates with
Wilson intervals and the thoughtful ceiling.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import tempfile
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from shell_envs.registry import GAMES

JSON_NAME = "results.json"
MARKDOWN_NAME = "results.md"
PNG_NAME = "results.png"
GAMES_NAME = "games.jsonl"
RULE_SETS = GAMES["scorpion"].rule_sets  # from the registry: this module stays light


def _pct(x: float) -> str:
    """A proportion as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def _ms(seconds: float) -> str:
    """Seconds as milliseconds with three significant digits."""
    return f"{1000 * seconds:.3g}"


def _winnable_won(row: dict[str, Any]) -> str:
    """``won/winnable (share)`` of an agent's Scorpion row; ``–`` when no deal was winnable."""
    if not row["winnable_deals"]:
        return "–"
    return f"{row['winnable_won']}/{row['winnable_deals']} ({_pct(row['winnable_share'])})"


def _interval(ci: Any, percent: bool = True) -> str:
    """``[low, high]`` as percentages (or plain numbers)."""
    low, high = ci
    if percent:
        return f"[{_pct(low)}, {_pct(high)}]"
    return f"[{low:+.0f}, {high:+.0f}]"


def _distinct(pair: dict[str, Any]) -> str:
    """The distinct-games cell of a pair row: ``29 (one 19×)``, or ``100`` when no game
    repeats."""
    n, most = pair["distinct_games"], pair["most_played"]
    return f"{n} (one {most}×)" if most > 1 else str(n)


def _rating_cells(r: dict[str, Any], anchors: dict[str, Any]) -> tuple[str, str]:
    """The rating and interval cells of a rating row.  A missing rating (nothing scored, or
    nothing lost) is "below" the lowest anchor or "above" the highest; a missing end of the
    interval leaves the other as a bound."""
    rating, (low, high) = r["rating"], r["ci"]
    by_rating = sorted(anchors, key=lambda label: anchors[label]["rating"])
    if rating is not None:
        cell = f"{rating:+.0f}"
    elif high is not None:
        cell = f"below `{by_rating[0]}`"
    else:
        cell = f"above `{by_rating[-1]}`"
    if low is None and high is None:
        return cell, "no bound"
    if low is None:
        return cell, f"upper bound {high:+.0f}"
    if high is None:
        return cell, f"lower bound {low:+.0f}"
    return cell, _interval((low, high), False)


def _rank_key(r: dict[str, Any]) -> float:
    """Where a rating row ranks: by rating; one without a rating below (or above) all others."""
    if r["rating"] is not None:
        return r["rating"]
    return math.inf if r["ci"][1] is None and r["ci"][0] is not None else -math.inf


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
        book = settings["what_the_shell"].get("openings")
        start = (
            ""
            if book is None
            else (
                f" in pairs from one opening of opening book v{book['version']} "
                f"({book['openings']} openings)"
            )
        )
        lines += [
            "",
            "## What the Shell",
            "",
            f"Each agent played {n} games against each anchor{start}, seats swapped. Ratings are "
            "Bradley–Terry on the Elo scale with the anchors held at their reference values "
            f"({scale['reference']}; random = 0), a draw counting half a win: the "
            "maximum-likelihood rating and its exact 95% interval (Clopper–Pearson, on the "
            "total score; at least 95% coverage at any number of games). An agent that scored "
            "less than a point has an upper bound only, one that dropped less than a point a "
            "lower bound only.",
            "",
            "| rank | agent | rating | 95% CI | games | score | ms / move |",
            "|---:|---|---:|---|---:|---:|---:|",
        ]
        ranked = sorted(wts["ratings"].items(), key=lambda item: -_rank_key(item[1]))
        for rank, (agent, r) in enumerate(ranked, 1):
            rating, ci = _rating_cells(r, scale["anchors"])
            lines.append(
                f"| {rank} | {agent} | {rating} | {ci} | "
                f"{r['games']} | {_pct(r['score'])} | {_ms(r['move_seconds'])} |"
            )
        wide = [agent for agent, r in ranked if r.get("too_few_games")]
        if wide:
            lines += [
                "",
                f"**Too few games for a useful interval**: {', '.join(wide)} (an interval "
                f"wider than {wts['useful_width']:.0f} points, or with one end only); play "
                "more `--games` (docs/benchmark.md, *How far the intervals hold*).",
            ]
        anchors = ", ".join(
            f"{label} {a['rating']:+.0f} {_interval(a['ci'], False)}"
            for label, a in scale["anchors"].items()
        )
        lines += [
            "",
            f"The scale's anchors: {anchors}.",
            "",
            "Against each anchor (W / D / L from the agent's side; win rate with its Wilson "
            "95% interval; distinct games: how many of the games differ in their start or some "
            "move, with "
            '"(one N×)" where a game was played N times, the most of any):',
            "",
            "| agent | anchor | games | W / D / L | win rate | score | distinct games |",
            "|---|---|---:|---|---|---:|---:|",
        ]
        for p in wts["pairs"]:
            lines.append(
                f"| {p['a']} | {p['b']} | {p['games']} | {p['wins_a']} / {p['draws']} / "
                f"{p['wins_b']} | {_pct(p['win_rate_a'])} {_interval(p['ci'])} | "
                f"{_pct(p['score_a'])} | {_distinct(p)} |"
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
        for rules in RULE_SETS:
            section = scorpion.get(rules)
            if not section:
                continue
            for agent, r in section["agents"].items():
                lines.append(
                    f"| {rules} | {agent} | {r['deals']} | {r['wins']} | "
                    f"{_pct(r['win_rate'])} {_interval(r['ci'])} | "
                    f"{_winnable_won(r)} | "
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
        for rules in RULE_SETS:
            if scorpion.get(rules):
                lines += _problems(scorpion[rules], f"Scorpion {rules}")
    return "\n".join(lines) + "\n"


def plot(results: dict[str, Any], path: str | Path | BinaryIO) -> None:
    """Write the PNG of `figure`."""
    figure(results).savefig(path, dpi=110, format="png")


def figure(results: dict[str, Any]) -> Any:
    """The results as a matplotlib ``Figure``: one panel per thing measured, none empty."""
    from matplotlib.figure import Figure

    panels: list[Any] = []
    wts = results.get("what_the_shell")
    if wts:
        panels += [lambda ax: _plot_ratings(ax, wts), lambda ax: _plot_pairs(ax, wts)]
    scorpion = results.get("scorpion")
    for rules in RULE_SETS:
        if scorpion and scorpion.get(rules):
            panels.append(lambda ax, rules=rules: _plot_scorpion(ax, scorpion, rules))
    rows = 2 if len(panels) == 4 else 1
    columns = max(len(panels) // rows, 1)
    height = 5.5 if not wts else max(5.5, 1.6 + 0.34 * (len(wts["ratings"]) + 7))
    fig = Figure(figsize=(6.4 * columns, height * rows), layout="constrained")
    settings = results["settings"]
    fig.suptitle(
        f"shell-envs bench: mode {settings['mode']}, seed {settings['seed']}, "
        f"{results['run']['created'][:10]}"
        + (" (interrupted: the games that finished)" if results["run"].get("interrupted") else "")
    )
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for draw, ax in zip(panels, axes, strict=False):
        draw(ax)
    if not panels:  # an interrupted bench before any game: say so rather than draw nothing
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "no game finished", ha="center", va="center", fontsize=14)
    return fig


def _finite(x: Any) -> bool:
    """Whether ``x`` is a number (not ``None``, not NaN)."""
    return x is not None and np.isfinite(x)


def _place(rating: Any, ci: Any) -> float:
    """Where a rating sits on the scale: the rating, else its one known bound."""
    return next(float(x) for x in (rating, *ci, 0.0) if _finite(x))


def _plot_ratings(ax: Any, wts: dict[str, Any]) -> None:
    """The agents and the scale's anchors as one ladder, by rating, each with its interval.

    An interval with an open end (``None`` or NaN: only a bound is known) is drawn as an
    arrow to the edge of the axis; the agent's own value is written beside it.
    """
    rows = [(label, a["rating"], a["ci"], True) for label, a in wts["scale"]["anchors"].items()]
    rows += [(name, r["rating"], r["ci"], False) for name, r in wts["ratings"].items()]

    rows.sort(key=lambda row: _place(row[1], row[2]))
    known = [x for _, r, ci, _ in rows for x in (r, *ci) if _finite(x)]
    span = max(max(known) - min(known), 200.0)
    left, right = min(known) - 0.12 * span, max(known) + 0.22 * span
    ax.set_xlim(left, right)
    for y, (_, rating, (low, high), anchor) in enumerate(rows):
        colour = "0.55" if anchor else "tab:blue"
        style = {"color": colour, "lw": 1.6 if anchor else 2.6, "solid_capstyle": "butt"}
        ends = [low if _finite(low) else left, high if _finite(high) else right]
        ax.plot(ends, [y, y], **style)
        for end, edge, arrow in ((low, left, "<"), (high, right, ">")):
            # a cap at a known end, an arrowhead at the axis edge for an open one
            marker = "|" if _finite(end) else arrow
            ax.plot(end if _finite(end) else edge, y, marker, color=colour, ms=9, mew=2)
        if _finite(rating):
            ax.plot(rating, y, "D" if anchor else "o", color=colour, ms=6 if anchor else 8)
        if not anchor:  # the value beside the interval, on the side away from an arrow
            if _finite(rating):
                text = f"{rating:+.0f}"
            else:
                text = f"< {high:+.0f}" if _finite(high) else f"> {low:+.0f}"
            if _finite(high):
                at, shift, align = high, 6, "left"
            else:
                at, shift, align = (low if _finite(low) else rating), -6, "right"
            ax.annotate(text, (at, y), xytext=(shift, 0), textcoords="offset points", ha=align,
                        va="center", fontsize=9, color=colour, fontweight="bold")  # fmt: skip
    ax.set_yticks(range(len(rows)), [name for name, *_ in rows])
    for tick, (_, _, _, anchor) in zip(ax.get_yticklabels(), rows, strict=True):
        tick.set_color("0.45" if anchor else "black")
        tick.set_fontweight("normal" if anchor else "bold")
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.axvline(0, color="0.85", lw=0.8, zorder=0)
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    from matplotlib.lines import Line2D

    ax.legend(
        handles=[
            Line2D([], [], color="tab:blue", marker="o", lw=2.6, label="agent, this run"),
            Line2D([], [], color="0.55", marker="D", lw=1.6, label="anchor, fixed"),
        ],
        loc="lower right",
        fontsize=8,
    )
    ax.set_xlabel("rating on the fixed scale (random = 0), 95% interval")
    ax.set_title("What the Shell: ratings")


def _plot_pairs(ax: Any, wts: dict[str, Any]) -> None:
    """A table of colour: each agent's score against each anchor, with its W / D / L."""
    anchors = sorted(wts["scale"]["anchors"], key=lambda a: wts["scale"]["anchors"][a]["rating"])
    ratings = wts["ratings"]
    agents = sorted(ratings, key=lambda a: -_place(ratings[a]["rating"], ratings[a]["ci"]))
    score = np.full((len(agents), len(anchors)), np.nan)
    text = {}
    for p in wts["pairs"]:
        i, j = agents.index(p["a"]), anchors.index(p["b"])
        score[i, j] = 100 * p["score_a"]
        text[i, j] = f"{100 * p['score_a']:.0f}%\n{p['wins_a']}/{p['draws']}/{p['wins_b']}"
    image = ax.imshow(score, cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    for (i, j), words in text.items():
        dark = not 25 <= score[i, j] <= 75  # the ends of the colour map: white letters
        ax.text(j, i, words, ha="center", va="center", fontsize=8,
                color="white" if dark else "black")  # fmt: skip
    ax.set_xticks(range(len(anchors)), anchors, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(agents)), agents, fontsize=9)
    ax.figure.colorbar(image, ax=ax, label="score against the anchor (%)", shrink=0.8)
    ax.set_xlabel("anchor (weakest left); cell: score, W / D / L")
    ax.set_ylabel("agent (strongest on top)")
    ax.set_title("What the Shell: against each anchor")


def _plot_scorpion(ax: Any, scorpion: dict[str, Any], rules: str) -> None:
    """One rule set: each agent's win rate with its Wilson interval, the ceiling as a line
    labelled outside the plot, each percentage above its interval on a white ground."""
    section = scorpion[rules]
    agents = list(section["agents"])
    rate = np.array([section["agents"][a]["win_rate"] for a in agents])
    low, high = (np.array([section["agents"][a]["ci"][k] for a in agents]) for k in (0, 1))
    colour = {"classic": "tab:blue", "relaxed": "tab:orange", "traditional": "tab:green"}[rules]
    x = np.arange(len(agents))
    ax.bar(x, 100 * rate, 0.6, color=colour, alpha=0.85)
    ax.errorbar(x, 100 * rate, yerr=[100 * (rate - low), 100 * (high - rate)], fmt="none",
                ecolor="black", elinewidth=1.5, capsize=6)  # fmt: skip
    ceiling = 100 * section["ceiling"]["winnable_share"]
    top = 1.18 * max(100 * high.max(), ceiling, 5.0)
    for xi, r, h in zip(x, rate, high, strict=True):
        ax.annotate(f"{100 * r:.1f}%", (xi, 100 * h), xytext=(0, 4), textcoords="offset points",
                    ha="center", va="bottom", fontsize=9,
                    bbox={"fc": "white", "ec": "none", "pad": 1})  # fmt: skip
    ax.axhline(ceiling, color="0.25", lw=1.2, ls=":")
    ax.annotate(f"ceiling\n{ceiling:.1f}%", (1.0, ceiling), xycoords=("axes fraction", "data"),
                xytext=(4, 0), textcoords="offset points", ha="left", va="center", fontsize=8,
                annotation_clip=False)  # fmt: skip
    ax.set_ylim(0, top)
    ax.set_xlim(-0.6, len(agents) - 0.4)
    ax.set_xticks(x, agents, rotation=30 if len(agents) > 4 else 0)
    ax.set_ylabel("win rate (%), Wilson 95% interval")
    ax.set_title(
        f"Scorpion {rules.capitalize()}: deals {section['first_deal']}–{section['last_deal']} "
        f"({scorpion['set']})\ndotted: thoughtful ceiling (solver, every card seen)",
        fontsize=10,
    )


RESULT_NAMES = (JSON_NAME, MARKDOWN_NAME, PNG_NAME, GAMES_NAME)


class FolderInUse(FileExistsError):
    """A folder already holds ``names`` of an earlier run, so nothing was written to it: the
    refusal of a bench (`ResultsExist`) and of a match (`bench.match.MatchExists`)."""

    def __init__(self, folder: Path, names: list[str], holding: str, advice: str) -> None:
        self.folder = folder
        self.names = names
        super().__init__(f"{folder} already holds {holding} ({', '.join(names)}){advice}")


class ResultsExist(FolderInUse):
    """The results folder already holds the results of an earlier run; nothing was written."""

    def __init__(self, folder: Path, names: list[str]) -> None:
        super().__init__(
            folder,
            names,
            "results",
            "; pass overwrite=True to replace them, or choose another folder",
        )


def check_writable(out: str | Path, overwrite: bool = False) -> Path:
    """Make sure the results folder ``out`` exists and takes files; ``ValueError`` if not,
    `ResultsExist` if it holds results already and ``overwrite`` is false.

    Called before any game starts, so a read-only or impossible place, or one whose results
    would be replaced, fails at once instead of after the whole bench.
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
    found = [name for name in RESULT_NAMES if (folder / name).exists()]
    if found and not overwrite:
        raise ResultsExist(folder, found)
    return folder


@contextlib.contextmanager
def results_folder(out: str | Path, overwrite: bool = False) -> Iterator[Path]:
    """`check_writable`, then the block; when either raises, the folders this made are
    removed again (those still empty: a bench refused or stopped before writing leaves no
    folder behind, a folder that existed before stays)."""
    folder = Path(out).absolute()
    made = [p for p in (folder, *folder.parents) if not p.exists()]  # the deepest first
    try:
        yield check_writable(out, overwrite)
    except BaseException:
        for path in made:
            try:
                path.rmdir()
            except OSError:  # not empty (results written), or gone: keep the rest
                break
        raise


def game_key(record: dict[str, Any]) -> str:
    """What makes a game, as a string: where it started (What the Shell: the ``start``
    position, ``null`` for the empty board; Scorpion: the rules and the deal) and every
    action.  Two records with the same key are the same game, whoever played it."""
    if record["game"] == GAMES["what_the_shell"].name:
        start: Any = record.get("start")
    else:
        start = [record["rules"], record["deal"]]
    return json.dumps([start, record["actions"]], sort_keys=True, separators=(",", ":"))


def variety(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many different games ``records`` hold: ``distinct_games`` (different
    `game_key`s) and ``most_played``, the number of times the game played most often was
    played (1 when no game repeats, 0 without records).

    Agents that break few ties replay the same games: 100 games of one pairing can be far
    fewer distinct ones, and these two numbers say so.
    """
    counts = Counter(game_key(r) for r in records)
    return {"distinct_games": len(counts), "most_played": max(counts.values(), default=0)}


def failed_agents(records: list[dict[str, Any]]) -> dict[str, str]:
    """The agents that failed every game they played (raised, or played an illegal action),
    each with its count and first failure in one line: ``{label: text}``.

    An agent's games are those it is benchmarked in: as the candidate against the anchors
    (What the Shell) and its Scorpion deals.
    """
    played: dict[str, int] = {}
    failed: dict[str, int] = {}
    first: dict[str, str] = {}
    for record in records:
        if record["game"] == GAMES["scorpion"].name:
            label, seat = record["agent"], None
        elif "pairing" in record:
            label, seat = record["pairing"]["candidate"], record["pairing"]["candidate_seat"]
        else:
            continue
        played[label] = played.get(label, 0) + 1
        cases = [c for c in record["errors"] + record["illegal"] if c.get("seat") == seat]
        if not cases:
            continue
        failed[label] = failed.get(label, 0) + 1
        first.setdefault(label, _failure(record, cases[0]))
    return {
        label: f"failed every game it played ({n} of {n}); the first: {first[label]}"
        for label, n in played.items()
        if failed.get(label) == n
    }


def _failure(record: dict[str, Any], case: dict[str, Any]) -> str:
    """One failure of an agent, and where: ``RuntimeError: ... (Scorpion classic deal 5000,
    move 2)``."""
    if "error" in case:
        what, step = case["error"], case["where"]
    else:
        what = f"an illegal action: {case['reason']}"
        step = f"round {case['round']}" if "round" in case else f"move {case['move']}"
    if record["game"] == GAMES["scorpion"].name:
        game = f"{GAMES['scorpion'].title} {record['rules']} deal {record['deal']}"
    else:
        game = f"{GAMES['what_the_shell'].title} game record {record['index']}"
    return f"{what} ({game}, {step})"


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

    def failed_agents(self) -> dict[str, str]:
        """The agents that failed every game they played, each with its first failure
        (see `failed_agents`)."""
        return failed_agents(self.records)

    def write(self, out: str | Path, overwrite: bool = False) -> dict[str, Path]:
        """Write the results folder ``out``; returns the files written by kind.

        A folder that holds results already is left as it is (`ResultsExist`) unless
        ``overwrite`` is true.
        """
        check_writable(out, overwrite)
        return write_all(self.data, out, self.records)


def write_all(
    results: dict[str, Any], out: str | Path, records: list[dict[str, Any]] | None = None
) -> dict[str, Path]:
    """Write ``results.json``, ``results.md``, ``results.png`` (and ``games.jsonl`` when
    ``records`` are given) into ``out``; returns the paths.

    It replaces what is there: callers check first (`check_writable`).  Each file is
    written to a temporary file beside it and then moved into place
    (``os.replace``) with Ctrl-C held back for those few moves, so an interrupt at any moment
    leaves either the old file or the complete new one, never a broken one.
    """
    folder = check_writable(out, overwrite=True)
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
