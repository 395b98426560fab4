"""One test per rule and per [resolved] case of the Scorpion rules of record."""

from __future__ import annotations

import numpy as np
import pytest

from shell_envs.scorpion import rules
from tests.scorpion.helpers import (
    STUCK_AFTER_ONE_MOVE,
    STUCK_AT_THE_START,
    action,
    codes,
    example_deal,
    make,
    position,
    start,
)

SPADES_K_TO_2 = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
HEARTS_K_TO_2 = "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"
DIAMONDS_K_TO_2 = "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"


# --- the deal -------------------------------------------------------------------------------


def test_deal_layout_seven_columns_of_seven_with_twelve_face_down():
    env = make()
    env.reset(seed=7)
    pos = env.unwrapped.position()
    assert [len(c) for c in pos["columns"]] == [7] * 7
    assert pos["face_down"] == [3, 3, 3, 3, 0, 0, 0]
    assert len(pos["reserve"]) == 3
    assert (pos["removed"], pos["score"], pos["moves"]) == (0, 0, 0)
    every = [c for col in pos["columns"] for c in col] + pos["reserve"]
    assert sorted(every) == sorted(set(every)) and len(every) == 52


def test_explicit_deal_follows_the_deal_order():
    deal = example_deal()
    env = make()
    env.reset(options={"deal": deal})
    pos = env.unwrapped.position()
    assert pos["columns"] == [deal[c * 7 : c * 7 + 7] for c in range(7)]
    assert pos["reserve"] == deal[49:]
    assert pos["columns"][1][3:] == codes("QH 3C 4H 7S")
    assert pos["columns"][6] == codes("AD QD 9D 6S 2H TD 5H")


def test_original_example_first_move_carries_7S_and_scores_5():
    env = make()
    env.reset(options={"deal": example_deal()})
    _, reward, terminated, truncated, info = env.step(action("4H", 7))
    pos = env.unwrapped.position()
    assert pos["columns"][1][3:] == codes("QH 3C")
    assert pos["face_down"][1] == 3
    assert pos["columns"][6] == codes("AD QD 9D 6S 2H TD 5H 4H 7S")
    assert (reward, info["score"], info["moves"]) == (5.0, 5, 1)
    assert not (terminated or truncated or info["illegal"])


# --- moves ----------------------------------------------------------------------------------


def test_blocks_move_regardless_of_sequence():
    env, _ = start(position({1: "KH 9S 2D QC 4H", 2: "TS"}))
    _, reward, _, _, info = env.step(action("9S", 2))
    assert not info["illegal"]
    assert env.unwrapped.position()["columns"][1] == codes("TS 9S 2D QC 4H")
    assert env.unwrapped.position()["columns"][0] == codes("KH")
    assert reward == 5


def test_only_the_first_card_decides():
    env, _ = start(position({1: "KH 7D 3D", 2: "4D", 3: "8D"}))
    assert (
        env.unwrapped.explain(action("7D", 2))
        == "7D is not one rank lower than 4D, the top card of column 2"
    )
    assert env.unwrapped.explain(action("7D", 3)) is None
    assert env.unwrapped.explain(action("3D", 2)) is None


def test_nothing_on_an_ace():
    env, info = start(position({1: "AS", 2: "KH", 3: "QC 2S"}))
    for card in ("KH", "2S"):
        assert env.unwrapped.explain(action(card, 1)) == "Nothing can be placed on an ace"
    assert not info["action_mask"][[c * 7 + 0 for c in range(52)]].any()


def test_kings_only_to_an_empty_column():
    env, info = start(position({1: "", 2: "7C QH JD", 3: "KH 5S 9C"}))
    msg = "Only a king can be placed on an empty column"
    assert env.unwrapped.explain(action("QH", 1)) == msg
    _, _, _, _, rejected = env.step(action("QH", 1))
    assert rejected["illegal"] and env.unwrapped.message == msg
    hu, _ = start(position({1: "", 2: "7C QH JD"}), lang="hu")
    assert hu.unwrapped.explain(action("QH", 1)) == "Üres oszlopra csak király kerülhet"
    _, reward, _, _, moved = env.step(action("KH", 1))
    assert not moved["illegal"] and reward == 0
    assert env.unwrapped.position()["columns"][0] == codes("KH 5S 9C")


def test_classic_needs_the_same_suit():
    env, info = start(position({1: "8S", 2: "KD 7H"}))
    assert not info["action_mask"][action("7H", 1)]
    _, _, _, _, info = env.step(action("7H", 1))
    assert info["illegal"] and env.unwrapped.message == "Rule: the cards must be of the same suit"
    hu, _ = start(position({1: "8S", 2: "KD 7H"}), lang="hu")
    assert (
        hu.unwrapped.explain(action("7H", 1)) == "Szabály: a lapoknak azonos színűnek kell lenniük"
    )


def test_relaxed_allows_any_suit_one_rank_higher():
    env, info = start(position({1: "8S", 2: "KD 7H", 3: "8H"}), rules="relaxed")
    assert info["action_mask"][action("7H", 1)] and info["action_mask"][action("7H", 3)]
    _, reward, _, _, info = env.step(action("7H", 1))
    assert not info["illegal"] and reward == 0
    _, reward, _, _, info = env.step(action("7H", 3))
    assert reward == 5


def test_relaxed_keeps_kings_only_and_one_suit_sequences():
    env, _ = start(position({1: "", 2: "9C QH"}), rules="relaxed")
    assert env.unwrapped.explain(action("QH", 1)) == "Only a king can be placed on an empty column"
    mixed = " ".join(codes(SPADES_K_TO_2)[:-1]) + " 2H"
    env, _ = start(position({1: mixed, 2: "AS"}), rules="relaxed")
    _, reward, _, _, info = env.step(action("AS", 1))
    assert (
        info["removed"] == 0 and reward == 0 and len(env.unwrapped.position()["columns"][0]) == 13
    )


def test_wrong_rank_and_hidden_cards_have_clear_messages():
    env, _ = start(position({1: "9C 2H 5S", 2: "TS"}, face_down={1: 2}, reserve="KC QC JC"))
    u = env.unwrapped
    assert u.explain(action("9C", 2)) == "9C is not face up: it is face down or in the reserve"
    assert u.explain(action("KC", 2)) == "KC is not face up: it is face down or in the reserve"
    assert (
        u.explain(action("5S", 2)) == "5S is not one rank lower than TS, the top card of column 2"
    )
    assert u.explain(action("5S", 1)) == "5S is already in column 1"


def test_flip_turns_the_face_down_card_up_and_scores_5():
    env, _ = start(position({1: "QD JD 8S", 2: "9S"}, face_down={1: 2}))
    _, reward, _, _, info = env.step(action("8S", 2))
    assert reward == 10 and info["score"] == 10
    assert env.unwrapped.position()["face_down"][0] == 1
    assert (
        env.unwrapped.explain(action("JD", 2))
        == "JD is not one rank lower than 8S, the top card of column 2"
    )


# --- removing sequences ---------------------------------------------------------------------


def test_sequence_removed_from_the_receiving_column():
    env, _ = start(position({1: SPADES_K_TO_2, 2: "9H AS"}))
    _, reward, _, _, info = env.step(action("AS", 1))
    assert reward == 105 and info["removed"] == 1 and info["score"] == 105
    assert env.unwrapped.position()["columns"][0] == []
    assert env.unwrapped.explain(action("KS", 2)) == "KS has already been removed with its sequence"


def test_removal_after_the_reserve_deal_checks_columns_1_to_3():
    pos = position({1: SPADES_K_TO_2, 2: HEARTS_K_TO_2, 3: DIAMONDS_K_TO_2}, reserve="AS AH AD")
    env, _ = start(pos)
    _, reward, _, _, info = env.step(rules.RESERVE_ACTION)
    assert reward == 300 and info["removed"] == 3
    assert env.unwrapped.position()["columns"][:3] == [[], [], []]


def test_sequence_uncovered_by_moving_cards_off_it_stays():
    env, _ = start(position({1: SPADES_K_TO_2 + " AS 5H", 2: "6H"}))
    _, reward, _, _, info = env.step(action("5H", 2))
    assert reward == 5 and info["removed"] == 0
    assert len(env.unwrapped.position()["columns"][0]) == 13


def test_uncovered_sequence_removed_when_its_king_moves_to_an_empty_column():
    env, _ = start(position({1: "5C " + SPADES_K_TO_2 + " AS", 2: ""}, face_down={1: 1}))
    _, reward, _, _, info = env.step(action("KS", 2))
    assert info["removed"] == 1 and reward == 105  # king to empty 0, flip of 5C +5, sequence +100
    assert env.unwrapped.position()["columns"][1] == []


def test_covered_sequence_stays():
    env, _ = start(position({1: SPADES_K_TO_2, 2: "AS 5H"}))
    _, reward, _, _, info = env.step(action("AS", 1))
    assert info["removed"] == 0 and reward == 5
    assert env.unwrapped.position()["columns"][0][-2:] == ["AS", "5H"]


def test_column_rechecked_after_a_removal():
    env, _ = start(position({1: HEARTS_K_TO_2 + " AH " + SPADES_K_TO_2, 2: "AS"}))
    _, reward, _, _, info = env.step(action("AS", 1))
    assert info["removed"] == 2 and reward == 205
    assert env.unwrapped.position()["columns"][0] == []


def test_face_down_card_left_on_top_after_a_removal_flips():
    env, _ = start(position({1: "9D " + SPADES_K_TO_2, 2: "AS"}, face_down={1: 1}))
    _, reward, _, _, info = env.step(action("AS", 1))
    assert reward == 110 and info["removed"] == 1
    pos = env.unwrapped.position()
    assert pos["columns"][0] == ["9D"] and pos["face_down"][0] == 0


# --- the reserve ----------------------------------------------------------------------------


def test_reserve_can_be_dealt_at_any_time():
    env = make()
    _, info = env.reset(seed=3)
    assert info["action_mask"][rules.RESERVE_ACTION]
    _, reward, _, _, info = env.step(rules.RESERVE_ACTION)
    assert reward == 0 and info["moves"] == 1
    assert [len(c) for c in env.unwrapped.position()["columns"]] == [8, 8, 8, 7, 7, 7, 7]


def test_reserve_dealt_onto_an_empty_column():
    env, _ = start(position({1: "", 2: "KH", 3: "KD"}, reserve="5C 6C 7S"))
    _, reward, _, _, info = env.step(rules.RESERVE_ACTION)
    assert not info["illegal"] and reward == 0
    cols = env.unwrapped.position()["columns"]
    assert cols[0] == ["5C"] and cols[1] == ["KH", "6C"] and cols[2] == ["KD", "7S"]
    assert env.unwrapped.position()["reserve"] == []


def test_reserve_only_once():
    env = make()
    env.reset(seed=3)
    env.step(rules.RESERVE_ACTION)
    assert not env.unwrapped.action_masks()[rules.RESERVE_ACTION]
    _, _, _, _, info = env.step(rules.RESERVE_ACTION)
    assert info["illegal"]
    assert env.unwrapped.message == "The reserve has already been dealt: it can be dealt only once"


# --- the score table ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "pos", "kwargs", "act", "points"),
    [
        ("same suit placement", {1: "9S", 2: "KH 8S"}, {}, ("8S", 1), 5),
        ("flip", {1: "JD 9H", 2: "TH"}, {"face_down": {1: 1}}, ("9H", 2), 10),
        ("sequence removed", {1: SPADES_K_TO_2, 2: "AS"}, {}, ("AS", 1), 105),
        ("king to an empty column", {1: "", 2: "QH KC"}, {}, ("KC", 1), 0),
        ("another suit under relaxed", {1: "9S", 2: "KH 8D"}, {"rules": "relaxed"}, ("8D", 1), 0),
        ("reserve deal", {1: "2S", 2: "2H", 3: "2D"}, {"reserve": "AS AH AD"}, None, 0),
    ],
)
def test_score_table(event, pos, kwargs, act, points):
    env_kwargs = {"rules": kwargs.pop("rules")} if "rules" in kwargs else {}
    env, _ = start(position(pos, **kwargs), **env_kwargs)
    a = rules.RESERVE_ACTION if act is None else action(*act)
    _, reward, _, _, info = env.step(a)
    assert not info["illegal"], event
    assert reward == points and info["score"] == points, event


# --- undo -----------------------------------------------------------------------------------


def test_undo_restores_state_and_score_exactly():
    pos = position({1: "9D " + SPADES_K_TO_2, 2: "QC AS", 3: "TD"}, face_down={1: 1, 2: 1})
    env, _ = start(pos, allow_undo=True)
    snapshots = [(env.unwrapped.get_state(), env.unwrapped.position())]
    for a in (action("AS", 1), action("9D", 3)):
        _, reward, _, _, info = env.step(a)
        assert not info["illegal"]
        snapshots.append((env.unwrapped.get_state(), env.unwrapped.position()))
    # AS: 5 same suit + 5 QC flips + 100 sequence + 5 9D flips; 9D onto TD: 5
    assert env.unwrapped.position()["score"] == 120
    for expected_state, expected_pos in reversed(snapshots[:-1]):
        before = env.unwrapped.position()["score"]
        _, reward, _, _, info = env.step(rules.UNDO_ACTION)
        after = env.unwrapped.position()
        assert after == expected_pos
        assert reward == after["score"] - before
        got = env.unwrapped.get_state()
        for a, b in zip(got.arrays[:5], expected_state.arrays[:5], strict=True):
            np.testing.assert_array_equal(a, b)
    assert env.unwrapped.explain(rules.UNDO_ACTION) == "There is no move to undo"


def test_undo_of_the_reserve_deal_restores_the_reserve():
    env = make(allow_undo=True)
    env.reset(seed=11)
    before = env.unwrapped.position()
    env.step(rules.RESERVE_ACTION)
    env.step(rules.UNDO_ACTION)
    assert env.unwrapped.position() == before
    assert env.unwrapped.action_masks()[rules.RESERVE_ACTION]


def test_undo_history_limited_to_100_moves():
    env, _ = start(position({1: "KH", 2: ""}), allow_undo=True)
    for i in range(105):
        _, _, _, _, info = env.step(action("KH", 2 if i % 2 == 0 else 1))
        assert not info["illegal"]
    for _ in range(100):
        _, _, _, _, info = env.step(rules.UNDO_ACTION)
        assert not info["illegal"]
    assert info["moves"] == 5
    assert not info["action_mask"][rules.UNDO_ACTION]
    _, _, _, _, info = env.step(rules.UNDO_ACTION)
    assert info["illegal"]
    assert env.unwrapped.message == "Nothing more to undo: only the last 100 moves can be undone"


def test_undo_is_out_of_range_without_allow_undo():
    env = make()
    env.reset(seed=1)
    assert env.action_space.n == 365
    assert env.unwrapped.explain(365) == "Action 365 is out of range: actions are 0–364"


# --- end of the game ------------------------------------------------------------------------


def test_terminates_on_a_win():
    pos = position({1: SPADES_K_TO_2, 2: "AS"}, removed="HDC", filler=1)
    for reward_mode, expected in (("score", 105.0), ("win", 1.0)):
        env, _ = start(pos, reward=reward_mode)
        _, reward, terminated, truncated, info = env.step(action("AS", 1))
        assert (reward, terminated, truncated, info["won"], info["removed"]) == (
            expected,
            True,
            False,
            True,
            4,
        )
        assert (
            env.unwrapped.explain(364) == "The game is over: all four sequences have been removed"
        )
        assert not env.unwrapped.action_masks().any()


def test_win_reward_is_zero_before_the_win():
    env, _ = start(position({1: "9S", 2: "KH 8S"}), reward="win")
    _, reward, terminated, _, _ = env.step(action("8S", 1))
    assert reward == 0.0 and not terminated


def test_stuck_with_a_move_to_take_back_goes_on_with_undo_its_only_action():
    env, info = start(STUCK_AFTER_ONE_MOVE, allow_undo=True)
    first = env.unwrapped.position()
    assert np.flatnonzero(info["action_mask"]).tolist() == [action("3C", 4)]  # nothing to undo
    _, reward, terminated, truncated, info = env.step(action("3C", 4))
    assert reward == 5 and not terminated and not truncated
    assert np.flatnonzero(info["action_mask"]).tolist() == [rules.UNDO_ACTION]
    assert env.unwrapped.explain(rules.UNDO_ACTION) is None
    _, reward, terminated, truncated, info = env.step(rules.UNDO_ACTION)
    assert not info["illegal"] and reward == -5 and not terminated and not truncated
    assert env.unwrapped.position() == first
    # play goes on from the restored position
    _, reward, terminated, _, info = env.step(action("3C", 4))
    assert not info["illegal"] and reward == 5 and not terminated


def test_stuck_without_undo_ends_the_game():
    env, _ = start(STUCK_AFTER_ONE_MOVE)
    _, reward, terminated, truncated, info = env.step(action("3C", 4))
    assert terminated and not truncated and reward == 5
    assert not info["action_mask"].any()
    before = env.unwrapped.get_state()
    _, reward, terminated, _, info = env.step(action("3C", 5))
    assert info["illegal"] and reward == 0 and terminated
    assert info["code"] == rules.E_NO_MOVES and "no legal move is left" in env.unwrapped.message
    assert env.unwrapped.get_state() == before


def test_stuck_with_undo_but_nothing_to_take_back_ends_the_game():
    env, info = start(STUCK_AT_THE_START, allow_undo=True)
    assert not info["action_mask"].any()
    before = env.unwrapped.get_state()
    _, reward, terminated, _, info = env.step(rules.UNDO_ACTION)
    assert info["illegal"] and reward == 0 and terminated
    assert info["code"] == rules.E_NO_MOVES and "no legal move is left" in env.unwrapped.message
    assert env.unwrapped.get_state() == before


def test_truncates_at_max_moves():
    env, _ = start(position({1: "KH", 2: ""}), max_moves=3)
    results = [env.step(action("KH", 2 if i % 2 == 0 else 1))[2:4] for i in range(3)]
    assert results == [(False, False), (False, False), (False, True)]
