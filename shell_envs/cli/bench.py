"""``shell-envs bench`` and ``shell-envs replay``: benchmark agents, step through their games."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from shell_envs.bench import MAX_DEALS, MAX_GAMES, MAX_SEED
from shell_envs.cli.common import (
    DEAL_SET_OPTION,
    GAME_NAMES,
    RAY_OPTION,
    SCORPION,
    WORKERS_OPTION,
    read_line,
)

__all__ = ["bench", "replay"]


def _agent_option(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple:
    """Parse ``--agent [NAME=]SPEC`` values, each a usage error naming the spec when bad."""
    from shell_envs.agents.spec import AgentSpecError, parse_spec

    try:
        return tuple(parse_spec(v) for v in values)
    except AgentSpecError as exc:
        raise click.BadParameter(str(exc), param=param) from None


def _agents_option(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple:
    """Parse ``--agents a,b,...`` (agent specs separated by commas outside settings)."""
    if value is None:
        return ()
    return _agent_option(ctx, param, tuple(_split_agents(value)))


def _split_agents(value: str) -> list[str]:
    """``random,greedy,mcts:iterations=100,candidates=8`` split at the commas between agents:
    a piece with ``=`` but no ``:`` after a built-in's settings belongs to those settings."""
    pieces: list[str] = []
    for piece in value.split(","):
        piece = piece.strip()
        if pieces and "=" in piece and ":" not in piece and ":" in pieces[-1]:
            pieces[-1] += "," + piece
        elif piece:
            pieces.append(piece)
    return pieces


@click.command()
@click.option(
    "--game",
    type=click.Choice([*GAME_NAMES, "all"]),
    default="all",
    show_default=True,
    help="Which game to benchmark.",
)
@click.option(
    "--rules",
    type=click.Choice([*SCORPION.rule_sets, "both", "all"]),
    default="both",
    show_default=True,
    help="Scorpion's rule set(s): one of them, both (classic and relaxed) or all three.",
)
@click.option(
    "--agents",
    "agent_list",
    default=None,
    callback=_agents_option,
    help="Agent specs separated by commas, e.g. random,greedy,mcts:iterations=1600 "
    "[default: random,greedy,mcts,lookahead without --agent, none with it].",
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    callback=_agent_option,
    metavar="[NAME=]SPEC",
    help="An agent to benchmark (repeatable): a built-in name with settings, module:callable, "
    "file.py:callable, ppo:PATH or rllib:CHECKPOINT.",
)
@click.option(
    "--games",
    type=click.IntRange(1, MAX_GAMES),
    default=None,
    help="What the Shell games per agent and anchor [default: 100; --quick 10].",
)
@click.option(
    "--deals",
    type=click.IntRange(1, MAX_DEALS),
    default=None,
    help="Scorpion deals per agent and rule set [default: 500; --quick 50].",
)
@DEAL_SET_OPTION
@WORKERS_OPTION
@RAY_OPTION
@click.option(
    "--seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True, help="Bench seed."
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Folder for results.json, results.md, results.png and games.jsonl; one that holds "
    "results already is refused (see --overwrite).",
)
@click.option(
    "--overwrite", is_flag=True, help="Replace the results already in --out instead of stopping."
)
@click.option("--quick", is_flag=True, help="A smaller plan that finishes in about a minute.")
@click.option(
    "--fail-fast", is_flag=True, help="Stop at the first agent error instead of going on."
)
@click.option("--no-progress", is_flag=True, help="Hide the progress bars.")
def bench(
    game: str,
    rules: str,
    agent_list: tuple,
    agents: tuple,
    games: int | None,
    deals: int | None,
    deal_set: str,
    workers: int | None,
    ray_address: str | None,
    seed: int,
    out: Path,
    overwrite: bool,
    quick: bool,
    fail_fast: bool,
    no_progress: bool,
) -> None:
    """Benchmark agents on both games and write the results folder.

    What the Shell: each agent plays --games games against each anchor of the fixed rating
    scale (random, greedy, mcts at 100, 400 and 1600 iterations, learned, mcts-learned), in
    seat-swapped pairs from the opening book, and gets a Bradley-Terry rating on that scale
    with a 95% interval.  Scorpion: each
    agent plays the same deals of a fixed set (win rate with its Wilson interval, winnable deals
    won, the thoughtful ceiling beside).  Every game is recorded in games.jsonl (shell-envs replay).
    """
    from shell_envs.agents.spec import AgentSpecError
    from shell_envs.bench import report
    from shell_envs.bench.cluster import ClusterError
    from shell_envs.bench.games import AgentError

    with contextlib.ExitStack() as cleanup:
        try:  # before anything else: a bad --out, or one holding results, fails at once
            cleanup.enter_context(report.results_folder(out, overwrite))
        except report.ResultsExist as exc:
            raise click.ClickException(
                f"{out} already holds results ({', '.join(exc.names)}): add --overwrite to "
                "replace them, or choose another --out."
            ) from None
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--out'") from None
        # a bench refused or stopped from here on leaves no folder it made (results_folder)
        from shell_envs.bench.runner import BenchInterrupted, run_bench

        chosen = list(agent_list) + list(agents)
        try:
            result, paths = run_bench(
                out=out,
                agents=chosen or None,
                game=game,
                rules=rules,
                games_per_anchor=games,
                deals=deals,
                deal_set=deal_set,
                workers=workers,
                seed=seed,
                quick=quick,
                fail_fast=fail_fast,
                progress=not no_progress,
                overwrite=overwrite,
                ray=ray_address,
            )
        except BenchInterrupted as stop:
            written = ", ".join(str(p) for p in stop.paths.values())
            click.echo(
                "\nInterrupted: "
                + (
                    f"the games that finished are in {written}." if written else "no game finished."
                ),
                err=True,
            )
            sys.exit(130)
        except AgentSpecError as exc:
            raise click.UsageError(str(exc)) from None
        except ClusterError as exc:
            raise click.ClickException(f"--ray: {exc}") from None
        except AgentError as exc:
            click.echo(f"Error: {exc} (--fail-fast)", err=True)
            sys.exit(1)
    click.echo(result.markdown())
    click.echo("Wrote " + ", ".join(str(p) for p in paths.values()))
    failed = result.failed_agents()
    for label, failure in failed.items():
        click.echo(f"Error: agent {label!r} {failure}; see {paths['markdown']}", err=True)
    if failed:
        sys.exit(1)


@click.command()
@click.argument("records", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--game",
    "index",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Which record of the file (its 'index').",
)
@click.option(
    "--gif",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write an animation of the game to this GIF file instead of stepping through it.",
)
@click.option(
    "--fps", type=click.FloatRange(0.1, 60), default=2.0, show_default=True, help="GIF speed."
)
@click.option(
    "--list",
    "list_games",
    is_flag=True,
    help="List the games of the file (index, game, agents, result) and stop.",
)
def replay(records: Path, index: int, gif: Path | None, fps: float, list_games: bool) -> None:
    """Step through a recorded bench game (Enter: next move, q: quit), or write it as a GIF.

    RECORDS is a games.jsonl written by shell-envs bench; --list shows which game has which
    index.  The replay checks that it ends in the recorded final position.
    """
    from shell_envs.bench import replay as replays

    if list_games:
        try:
            click.echo(replays.listing(records))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'RECORDS'") from None
        return
    try:
        record = replays.read_record(records, index)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--game'") from None
    if gif is not None:
        frames = replays.write_gif(record, gif, fps)
        click.echo(f"Wrote {gif} ({frames} frames)")
        return
    interactive = sys.stdin.isatty()
    steps = replays.text_steps(record)
    for n, (caption, board) in enumerate(steps):
        click.echo(f"\n{caption}\n{board}")
        if interactive and n < len(steps) - 1:
            answer = read_line("Enter: next move, q: quit > ")
            if answer is None or answer.lower() == "q":
                return
    click.echo(replays.summary(record))
