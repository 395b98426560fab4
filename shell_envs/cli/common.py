"""What the command groups of ``shell-envs`` share: the games' names, options and line input.

Light on purpose (click, the games registry and the bench's limits only), so that
``shell-envs --help`` stays instant: the commands import the engines inside their bodies.
"""

from __future__ import annotations

import math
import sys

import click

from shell_envs.bench.limits import MAX_WORKERS
from shell_envs.registry import GAMES

__all__ = [
    "DEAL_SET_OPTION",
    "GAME_NAMES",
    "RAY_OPTION",
    "RULES_OPTION",
    "SCORPION",
    "WHAT_THE_SHELL",
    "WORKERS_OPTION",
    "finite",
    "read_line",
    "redraw",
]

WHAT_THE_SHELL = GAMES["what_the_shell"]
SCORPION = GAMES["scorpion"]
GAME_NAMES = [g.cli_name for g in GAMES.values()]  # as --game and `play` spell them
# Scorpion's rule sets, read from the registry (equal to scorpion.rules.RULE_SETS, whose
# module would load numba before --help could answer)
RULES_OPTION = click.option(
    "--rules",
    type=click.Choice(list(SCORPION.rule_sets)),
    default=SCORPION.rule_sets[0],
    show_default=True,
    help="Classic: build on the same suit; Relaxed: on any suit; Traditional: as Classic, "
    "but complete runs stay in the tableau (won when all four stand there).",
)

# bench and match: Scorpion's fixed deal sets (shell_envs.bench.patience.DEAL_SETS)
DEAL_SET_OPTION = click.option(
    "--set",
    "deal_set",
    type=click.Choice(["dev", "test"]),
    default="test",
    show_default=True,
    help="Scorpion deal set: dev (deals 0-4999, for tuning) or test (5000-9999, to report).",
)

# bench and match: how many games at once
WORKERS_OPTION = click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    default=None,
    help="Worker processes for the games [default: the CPUs available].",
)

# bench and match: the games as Ray tasks on a cluster (shell_envs.bench.cluster)
RAY_OPTION = click.option(
    "--ray",
    "ray_address",
    default=None,
    metavar="ADDRESS",
    help="Play the games as Ray tasks on the cluster at ADDRESS (HOST:PORT, ray://HOST:PORT, "
    "or auto: the one ray start began here), --workers at a time [default: the cluster's "
    "CPUs]; needs the rllib extra.",
)


def finite(param: click.Parameter, value: float | None) -> float | None:
    """A number option's value unless it is nan (which every range check lets through)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number", param=param)
    return value


def read_line(prompt: str) -> str | None:
    """Prompt and read one line of standard input; None at the end of the input."""
    click.echo(prompt, nl=False)
    stream = sys.stdin
    line = stream.readline()
    if not line:
        click.echo()
        return None
    if not stream.isatty():
        click.echo(line.rstrip("\n"))
    return line.strip()


def redraw(text: str) -> None:
    """Clear the terminal (only when it is one) and draw ``text``."""
    click.clear()
    click.echo(text)
