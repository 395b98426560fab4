"""Ratings on the fixed scale follow the evidence: exact intervals, one-sided at sweeps.

Fits run on hand-made results (fast); one small bench end to end checks the two agents of
issue 40 (the first legal cell; always an illegal action) through the command line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logit
from scipy.stats import binomtest

from shell_envs.bench import scale
from shell_envs.bench.tournament import ELO_SCALE
from shell_envs.cli import main

USER_FILE = Path(__file__).with_name("user_agents.py")
TABLE = scale.anchor_table()
HELD = {a.label: a.rating for a in TABLE.anchors}


def results(per_anchor: dict[str, list[float]]) -> dict[str, np.ndarray]:
    """Scores against each anchor as the fit takes them."""
    return {k: np.array(v, float) for k, v in per_anchor.items()}


def first_legal_and_illegal(games: int) -> tuple[dict, dict]:
    """Issue 40's two agents: the first legal cell beats ``random`` and loses the rest; the
    always-illegal one loses every game."""
    first = results({a: [1.0 if a == "random" else 0.0] * games for a in TABLE.labels})
    illegal = results({a: [0.0] * games for a in TABLE.labels})
    return first, illegal


def test_against_one_anchor_the_interval_is_clopper_pearson_on_the_log_odds() -> None:
    """A plain check against scipy: one anchor, k wins of n, the exact binomial interval
    of the win probability mapped through the logistic curve."""
    for wins, n in ((3, 4), (0, 5), (7, 7), (12, 30)):
        scores = {"a": np.array([1.0] * wins + [0.0] * (n - wins))}
        low, high = scale.rating_interval(scores, {"a": 250.0})
        ci = binomtest(wins, n).proportion_ci(0.95, method="exact")
        with np.errstate(divide="ignore"):
            expected = 250.0 + ELO_SCALE * logit([ci.low, ci.high])
        assert low == pytest.approx(expected[0], abs=0.05) if wins else low == -math.inf
        assert high == pytest.approx(expected[1], abs=0.05) if wins < n else high == math.inf


@pytest.mark.parametrize("games", [2, 10])
def test_the_two_agents_of_the_issue_are_rated_in_the_order_of_the_evidence(games: int) -> None:
    first, illegal = first_legal_and_illegal(games)
    rating, (low, high) = scale.rate_on_scale(first)
    bad_rating, (bad_low, bad_high) = scale.rate_on_scale(illegal)
    assert bad_rating == bad_low == -math.inf and math.isfinite(bad_high)  # an upper bound only
    assert bad_high < rating  # losing everything rates below beating random
    assert -math.inf < low < rating < high < math.inf
    assert rating < TABLE["greedy"].rating  # it lost every game to greedy
    if games >= 10:
        assert bad_high < TABLE["random"].rating  # lost 10 of 10 to random: below random
        assert TABLE["random"].rating < low  # won 10 of 10 against random: above it
        winner = results({a: [1.0] * games for a in TABLE.labels})
        top, (top_low, top_high) = scale.rate_on_scale(winner)
        assert top == top_high == math.inf and top_low > TABLE["mcts-learned"].rating


def test_the_rating_and_both_ends_rise_with_the_score_against_any_anchor() -> None:
    base = {a: [0.0, 1.0, 0.0, 0.5] for a in TABLE.labels}
    before = scale.rate_on_scale(results(base))
    for anchor in TABLE.labels:
        for game, better in ((0, 0.5), (0, 1.0), (3, 1.0)):
            raised = {a: list(s) for a, s in base.items()}
            raised[anchor][game] = better
            after = scale.rate_on_scale(results(raised))
            assert after[0] > before[0]
            assert after[1][0] >= before[1][0] and after[1][1] >= before[1][1]
            assert after[1][0] > before[1][0] or after[1][1] > before[1][1]


def test_which_anchor_a_point_came_from_does_not_matter() -> None:
    """With the anchors held, the total score is all the games say about the rating
    (benchmarks/rating_coverage.py relies on it)."""
    one = results({"random": [1, 0, 0], "greedy": [1, 1, 0], "mcts-400": [0, 0.5, 0]})
    other = results({"random": [0, 0, 0], "greedy": [1, 1, 1], "mcts-400": [0.5, 0, 0]})
    (rating, ci), (rating2, ci2) = scale.rate_on_scale(one), scale.rate_on_scale(other)
    assert rating == pytest.approx(rating2) and ci == pytest.approx(ci2, abs=0.05)


small_results = st.dictionaries(
    st.sampled_from(TABLE.labels),
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=6),
    min_size=1,
)


@settings(max_examples=60, deadline=None)
@given(small_results)
def test_no_interval_has_zero_width_and_fewer_games_give_a_wider_one(per_anchor) -> None:
    rating, (low, high) = scale.rate_on_scale(results(per_anchor))
    assert low < high and low <= rating <= high
    total, games = sum(map(sum, per_anchor.values())), sum(map(len, per_anchor.values()))
    assert (rating == -math.inf) == (total == 0) and (rating == math.inf) == (total == games)
    assert (low == -math.inf) == (total < 1) and (high == math.inf) == (total > games - 1)
    doubled = results({a: s * 2 for a, s in per_anchor.items()})
    _, (low2, high2) = scale.rate_on_scale(doubled)
    assert low <= low2 < high2 <= high and (low < low2 or high2 < high)


def record(index: int, name: str, anchor: str, outcome: int) -> dict:
    """A What the Shell game record as the bench writes it (the candidate black)."""
    pairing = {"candidate": name, "anchor": anchor, "candidate_seat": "black"}
    return {
        "game": "what_the_shell",
        "index": index,
        "pairing": pairing,
        "actions": [[index % 81, (index + 1) % 81]],
        "outcome": outcome,
        "illegal": [],
        "errors": [],
    }


def test_results_json_gives_null_for_what_the_games_do_not_bound() -> None:
    records = [record(k, "loser", a, -1) for k, a in enumerate(TABLE.labels * 10)]
    records += [record(100 + k, "winner", a, 1) for k, a in enumerate(TABLE.labels * 10)]
    section = scale.summarize(records, ["loser", "winner"], {}, TABLE)
    data = json.loads(json.dumps(section))
    loser, winner = data["ratings"]["loser"], data["ratings"]["winner"]
    assert loser["rating"] is None and loser["ci"][0] is None and loser["ci"][1] < 0
    assert winner["rating"] is None and winner["ci"][1] is None
    assert winner["ci"][0] > TABLE["mcts-learned"].rating
    assert loser["too_few_games"] and winner["too_few_games"]
    assert "Clopper–Pearson" in data["method"]


def test_the_bench_reports_both_agents_of_the_issue_in_order(tmp_path: Path) -> None:
    out = tmp_path / "results"
    args = ["bench", "--games", "2", "--game", "what-the-shell", "--workers", "1"]
    args += ["--no-progress", "--out", str(out)]
    args += ["--agent", f"first={USER_FILE}:first_legal", "--agent", f"cheat={USER_FILE}:illegal"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output  # the cheat failed every game: said, exit 1
    assert "Error: agent 'cheat' failed every game it played" in result.output
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    ratings = data["what_the_shell"]["ratings"]
    first, cheat = ratings["first"], ratings["cheat"]
    assert cheat["score"] == 0.0 and cheat["rating"] is None and cheat["ci"][0] is None
    assert first["rating"] is not None and None not in first["ci"]
    assert cheat["ci"][1] < first["rating"] < TABLE["greedy"].rating
    assert first["ci"][0] < first["rating"] < first["ci"][1]
    markdown = (out / "results.md").read_text(encoding="utf-8")
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    ranked = [line.split(" | ")[1] for line in lines if line.split(" | ")[0] in ("| 1", "| 2")]
    assert ranked == ["first", "cheat"]
    assert f"| cheat | below `random` | upper bound {cheat['ci'][1]:+.0f} |" in markdown
    assert "**Too few games for a useful interval**: first, cheat" in markdown
