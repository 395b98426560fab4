"""Round-robin statistics on small known inputs: schedule, Wilson, Bradley–Terry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shell_envs.bench import openings
from shell_envs.bench.tournament import (
    ELO_SCALE,
    GameResult,
    bradley_terry,
    fit_bradley_terry,
    opening_starts,
    pair_scores,
    schedule,
    start_position,
    wilson_interval,
)


def games(black: int, white: int, outcomes: str) -> list[GameResult]:
    """Results from a string of outcomes for black: ``W`` win, ``D`` draw, ``L`` loss."""
    code = {"W": 1, "D": 0, "L": -1}
    return [GameResult(black, white, code[o], 30) for o in outcomes]


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson_interval(7, 10)
    assert low == pytest.approx(0.3968, abs=1e-4)
    assert high == pytest.approx(0.8922, abs=1e-4)
    low, high = wilson_interval(0, 20)
    assert low == pytest.approx(0.0, abs=1e-12)
    assert high == pytest.approx(0.1611, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_schedule_plays_every_pair_with_seats_swapped() -> None:
    matches = schedule(3, 4, seed=1)
    assert len(matches) == 3 * 4
    for i, j in ((0, 1), (0, 2), (1, 2)):
        pair = [m for m in matches if {m.black, m.white} == {i, j}]
        assert sum(m.black == i for m in pair) == sum(m.black == j for m in pair) == 2
    assert len({m.seed for m in matches}) == len(matches)
    assert schedule(3, 4, seed=1) == matches
    assert schedule(3, 4, seed=2) != matches
    with pytest.raises(ValueError):
        schedule(1, 4)


def test_with_a_book_each_opening_is_played_twice_seats_swapped_by_every_pair() -> None:
    book = openings.load()
    matches = schedule(3, 5, seed=4, book=book)
    starts = book.schedule(4, 3)  # 5 games a pair: pairs of games 0-1, 2-3, and game 4 alone
    for i, j in ((0, 1), (0, 2), (1, 2)):
        pair = [m for m in matches if {m.black, m.white} == {i, j}]
        assert [m.opening for m in pair] == [starts[0], starts[0], starts[1], starts[1], starts[2]]
        for first, second in (pair[0:2], pair[2:4]):
            assert (first.black, first.white) == (second.white, second.black)
    assert [m.seed for m in matches] == [m.seed for m in schedule(3, 5, seed=4)]
    assert all(m.opening is None for m in schedule(3, 5, seed=4))
    assert opening_starts(None, 4, 3) == [None] * 3
    assert start_position(book, starts[0]) == book[starts[0]]
    assert start_position(book, None) is None and start_position(None, None) is None


def test_pair_scores_take_the_lower_index_side() -> None:
    results = games(0, 1, "WDL") + games(1, 0, "WL")
    scores = pair_scores(results)
    assert list(scores) == [(0, 1)]
    assert scores[0, 1].tolist() == [1.0, 0.5, 0.0, 0.0, 1.0]


def test_bradley_terry_two_agents_is_the_log_odds() -> None:
    pairs = {(0, 1): np.array([1.0, 1.0, 1.0, 0.0])}
    elo = fit_bradley_terry(2, pairs, anchor=1, prior=0.0)
    assert elo[1] == 0.0
    assert elo[0] == pytest.approx(ELO_SCALE * math.log(3.0), rel=1e-6)
    with_prior = fit_bradley_terry(2, pairs, anchor=1, prior=1.0)
    assert with_prior[0] == pytest.approx(ELO_SCALE * math.log(3.5 / 1.5), rel=1e-6)


def test_bradley_terry_recovers_known_strengths() -> None:
    theta = np.array([0.0, 1.0, 2.5])
    pairs = {}
    for i in range(3):
        for j in range(i + 1, 3):
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            pairs[i, j] = np.full(1000, p)
    elo = fit_bradley_terry(3, pairs, anchor=0, prior=0.0)
    assert elo == pytest.approx(ELO_SCALE * theta, abs=1e-3)


def test_clean_sweeps_stay_finite_and_ordered_with_random_at_zero() -> None:
    results = games(1, 0, "WWWW") + games(0, 1, "LLLL")
    results += games(2, 1, "WWWD") + games(1, 2, "LLLL") + games(2, 0, "WWWW") + games(0, 2, "LLLL")
    ratings = bradley_terry(3, results, anchor=0, n_resamples=200, seed=0)
    assert ratings.elo[0] == 0.0
    assert 0 < ratings.elo[1] < ratings.elo[2] < 2000
    assert np.all(ratings.low <= ratings.elo) and np.all(ratings.elo <= ratings.high)
    assert ratings.low[0] == ratings.high[0] == 0.0
