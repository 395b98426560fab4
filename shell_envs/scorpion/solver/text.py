"""What ``shell-envs solve`` prints, and the files it reads: a deal or a position.

The command line's side of the solver: [`solve_command`][] runs
[`solve`][shell_envs.scorpion.solver.api.solve] and words its verdict, and ``--check``
re-checks it with the plain reference engine (`shell_envs.scorpion.reference`).
"""

from __future__ import annotations

import json
from pathlib import Path

from shell_envs.scorpion import reference
from shell_envs.scorpion.position import check_deal
from shell_envs.scorpion.solver.api import DEFAULT_MAX_NODES, LOST, WON, SolveResult, solve
from shell_envs.scorpion.state import ScorpionState


def read_deal_file(path: str | Path) -> list[str]:
    """52 card codes in deal order from a text file, separated by whitespace or commas."""
    text = Path(path).read_text(encoding="utf-8")
    cards = text.replace(",", " ").split()
    return check_deal_codes(cards)


def check_deal_codes(cards: list[str]) -> list[str]:
    """Validate 52 card codes (ValueError names the problem) and return them unchanged."""
    check_deal(cards)
    return cards


def solve_command(
    seed: int | None,
    deal_file: str | None,
    rules: str = "classic",
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float | None = None,
    position_file: str | None = None,
    check_nodes: int | None = None,
) -> str:
    """The text ``shell-envs solve`` prints: verdict, nodes, time and the numbered solution.

    With ``check_nodes``, the verdict is re-checked apart from the solver: a won line is
    replayed by the plain reference rules, and a loss is searched again by the reference
    search (no pruning) on up to ``check_nodes`` positions.
    """
    one = sum(x is not None for x in (seed, deal_file, position_file)) == 1
    if one and seed is not None:
        state, source = ScorpionState.from_number(seed, rules), f"deal {seed}"
    elif one and deal_file is not None:
        state = ScorpionState.from_deal(read_deal_file(deal_file), rules)
        source = f"deal file {deal_file}"
    elif one and position_file is not None:
        state = ScorpionState.from_position(read_position_file(position_file), rules)
        source = f"position file {position_file}"
    else:
        raise ValueError("give exactly one of --seed N, --deal FILE or --position FILE")
    result = solve(state, rules=rules, max_nodes=max_nodes, max_seconds=max_seconds)
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    lines = [
        f"Scorpion ({rules}), {source}: {result.verdict}",
        f"nodes: {result.nodes:,}  time: {result.seconds:.2f} s  ({rate:,.0f} nodes/s)",
    ]
    if result.verdict == WON:
        lines.append(
            f"solution ({len(result.moves)} moves, typed as in `shell-envs play scorpion`: "
            "'4H 7' = 4H onto column 7, d = deal the reserve):"
        )
        lines += [f"{i:4d}. {text}" for i, text in enumerate(result.readable, 1)]
    elif result.reason:
        lines.append(f"lost before any search: {result.reason}")
    elif result.verdict == LOST:
        lines.append("no sequence of moves wins this position (search space exhausted)")
    else:
        lines.append("budget exhausted before a verdict; raise --max-nodes or --max-seconds")
    if check_nodes is not None:
        lines.append(_check_text(state, result, check_nodes))
    return "\n".join(lines)


def _check_text(state: ScorpionState, result: SolveResult, check_nodes: int) -> str:
    """The line ``--check`` adds: what the plain reference found for this verdict."""
    start = reference.from_position(state.position())
    if result.verdict == WON:
        if reference.replay(start, state.rules, result.moves):
            return "check: the reference rules replay the solution to a win"
        return "check FAILED: the reference rules do not replay the solution to a win"
    found = reference.search(start, state.rules, check_nodes)
    seen = f"{found.nodes:,} positions"
    if found.verdict == LOST:
        agree = "confirms" if result.verdict == LOST else "finds"
        return f"check: the reference search (no pruning) {agree} the loss after {seen}"
    if found.verdict == WON:
        return (
            f"check: the reference search finds a win of {len(found.line)} moves after {seen}"
            + (" — the solver's loss is WRONG" if result.verdict == LOST else "")
        )
    return f"check: the reference search stopped after {seen} without a verdict (--check-nodes)"


def read_position_file(path: str | Path) -> dict:
    """A ``position()``-style dict from a JSON file (ValueError if it is not a JSON object)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(
            f"{path} must hold one JSON object (a position), got {type(data).__name__}"
        )
    return data
