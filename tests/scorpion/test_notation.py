"""Scorpion's move notation: every action written, read back and described, bad text refused."""

from __future__ import annotations

import pytest

from shell_envs.scorpion.actions import (
    N_ACTIONS,
    N_COLUMNS,
    N_MOVES,
    RESERVE_ACTION,
    UNDO_ACTION,
    decode_move,
    encode_move,
)
from shell_envs.scorpion.cards import card_code, card_label, parse_card
from shell_envs.scorpion.messages import action_text
from shell_envs.scorpion.notation import NotAMove, describe_action, parse_move


def test_every_action_is_read_back_from_its_text() -> None:
    for action in range(N_ACTIONS):
        assert parse_move(action_text(action)) == action


def test_every_card_move_reads_in_each_spelling() -> None:
    for action in range(N_MOVES):
        _reads_in_each_spelling(action)


def _reads_in_each_spelling(action: int) -> None:
    """``action`` (a card move) is read from the solver's notation, arrows and symbols."""
    card, column = decode_move(action)
    code, label = card_code(card), card_label(card)
    for text in (
        f"{code} {column + 1}",
        f"{code.lower()}{column + 1}",
        f"{code}→{column + 1}",
        f"{code} -> {column + 1}",
        f"{code} > {column + 1}",
        f"{code}, {column + 1}",
        f"{code} to {column + 1}",
        f"{code} ON {column + 1}",
        f"{label} {column + 1}",  # 10 for ten, suit symbols
        f"  {code} {column + 1}\n",
    ):
        assert parse_move(text) == action, text


def test_the_reserve_deal_and_undo_read_in_any_case() -> None:
    for text in ("d", "D", "deal", "Deal Reserve", " d "):
        assert parse_move(text) == RESERVE_ACTION
    for text in ("u", "U"):
        assert parse_move(text) == UNDO_ACTION


def test_every_move_is_described_in_words() -> None:
    assert describe_action(RESERVE_ACTION) == "the reserve dealt"
    assert describe_action(parse_move("4H 7")) == "4H onto column 7"
    assert describe_action(parse_move("10♠ 1")) == "TS onto column 1"
    for card in range(52):
        for column in range(N_COLUMNS):
            action = encode_move(card, column)
            assert describe_action(action) == f"{card_code(card)} onto column {column + 1}"
            assert describe_action(action) == "{} onto column {}".format(
                *action_text(action).split()
            )


@pytest.mark.parametrize("text", ["", "x", "4H", "4X 7", "1H 7", "4H 7 8", "undo", "dd", "4H -7"])
def test_text_that_is_no_move_is_refused_saying_what_to_type(text: str) -> None:
    with pytest.raises(NotAMove, match="type a card and a column, like '4H 7'") as error:
        parse_move(text)
    assert str(error.value) == f"Could not read {text!r}: type a card and a column, like '4H 7'."
    with pytest.raises(NotAMove) as noted:
        parse_move(text, help_note=" (? = help)")
    assert str(noted.value).endswith("like '4H 7' (? = help).")


@pytest.mark.parametrize(
    ("column", "shown"),
    [("0", "0"), ("8", "8"), ("0007", "0007"), ("9" * 12, "9" * 12)]
    + [("7" * 13, "777777… (13 digits)"), ("7" * 5000, "777777… (5000 digits)")],
)
def test_columns_other_than_1_to_7_are_refused_by_number(column: str, shown: str) -> None:
    with pytest.raises(NotAMove) as error:
        parse_move(f"4H {column}", help_note=" (? = help)")
    assert str(error.value) == f"There is no column {shown}: columns are numbered 1 to 7."


def test_not_a_move_is_a_value_error_and_cards_parse_as_before() -> None:
    assert issubclass(NotAMove, ValueError)
    assert parse_move("4H 7") == encode_move(parse_card("4H"), 6) == 16 * 7 + 6
