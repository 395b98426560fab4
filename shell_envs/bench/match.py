"""``shell-envs match A B``: is agent A better than agent B, and how many games does it take?

What the Shell: games in colour-swapped pairs from one opening of the opening book
(`shell_envs.bench.openings`; pair ``i`` plays opening ``schedule[i]``, the book in an order
shuffled by the match seed and cycled through), A black in the first game of a pair and
white in the second.  The match reports W/D/L, the pentanomial counts of the pairs (A's
half-points in a pair, 0–4), the Elo difference A − B with its 95 % interval and the
likelihood of superiority (`shell_envs.bench.sequential`), and how many of the games were
distinct.  Scorpion: both agents play the same deals of a fixed deal set (each deal's agent
seed as in the bench); the win-rate difference with an exact paired interval and the mean
score difference with a paired interval.

``sprt=(elo0, elo1)`` runs fishtest's GSPRT (Scorpion: on the win-rate difference, in
points) and stops when it decides, checked after every finished pair or deal in schedule
order, so the result does not depend on the workers; ``max_games`` caps it.

The results folder holds ``games.jsonl`` (every finished game appended at once and synced
to disk, as the bench's records: ``shell-envs replay`` reads it), ``match.json`` (the
settings, and the result once the match is over) and ``match.md``.  ``resume=True`` goes on
with an interrupted match: it checks that the settings are the same, keeps the finished
games and plays the rest, and ends with the result an uninterrupted match gets.  When the
match is over, ``games.jsonl`` holds exactly the games its result counts, in schedule order.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from shell_envs._version import __version__
from shell_envs.agents.spec import AgentSpec, AgentSpecError, parse_spec
from shell_envs.bench import cluster, games, openings, patience, report, runner, scale, sequential
from shell_envs.bench.limits import MAX_DEALS, MAX_GAMES, MAX_SEED, MAX_WORKERS
from shell_envs.core.validation import integer, positive_int
from shell_envs.registry import GAMES
from shell_envs.scorpion.rules import RULE_SETS

WTS = GAMES["what_the_shell"].name
SCORPION = GAMES["scorpion"].name
MATCH_NAME = "match.json"
MARKDOWN_NAME = "match.md"
MATCH_FILES = (MATCH_NAME, MARKDOWN_NAME, report.GAMES_NAME)
DEFAULT_GAMES = {WTS: 200, SCORPION: 1000}  # a fixed match: 100 pairs, 500 deals
DEFAULT_MAX_GAMES = {WTS: 10_000, SCORPION: 2 * MAX_DEALS}  # an SPRT's cap
LIMIT_GAMES = {WTS: MAX_GAMES, SCORPION: 2 * MAX_DEALS}
CONFIDENCE = 0.95


class MatchExists(report.FolderInUse):
    """The folder holds a match (or game records) already; nothing was changed."""

    def __init__(self, folder: Path, names: list[str]) -> None:
        super().__init__(
            folder, names, "a match", ": resume it, overwrite it, or choose another folder"
        )


class ResumeError(ValueError):
    """A match cannot be resumed: none in the folder, other settings, or damaged records."""


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the match; ``result`` covers the finished games, all of them kept in
    ``games.jsonl`` (resume with ``resume=True``)."""

    def __init__(self, result: MatchResult) -> None:
        super().__init__("the match was interrupted")
        self.result = result


class MatchWarning(UserWarning):
    """Something a resumed match repaired: a half-written last record dropped."""


@dataclass(frozen=True)
class MatchSettings:
    """Everything that decides a match's games and result (workers aside).

    ``games`` is the length of a fixed match, or the cap of an SPRT match; both count
    games (two a pair or deal).  ``sprt`` is ``(elo0, elo1)`` (Scorpion: win-rate points).
    """

    a: AgentSpec
    b: AgentSpec
    game: str
    games: int
    seed: int = 0
    sprt: tuple[float, float] | None = None
    alpha: float = 0.05
    beta: float = 0.05
    book: openings.OpeningBook | None = None
    rules: str = RULE_SETS[0]
    deal_set: str = "test"
    max_rounds: int = runner.MAX_ROUNDS
    max_moves: int = patience.MAX_MOVES
    stall_moves: int = patience.STALL_MOVES

    @property
    def units(self) -> int:
        """Pairs (What the Shell) or deals (Scorpion) planned."""
        return self.games // 2

    def test(self) -> sequential.SPRT | sequential.PairedSPRT | None:
        """The sequential test, or None for a fixed-length match."""
        if self.sprt is None:
            return None
        if self.game == WTS:
            return sequential.SPRT(self.sprt[0], self.sprt[1], self.alpha, self.beta)
        return sequential.PairedSPRT(self.sprt[0] / 100, self.sprt[1] / 100, self.alpha, self.beta)

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON data (``match.json``'s ``settings``; a resume compares them)."""
        data: dict[str, Any] = {
            "game": self.game,
            "agents": {"a": _agent(self.a), "b": _agent(self.b)},
            "seed": self.seed,
            "games": None if self.sprt else self.games,
            "max_games": self.games if self.sprt else None,
            "sprt": None
            if self.sprt is None
            else {
                ("elo0" if self.game == WTS else "p0_points"): self.sprt[0],
                ("elo1" if self.game == WTS else "p1_points"): self.sprt[1],
                "alpha": self.alpha,
                "beta": self.beta,
            },
        }
        if self.game == WTS:
            assert self.book is not None
            data["openings"] = self.book.describe()
            data["max_rounds"] = self.max_rounds
        else:
            data.update(
                rules=self.rules,
                deal_set=self.deal_set,
                max_moves=self.max_moves,
                stall_moves=self.stall_moves,
            )
        return data


def _agent(spec: AgentSpec) -> dict[str, str]:
    """An agent as settings data: its label and spec text."""
    return {"label": spec.label, "spec": spec.spec}


def make_settings(
    a: str | AgentSpec,
    b: str | AgentSpec,
    game: str = WTS,
    games: int | None = None,
    seed: int = 0,
    sprt: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int | None = None,
    openings_path: str | Path | None = None,
    rules: str = RULE_SETS[0],
    deal_set: str = "test",
) -> MatchSettings:
    """Checked `MatchSettings`; ``ValueError`` (`AgentSpecError` for the agents) naming the
    problem.

    ``games`` (default 200 for What the Shell, 1000 for Scorpion) fixes the length; with
    ``sprt=(elo0, elo1)`` the match stops when the test decides, after at most ``max_games``
    (``alpha`` and ``beta`` its error rates).  ``openings_path`` is What the Shell's opening
    book (default: the one shipped); ``rules`` and ``deal_set`` are Scorpion's.
    """
    names = {g.cli_name: g.name for g in GAMES.values()} | {g: g for g in GAMES}
    if game not in names:
        raise ValueError(f"game must be {' or '.join(g.cli_name for g in GAMES.values())}, "
                         f"got {game!r}")  # fmt: skip
    game = names[game]
    a, b = (x if isinstance(x, AgentSpec) else parse_spec(x) for x in (a, b))
    if a.spec == b.spec:
        raise AgentSpecError(
            f"A and B are the same agent ({a.spec}): a match needs two different agents"
        )
    if a.label == b.label:
        raise AgentSpecError(
            f"both agents are labelled {a.label!r}; name them apart with NAME=SPEC"
        )
    integer("seed", seed, 0, MAX_SEED)
    if sprt is None:
        if max_games is not None:
            raise ValueError("max games caps an SPRT match; a fixed match plays games")
        length = DEFAULT_GAMES[game] if games is None else games
        what = "games"
    else:
        if games is not None:
            raise ValueError(
                "games fixes a match's length; an SPRT match runs until it decides, "
                "capped by max games"
            )
        length = DEFAULT_MAX_GAMES[game] if max_games is None else max_games
        what = "max games"
    length = integer(what, length, 2, LIMIT_GAMES[game])
    if length % 2:
        unit = "pairs, seats swapped" if game == WTS else "pairs: both agents play each deal"
        raise ValueError(f"{what} must be even (games come in {unit}), got {length}")
    if sprt is not None:
        unit = "Elo" if game == WTS else "win-rate points"
        if len(sprt) != 2 or not all(isinstance(x, int | float) for x in sprt):
            raise ValueError(f"the SPRT bounds are two numbers ELO0 ELO1 ({unit}), got {sprt!r}")
        sprt = (float(sprt[0]), float(sprt[1]))
    settings = MatchSettings(a=a, b=b, game=game, games=length, seed=seed, sprt=sprt,
                             alpha=alpha, beta=beta)  # fmt: skip
    if sprt is not None:
        low, high = sprt
        if not (math.isfinite(low) and math.isfinite(high)):
            raise ValueError(f"the SPRT bounds must be finite numbers ({unit}), got {sprt}")
        if not low < high:
            raise ValueError(
                f"the SPRT bounds are in the wrong order: ELO0 ({low:g}) must be below "
                f"ELO1 ({high:g}) ({unit})"
            )
        settings.test()  # its own checks: error rates, ranges
    if game == WTS:
        return dataclasses.replace(settings, book=openings.load(openings_path))
    if openings_path is not None:
        raise ValueError("an opening book is for What the Shell; Scorpion plays deals")
    if rules not in RULE_SETS:
        raise ValueError(f"rules must be one of {', '.join(RULE_SETS)}, got {rules!r}")
    patience.deal_numbers(settings.units, deal_set)  # the set exists and is large enough
    return dataclasses.replace(settings, rules=rules, deal_set=deal_set)


def plan(settings: MatchSettings) -> list[runner.Task]:
    """Every game of the match in schedule order (game ``2i`` and ``2i + 1`` are pair or
    deal ``i``, A playing first); each task's ``pairing`` is the record's ``match`` entry."""
    s = settings
    tasks: list[runner.Task] = []
    args: tuple[Any, ...]  # a task's arguments: the game's function takes them
    if s.game == WTS:
        assert s.book is not None
        for pair, opening in enumerate(s.book.schedule(s.seed, s.units)):
            seed = runner.game_seed(s.seed, pair)
            position = s.book[opening]
            for black, white, a_seat in ((s.a, s.b, "black"), (s.b, s.a, "white")):
                args = (black, white, seed, s.max_rounds, False, len(tasks), position)
                entry = {"pair": pair, "opening": opening, "a_seat": a_seat}
                tasks.append(runner.Task(WTS, games.play_what_the_shell, args, entry))
        return tasks
    for pair, deal in enumerate(patience.deal_numbers(s.units, s.deal_set)):
        agent_seed = runner.game_seed(s.seed, deal)  # the bench's seed for this deal
        for agent, side in ((s.a, "a"), (s.b, "b")):
            args = (agent, deal, s.rules, agent_seed, s.max_moves, s.stall_moves, False)
            entry = {"pair": pair, "agent": side}
            tasks.append(runner.Task(SCORPION, games.play_scorpion, (*args, len(tasks)), entry))
    return tasks


def _a_points(record: dict[str, Any]) -> int:
    """A's half-points in a What the Shell game: 2 won, 1 drawn, 0 lost."""
    won_black = record["outcome"] + 1
    return won_black if record["match"]["a_seat"] == "black" else 2 - won_black


class Tally:
    """The finished pairs or deals in schedule order, and the sequential test's state after
    the last of them."""

    def __init__(self, settings: MatchSettings) -> None:
        self.settings = settings
        self.sprt = settings.test()
        self.units = 0
        self.counts = np.zeros(5 if settings.game == WTS else 3, np.int64)
        self.llr = 0.0
        self.decision: str | None = None

    def add(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        """Count pair or deal ``self.units`` (its two records) and update the test."""
        self.units += 1
        if self.settings.game == WTS:
            self.counts[_a_points(first) + _a_points(second)] += 1
            args: tuple[Any, ...] = (self.counts,)
        else:  # (b_only, ties, a_only), as PairedSPRT counts them
            self.counts[1 + int(first["won"]) - int(second["won"])] += 1
            b_only, ties, a_only = (int(x) for x in self.counts)
            args = (a_only, b_only, ties)
        if self.sprt is not None:
            self.llr = self.sprt.llr(*args)
            self.decision = self.sprt.decision(*args)

    @property
    def over(self) -> bool:
        """Whether the match is over: the test decided, or every planned unit is in."""
        return self.decision is not None or self.units == self.settings.units


@dataclass
class MatchResult:
    """A match's figures (``data``, what ``match.json`` holds) and its game records in
    schedule order; ``paths`` are the files written."""

    data: dict[str, Any]
    records: list[dict[str, Any]]
    paths: dict[str, Path]

    def markdown(self) -> str:
        """The result as a Markdown table."""
        return markdown(self.data)


def summarize(
    settings: MatchSettings, records: dict[int, dict[str, Any]], tally: Tally
) -> dict[str, Any]:
    """The result of the pairs or deals ``tally`` counted: the first ones in schedule order
    whose games are all in (an interrupted match's later games wait for those before)."""
    counted = [records[k] for k in range(2 * tally.units)]
    out: dict[str, Any] = {
        "games": len(counted),
        "status": _status(settings, tally),
        **report.variety(counted),
    }
    if settings.game == WTS:
        out.update(_wts_result(counted, tally))
    else:
        out.update(_scorpion_result(counted, tally))
    if tally.sprt is not None:
        low, high = tally.sprt.bounds()
        out["sprt"] = {"llr": tally.llr, "bounds": [low, high], "decision": tally.decision}
    out.update(scale.problems(counted))
    return out


def _status(settings: MatchSettings, tally: Tally) -> str:
    """``decided``, ``complete`` (a fixed match, or an SPRT that reached its cap) or
    ``unfinished``."""
    if tally.decision is not None:
        return "decided"
    return "complete" if tally.units == settings.units else "unfinished"


def _wts_result(counted: list[dict[str, Any]], tally: Tally) -> dict[str, Any]:
    """W/D/L from A's side, by seat too, the pentanomial counts and the Elo estimate."""
    points = [_a_points(r) for r in counted]
    by_seat = {}
    for seat in ("black", "white"):
        mine = [p for p, r in zip(points, counted, strict=True) if r["match"]["a_seat"] == seat]
        by_seat[seat] = {"wins": mine.count(2), "draws": mine.count(1), "losses": mine.count(0)}
    out: dict[str, Any] = {
        "pairs": tally.units,
        "openings": len({r["match"]["opening"] for r in counted}),
        "wins": points.count(2),
        "draws": points.count(1),
        "losses": points.count(0),
        "a_by_seat": by_seat,
        "pentanomial": [int(x) for x in tally.counts],
    }
    if tally.units:
        est = sequential.elo_from_pentanomial(tally.counts, CONFIDENCE)
        out.update(
            score=est.score,
            elo=scale.finite_or_none(est.elo),
            elo_ci=[scale.finite_or_none(est.lower), scale.finite_or_none(est.upper)],
            los=est.los,
        )
    return out


def _scorpion_result(counted: list[dict[str, Any]], tally: Tally) -> dict[str, Any]:
    """Each agent's wins and mean score; the paired win-rate and score differences."""
    a = [r for r in counted if r["match"]["agent"] == "a"]
    b = [r for r in counted if r["match"]["agent"] == "b"]
    out: dict[str, Any] = {"deals": tally.units}
    for side, mine in (("a", a), ("b", b)):
        out[side] = {
            "wins": sum(r["won"] for r in mine),
            "win_rate": sum(r["won"] for r in mine) / len(mine) if mine else None,
            "mean_score": float(np.mean([r["score"] for r in mine])) if mine else None,
        }
    if tally.units:
        wins = sequential.paired_wins([r["won"] for r in a], [r["won"] for r in b], CONFIDENCE)
        out["win_rate_difference"] = {
            "difference": wins.difference,
            "ci": [wins.lower, wins.upper],
            "a_only": wins.a_only,
            "b_only": wins.b_only,
            "both": wins.both,
            "neither": wins.neither,
        }
    if tally.units >= 2:
        diff = sequential.score_difference(
            [r["score"] for r in a], [r["score"] for r in b], CONFIDENCE
        )
        out["score_difference"] = {"mean": diff.mean, "ci": [diff.lower, diff.upper]}
    return out


def _signed(x: float | None, minus: bool = False) -> str:
    """``+12.3``, ``-4.0``; ``+inf`` (``-inf`` with ``minus``) for a missing, infinite value."""
    if x is None:
        return "-inf" if minus else "+inf"
    return f"{x:+.1f}"


def markdown(data: dict[str, Any]) -> str:
    """A match's ``match.json`` data as Markdown: the settings in a line, the result table,
    the test's state."""
    s = data["settings"]
    r = data.get("result")
    a, b = s["agents"]["a"]["label"], s["agents"]["b"]["label"]
    game = GAMES[s["game"]].title
    lines = [f"## {game} match: {a} (A) vs {b} (B)", ""]
    if s["game"] == WTS:
        book = s["openings"]
        lines.append(
            f"Pairs of games from one opening, seats swapped; opening book v{book['version']} "
            f"({book['openings']} openings), seed {s['seed']}."
        )
    else:
        lines.append(
            f"Both agents on the same deals of the {s['deal_set']} set, {s['rules']} rules, "
            f"seed {s['seed']}."
        )
    lines.append("")
    if not r or not r["games"]:
        unit = "pair" if s["game"] == WTS else "deal"
        return "\n".join([*lines, f"No {unit} finished yet."]) + "\n"
    if s["game"] == WTS:
        lines += [
            "| games | A wins | draws | B wins | A's score | Elo A − B (95 %) | LOS |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]
        if "elo" in r:
            low, high = r["elo_ci"]
            point = _signed(r["elo"], minus=r["score"] < 0.5)  # None: all won or all lost
            elo = f"{point} [{_signed(low, minus=True)}, {_signed(high)}]"
            score, los = f"{r['score']:.3f}", f"{100 * r['los']:.1f} %"
        else:
            elo, score, los = "–", "–", "–"
        lines.append(
            f"| {r['games']} | {r['wins']} | {r['draws']} | {r['losses']} | {score} | {elo} "
            f"| {los} |"
        )
        penta = ", ".join(str(x) for x in r["pentanomial"])
        seats = r["a_by_seat"]
        lines += [
            "",
            f"Pairs by A's points (0, ½, 1, 1½, 2): {penta} ({r['pairs']} pairs, "
            f"{r['openings']} openings).",
            "A as black: {wins} W, {draws} D, {losses} L; ".format(**seats["black"])
            + "as white: {wins} W, {draws} D, {losses} L.".format(**seats["white"]),
        ]
    else:
        lines += [
            "| deals | A wins | B wins | only A | only B | win rate A − B (95 %) "
            "| mean score A − B (95 %) |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]
        wrd = r.get("win_rate_difference")
        diff = (
            f"{100 * wrd['difference']:+.1f} pts [{100 * wrd['ci'][0]:+.1f}, "
            f"{100 * wrd['ci'][1]:+.1f}]"
            if wrd
            else "–"
        )
        sd = r.get("score_difference")
        if sd is None:
            scores = "–"
        elif sd["ci"][0] is None:  # every deal the same difference: no interval
            scores = f"{sd['mean']:+.2f} (the same every deal)"
        else:
            scores = f"{sd['mean']:+.2f} [{sd['ci'][0]:+.2f}, {sd['ci'][1]:+.2f}]"
        lines.append(
            f"| {r['deals']} | {r['a']['wins']} | {r['b']['wins']} | "
            f"{wrd['a_only'] if wrd else 0} | {wrd['b_only'] if wrd else 0} | {diff} | {scores} |"
        )
    repeats = r.get("most_played", 1)  # a match.json from before most_played
    again = f", one of them played {repeats} times" if repeats > 1 else ""
    lines += ["", f"Distinct games: {r['distinct_games']} of {r['games']}{again}."]
    if "sprt" in r:
        t, sp = r["sprt"], s["sprt"]
        unit = "Elo" if s["game"] == WTS else "win-rate points"
        h0, h1 = list(sp.values())[:2]
        verdict = {
            "H1": f"H1 accepted (A − B is {h1:g} rather than {h0:g} {unit})",
            "H0": f"H0 accepted (A − B is {h0:g} rather than {h1:g} {unit})",
            None: "no decision yet",
        }[t["decision"]]
        lines.append(
            f"SPRT [{h0:g}, {h1:g}] {unit}, α {sp['alpha']:g}, β {sp['beta']:g}: "
            f"LLR {t['llr']:.2f} in [{t['bounds'][0]:.2f}, {t['bounds'][1]:.2f}]: {verdict}."
        )
    if r["status"] == "unfinished":
        lines.append("The match is unfinished: resume it to go on.")
    elif r["status"] == "complete" and "sprt" in r:
        lines.append(f"The test reached the cap of {s['max_games']} games without deciding.")
    for key, what in (("illegal", "Illegal actions"), ("errors", "Agent errors")):
        counts, first = r[key]["counts"], r[key]["first"]
        if counts:
            case = first[0].get("reason") or first[0].get("error")
            listed = ", ".join(f"{k} {v}" for k, v in counts.items())
            lines.append(f"{what}: {listed} (the first, game {first[0]['record']}: {case}).")
    return "\n".join(lines) + "\n"


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it (never half a file)."""
    _write_text(path, json.dumps(data, indent=2) + "\n")


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, synced, then moved."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(name, 0o644)
        os.replace(name, path)
    finally:
        if os.path.exists(name):
            os.unlink(name)


def _line(record: dict[str, Any]) -> str:
    """A record as one line of ``games.jsonl``, as the bench writes it."""
    return json.dumps(record, separators=(",", ":")) + "\n"


def read_games(path: Path) -> list[dict[str, Any]]:
    """The records of a match's ``games.jsonl`` (none if it is missing).

    A last line cut short (the match was killed while writing it) is dropped with a
    `MatchWarning`; any other line that is not a record raises `ResumeError`.
    """
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.split("\n")
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # the last line, without its newline: cut short
                warnings.warn(
                    MatchWarning(
                        f"{path}: dropped line {number}, cut short (its game is played again)"
                    ),
                    stacklevel=2,
                )
                continue
            raise ResumeError(f"{path}: line {number} is not a JSON record") from None
        if not isinstance(record, dict) or not isinstance(record.get("index"), int):
            raise ResumeError(f"{path}: line {number} is not a game record")
        records.append(record)
    return records


def _check_record(record: dict[str, Any], task: runner.Task, path: Path) -> None:
    """``ResumeError`` unless ``record`` is the game ``task`` plays."""
    if task.run is games.play_what_the_shell:
        black, white, seed, max_rounds, _, index, position = task.args
        expected = {"game": WTS, "black": black.label, "white": white.label, "seed": seed,
                    "max_rounds": max_rounds, "start": position}  # fmt: skip
    else:
        agent, deal, rules, agent_seed, max_moves, _, _, index = task.args
        expected = {"game": SCORPION, "agent": agent.label, "deal": deal, "rules": rules,
                    "agent_seed": agent_seed, "max_moves": max_moves}  # fmt: skip
    expected["match"] = task.pairing
    wrong = [k for k, v in expected.items() if record.get(k) != v]
    if wrong:
        raise ResumeError(
            f"{path}: game {index} is not this match's game {index} (its {', '.join(wrong)} differ)"
        )


def _differences(old: Any, new: Any, where: str = "") -> list[str]:
    """The settings that differ, as ``key: old -> new``."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new), key=str):
            out += _differences(old.get(key), new.get(key), f"{where}.{key}" if where else key)
        return out
    return [] if old == new else [f"{where}: {json.dumps(old)} -> {json.dumps(new)}"]


@contextlib.contextmanager
def _appending(path: Path) -> Iterator[Callable[[dict[str, Any]], None]]:
    """A function that appends a record to ``games.jsonl`` and syncs it to disk at once."""
    with open(path, "a", encoding="utf-8") as f:

        def append(record: dict[str, Any]) -> None:
            f.write(_line(record))
            f.flush()
            os.fsync(f.fileno())

        yield append


class _Decided(Exception):
    """The test decided: stop playing (raised through the worker pool, which stops)."""


def open_match(
    settings: MatchSettings, out: str | Path, resume: bool, overwrite: bool
) -> dict[int, dict[str, Any]]:
    """Check the folder for this match and return the finished games by index (none for a
    new match).  `MatchExists` when it holds a match and neither ``resume`` nor
    ``overwrite`` is given; `ResumeError` when there is nothing to resume, the settings
    differ or the records are not this match's."""
    folder = Path(out)
    if resume and overwrite:
        raise ValueError("resume and overwrite exclude each other: resume keeps the games")
    found = [n for n in MATCH_FILES if (folder / n).exists()]
    if not resume:
        if found and not overwrite:
            raise MatchExists(folder, found)
        return {}
    if MATCH_NAME not in found:
        raise ResumeError(f"{folder} holds no match to resume (no {MATCH_NAME})")
    try:
        saved = json.loads((folder / MATCH_NAME).read_text(encoding="utf-8"))["settings"]
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
        raise ResumeError(f"{folder / MATCH_NAME} is not a match's settings") from None
    changed = _differences(saved, settings.to_dict())
    if changed:
        raise ResumeError(
            f"{folder} holds a match with other settings ({'; '.join(changed)}); resume it with "
            "the same ones, or start a new match elsewhere"
        )
    tasks = plan(settings)
    records: dict[int, dict[str, Any]] = {}
    path = folder / report.GAMES_NAME
    for record in read_games(path):
        k = record["index"]
        if not 0 <= k < len(tasks):
            raise ResumeError(f"{path}: game {k} is not in this match (games 0-{len(tasks) - 1})")
        if k in records:
            raise ResumeError(f"{path}: game {k} is there twice")
        _check_record(record, tasks[k], path)
        records[k] = record
    return records


def run_match(
    a: str | AgentSpec,
    b: str | AgentSpec,
    game: str = WTS,
    out: str | Path = "results/match",
    *,
    workers: int | None = 1,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool = True,
    ray: str | None = None,
    **settings: Any,
) -> MatchResult:
    """Play agent ``a`` against agent ``b`` and write the results folder ``out``.

    ``settings`` are the keywords of `make_settings` that follow ``game`` (``games``,
    ``seed``, ``sprt``, ``alpha``, ``beta``, ``max_games``, ``openings_path``, ``rules``,
    ``deal_set``), with its defaults and checks.  Bad settings raise ``ValueError``
    (`AgentSpecError` for an agent) before anything is written, and leave no folder behind;
    see the module doc for the rest.  Ctrl-C raises `MatchInterrupted`, every finished game
    kept.

    ``ray``, a Ray cluster's address (or ``"auto"``), plays the games as Ray tasks there
    (`shell_envs.bench.cluster`: the same records and result), ``workers`` at a time;
    ``workers=None`` is the cluster's CPUs (without ``ray``, this machine's).  Ray missing,
    or nothing answering at the address, raises `shell_envs.bench.cluster.ClusterError`
    before anything is written.
    """
    checked = make_settings(a, b, game, **settings)
    if workers is not None:
        workers = positive_int("workers", workers, high=MAX_WORKERS)
    if resume and overwrite:
        raise ValueError("resume and overwrite exclude each other: resume keeps the games")
    folder = Path(out)
    with contextlib.ExitStack() as joined:
        with report.results_folder(folder, overwrite=True):  # no folder it made is left on error
            on = joined.enter_context(cluster.connect(ray))
            records = open_match(checked, folder, resume, overwrite)
            for spec in (checked.a, checked.b):
                spec.make(checked.game, 0)  # a spec that does not load fails before any game
                if on is not None:
                    cluster.portable(spec)  # nor one that cannot go to the cluster
            if not resume:
                for name in MATCH_FILES:
                    (folder / name).unlink(missing_ok=True)
        if workers is None:
            workers = min(on.cpus, MAX_WORKERS) if on is not None else runner.default_workers()
        created = _created(folder / MATCH_NAME) if resume else _now()
        return _play(checked, folder, records, workers, progress, created, on)


def _now() -> str:
    """The time now, as ``match.json`` gives it."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _created(path: Path) -> str:
    """When the match being resumed was first started (now, if its file does not say)."""
    try:
        created = json.loads(path.read_text(encoding="utf-8"))["created"]
    except (OSError, ValueError, KeyError, TypeError):
        return _now()
    return created if isinstance(created, str) else _now()


def _play(
    settings: MatchSettings,
    folder: Path,
    records: dict[int, dict[str, Any]],
    workers: int,
    progress: bool,
    created: str,
    on: cluster.Cluster | None = None,
) -> MatchResult:
    """Play the games ``records`` lacks, in schedule order, until the match is over
    (``created``: when it first started, kept through resumes)."""
    start = time.perf_counter()
    tasks = plan(settings)
    tally = Tally(settings)
    _advance(tally, records)
    header = {
        "version": __version__,
        "settings": settings.to_dict(),
        "created": created,
    }
    _write_json(folder / MATCH_NAME, {**header, "workers": workers, "result": None})
    # the kept games alone, whole lines in schedule order: appending goes on after them
    _write_text(folder / report.GAMES_NAME, "".join(_line(records[k]) for k in sorted(records)))
    if not tally.over:
        rules = (settings.rules,) if settings.game == SCORPION else ()
        agents = (settings.a, settings.b)
        try:
            runner.warm_up_games([settings.game], rules, agents, workers, notice=progress)
        except KeyboardInterrupt:
            raise MatchInterrupted(_finish(settings, folder, header, records, tally, start,
                                           workers, final=False)) from None  # fmt: skip
    bar = tqdm(
        total=len(tasks),
        initial=len(records),
        desc=f"{settings.a.label} vs {settings.b.label}",
        unit="game",
        disable=not progress or tally.over,
        dynamic_ncols=True,
    )
    _show(bar, tally)
    try:
        with _appending(folder / report.GAMES_NAME) as append:

            def collect(k: int, result: tuple[dict[str, Any], Any]) -> None:
                record = result[0]
                record["match"] = tasks[k].pairing
                append(record)
                records[k] = record
                bar.update(1)
                _advance(tally, records)
                _show(bar, tally)
                if tally.over:
                    raise _Decided

            remaining = np.array([k for k in range(len(tasks)) if k not in records], int)
            if not tally.over and remaining.size:
                runner.run_pool(tasks, remaining, workers, collect, on)
    except _Decided:
        pass
    except KeyboardInterrupt:
        bar.close()
        raise MatchInterrupted(
            _finish(settings, folder, header, records, tally, start, workers, final=False)
        ) from None
    bar.close()
    return _finish(settings, folder, header, records, tally, start, workers, final=True)


def _advance(tally: Tally, records: dict[int, dict[str, Any]]) -> None:
    """Count the pairs or deals whose two games are in, in schedule order, until the match is
    over or the next one is missing a game."""
    while not tally.over and 2 * tally.units + 1 in records and 2 * tally.units in records:
        tally.add(records[2 * tally.units], records[2 * tally.units + 1])


def _show(bar: Any, tally: Tally) -> None:
    """The test's log-likelihood ratio and bounds in the progress bar."""
    if tally.sprt is not None:
        low, high = tally.sprt.bounds()
        bar.set_postfix(llr=f"{tally.llr:.2f}", bounds=f"[{low:.2f}, {high:.2f}]", refresh=False)


def _finish(
    settings: MatchSettings,
    folder: Path,
    header: dict[str, Any],
    records: dict[int, dict[str, Any]],
    tally: Tally,
    start: float,
    workers: int,
    final: bool,
) -> MatchResult:
    """Write ``match.json`` and ``match.md`` with the result of the counted games; once the
    match is over (``final``), ``games.jsonl`` too: exactly those games, in schedule order."""
    result = summarize(settings, records, tally)
    counted = [records[k] for k in range(2 * tally.units)]
    data = {
        **header,
        "workers": workers,
        "run": {
            "finished": _now(),
            "wall_seconds": round(time.perf_counter() - start, 1),
            # once over, the games kept (those after the test decided are dropped)
            "games_finished": len(counted) if final else len(records),
        },
        "result": result,
    }
    paths = {"json": folder / MATCH_NAME, "markdown": folder / MARKDOWN_NAME}
    if final:
        _write_text(folder / report.GAMES_NAME, "".join(_line(r) for r in counted))
        paths["games"] = folder / report.GAMES_NAME
    elif (folder / report.GAMES_NAME).exists():
        paths["games"] = folder / report.GAMES_NAME
    _write_json(paths["json"], data)
    _write_text(paths["markdown"], markdown(data))
    return MatchResult(data, counted if final else [records[k] for k in sorted(records)], paths)


def default_out(a: str | AgentSpec, b: str | AgentSpec) -> Path:
    """``results/match-A-vs-B``, the labels made safe as a folder name."""
    labels = [(x if isinstance(x, AgentSpec) else parse_spec(x)).label for x in (a, b)]
    safe = [re.sub(r"[^A-Za-z0-9_.+-]+", "-", label).strip("-") or "agent" for label in labels]
    return Path("results") / f"match-{safe[0]}-vs-{safe[1]}"
