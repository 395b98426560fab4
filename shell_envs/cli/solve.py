"""``shell-envs solve``: the exact Scorpion solver on a deal or a position."""

from __future__ import annotations

import importlib.util

import click

from shell_envs.cli.common import RULES_OPTION, finite

__all__ = ["SOLVER_MAX_NODES", "solve"]

SOLVER_MAX_NODES = 2_000_000  # the solver's DEFAULT_MAX_NODES, here so that --help stays instant


@click.command()
@click.option("--seed", type=click.IntRange(0), default=None, help="Deal number to solve.")
@click.option(
    "--deal",
    "deal_file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="A file with 52 card codes in deal order.",
)
@click.option(
    "--position",
    "position_file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="A JSON file holding a position, as the env's position() returns it.",
)
@RULES_OPTION
@click.option(
    "--max-nodes",
    type=click.IntRange(1, 10**12),
    default=SOLVER_MAX_NODES,
    show_default=True,
    help="Search budget: positions the solver may expand before it answers unknown.",
)
@click.option(
    "--max-seconds",
    type=click.FloatRange(0, min_open=True),
    callback=lambda ctx, param, value: finite(param, value),
    default=None,
    help="Time budget in seconds (default: none; the node budget alone decides).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Re-check the verdict with the plain reference rules and search (no pruning).",
)
@click.option(
    "--check-nodes",
    type=click.IntRange(1),
    default=1_000_000,
    show_default=True,
    help="Positions the reference search may visit for --check.",
)
def solve(
    seed: int | None,
    deal_file: str | None,
    position_file: str | None,
    rules: str,
    max_nodes: int,
    max_seconds: float | None,
    check: bool,
    check_nodes: int,
) -> None:
    """Solve a Scorpion deal or position exactly, seeing every card (the full-information game).

    Give exactly one of --seed, --deal or --position.  Prints won (with the moves, in the
    form `shell-envs play scorpion` takes), lost (a proof) or unknown (budget spent).
    """
    if importlib.util.find_spec("shell_envs.scorpion.solver") is None:
        raise click.ClickException(
            "the Scorpion solver (shell_envs.scorpion.solver) is not part of this installation"
        )
    from shell_envs.core.jit import compile_notice
    from shell_envs.scorpion import solver
    from shell_envs.scorpion.solver import kernel

    compile_notice(kernel.search_run, kernel.probe, what="the solver")
    try:
        text = solver.solve_command(
            seed,
            deal_file,
            rules,
            max_nodes,
            max_seconds,
            position_file=position_file,
            check_nodes=check_nodes if check else None,
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(text)
