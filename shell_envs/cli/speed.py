"""``shell-envs speed``: the speed benchmarks, environments and engines beside their peers."""

from __future__ import annotations

import click

from shell_envs.cli.common import GAME_NAMES, finite

__all__ = ["speed"]


@click.command()
@click.option(
    "--seconds",
    type=click.FloatRange(0, 3600, min_open=True),
    callback=lambda ctx, param, value: finite(param, value),
    default=1.0,
    show_default=True,
    help="Seconds per repeat of each workload (at most an hour).",
)
@click.option(
    "--repeats",
    type=click.IntRange(1, 1000),
    default=5,
    show_default=True,
    help="Interleaved repeats of every workload; the table shows their medians.",
)
@click.option(
    "--game",
    type=click.Choice(["all", *GAME_NAMES]),
    default="all",
    show_default=True,
    help="Which game's workloads to run.",
)
def speed(seconds: float, repeats: int, game: str) -> None:
    """Run the speed benchmarks: environments and engines beside their peers (medians)."""
    from shell_envs.bench.speed import (
        SCORPION_RATIOS,
        WHAT_THE_SHELL_RATIOS,
        format_table,
        playout_verdict,
        run_scorpion_speed,
        run_speed,
    )
    from shell_envs.core.jit import compile_notice
    from shell_envs.scorpion import encoders as scorpion_encoders
    from shell_envs.scorpion import rules as scorpion_rules
    from shell_envs.scorpion import vector as scorpion_vector
    from shell_envs.what_the_shell import encoders, rules, vector

    compile_notice(
        encoders.step_planes,
        rules.random_games,
        vector.batch_step,
        scorpion_encoders.step_and_encode,
        scorpion_rules.random_playout,
        scorpion_vector.batch_step,
        what="the rules",
    )

    if game in ("all", "what-the-shell"):
        click.echo("## What the Shell\n")
        click.echo(format_table(run_speed(None, seconds, repeats), WHAT_THE_SHELL_RATIOS))
    if game in ("all", "scorpion"):
        click.echo("\n## Scorpion\n")
        rates = run_scorpion_speed(seconds, repeats)
        click.echo(format_table(rates, SCORPION_RATIOS))
        click.echo("\n" + playout_verdict(rates))
