"""The games registry agrees with the game packages it names."""

import importlib

import pytest

from shell_envs.registry import GAMES, game
from shell_envs.scorpion import rules as scorpion_rules


def test_every_game_package_imports():
    for g in GAMES.values():
        assert importlib.import_module(g.package).__name__ == g.package


def test_scorpion_rule_sets_are_the_rules_own():
    assert GAMES["scorpion"].rule_sets == scorpion_rules.RULE_SETS


@pytest.mark.parametrize("name", ["scorpion", "what_the_shell", "what-the-shell"])
def test_both_spellings_find_the_game(name):
    assert game(name).name == name.replace("-", "_")


def test_an_unknown_game_is_named_in_the_error():
    with pytest.raises(ValueError, match="'chess'"):
        game("chess")
