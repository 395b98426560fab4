"""Fit the anchors of What the Shell's fixed rating scale from a round robin, and re-check them.

A round robin of the anchor agents (`shell_envs.bench.scale.ANCHOR_SPECS`), in pairs of
games from one opening of the opening book (`shell_envs.bench.openings`), seats swapped,
gives Bradley–Terry ratings with ``random`` = 0 and percentile-bootstrap intervals (`fit`):
the shipped table.  `consistent` compares two fits, so the table can be
reproduced on demand (``benchmarks/wts_anchors.py --check``).
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

from shell_envs._version import __version__
from shell_envs.agents.spec import parse_spec
from shell_envs.bench import games, openings, scale, tournament
from shell_envs.bench.runner import MAX_ROUNDS, Task, play_tasks, warm_up


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the round robin."""


def round_robin(
    specs: list[str],
    games_per_pair: int,
    seed: int,
    workers: int,
    progress: bool = True,
    book: openings.OpeningBook | None = None,
) -> tuple[list[tournament.GameResult], float]:
    """Play the round robin, every pair's games in seat-swapped pairs from the openings of
    ``book`` (``None``: from the empty board); the results and the wall seconds it took."""
    agents = [parse_spec(s) for s in specs]
    matches = tournament.schedule(len(agents), games_per_pair, seed, book)
    plan = [
        Task(
            "what_the_shell",
            games.play_what_the_shell,
            (
                agents[m.black],
                agents[m.white],
                m.seed,
                MAX_ROUNDS,
                True,
                k,
                tournament.start_position(book, m.opening),
            ),
        )
        for k, m in enumerate(matches)
    ]
    warm_up(["what_the_shell"], agents=agents, notice=progress)
    start = time.perf_counter()
    records, _, interrupted = play_tasks(plan, workers, progress, seed)
    if interrupted:
        raise Interrupted("the round robin was interrupted")
    results = [
        tournament.GameResult(m.black, m.white, records[k]["outcome"], records[k]["rounds"])
        for k, m in enumerate(matches)
    ]
    return results, time.perf_counter() - start


def fit(
    specs: list[str],
    results: list[tournament.GameResult],
    games_per_pair: int,
    seed: int,
    zero: str = "random",
    at: float = 0.0,
    book: openings.OpeningBook | None = None,
) -> scale.AnchorTable:
    """The anchor table of a round robin: agent ``zero`` rated ``at`` (the scale: ``random``
    at 0), the others relative to it, with 95% bootstrap intervals; ``book`` is the opening
    book its games started from."""
    labels = [parse_spec(s).label for s in specs]
    ratings = tournament.bradley_terry(len(specs), results, labels.index(zero), seed=seed)
    per_agent = games_per_pair * (len(specs) - 1)
    anchors = tuple(
        scale.Anchor(
            labels[i],
            parse_spec(specs[i]).spec,
            round(at + float(ratings.elo[i]), 1),
            (round(at + float(ratings.low[i]), 1), round(at + float(ratings.high[i]), 1)),
            per_agent,
        )
        for i in range(len(specs))
    )
    start = "" if book is None else f", pairs of games from opening book v{book.version}"
    return scale.AnchorTable(
        tuple(sorted(anchors, key=lambda a: a.rating)),
        reference=f"round robin, {games_per_pair} games per pair{start}, seed {seed}",
        date=datetime.now(timezone.utc).date().isoformat(),
        version=__version__,
        games_per_pair=games_per_pair,
        seed=seed,
        max_rounds=MAX_ROUNDS,
        openings=None if book is None else book.describe(),
    )


def consistent(
    table: scale.AnchorTable, fresh: scale.AnchorTable, both_ways: bool = True
) -> list[str]:
    """The anchors of ``fresh`` whose ratings disagree with ``table`` (empty: reproduced).

    Each table rating must lie inside the fresh fit's interval and, with ``both_ways``, each
    fresh rating inside the table's (a small fresh fit has wide intervals and checks only the
    first).
    """
    bad = []
    for label in fresh.labels:
        a, b = table[label], fresh[label]
        inside = b.ci[0] <= a.rating <= b.ci[1]
        if not inside or (both_ways and not a.ci[0] <= b.rating <= a.ci[1]):
            bad.append(
                f"{label}: table {a.rating:+.0f} [{a.ci[0]:+.0f}, {a.ci[1]:+.0f}], "
                f"fresh {b.rating:+.0f} [{b.ci[0]:+.0f}, {b.ci[1]:+.0f}]"
            )
    return bad
