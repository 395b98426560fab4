"""``shell-envs play``: What the Shell and Scorpion in the terminal.

Both read standard input line by line, so they work at a keyboard and with piped input
alike; a bad or illegal entry gets a message and a new prompt, and the end of the input
ends the game politely.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import click

from shell_envs.cli.common import RULES_OPTION, SCORPION, WHAT_THE_SHELL, read_line, redraw

if TYPE_CHECKING:  # the games load when a game starts
    import numpy as np

    from shell_envs.scorpion.env import ScorpionEnv
    from shell_envs.what_the_shell.env import WhatTheShellEnv

__all__ = [
    "MAX_ITERATIONS",
    "SCORPION_HELP",
    "WTS_HELP",
    "play",
    "play_scorpion",
    "play_what_the_shell",
    "read_move",
]

MAX_ITERATIONS = 1_000_000  # mcts iterations per move (the search tree grows with them)
SCORPION_HELP = (
    "Moves: a card and a column, e.g. '4H 7' (ranks A 2-9 T J Q K, also 10; suits S H D C) "
    "moves 4H and everything above it onto column 7.  d = deal the reserve, u = undo, "
    "h = hint, ? = this help, q = quit."
)
WTS_HELP = (
    "Type a cell: a column letter a-i and a row 1-9, e.g. 'e5' (a1 is the top-left cell). "
    "? = this help, q = quit."
)


def _opponent(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Accept ``human`` or any What the Shell agent spec that loads, else a usage error."""
    if value == "human":
        return value
    from shell_envs.agents.spec import AgentSpecError, parse_spec

    try:
        parse_spec(value).make(WHAT_THE_SHELL.name, 0)
    except AgentSpecError as exc:
        raise click.BadParameter(str(exc), param=param) from None
    return value


@click.group()
def play() -> None:
    """Play a game in the terminal."""


@play.command(WHAT_THE_SHELL.cli_name)
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
    searches: dict[str, list[Any]] = {
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
        agent = make_agent(WHAT_THE_SHELL.name, opponent, seed=seed, **kwargs)
    names = {"black": "black (X)", "white": "white (O)"}
    if opponent != "human":
        other = "white" if seat == "black" else "black"
        label = parse_spec(opponent).label
        names = {seat: f"you ({seat})", other: f"{label} ({other})"}
    last = "New game.  " + WTS_HELP
    while env.agents:
        redraw(render_ansi(env.board, env.eggs, env.meta) + last)
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
    redraw(render_ansi(env.board, env.eggs, env.meta) + last + "\n" + _wts_result(env))


def _read_cell(env: WhatTheShellEnv, who: str) -> int | None:
    """Ask ``who`` for a cell until one is legal; None when the player quits or input ends."""
    from shell_envs.what_the_shell.position import cell_index

    symbol = "X" if who == "black" else "O"
    while True:
        text = read_line(f"{who} ({symbol}), your cell: ")
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


def _round_text(
    before: np.ndarray,
    after: np.ndarray,
    actions: dict[str, int],
    info: dict[str, Any],
    names: dict[str, str],
) -> str:
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


def _wts_result(env: WhatTheShellEnv) -> str:
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


def read_move(text: str) -> tuple[int | None, str | None]:
    """``"4H 7"``, ``"d"`` or ``"u"`` → ``(action, None)``; anything else → ``(None, message)``:
    `play scorpion`'s reader of a typed move, which answers a bad one with a message."""
    from shell_envs.scorpion.notation import NotAMove, parse_move

    try:
        return parse_move(text, help_note=" (? = help)"), None
    except NotAMove as exc:
        return None, str(exc)


@play.command(SCORPION.cli_name)
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

    from shell_envs.agents import make_agent
    from shell_envs.core.jit import compile_notice
    from shell_envs.scorpion import encoders, search
    from shell_envs.scorpion.actions import N_ACTIONS, UNDO_ACTION
    from shell_envs.scorpion.messages import action_text
    from shell_envs.scorpion.notation import describe_action
    from shell_envs.scorpion.render import render_ansi
    from shell_envs.scorpion.view import ScorpionView

    compile_notice(encoders.step_and_encode, what="the rules")
    env = gym.make(
        "shell_envs/Scorpion-v0", rules=rules, lang=lang, allow_undo=True, max_moves=None
    )
    _, info = env.reset(seed=seed)
    game = cast("ScorpionEnv", env.unwrapped)
    hinter = make_agent(SCORPION.name, "lookahead", seed=seed, rules=rules)
    last = SCORPION_HELP
    while True:
        state = game.get_state()
        status = ""
        if state.won:
            status = f"\nYou won!  Final score {state.score} in {state.moves} moves."
        elif not info["action_mask"].any():
            status = "\nNo legal move is left: the game is lost (q = quit)."
        elif not info["action_mask"][:N_ACTIONS].any():
            status = "\nNo card move is left: undo (u) or quit (q)."
        redraw(f"Deal #{seed} · " + render_ansi(state) + last + status)
        if state.won:
            return
        text = read_line("Your move: ")
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
            mask = info["action_mask"][:N_ACTIONS]
            if not mask.any():
                last = "Hint: no legal move is left; undo (u) or quit (q)."
                continue
            compile_notice(search.successors, search.rollout_values, what="the hint search")
            hinter.reset(seed + state.moves)
            hint = hinter.act_with_state(ScorpionView.from_state(state), mask)
            last = f"Hint: {describe_action(hint)} (type {action_text(hint)!r})."
            continue
        action, problem = read_move(text)
        if action is None:
            last = problem or SCORPION_HELP
            continue
        reason = game.explain(action)
        if reason is not None:
            last = f"Refused: {reason}."
            continue
        _, points, _, _, info = env.step(action)
        if action == UNDO_ACTION:
            last = _undone(-int(float(points)))  # an undo's reward is minus the points taken back
        else:
            last = f"Played: {describe_action(action)}, {int(float(points)):+d} points."


def _undone(points: int) -> str:
    """The message after an undo that took back ``points`` (the score drops by as many)."""
    return f"Undone ({-points:+d} points)." if points else "Undone."
