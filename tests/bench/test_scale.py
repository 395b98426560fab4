"""The fixed rating scale: the fit against held anchors, and the shipped anchor table."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from shell_envs.bench import anchors, openings, scale
from shell_envs.bench.tournament import ELO_SCALE


def test_against_one_anchor_the_rating_is_the_log_odds_above_it() -> None:
    scores = {"a": np.array([1, 1, 1, 0.0])}
    rating = scale.fit_rating(scores, {"a": 250.0})
    assert rating == pytest.approx(250.0 + ELO_SCALE * math.log(3.0), abs=1e-3)


def test_known_strengths_are_recovered_on_the_held_scale() -> None:
    anchors_at = {"a": 0.0, "b": 300.0, "c": 700.0}
    truth = 450.0
    scores = {k: np.full(1000, scale.expected_score(truth, r)) for k, r in anchors_at.items()}
    assert scale.fit_rating(scores, anchors_at) == pytest.approx(truth, abs=0.01)


def test_sweeps_have_no_finite_rating_and_more_wins_rate_higher() -> None:
    held = {"a": 0.0, "b": 400.0}
    sweep = scale.fit_rating({"a": np.ones(10), "b": np.ones(10)}, held)
    lost = scale.fit_rating({"a": np.zeros(10), "b": np.zeros(10)}, held)
    half = scale.fit_rating({"a": np.ones(10), "b": np.array([1.0] * 5 + [0.0] * 5)}, held)
    assert lost == -math.inf and sweep == math.inf and 0 < half < 10_000
    with pytest.raises(ValueError, match="at least one game"):
        scale.fit_rating({"a": np.array([])}, held)


def test_the_interval_holds_the_rating_and_narrows_with_games() -> None:
    table = scale.anchor_table()
    rng = np.random.default_rng(0)

    def scores(n: int) -> dict[str, np.ndarray]:
        return {
            a.label: (rng.random(n) < scale.expected_score(500.0, a.rating)) * 1.0
            for a in table.anchors
        }

    small_rating, small = scale.rate_on_scale(scores(10), table)
    big_rating, big = scale.rate_on_scale(scores(400), table)
    assert small[0] <= small_rating <= small[1] and big[0] <= big_rating <= big[1]
    assert big[1] - big[0] < (small[1] - small[0]) / 2
    assert big[0] < 500.0 < big[1]


def test_the_shipped_table_names_the_anchor_specs_in_rating_order() -> None:
    table = scale.anchor_table()
    labels = ["random", "greedy", "mcts-100", "mcts-400", "mcts-1600", "learned", "mcts-learned"]
    assert sorted(table.labels) == sorted(labels)
    assert table.labels[:2] == ["random", "greedy"]
    assert table.labels.index("mcts-100") < table.labels.index("mcts-400")
    assert table.labels.index("mcts-400") < table.labels.index("mcts-1600")
    assert [a.agent.label for a in table.anchors] == table.labels
    assert {f"{a.label}={a.spec}" if a.label != a.spec else a.spec for a in table.anchors} == set(
        scale.ANCHOR_SPECS
    )
    assert table["random"].rating == 0.0
    ratings = [a.rating for a in table.anchors]
    assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings)
    for a in table.anchors:
        assert a.ci[0] <= a.rating <= a.ci[1]
        assert a.games == table.games_per_pair * (len(labels) - 1)
    assert table.games_per_pair >= 100 and table.version and table.date
    assert scale.AnchorTable.from_dict(table.to_dict()) == table


def test_the_table_is_consistent_with_a_fresh_small_fit() -> None:
    """greedy, mcts-100 and mcts-400 afresh with another seed, greedy held at its table
    rating: the table's ratings of the others lie inside the fresh 95% intervals.

    ``random`` is left out: it loses nearly every game to every other anchor, so its gap to
    them is set by the fit's one virtual draw per pair and shrinks with fewer games.
    """
    specs = list(scale.ANCHOR_SPECS[1:4])
    table = scale.anchor_table()
    book = table.book()
    results, _ = anchors.round_robin(specs, 40, seed=7, workers=1, progress=False, book=book)
    fresh = anchors.fit(
        specs, results, 40, seed=7, zero="greedy", at=table["greedy"].rating, book=book
    )
    assert fresh.openings == table.openings
    assert fresh.labels == ["greedy", "mcts-100", "mcts-400"]
    assert anchors.consistent(table, fresh, both_ways=False) == []
    shifted = scale.AnchorTable(
        tuple(
            scale.Anchor(a.label, a.spec, a.rating + 300 * (a.label == "mcts-100"), a.ci, a.games)
            for a in table.anchors
        ),
        *(table.reference, table.date, table.version),
        *(table.games_per_pair, table.seed, table.max_rounds, table.openings),
    )
    bad = anchors.consistent(shifted, fresh, both_ways=False)
    assert [line.split(":")[0] for line in bad] == ["mcts-100"]


def test_the_table_names_the_shipped_opening_book_its_games_started_from() -> None:
    table = scale.anchor_table()
    book = openings.load()
    assert table.openings == book.describe() and table.book() is book
    assert f"opening book v{book.version}" in table.reference
    assert scale.summarize([], [], {}, table)["scale"]["openings"] == book.describe()
    empty_board = dataclasses.replace(table, openings=None)
    assert empty_board.book() is None and "openings" not in empty_board.to_dict()
    assert scale.AnchorTable.from_dict(empty_board.to_dict()) == empty_board


def test_a_table_fitted_from_another_book_is_refused() -> None:
    table = scale.anchor_table()
    other = dataclasses.replace(table, openings={**table.openings, "checksum": "sha256:00"})
    with pytest.raises(ValueError, match=r"fitted from opening book .*sha256:00.*refit"):
        other.book()
