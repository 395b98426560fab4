"""``shell-envs match A B``: two agents head to head, with an optional sequential test."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import click

from shell_envs.bench import MAX_SEED
from shell_envs.cli.common import (
    DEAL_SET_OPTION,
    GAME_NAMES,
    RAY_OPTION,
    RULES_OPTION,
    WHAT_THE_SHELL,
    WORKERS_OPTION,
)

__all__ = ["match"]


@click.command()
@click.argument("a")
@click.argument("b")
@click.option(
    "--game",
    type=click.Choice(GAME_NAMES),
    default=WHAT_THE_SHELL.cli_name,
    show_default=True,
    help="Which game.",
)
@click.option(
    "--games",
    type=int,
    default=None,
    help="Games of a fixed-length match, an even number [default: 200 What the Shell (100 "
    "pairs), 1000 Scorpion (500 deals)].",
)
@click.option(
    "--sprt",
    type=(float, float),
    default=None,
    metavar="ELO0 ELO1",
    help="Stop when the sequential test decides between A − B = ELO0 and = ELO1 (Elo; "
    "Scorpion: win-rate points, e.g. 0 5).",
)
@click.option(
    "--alpha",
    type=float,
    default=0.05,
    show_default=True,
    help="The SPRT's false-positive rate (above 0, at most 0.5).",
)
@click.option(
    "--beta",
    type=float,
    default=0.05,
    show_default=True,
    help="The SPRT's false-negative rate (above 0, at most 0.5).",
)
@click.option(
    "--max-games",
    type=int,
    default=None,
    help="Cap of an --sprt match, an even number [default: 10000].",
)
@click.option(
    "--openings",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="What the Shell opening book [default: the one shipped, v1].",
)
@RULES_OPTION
@DEAL_SET_OPTION
@click.option(
    "--seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True, help="Match seed."
)
@WORKERS_OPTION
@RAY_OPTION
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for match.json, match.md and games.jsonl [default: results/match-A-vs-B]; "
    "one that holds a match is refused (see --resume, --overwrite).",
)
@click.option("--resume", is_flag=True, help="Go on with the interrupted match in --out.")
@click.option("--overwrite", is_flag=True, help="Replace the match in --out with a new one.")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
def match(
    a: str,
    b: str,
    game: str,
    games: int | None,
    sprt: tuple[float, float] | None,
    alpha: float,
    beta: float,
    max_games: int | None,
    openings: Path | None,
    rules: str,
    deal_set: str,
    seed: int,
    workers: int | None,
    ray_address: str | None,
    out: Path | None,
    resume: bool,
    overwrite: bool,
    no_progress: bool,
) -> None:
    """Play agent A against agent B (agent specs, as bench --agent takes them).

    What the Shell: pairs of games from one opening of the opening book, seats swapped;
    W/D/L, the pairs' pentanomial counts, the Elo difference A − B with its 95% interval,
    the likelihood of superiority and the number of distinct games.  Scorpion: both agents
    on the same deals; the win-rate and mean-score differences with paired 95% intervals.
    Every game is recorded in games.jsonl (shell-envs replay); --resume goes on with an
    interrupted match and ends as an uninterrupted one would.
    """
    from shell_envs.agents.spec import AgentSpecError
    from shell_envs.bench import match as matches
    from shell_envs.bench.cluster import ClusterError
    from shell_envs.bench.report import GAMES_NAME

    # every refusal is one line (a ClickException), before any folder is made
    if resume and overwrite:
        raise click.ClickException("--resume and --overwrite exclude each other.")
    if sprt is None and max_games is not None:
        raise click.ClickException("--max-games caps an --sprt match; a fixed match plays --games.")
    if sprt is not None and games is not None:
        raise click.ClickException(
            "--games fixes a match's length; an --sprt match runs until it decides, capped by "
            "--max-games."
        )
    try:
        folder = out if out is not None else matches.default_out(a, b)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", matches.MatchWarning)
            try:
                result = matches.run_match(
                    a, b, game=game, out=folder, games=games, seed=seed, sprt=sprt,
                    alpha=alpha, beta=beta, max_games=max_games, openings_path=openings,
                    rules=rules, deal_set=deal_set,
                    workers=workers, resume=resume, overwrite=overwrite,
                    progress=not no_progress, ray=ray_address,
                )  # fmt: skip
            finally:
                for warning in caught:
                    click.echo(f"Warning: {warning.message}", err=True)
    except matches.MatchExists as exc:
        raise click.ClickException(
            f"{exc.folder} already holds a match ({', '.join(exc.names)}): add --resume to go "
            "on with it or --overwrite to replace it, or choose another --out."
        ) from None
    except matches.MatchInterrupted as stop:
        done = stop.result.data["run"]["games_finished"]
        click.echo(
            f"\nInterrupted: {done} finished games are in {folder / GAMES_NAME}; "
            "the same command with --resume goes on.",
            err=True,
        )
        sys.exit(130)
    except ClusterError as exc:
        raise click.ClickException(f"--ray: {exc}") from None
    except (AgentSpecError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(result.markdown())
    click.echo("Wrote " + ", ".join(str(p) for p in result.paths.values()))
