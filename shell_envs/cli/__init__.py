"""The ``shell-envs`` command line: ``bench``, ``play what-the-shell``, ``play scorpion``,
``speed`` and ``solve`` (click).

One module per command group (``bench`` with ``replay``, ``play``, ``speed``, ``solve``),
what they share in ``common``.  The ``play`` commands read standard input line by line, so
they work at a keyboard and with piped input alike; a bad or illegal entry gets a message
and a new prompt, and the end of the input ends the game politely.  Heavy modules are
imported inside the commands, so ``shell-envs --help`` is instant.
"""

from __future__ import annotations

import os

import click

from shell_envs._version import __version__
from shell_envs.cli.bench import bench, replay
from shell_envs.cli.common import RULES_OPTION
from shell_envs.cli.match import match
from shell_envs.cli.play import (
    MAX_ITERATIONS,
    SCORPION_HELP,
    WTS_HELP,
    play,
    play_scorpion,
    play_what_the_shell,
)
from shell_envs.cli.solve import SOLVER_MAX_NODES, solve
from shell_envs.cli.speed import speed

__all__ = [
    "MAX_ITERATIONS",
    "RULES_OPTION",
    "SCORPION_HELP",
    "SOLVER_MAX_NODES",
    "WTS_HELP",
    "bench",
    "main",
    "match",
    "play",
    "play_scorpion",
    "play_what_the_shell",
    "replay",
    "solve",
    "speed",
]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="shell-envs")
def main() -> None:
    """What the Shell and Scorpion: benchmarks, terminal play, speed and the Scorpion solver."""
    from shell_envs.core import background

    # each command compiles what it needs first, saying so, and then runs at full speed
    os.environ[background.ENV_VAR] = "0"


main.add_command(bench)
main.add_command(replay)
main.add_command(match)
main.add_command(play)
main.add_command(speed)
main.add_command(solve)
