"""Replay a recorded bench game (``games.jsonl``): step by step in text, or as a GIF.

A record holds everything a game depends on (seeds, rules, deal, every action), so replaying
it in a fresh env reproduces the game exactly; every replay checks that it ends in the
recorded final position (`ReplayMismatch` otherwise).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from shell_envs.bench.patience import STALL_MOVES
from shell_envs.registry import GAMES

if TYPE_CHECKING:
    from shell_envs.scorpion.env import ScorpionEnv

GAME_NAMES = {g.name: g.title for g in GAMES.values()}
RULES_TEXT = {
    "classic": "Classic rules (build on the same suit)",
    "relaxed": "Relaxed rules (build on any suit)",
    "traditional": "Traditional rules (same suit; runs stay in the tableau)",
}
WTS_ENDS = {
    "win": "a line of five",
    "draw": "the board is full",
    "move cap": "the round cap",
    "illegal": "an illegal action",
    "error": "an agent error",
}
SCORPION_ENDS = {
    "no move": "no legal move left",
    "dead": "only pointless king moves left",
    "stalled": f"{STALL_MOVES} moves without progress",
    "illegal": "an illegal action",
    "error": "an agent error",
}
GIF_BAND = (36, 36, 40)  # the caption band above every frame
GIF_TEXT = (245, 245, 245)
GIF_RESULT = (255, 214, 90)
GIF_LINE = 24  # caption line height in pixels (font size 18)
GIF_PAD = 10


class ReplayMismatch(ValueError):
    """The replayed game does not end in the position its record says."""


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a ``games.jsonl`` in file order; ``ValueError`` naming a bad line."""
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: line {number} is not a JSON record ({exc})") from None
            if not isinstance(record, dict) or "index" not in record or "game" not in record:
                raise ValueError(f"{path}: line {number} is not a game record")
            yield record


def read_record(path: str | Path, index: int) -> dict[str, Any]:
    """The record with ``index`` in a ``games.jsonl``; ``ValueError`` naming the problem."""
    count = 0
    for record in read_records(path):
        count += 1
        if record["index"] == index:
            return record
    raise ValueError(f"{path} has no game {index} ({count} records; --list shows them)")


def title(record: dict[str, Any], short: bool = False) -> str:
    """Who played: ``greedy (black) vs mcts-100 (white)``, or ``lookahead, deal 5003,
    Classic rules (build on the same suit)`` (``short``: ``lookahead, deal 5003, classic``)."""
    if record["game"] == "what_the_shell":
        return f"{record['black']} (black) vs {record['white']} (white)"
    rules = record["rules"] if short else RULES_TEXT[record["rules"]]
    return f"{record['agent']}, deal {record['deal']}, {rules}"


def result(record: dict[str, Any]) -> str:
    """How the game ended, in words: who won or whether the deal was won, and why it stopped."""
    end = record["end"]
    if record["game"] == "what_the_shell":
        outcome = record["result"]
        who = "a draw" if outcome == "draw" else f"{record[outcome]} ({outcome}) won"
        why = WTS_ENDS.get(end, end)
        culprits = sorted({case["agent"] for case in record["illegal"] + record["errors"]})
        if end in ("illegal", "error") and culprits:
            why += " by " + " and ".join(culprits)
        return f"{who} after {record['rounds']} rounds ({why})"
    how = f"score {record['score']} in {record['moves']} moves"
    if record["won"]:
        return f"won, {how}"
    why = (
        f"the {record['max_moves']}-move cap" if end == "move cap" else SCORPION_ENDS.get(end, end)
    )
    return f"not won ({why}), {how}"


def listing(path: str | Path) -> str:
    """A table of the games in a ``games.jsonl``: index, game, agents and result."""
    rows = []
    for r in read_records(path):
        try:
            game = GAME_NAMES.get(r["game"], r["game"])
            rows.append((str(r["index"]), game, title(r, short=True), result(r)))
        except KeyError as exc:
            raise ValueError(f"{path}: game {r['index']} has no {exc.args[0]!r}") from None
    header = ("index", "game", "agents", "result")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    return "\n".join(
        f"{row[0]:>{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}"
        for row in [header, *rows]
    )


def positions(record: dict[str, Any], render_mode: str) -> Iterator[tuple[str, Any]]:
    """``(step, frame)`` for the start and after every recorded move, rendered in
    ``render_mode`` (``"ansi"`` or ``"rgb_array"``); checks the final position at the end."""
    if record["game"] == "what_the_shell":
        yield from _what_the_shell(record, render_mode)
    elif record["game"] == "scorpion":
        yield from _scorpion(record, render_mode)
    else:
        raise ValueError(f"record {record.get('index')} is of an unknown game {record['game']!r}")


def _check(record: dict[str, Any], final: dict[str, Any]) -> None:
    """Raise `ReplayMismatch` unless ``final`` is the recorded final position."""
    if json.loads(json.dumps(final)) != record["final"]:
        raise ReplayMismatch(
            f"game {record['index']}: the replay ends in {final}, the record says {record['final']}"
        )


def _what_the_shell(record: dict[str, Any], render_mode: str) -> Iterator[tuple[str, Any]]:
    from shell_envs import what_the_shell_v0
    from shell_envs.what_the_shell.position import cell_name

    env = what_the_shell_v0.parallel_env(max_rounds=record["max_rounds"], render_mode=render_mode)
    start = record.get("start")  # a game that began from a position (an opening)
    env.reset(seed=record["seed"], options=None if start is None else {"position": start})
    yield "start", env.render()
    for n, (black, white) in enumerate(record["actions"], 1):
        env.step({"black": black, "white": white})
        played = ", ".join(
            f"{seat} {cell_name(a) if 0 <= a < 81 else a}"
            for seat, a in (("black", black), ("white", white))
        )
        yield f"round {n}: {played}", env.render()
    _check(record, env.position())
    env.close()


def _scorpion(record: dict[str, Any], render_mode: str) -> Iterator[tuple[str, Any]]:
    import gymnasium as gym

    from shell_envs.scorpion.messages import action_text

    env = gym.make(
        "shell_envs/Scorpion-v0",
        rules=record["rules"],
        max_moves=record["max_moves"],
        render_mode=render_mode,
    )
    env.reset(seed=record["deal"])
    yield "start", env.render()
    for n, action in enumerate(record["actions"], 1):
        env.step(action)
        yield f"move {n}: {action_text(action)}", env.render()
    _check(record, cast("ScorpionEnv", env.unwrapped).get_state().position())
    env.close()


def text_steps(record: dict[str, Any]) -> list[tuple[str, str]]:
    """Every position of the game as text, with a caption naming the players and the move."""
    who = title(record)
    return [(f"{who}: {step}", board) for step, board in positions(record, "ansi")]


def write_gif(record: dict[str, Any], path: str | Path, fps: float = 2.0) -> int:
    """Write the game as an animated GIF (one frame per position); returns the frame count.

    A band above each position names the players (Scorpion: the agent, the deal number and
    the rules) and the move; the last frame adds how the game ended and stays longer.
    """
    steps = list(positions(record, "rgb_array"))
    width = np.asarray(steps[0][1]).shape[1]
    heading = _wrap(title(record), 18, width)
    ending = _wrap(f"Result: {result(record)}", 18, width)
    frames = [
        _captioned(frame, heading, step, ending if n == len(steps) - 1 else [], len(ending))
        for n, (step, frame) in enumerate(steps)
    ]
    pause = int(1000 / fps)
    frames[0].save(
        path,
        save_all=True,
        append_images=frames[1:],
        duration=[pause] * (len(frames) - 1) + [max(4 * pause, 3000)],
        loop=0,
    )
    return len(frames)


def _wrap(text: str, size: int, width: int) -> list[str]:
    """``text`` broken at spaces into lines that fit ``width`` pixels in the caption font."""
    from shell_envs.core.render import font

    lines: list[str] = []
    for word in text.split(" "):
        if lines and font(size).getlength(f"{lines[-1]} {word}") <= width - 2 * GIF_PAD:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _captioned(frame: Any, heading: list[str], step: str, ending: list[str], room: int) -> Any:
    """The frame under a band of text: the heading, the step, then the ending lines (room for
    ``room`` of them on every frame, so that all frames have one size)."""
    from PIL import Image, ImageDraw

    from shell_envs.core.render import font

    board = Image.fromarray(np.asarray(frame))
    band = GIF_PAD + GIF_LINE * (len(heading) + 1 + room)
    image = Image.new("RGB", (board.width, band + board.height), GIF_BAND)
    image.paste(board, (0, band))
    draw = ImageDraw.Draw(image)
    lines = [(text, GIF_TEXT) for text in [*heading, step]]
    lines += [(text, GIF_RESULT) for text in ending]
    for n, (text, colour) in enumerate(lines):
        draw.text((GIF_PAD, GIF_PAD // 2 + n * GIF_LINE), text, colour, font(18))
    return image


def summary(record: dict[str, Any]) -> str:
    """One line: how the game ended, any illegal action or error, and that the replay ended in
    the recorded final position."""
    problems = [f"illegal: {c['reason']}" for c in record["illegal"]]
    problems += [f"error: {c['error']}" for c in record["errors"]]
    return "; ".join([result(record), *problems]) + (
        "; the replay ends in the recorded final position."
    )
