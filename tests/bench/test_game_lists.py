"""The bench, agents and integrations read the games and rule sets from their one home."""

from __future__ import annotations

import pytest

from shell_envs import registry
from shell_envs.agents import spec
from shell_envs.bench import patience, replay, report, runner, threads
from shell_envs.scorpion.rules import RULE_SETS


def test_the_old_lists_are_the_registry():
    games = tuple(registry.GAMES)
    assert spec.GAMES == runner.GAMES == threads.GAMES == games == ("what_the_shell", "scorpion")
    assert report.RULE_SETS == RULE_SETS == ("classic", "relaxed", "traditional")
    assert patience.DEFAULT_RULES == ("classic", "relaxed")  # "both", what the bench plays
    assert replay.GAME_NAMES == {"what_the_shell": "What the Shell", "scorpion": "Scorpion"}


@pytest.mark.parametrize(
    ("game", "games"),
    [
        ("all", ("what_the_shell", "scorpion")),
        ("what-the-shell", ("what_the_shell",)),
        ("what_the_shell", ("what_the_shell",)),
        ("scorpion", ("scorpion",)),
    ],
)
def test_the_game_choices_of_the_bench(game, games):
    assert runner.make_settings(game=game, quick=True).games == games


@pytest.mark.parametrize(
    ("rules", "chosen"),
    [
        ("both", ("classic", "relaxed")),
        ("all", ("classic", "relaxed", "traditional")),
        ("classic", ("classic",)),
        ("relaxed", ("relaxed",)),
        ("traditional", ("traditional",)),
    ],
)
def test_the_rule_choices_of_the_bench(rules, chosen):
    assert runner.make_settings(rules=rules, quick=True).rules == chosen
    assert runner.make_settings(quick=True).rules == ("classic", "relaxed")  # the default


def test_bad_choices_say_what_is_allowed():
    with pytest.raises(
        ValueError, match=r"^game must be what-the-shell, scorpion or all, got 'x'$"
    ):
        runner.make_settings(game="x")
    with pytest.raises(
        ValueError, match=r"^rules must be classic, relaxed, traditional, both or all, got 'x'$"
    ):
        runner.make_settings(rules="x")
