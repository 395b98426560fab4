"""The command line as a package: ``python -m shell_envs.cli``, its old import paths, its
choices read from the games registry, and ``--help`` that loads no engine."""

from __future__ import annotations

import subprocess
import sys

import click

import shell_envs.cli
from shell_envs.cli import (
    MAX_ITERATIONS,
    RULES_OPTION,
    SCORPION_HELP,
    SOLVER_MAX_NODES,
    WTS_HELP,
    bench,
    main,
    match,
    play,
    play_scorpion,
    play_what_the_shell,
    replay,
    solve,
    speed,
)
from shell_envs.cli.play import read_move
from shell_envs.registry import GAMES
from shell_envs.scorpion.actions import RESERVE_ACTION, UNDO_ACTION
from shell_envs.scorpion.rules import RULE_SETS


def run(*args: str) -> subprocess.CompletedProcess:
    """``python -m shell_envs.cli ARGS`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "shell_envs.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_python_dash_m_runs_the_command_line() -> None:
    out = run("--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Usage: python -m shell_envs.cli [OPTIONS] COMMAND [ARGS]...")
    for command in ("bench", "play", "replay", "solve", "speed"):
        assert f"\n  {command} " in out.stdout
    assert run("play", "scorpion", "--help").stdout.startswith(
        "Usage: python -m shell_envs.cli play scorpion [OPTIONS]"
    )
    bad = run("nonsense")
    assert bad.returncode == 2 and "No such command 'nonsense'" in bad.stderr


def test_help_loads_neither_numba_nor_an_engine() -> None:
    code = (
        "import sys\n"
        "from shell_envs.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m == 'numba' or m.endswith('.rules')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_old_import_paths_still_work() -> None:
    assert main.name == "main" and isinstance(main, click.Group)
    assert main.commands == {
        "bench": bench,
        "match": match,
        "play": play,
        "replay": replay,
        "solve": solve,
        "speed": speed,
    }
    assert play.commands == {"what-the-shell": play_what_the_shell, "scorpion": play_scorpion}
    assert MAX_ITERATIONS == 1_000_000 and SOLVER_MAX_NODES == 2_000_000
    assert "4H 7" in SCORPION_HELP and "'e5'" in WTS_HELP
    assert callable(RULES_OPTION)
    assert read_move("4H 7") == (16 * 7 + 6, None)
    assert read_move("d") == (RESERVE_ACTION, None)
    assert read_move("u") == (UNDO_ACTION, None)
    assert read_move("undo") == (
        None,
        "Could not read 'undo': type a card and a column, like '4H 7' (? = help).",
    )
    for name in shell_envs.cli.__all__:
        assert hasattr(shell_envs.cli, name), name


def test_the_choices_come_from_the_games_registry() -> None:
    def choices(command: click.Command, option: str) -> list[str]:
        (param,) = (p for p in command.params if p.name == option)
        return list(param.type.choices)

    names = [g.cli_name for g in GAMES.values()]
    assert names == ["what-the-shell", "scorpion"]
    assert choices(bench, "game") == [*names, "all"]
    assert choices(speed, "game") == ["all", *names]
    assert GAMES["scorpion"].rule_sets == RULE_SETS == ("classic", "relaxed", "traditional")
    assert choices(bench, "rules") == [*RULE_SETS, "both", "all"]
    assert choices(play_scorpion, "rules") == choices(solve, "rules") == list(RULE_SETS)
    assert sorted(play.commands) == sorted(names)
