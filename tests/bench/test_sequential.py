"""Head-to-head statistics: fishtest's own numbers, mirror symmetry, exact coverage, bad input.

The reference values were computed once by fishtest's code, official-stockfish/fishtest at
b8eecff220b562a0dc2c4e68d1fa02521e06d72c (``server/fishtest/stats``, copied into a package
``fishtest.stats``), with::

    LLRcalc.LLR_logistic(elo0, elo1, counts)
    LLRcalc.LLR_normalized(nelo0, nelo1, counts)
    stat_util.get_elo(counts)                       # (elo, half-width of the 95 % interval, LOS)
    N, pdf = LLRcalc.results_to_pdf([b_only, ties, a_only])
    N * LLRcalc.LLR(pdf, (1 + p0) / 2, (1 + p1) / 2)    # the paired test: outcomes 0, 1/2, 1

and pasted here (CI has no network).
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import multinomial, ttest_rel

from shell_envs.bench.sequential import (
    SPRT,
    PairedSPRT,
    elo_from_pentanomial,
    elo_from_score,
    gsprt_llr,
    logistic_score,
    paired_wins,
    pentanomial,
    score_difference,
)

LOGISTIC = [
    ([10789, 19328, 33806, 19402, 10543], 0, 5, -38.51440847341944),
    ([10789, 19328, 33806, 19402, 10543], -3, 1, 2.1310678117940807),
    ([10789, 19328, 33806, 19402, 10543], 0, 50, -2965.3024206757236),
    ([1187, 7410, 13475, 7378, 1164], 0, 5, -18.877471085770768),
    ([1187, 7410, 13475, 7378, 1164], -3, 1, 2.86152718059463),
    ([1187, 7410, 13475, 7378, 1164], 0, 50, -1550.1730861264516),
    ([39, 2226, 31451, 2412, 40], 0, 5, -68.71870172599658),
    ([39, 2226, 31451, 2412, 40], -3, 1, 65.97358529713483),
    ([39, 2226, 31451, 2412, 40], 0, 50, -4604.482920393568),
    ([0, 3, 10, 6, 1], 0, 5, 0.23338943138101964),
    ([0, 3, 10, 6, 1], -3, 1, 0.20219999978445918),
    ([0, 3, 10, 6, 1], 0, 50, 1.056449873884888),
    ([2, 8, 20, 15, 9], 0, 5, 0.4741224113022518),
    ([2, 8, 20, 15, 9], -3, 1, 0.3957865920898358),
    ([2, 8, 20, 15, 9], 0, 50, 3.2295539462585974),
    ([5, 0, 0, 0, 0], 0, 5, -0.07250270169857488),
    ([5, 0, 0, 0, 0], -3, 1, -0.05742181853435169),
    ([5, 0, 0, 0, 0], 0, 50, -0.7714853371327993),
]
NORMALIZED = [
    ([10789, 19328, 33806, 19402, 10543], 0, 2, -6.070429067588585),
    ([10789, 19328, 33806, 19402, 10543], 0.764, 3.439, -12.701291983697933),
    ([1187, 7410, 13475, 7378, 1164], 0, 2, -1.7287536221817865),
    ([1187, 7410, 13475, 7378, 1164], 0.764, 3.439, -3.8066921545276027),
    ([39, 2226, 31451, 2412, 40], 0, 2, 2.93690981720447),
    ([39, 2226, 31451, 2412, 40], 0.764, 3.439, 2.162940869584568),
    ([0, 3, 10, 6, 1], 0, 2, 0.052705794249193354),
    ([0, 3, 10, 6, 1], 0.764, 3.439, 0.06955107883122605),
    ([2, 8, 20, 15, 9], 0, 2, 0.15206071379830835),
    ([2, 8, 20, 15, 9], 0.764, 3.439, 0.2008731208624217),
]
GET_ELO = [  # long matches, where Student's t and fishtest's normal quantile agree
    (
        [10789, 19328, 33806, 19402, 10543],
        -0.7735773359165423,
        1.2775798957280218,
        0.1176588580327751,
    ),
    ([1187, 7410, 13475, 7378, 1164], -0.4426077992236841, 1.7298590276177421, 0.3080138791226903),
    ([39, 2226, 31451, 2412, 40], 0.902981048809024, 0.6625314859816553, 0.9962220973354207),
]
SHORT_GET_ELO = ([2, 8, 20, 15, 9], 68.42818307225215, 50.65970753814143, 0.9969077627372082)
PAIRED = [  # (a_only, b_only, ties, p0, p1, LLR)
    (45, 30, 400, 0.0, 0.05, 1.0029239949410889),
    (45, 30, 400, -0.02, 0.02, 3.7708841643777355),
    (45, 30, 400, 0.0, 0.1, -5.051120506708647),
    (2, 10, 60, 0.0, 0.05, -2.6918973766585217),
    (2, 10, 60, -0.02, 0.02, -1.9124266283921314),
    (2, 10, 60, 0.0, 0.1, -5.842451387546383),
    (150, 120, 700, 0.0, 0.05, 1.0353226568578524),
    (150, 120, 700, -0.02, 0.02, 4.302638923000928),
    (150, 120, 700, 0.0, 0.1, -6.543873198173131),
    (3, 0, 20, 0.0, 0.05, 1.1209144834678786),
    (3, 0, 20, -0.02, 0.02, 0.9195330469060946),
    (3, 0, 20, 0.0, 0.1, 1.9625114443787934),
]
WALD = math.log(0.05 / 0.95)  # fishtest's lower bound at alpha = beta = 0.05; upper is -WALD

counts5 = st.lists(st.integers(0, 40), min_size=5, max_size=5).filter(lambda c: sum(c) >= 2)
positive5 = st.lists(st.integers(1, 40), min_size=5, max_size=5)
elo_bounds = st.tuples(st.floats(-60, 60), st.floats(0.5, 60)).map(lambda t: (t[0], t[0] + t[1]))


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), LOGISTIC)
def test_logistic_llr_is_fishtests(counts, elo0, elo1, expected):
    assert SPRT(elo0, elo1).llr(counts) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("counts", "nelo0", "nelo1", "expected"), NORMALIZED)
def test_normalized_llr_is_fishtests(counts, nelo0, nelo1, expected):
    test = SPRT(nelo0, nelo1, model="normalized")
    assert test.llr(counts) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("a_only", "b_only", "ties", "p0", "p1", "expected"), PAIRED)
def test_paired_llr_is_fishtests_on_three_outcomes(a_only, b_only, ties, p0, p1, expected):
    llr = PairedSPRT(p0, p1).llr(a_only, b_only, ties)
    assert llr == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("counts", "elo", "half_width", "los"), GET_ELO)
def test_elo_interval_and_los_are_fishtests_for_long_matches(counts, elo, half_width, los):
    est = elo_from_pentanomial(counts)
    assert est.elo == pytest.approx(elo, rel=1e-9, abs=1e-9)
    assert (est.upper - est.lower) / 2 == pytest.approx(half_width, rel=1e-4)
    assert est.los == pytest.approx(los, abs=1e-4)
    assert est.pairs == sum(counts)
    assert est.score == pytest.approx(logistic_score(elo))


def test_short_matches_get_students_t_wider_than_fishtests_normal_interval():
    counts, elo, half_width, _ = SHORT_GET_ELO
    est = elo_from_pentanomial(counts)
    assert est.elo == pytest.approx(elo, rel=1e-12)
    assert half_width < (est.upper - est.lower) / 2 < 1.1 * half_width


def test_bounds_and_decisions_follow_wald_and_fishtests_examples():
    test = SPRT(-3, 1)
    assert test.bounds() == pytest.approx((WALD, -WALD), rel=1e-15)
    assert SPRT(0, 5, alpha=0.1, beta=0.2).bounds() == pytest.approx(
        (math.log(0.2 / 0.9), math.log(0.8 / 0.1))
    )
    assert test.decision([10789, 19328, 33806, 19402, 10543]) is None  # LLR 2.13
    assert test.decision([39, 2226, 31451, 2412, 40]) == "H1"  # LLR 65.97
    assert SPRT(0, 5).decision([10789, 19328, 33806, 19402, 10543]) == "H0"  # LLR -38.5
    assert PairedSPRT(-0.02, 0.02).decision(150, 120, 700) == "H1"  # LLR 4.30
    assert PairedSPRT(0.0, 0.1).decision(45, 30, 400) == "H0"  # LLR -5.05
    assert PairedSPRT(0.0, 0.05).decision(45, 30, 400) is None  # LLR 1.00
    assert PairedSPRT(0.0, 0.05).bounds() == pytest.approx((WALD, -WALD))


def test_nothing_played_is_an_llr_of_zero_and_no_decision():
    assert SPRT(0, 5).llr([0, 0, 0, 0, 0]) == 0.0
    assert SPRT(0, 5).decision([0, 0, 0, 0, 0]) is None
    assert PairedSPRT(0, 0.05).llr(0, 0, 0) == 0.0


def test_batch_llr_equals_one_at_a_time():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 30, size=(4, 6, 5))
    test = SPRT(-5, 10)
    batch = test.llr_batch(counts)
    assert batch.shape == (4, 6)
    singles = np.array([[test.llr(c) for c in row] for row in counts])
    np.testing.assert_allclose(batch, singles, rtol=1e-12)
    paired = PairedSPRT(0, 0.1)
    three = counts[..., :3]
    assert paired.llr_batch(three)[1, 2] == paired.llr(
        three[1, 2, 2], three[1, 2, 0], three[1, 2, 1]
    )
    generic = gsprt_llr(counts, [0, 0.25, 0.5, 0.75, 1], logistic_score(-5), logistic_score(10))
    np.testing.assert_allclose(generic, batch, rtol=1e-12)


def test_pentanomial_counts_pair_points():
    assert pentanomial([0, 4, 2, 2, 3, 1, 2]).tolist() == [1, 1, 3, 1, 1]
    assert pentanomial([]).tolist() == [0, 0, 0, 0, 0]
    assert pentanomial(np.array([4, 4])).dtype == np.int64


@settings(max_examples=60, deadline=None)
@given(counts5, elo_bounds)
def test_swapping_the_players_mirrors_everything(counts, bounds):
    elo0, elo1 = bounds
    mirrored = counts[::-1]
    est, other = elo_from_pentanomial(counts), elo_from_pentanomial(mirrored)
    assert other.elo == pytest.approx(-est.elo, abs=1e-9)
    assert other.lower == pytest.approx(-est.upper, abs=1e-9)
    assert other.upper == pytest.approx(-est.lower, abs=1e-9)
    assert other.los == pytest.approx(1 - est.los, abs=1e-12)
    llr = SPRT(elo0, elo1).llr(counts)
    assert SPRT(-elo1, -elo0).llr(mirrored) == pytest.approx(-llr, rel=1e-7, abs=1e-9)
    a_only, b_only, ties = counts[0], counts[1], counts[2]
    p = PairedSPRT(elo0 / 200, elo1 / 200).llr(a_only, b_only, ties)
    assert PairedSPRT(-elo1 / 200, -elo0 / 200).llr(b_only, a_only, ties) == pytest.approx(
        -p, rel=1e-7, abs=1e-9
    )


@settings(max_examples=60, deadline=None)
@given(counts5, st.sampled_from([0.8, 0.95, 0.99]))
def test_interval_holds_the_estimate_and_los_agrees_with_the_score(counts, confidence):
    est = elo_from_pentanomial(counts, confidence)
    assert est.lower <= est.elo <= est.upper
    assert est.lower < est.upper
    assert 0.0 <= est.los <= 1.0
    assert (est.los > 0.5) == (est.score > 0.5)
    assert (est.los < 0.5) == (est.score < 0.5)
    wider = elo_from_pentanomial(counts, min(confidence + 0.009, 0.999))
    assert wider.lower <= est.lower and wider.upper >= est.upper


@settings(max_examples=60, deadline=None)
@given(counts5, st.integers(2, 10))
def test_more_of_the_same_evidence_narrows_the_interval_and_firms_the_los(counts, k):
    est = elo_from_pentanomial(counts)
    more = elo_from_pentanomial([k * c for c in counts])
    assert more.elo == pytest.approx(est.elo)
    assert more.upper - more.lower <= est.upper - est.lower
    assert abs(more.los - 0.5) >= abs(est.los - 0.5) - 1e-12


@settings(max_examples=60, deadline=None)
@given(counts5, st.integers(0, 3))
def test_a_better_pair_raises_the_elo_estimate(counts, k):
    if counts[k] == 0:
        return
    better = list(counts)
    better[k] -= 1
    better[k + 1] += 1
    assert elo_from_pentanomial(better).elo > elo_from_pentanomial(counts).elo


@settings(max_examples=60, deadline=None)
@given(positive5, elo_bounds, st.integers(2, 50))
def test_llr_grows_in_proportion_to_the_evidence(counts, bounds, k):
    test = SPRT(*bounds)
    llr = test.llr(counts)
    scaled = test.llr([k * c for c in counts])
    assert scaled == pytest.approx(k * llr, rel=1e-8, abs=1e-9)
    # a score at or beyond a hypothesis's favours it: the profile likelihood is unimodal
    score = float(np.dot(counts, [0, 0.25, 0.5, 0.75, 1])) / sum(counts)
    if score >= logistic_score(bounds[1]):
        assert llr >= 0
    if score <= logistic_score(bounds[0]):
        assert llr <= 0


def exact_coverage(deals: int, a_rate: float, b_rate: float, intervals: dict) -> float:
    """The chance that paired_wins' interval holds the truth, summed over every outcome."""
    truth = a_rate - b_rate
    total = 0.0
    for (a, b), (low, high) in intervals.items():
        if low <= truth <= high:
            total += multinomial.pmf(
                [a, b, deals - a - b], deals, [a_rate, b_rate, 1 - a_rate - b_rate]
            )
    return total


@pytest.mark.parametrize("deals", [6, 15])
def test_paired_interval_covers_at_least_95_percent_by_enumeration(deals):
    intervals = {}
    for a, b in product(range(deals + 1), repeat=2):
        if a + b <= deals:
            won_a = [True] * a + [False] * b + [False] * (deals - a - b)
            won_b = [False] * a + [True] * b + [False] * (deals - a - b)
            r = paired_wins(won_a, won_b)
            assert (r.a_only, r.b_only, r.both, r.neither) == (a, b, 0, deals - a - b)
            assert r.difference == (a - b) / deals
            assert r.lower <= r.difference <= r.upper
            intervals[a, b] = (r.lower, r.upper)
    grid = [0.0, 0.02, 0.1, 0.25, 0.4, 0.6, 0.9]
    worst = min(
        exact_coverage(deals, pa, pb, intervals)
        for pa, pb in product(grid, repeat=2)
        if pa + pb <= 1
    )
    assert worst >= 0.95


def test_paired_wins_counts_both_and_neither_and_ignores_them_in_the_difference():
    a = [True, True, False, False, True, False]
    b = [True, False, True, False, False, False]
    r = paired_wins(a, b)
    assert (r.deals, r.a_only, r.b_only, r.both, r.neither) == (6, 2, 1, 1, 2)
    assert r.difference == pytest.approx(1 / 6)
    same = paired_wins(a, a)
    assert same.difference == 0 and same.lower < 0 < same.upper


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 30), st.integers(1, 30), st.integers(0, 30))
def test_paired_interval_rises_when_a_deal_moves_from_b_to_a(a_only, b_only, ties):
    def result(a: int, b: int):
        return paired_wins(
            [True] * a + [False] * (b + ties), [False] * a + [True] * b + [False] * ties
        )

    before, after = result(a_only, b_only), result(a_only + 1, b_only - 1)
    assert after.difference > before.difference
    assert after.lower >= before.lower and after.upper >= before.upper
    swapped = paired_wins(
        [False] * a_only + [True] * b_only + [False] * ties,
        [True] * a_only + [False] * b_only + [False] * ties,
    )
    assert swapped.lower == pytest.approx(-before.upper)
    assert swapped.upper == pytest.approx(-before.lower)


def test_score_difference_is_the_paired_t_interval():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 53, size=40)
    b = np.clip(a + rng.integers(-6, 5, size=40), 0, 52)
    r = score_difference(a, b, confidence=0.9)
    ci = ttest_rel(a, b).confidence_interval(0.9)
    assert r.mean == pytest.approx(float(np.mean(a - b)))
    assert (r.lower, r.upper) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert r.n == 40
    flipped = score_difference(b, a, confidence=0.9)
    assert (flipped.lower, flipped.upper) == pytest.approx((-r.upper, -r.lower))


def test_degenerate_matches_get_honest_answers():
    sweep = elo_from_pentanomial([0, 0, 0, 0, 7])
    assert sweep.elo == math.inf and sweep.upper == math.inf and sweep.los == 1.0
    assert sweep.lower == pytest.approx(elo_from_score(0.025 ** (1 / 7)))  # not a point
    even = elo_from_pentanomial([0, 0, 12, 0, 0])
    assert even.elo == 0.0 and even.los == 0.5 and even.lower == pytest.approx(-even.upper)
    assert even.upper > 100
    split = elo_from_pentanomial([1, 0, 0, 0, 1])
    assert (split.lower, split.elo, split.upper) == (-math.inf, 0.0, math.inf)
    assert elo_from_score(0.0) == -math.inf and elo_from_score(0.5) == 0.0
    assert math.isfinite(SPRT(0, 5).llr([0, 0, 0, 0, 1000]))
    same = score_difference([3, 4, 5], [3, 4, 5])  # no spread: no interval, not [0, 0]
    assert (same.mean, same.lower, same.upper) == (0.0, None, None)
    ahead = score_difference([4, 6, 8], [3, 5, 7])
    assert (ahead.mean, ahead.lower, ahead.upper) == (1.0, None, None)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: SPRT(10, 5), r"ELO0 \(10\) must be below ELO1 \(5\)"),
        (lambda: SPRT(5, 5), r"ELO0 \(5\) must be below ELO1 \(5\)"),
        (lambda: SPRT(0, 5, alpha=0), r"alpha \(0\) must be above 0 and at most 0.5"),
        (lambda: SPRT(0, 5, beta=0.6), r"beta \(0.6\) must be above 0 and at most 0.5"),
        (lambda: SPRT(0, 5, model="BayesElo"), r"unknown SPRT model 'BayesElo'"),
        (lambda: SPRT(math.nan, 5), r"ELO0 must be a finite number"),
        (lambda: SPRT(0, 5000), r"ELO1 \(5000\) must lie within ±1000 Elo"),
        (lambda: SPRT(0, 5).llr([1, 2, 3]), r"pentanomial counts must have 5 entries"),
        (lambda: SPRT(0, 5).llr([1, -2, 3, 0, 0]), r"must not be negative, got \[1, -2, 3, 0, 0\]"),
        (lambda: SPRT(0, 5).llr([1, 2.5, 3, 0, 0]), r"must be whole numbers"),
        (lambda: elo_from_pentanomial([0, 0, 0, 0, 0]), r"no finished game pairs"),
        (lambda: elo_from_pentanomial([1, 1, 1, 1, 1], 1.5), r"confidence \(1.5\)"),
        (lambda: pentanomial([0, 5]), r"half-points 0..4 .* got 5 at position 1"),
        (lambda: pentanomial([0.5]), r"whole half-points"),
        (lambda: PairedSPRT(0.05, 0), r"P0 \(0.05\) must be below P1 \(0\)"),
        (lambda: PairedSPRT(0, 1.5), r"P1 \(1.5\) must be a win-rate difference"),
        (lambda: PairedSPRT(0, 0.05, alpha=0.7), r"alpha \(0.7\)"),
        (lambda: PairedSPRT(0, 0.05).llr(-1, 0, 0), r"must not be negative"),
        (lambda: paired_wins([True, False], [True]), r"a_won has 2 deals but b_won has 1"),
        (lambda: paired_wins([], []), r"no deals played"),
        (lambda: paired_wins([2, 0], [1, 0]), r"a_won must hold only True/False"),
        (lambda: score_difference([1, 2], [1]), r"a_scores has 2 deals but b_scores has 1"),
        (lambda: score_difference([1], [1]), r"at least 2 deals"),
        (lambda: score_difference([1, math.nan], [1, 2]), r"finite"),
        (lambda: gsprt_llr([1, 2, 3], [-1, 0, 1], 0, 1), r"strictly between"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_problem(make, message):
    with pytest.raises(ValueError, match=message):
        make()
