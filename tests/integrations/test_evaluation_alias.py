"""``shell_envs.integrations.evaluation`` moved to ``shell_envs.bench.evaluation``: the old
module forwards every name with a DeprecationWarning, ``play_scorpion`` to its new name."""

from __future__ import annotations

import warnings

import pytest

from shell_envs.bench import evaluation, games
from shell_envs.integrations import evaluation as old


@pytest.mark.parametrize(
    ("name", "new_name"),
    [
        ("play_match", "play_match"),
        ("play_scorpion", "evaluate_scorpion"),
        ("MatchResult", "MatchResult"),
        ("ScorpionResult", "ScorpionResult"),
    ],
)
def test_the_old_names_warn_and_forward(name, new_name):
    with pytest.warns(DeprecationWarning, match=f"shell_envs.bench.evaluation.{new_name}"):
        value = getattr(old, name)
    assert value is getattr(evaluation, new_name)


def test_from_import_of_the_old_module_still_works():
    with pytest.warns(DeprecationWarning):
        from shell_envs.integrations.evaluation import play_scorpion
    assert play_scorpion is evaluation.evaluate_scorpion


def test_an_unknown_name_is_an_attribute_error_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
            _ = old.no_such_name


def test_the_evaluation_no_longer_shares_a_name_with_the_bench_game_function():
    assert not hasattr(evaluation, "play_scorpion")
    assert games.play_scorpion is not evaluation.evaluate_scorpion
