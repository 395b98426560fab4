"""Replay a recorded bench game (``games.jsonl``): step by step in text, or as a GIF.

A record holds everything a game depends on (seeds, rules, deal, every action), so replaying
it in a fresh env reproduces the game exactly; every replay checks that it ends in the
recorded final position (`ReplayMismatch` otherwise).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np


class ReplayMismatch(ValueError):
    """The replayed game does not end in the position its record says."""


def read_record(path: str | Path, index: int) -> dict[str, Any]:
    """The record with ``index`` in a ``games.jsonl``; ``ValueError`` naming the problem."""
    count = 0
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: line {number} is not a JSON record ({exc})") from None
            count += 1
            if isinstance(record, dict) and record.get("index") == index:
                return record
    raise ValueError(f"{path} has no game {index} ({count} records)")


def positions(record: dict[str, Any], render_mode: str) -> Iterator[tuple[str, Any]]:
    """``(caption, frame)`` for the start and after every recorded move, rendered in
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
    title = f"{record['black']} (black) vs {record['white']} (white)"
    yield f"{title}: start", env.render()
    for n, (black, white) in enumerate(record["actions"], 1):
        env.step({"black": black, "white": white})
        played = ", ".join(
            f"{seat} {cell_name(a) if 0 <= a < 81 else a}"
            for seat, a in (("black", black), ("white", white))
        )
        yield f"{title}: round {n}: {played}", env.render()
    _check(record, env.position())
    env.close()


def _scorpion(record: dict[str, Any], render_mode: str) -> Iterator[tuple[str, Any]]:
    import gymnasium as gym

    import shell_envs  # noqa: F401  (registers the environments)
    from shell_envs.scorpion.solver import action_text

    env = gym.make(
        "shell_envs/Scorpion-v0",
        rules=record["rules"],
        max_moves=record["max_moves"],
        render_mode=render_mode,
    )
    env.reset(seed=record["deal"])
    title = f"{record['agent']}, deal {record['deal']} ({record['rules']})"
    yield f"{title}: start", env.render()
    for n, action in enumerate(record["actions"], 1):
        env.step(action)
        yield f"{title}: move {n}: {action_text(action)}", env.render()
    _check(record, env.unwrapped.get_state().position())
    env.close()


def text_steps(record: dict[str, Any]) -> list[tuple[str, str]]:
    """Every position of the game as text, with a caption naming the move."""
    return list(positions(record, "ansi"))


def write_gif(record: dict[str, Any], path: str | Path, fps: float = 2.0) -> int:
    """Write the game as an animated GIF (one frame per position); returns the frame count."""
    from PIL import Image

    frames = [Image.fromarray(np.asarray(frame)) for _, frame in positions(record, "rgb_array")]
    frames[0].save(
        path,
        save_all=True,
        append_images=frames[1:],
        duration=int(1000 / fps),
        loop=0,
    )
    return len(frames)


def summary(record: dict[str, Any]) -> str:
    """One line: who won or how the deal ended, and that the final position was reproduced."""
    if record["game"] == "what_the_shell":
        result = record["result"]
        who = "a draw" if result == "draw" else f"{record[result]} ({result}) won"
        line = f"{who} after {record['rounds']} rounds ({record['end']})"
    else:
        line = (
            f"{'won' if record['won'] else 'not won'}: score {record['score']}, "
            f"{record['moves']} moves ({record['end']})"
        )
    problems = [f"illegal: {c['reason']}" for c in record["illegal"]]
    problems += [f"error: {c['error']}" for c in record["errors"]]
    return "; ".join([line, *problems]) + "; the replay ends in the recorded final position."
