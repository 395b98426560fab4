"""The ``shell-envs`` command line: ``bench``, ``play what-the-shell``, ``play scorpion``,
``speed`` and ``solve`` (click).

The ``play`` commands read standard input line by line, so they work at a keyboard and with
piped input alike; a bad or illegal entry gets a message and a new prompt, and the end of
the input ends the game politely.  Heavy modules are imported inside the commands, so
``shell-envs --help`` is instant.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import sys
from pathlib import Path

import click

from shell_envs import __version__
from shell_envs.bench import MAX_DEALS, MAX_GAMES, MAX_SEED, MAX_WORKERS

MAX_ITERATIONS = 1_000_000  # mcts iterations per move (the search tree grows with them)
SOLVER_MAX_NODES = 2_000_000  # the solver's DEFAULT_MAX_NODES, here so that --help stays instant

SCORPION_HELP = (
    "Moves: a card and a column, e.g. '4H 7' (ranks A 2-9 T J Q K, also 10; suits S H D C) "
    "moves 4H and everything above it onto column 7.  d = deal the reserve, u = undo, "
    "h = hint, ? = this help, q = quit."
)
WTS_HELP = (
    "Type a cell: a column letter a-i and a row 1-9, e.g. 'e5' (a1 is the top-left cell). "
    "? = this help, q = quit."
)
# the solver's notation ("4H 7") and the arrows people also write ("4H→7", "4H -> 7")
_MOVE = re.compile(r"^(10|[2-9tjqka])\s*([shdc♠♥♦♣])\s*(?:->|→|>|,|to|on)?\s*(\d+)$", re.I)
_DEAL = ("d", "deal", "deal reserve")
RULES_OPTION = click.option(
    "--rules",
    type=click.Choice(["classic", "relaxed"]),
    default="classic",
    show_default=True,
    help="Classic: build on the same suit; Relaxed: on any suit.",
)


def _finite(param: click.Parameter, value: float | None) -> float | None:
    """A number option's value unless it is nan (which every range check lets through)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number", param=param)
    return value


def _read(prompt: str) -> str | None:
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


def _redraw(text: str) -> None:
    """Clear the terminal (only when it is one) and draw ``text``."""
    click.clear()
    click.echo(text)


def _opponent(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Accept ``human`` or any What the Shell agent spec that loads, else a usage error."""
    if value == "human":
        return value
    from shell_envs.agents.spec import AgentSpecError, parse_spec

    try:
        parse_spec(value).make("what_the_shell", 0)
    except AgentSpecError as exc:
        raise click.BadParameter(str(exc), param=param) from None
    return value


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="shell-envs")
def main() -> None:
    """What the Shell and Scorpion: benchmarks, terminal play, speed and the Scorpion solver."""
    from shell_envs.core import background

    # each command compiles what it needs first, saying so, and then runs at full speed
    os.environ[background.ENV_VAR] = "0"


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


@main.command()
@click.option(
    "--game",
    type=click.Choice(["what-the-shell", "scorpion", "all"]),
    default="all",
    show_default=True,
    help="Which game to benchmark.",
)
@click.option(
    "--rules",
    type=click.Choice(["classic", "relaxed", "both"]),
    default="both",
    show_default=True,
    help="Scorpion's rule set(s).",
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
@click.option(
    "--set",
    "deal_set",
    type=click.Choice(["dev", "test"]),
    default="test",
    show_default=True,
    help="Scorpion deal set: dev (deals 0-4999, for tuning) or test (5000-9999, to report).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    default=None,
    help="Worker processes for the games [default: the CPUs available].",
)
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
    seed: int,
    out: Path,
    overwrite: bool,
    quick: bool,
    fail_fast: bool,
    no_progress: bool,
) -> None:
    """Benchmark agents on both games and write the results folder.

    What the Shell: each agent plays --games games against each anchor of the fixed rating
    scale (random, greedy, mcts at 100, 400 and 1600 iterations, learned, mcts-learned), seats
    swapped, and gets a Bradley-Terry rating on that scale with a 95% interval.  Scorpion: each
    agent plays the same deals of a fixed set (win rate with its Wilson interval, winnable deals
    won, the thoughtful ceiling beside).  Every game is recorded in games.jsonl (shell-envs replay).
    """
    from shell_envs.agents.spec import AgentSpecError
    from shell_envs.bench import report
    from shell_envs.bench.games import AgentError

    try:  # before anything else: a bad --out, or one holding results, fails at once
        report.check_writable(out, overwrite)
    except report.ResultsExist as exc:
        raise click.ClickException(
            f"{out} already holds results ({', '.join(exc.names)}): add --overwrite to replace "
            "them, or choose another --out."
        ) from None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--out'") from None
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
        )
    except BenchInterrupted as stop:
        written = ", ".join(str(p) for p in stop.paths.values())
        click.echo(
            "\nInterrupted: "
            + (f"the games that finished are in {written}." if written else "no game finished."),
            err=True,
        )
        sys.exit(130)
    except AgentSpecError as exc:
        raise click.UsageError(str(exc)) from None
    except AgentError as exc:
        click.echo(f"Error: {exc} (--fail-fast)", err=True)
        sys.exit(1)
    click.echo(result.markdown())
    click.echo("Wrote " + ", ".join(str(p) for p in paths.values()))


@main.command()
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
            answer = _read("Enter: next move, q: quit > ")
            if answer is None or answer.lower() == "q":
                return
    click.echo(replays.summary(record))


@main.group()
def play() -> None:
    """Play a game in the terminal."""


@play.command("what-the-shell")
@click.option(
    "--opponent",
    default="greedy",
    show_default=True,
    callback=_opponent,
    help="An agent spec (random, greedy, mcts, mcts:iterations=1600, ppo:PATH, module:callable,"
    " ...) or human (two people at one keyboard).",
)
@click.option(
    "--seat",
    type=click.Choice(["black", "white"]),
    default="black",
    show_default=True,
    help="Your colour against an agent.",
)
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True, help="Agent seed."
)
@click.option(
    "--iterations",
    type=click.IntRange(1, MAX_ITERATIONS),
    default=400,
    show_default=True,
    help="Search iterations per move of the mcts opponent.",
)
def play_what_the_shell(opponent: str, seat: str, seed: int, iterations: int) -> None:
    """Play What the Shell against an agent, or two people at one keyboard."""
    from shell_envs import what_the_shell_v0
    from shell_envs.agents import WhatTheShellView, choose_action, make_agent, parse_spec
    from shell_envs.core.jit import compile_notice
    from shell_envs.what_the_shell import encoders, policy_network, search
    from shell_envs.what_the_shell.render import render_ansi

    kind = opponent if opponent == "human" else parse_spec(opponent).target
    searches = {
        "greedy": [search.score_cells],
        "mcts": [search.init_root, search.run_search],
        "learned": [search.net_features, policy_network.forward],
        "mcts-learned": [search.init_guided_root, search.run_guided_search],
    }
    what = f"the rules and the {kind} agent" if kind in searches else "the rules"
    compile_notice(encoders.step_planes, *searches.get(kind, []), what=what)
    env = what_the_shell_v0.parallel_env()
    observations, _ = env.reset(seed=seed)
    humans = ["black", "white"] if opponent == "human" else [seat]
    agent = None
    if opponent != "human":
        kwargs = {"iterations": iterations} if opponent == "mcts" else {}
        agent = make_agent("what_the_shell", opponent, seed=seed, **kwargs)
    names = {"black": "black (X)", "white": "white (O)"}
    if opponent != "human":
        other = "white" if seat == "black" else "black"
        label = parse_spec(opponent).label
        names = {seat: f"you ({seat})", other: f"{label} ({other})"}
    last = "New game.  " + WTS_HELP
    while env.agents:
        _redraw(render_ansi(env.board, env.eggs, env.meta) + last)
        actions: dict[str, int] = {}
        for who in humans:
            cell = _read_cell(env, who)
            if cell is None:
                click.echo("Game abandoned.")
                return
            actions[who] = cell
        for who in ("black", "white"):
            if who not in actions and agent is not None:
                actions[who] = choose_action(
                    agent,
                    observations[who]["observation"],
                    observations[who]["action_mask"],
                    WhatTheShellView.from_env(env, who),
                )
        before = env.board.copy()
        observations, _, _, _, infos = env.step(actions)
        last = _round_text(before, env.board, actions, infos["black"], names)
    _redraw(render_ansi(env.board, env.eggs, env.meta) + last + "\n" + _wts_result(env))


def _read_cell(env, who: str) -> int | None:
    """Ask ``who`` for a cell until one is legal; None when the player quits or input ends."""
    from shell_envs.what_the_shell.position import cell_index

    symbol = "X" if who == "black" else "O"
    while True:
        text = _read(f"{who} ({symbol}), your cell: ")
        if text is None or text.lower() in ("q", "quit", "exit"):
            return None
        if not text:  # an empty line (Enter by itself): just ask again
            continue
        if text in ("?", "h", "help"):
            click.echo(WTS_HELP)
            continue
        try:
            cell = cell_index(text)
        except ValueError as exc:
            click.echo(f"  {exc}")
            continue
        reason = env.explain(cell)
        if reason is None:
            return cell
        click.echo(f"  Illegal: {reason}; choose an empty cell.")


def _round_text(before, after, actions: dict[str, int], info, names: dict[str, str]) -> str:
    """One round in words: the two cells, then every piece captured, vanished or hatched."""
    from shell_envs.what_the_shell.position import cell_name, round_changes

    text = (
        f"Round {info['round']}: {names['black']} played {cell_name(actions['black'])}, "
        f"{names['white']} played {cell_name(actions['white'])}."
    )
    if info["collision"]:
        return text + "  Same cell: an egg is laid there."
    changed = round_changes(before, after, actions["black"], actions["white"])
    parts = []
    for colour in ("black", "white"):
        ours = "captures" if colour == "black" else "opponent_captures"
        if info[ours]:
            pieces = "enclosure" if info[ours] == 1 else "enclosures"
            parts.append(f"{colour} captured {info[ours]} {pieces} of two")
    for key, words in (
        ("white_captured", "white turtles removed"),
        ("black_captured", "black turtles removed"),
        ("eggs_removed", "eggs removed (captured or vanished)"),
        ("hatched_black", "eggs hatched black"),
        ("hatched_white", "eggs hatched white"),
    ):
        if changed[key]:
            parts.append(f"{words}: {' '.join(changed[key])}")
    said = "; ".join(parts)
    return text + (f"  {said[:1].upper()}{said[1:]}." if parts else "")


def _wts_result(env) -> str:
    """How the game ended, with the cells of the winning line(s)."""
    from shell_envs.what_the_shell import rules
    from shell_envs.what_the_shell.position import cell_name, winning_cells

    outcome = int(env.meta[rules.OUTCOME])
    if outcome in (rules.BLACK_WINS, rules.WHITE_WINS):
        player = rules.BLACK if outcome == rules.BLACK_WINS else rules.WHITE
        cells = " ".join(cell_name(c) for c in winning_cells(env.board, player))
        return f"{'Black' if player == rules.BLACK else 'White'} wins!  Winning line: {cells}."
    if outcome == rules.DRAW:
        return "Draw: the board is full."
    return f"Stopped after {int(env.meta[rules.ROUNDS])} rounds: a draw."


def _parse_move(text: str) -> tuple[int | None, str | None]:
    """``"4H 7"`` → ``(action, None)``; anything unreadable → ``(None, message)``."""
    from shell_envs.scorpion.cards import parse_card

    match = _MOVE.match(text.strip())
    if match is None:
        return None, f"Could not read {text!r}: type a card and a column, like '4H 7' (? = help)."
    card = parse_card(match.group(1) + match.group(2))
    digits = match.group(3)
    column = int(digits) if len(digits) <= 3 else None  # never int() a 5,000-digit number
    if column is None or not 1 <= column <= 7:
        shown = digits if len(digits) <= 12 else f"{digits[:6]}… ({len(digits)} digits)"
        return None, f"There is no column {shown}: columns are numbered 1 to 7."
    return card * 7 + column - 1, None


def _describe(action: int) -> str:
    """A Scorpion action in words: ``"4H onto column 7"`` or ``"the reserve dealt"``."""
    from shell_envs.scorpion import rules
    from shell_envs.scorpion.cards import card_code

    if action == rules.RESERVE_ACTION:
        return "the reserve dealt"
    card, dest = divmod(action, 7)
    return f"{card_code(card)} onto column {dest + 1}"


@play.command("scorpion")
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True, help="Deal number."
)
@RULES_OPTION
@click.option(
    "--lang",
    type=click.Choice(["en", "hu"]),
    default="en",
    show_default=True,
    help="Language of the rules' messages (hu: the original Hungarian).",
)
def play_scorpion(seed: int, rules: str, lang: str) -> None:
    """Play Scorpion: move cards, deal the reserve, undo, ask for hints."""
    import gymnasium as gym

    import shell_envs  # noqa: F401  (registers the environments)
    from shell_envs.agents import make_agent
    from shell_envs.agents.scorpion import ScorpionView
    from shell_envs.core.jit import compile_notice
    from shell_envs.scorpion import encoders, search
    from shell_envs.scorpion import rules as engine
    from shell_envs.scorpion.messages import action_text
    from shell_envs.scorpion.render import render_ansi

    compile_notice(encoders.step_tableau, what="the rules")
    env = gym.make(
        "shell_envs/Scorpion-v0", rules=rules, lang=lang, allow_undo=True, max_moves=None
    )
    _, info = env.reset(seed=seed)
    game = env.unwrapped
    hinter = make_agent("scorpion", "lookahead", seed=seed, rules=rules)
    last = SCORPION_HELP
    while True:
        state = game.get_state()
        status = ""
        if state.won:
            status = f"\nYou won!  Final score {state.score} in {state.moves} moves."
        elif not info["action_mask"].any():
            status = "\nNo legal move is left: the game is lost (q = quit)."
        elif not info["action_mask"][: engine.N_ACTIONS].any():
            status = "\nNo card move is left: undo (u) or quit (q)."
        _redraw(f"Deal #{seed} · " + render_ansi(state) + last + status)
        if state.won:
            return
        text = _read("Your move: ")
        if text is None or text.lower() in ("q", "quit", "exit"):
            click.echo(f"Game over.  Score {state.score}.")
            return
        command = text.lower()
        if not command:  # an empty line: the same position and prompt again
            continue
        if command in ("?", "help"):
            last = SCORPION_HELP
            continue
        if command == "h":
            mask = info["action_mask"][: engine.N_ACTIONS]
            if not mask.any():
                last = "Hint: no legal move is left; undo (u) or quit (q)."
                continue
            compile_notice(search.successors, search.rollout_values, what="the hint search")
            hinter.reset(seed + state.moves)
            hint = hinter.act_with_state(ScorpionView.from_state(state), mask)
            last = f"Hint: {_describe(hint)} (type {action_text(hint)!r})."
            continue
        if command in _DEAL:
            action: int | None = engine.RESERVE_ACTION
        elif command == "u":
            action = engine.UNDO_ACTION
        else:
            action, problem = _parse_move(text)
            if action is None:
                last = problem or SCORPION_HELP
                continue
        reason = game.explain(action)
        if reason is not None:
            last = f"Refused: {reason}."
            continue
        _, points, _, _, info = env.step(action)
        if action == engine.UNDO_ACTION:
            last = _undone(-int(points))  # an undo's reward is minus the points taken back
        else:
            last = f"Played: {_describe(action)}, {int(points):+d} points."


def _undone(points: int) -> str:
    """The message after an undo that took back ``points`` (the score drops by as many)."""
    return f"Undone ({-points:+d} points)." if points else "Undone."


@main.command()
@click.option(
    "--seconds",
    type=click.FloatRange(0, 3600, min_open=True),
    callback=lambda ctx, param, value: _finite(param, value),
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
    type=click.Choice(["all", "what-the-shell", "scorpion"]),
    default="all",
    show_default=True,
    help="Which game's workloads to run.",
)
def speed(seconds: float, repeats: int, game: str) -> None:
    """Run the speed benchmarks: environments and engines beside their peers (medians)."""
    from shell_envs.bench import scorpion_speed
    from shell_envs.bench.speed import RATIOS, format_table, run_speed
    from shell_envs.core.jit import compile_notice
    from shell_envs.scorpion import encoders as scorpion_encoders
    from shell_envs.scorpion import rules as scorpion_rules
    from shell_envs.scorpion import vector as scorpion_vector
    from shell_envs.what_the_shell import encoders, rules, vector

    compile_notice(
        encoders.step_planes,
        rules.random_games,
        vector.batch_step,
        scorpion_encoders.step_tableau,
        scorpion_rules.random_playout,
        scorpion_vector.batch_step,
        what="the rules",
    )

    if game in ("all", "what-the-shell"):
        click.echo("## What the Shell\n")
        click.echo(format_table(run_speed(None, seconds, repeats), RATIOS))
    if game in ("all", "scorpion"):
        click.echo("\n## Scorpion\n")
        rates = scorpion_speed.run_scorpion_speed(seconds, repeats)
        click.echo(format_table(rates, scorpion_speed.RATIOS))
        click.echo("\n" + scorpion_speed.playout_verdict(rates))


@main.command()
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
    callback=lambda ctx, param, value: _finite(param, value),
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

    compile_notice(solver.search_run, solver.probe, what="the solver")
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


if __name__ == "__main__":
    main()
