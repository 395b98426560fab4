"""The Gymnasium API of Scorpion-v0: keywords, spaces, masks, illegal actions, deals, render."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from shell_envs.core.errors import IllegalMove
from shell_envs.scorpion import (
    ENCODERS,
    ScorpionEnv,
    ScorpionState,
    TableauEncoder,
    deck_of,
    register_encoder,
    rules,
)
from shell_envs.scorpion.cards import card_code, parse_card
from shell_envs.scorpion.messages import MESSAGES, message
from tests.scorpion.helpers import action, codes, example_deal, make, position, start


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"rules": "wasp"}, "rules must be one of 'classic', 'relaxed', 'traditional'"),
        ({"obs_encoder": "pixels"}, "registered: cards, tableau"),
        ({"obs_encoder": 3}, "obs_encoder must be a registered name"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of 'reject', 'raise'"),
        ({"allow_undo": "yes"}, "allow_undo must be True or False"),
        ({"lang": "de"}, "lang must be one of 'en', 'hu'"),
        ({"max_moves": 0}, "max_moves must be a positive integer or None"),
        ({"max_moves": 2.5}, "max_moves must be a positive integer or None"),
        ({"reward": "points"}, "reward must be one of 'score', 'win'"),
        ({"mask_in_obs": 1}, "mask_in_obs must be True or False"),
        ({"render_mode": "video"}, "render_mode must be one of 'ansi', 'rgb_array', 'human'"),
    ],
)
def test_constructor_rejects_bad_keywords(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        ScorpionEnv(**kwargs)


def test_spaces_and_info_keys():
    env = make()
    assert env.action_space == spaces.Discrete(365)
    assert make(allow_undo=True).action_space == spaces.Discrete(366)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    keys = {"action_mask", "score", "removed", "moves", "won", "illegal", "code", "deal"}
    assert set(info) == keys
    _, _, _, _, info = env.step(rules.RESERVE_ACTION)
    assert set(info) == keys and info["deal"] == 0
    assert env.unwrapped.message == "" and info["illegal"] is False and info["code"] == 0


def test_action_masks_match_info_and_are_copies():
    env = make()
    _, info = env.reset(seed=5)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (365,)
    np.testing.assert_array_equal(mask, info["action_mask"])
    mask[:] = False
    assert env.unwrapped.action_masks().any()


def test_mask_in_obs_gives_a_dict_observation():
    env = make(mask_in_obs=True, allow_undo=True)
    obs, info = env.reset(seed=2)
    assert isinstance(env.observation_space, spaces.Dict)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["action_mask"].astype(bool), info["action_mask"])
    obs, _, _, _, info = env.step(rules.RESERVE_ACTION)
    np.testing.assert_array_equal(obs["action_mask"].astype(bool), info["action_mask"])
    assert obs["action_mask"][rules.UNDO_ACTION] == 1


def test_illegal_action_rejected_leaves_the_game_unchanged():
    env = make()
    obs, _ = env.reset(seed=4)
    before = env.unwrapped.position()
    for bad in (-1, 365, 10**30):
        obs2, reward, terminated, truncated, info = env.step(bad)
        assert info["illegal"] and reward == 0 and not terminated
        assert env.unwrapped.message.startswith(f"Action {bad} is out of range")
        assert info["code"] == rules.E_OUT_OF_RANGE
        np.testing.assert_array_equal(obs, obs2)
    for bad in (3.5, "x", np.array([1, 2]), True):
        with pytest.raises(ValueError, match="an action must be one integer"):
            env.step(bad)
    assert env.unwrapped.position() == before


def test_illegal_action_raise():
    env = make(illegal_action="raise")
    env.reset(seed=4)
    before = env.unwrapped.position()
    illegal = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    expected = env.unwrapped.explain(illegal)
    with pytest.raises(IllegalMove, match=expected) as err:
        env.step(illegal)
    assert isinstance(err.value, ValueError)
    assert env.unwrapped.position() == before


def test_explain_is_none_exactly_for_legal_actions():
    env = make(allow_undo=True)
    _, info = env.reset(seed=9)
    for a in range(366):
        assert (env.unwrapped.explain(a) is None) == bool(info["action_mask"][a])


def test_every_message_exists_in_both_languages():
    assert MESSAGES["en"].keys() == MESSAGES["hu"].keys()
    for code in MESSAGES["en"]:
        en = message(code, "en", action=7, card=16, column=2, top=30)
        hu = message(code, "hu", action=7, card=16, column=2, top=30)
        assert en and hu and en != hu and "\n" not in en + hu
    assert message(rules.E_CARD_HIDDEN, "hu", card=16) == (
        "Kőr 4 nem látható lap: le van fordítva vagy a tartalékban van"
    )


def test_hungarian_messages_through_the_env():
    env = make(lang="hu", allow_undo=True)
    env.reset(seed=4)
    assert env.unwrapped.explain(rules.UNDO_ACTION) == "Nincs visszavonható lépés"
    assert env.unwrapped.explain(999) == "Érvénytelen lépés (999): a lépések 0 és 365 közöttiek"
    env.step(rules.RESERVE_ACTION)
    _, _, _, _, info = env.step(rules.RESERVE_ACTION)
    assert env.unwrapped.message == "A tartalék csak egyszer osztható ki, és már kiosztottuk"
    assert info["code"] == rules.E_RESERVE_DEALT
    ace, _ = start(position({1: "AS", 2: "KH"}), lang="hu")
    assert ace.unwrapped.explain(action("KH", 1)) == "Ászra semmi sem helyezhető"


def test_reset_seed_is_the_deal_number_and_reproducible():
    env = make()
    obs1, info = env.reset(seed=123)
    pos1 = env.unwrapped.position()
    assert info["deal"] == 123 and env.unwrapped.deal_number == 123
    obs2, _ = env.reset(seed=123)
    np.testing.assert_array_equal(obs1, obs2)
    assert env.unwrapped.position() == pos1 == ScorpionState.from_number(123).position()
    env.reset(seed=124)
    assert env.unwrapped.position() != pos1
    env.reset(options={"deal": 123})
    assert env.unwrapped.position() == pos1
    a, b = make(), make()
    a.reset(seed=5)
    b.reset(seed=5)
    a.reset()
    b.reset()
    assert a.unwrapped.position() == b.unwrapped.position()


def test_deal_numbers_are_fixed():
    assert [card_code(c) for c in deck_of(0)[:8]] == codes("6D 8S TC TD KD JH 2C KC")
    assert [card_code(c) for c in deck_of(1)[:8]] == codes("TH 2D 5C JD QS 5H TC QC")
    assert sorted(deck_of(2**63 - 1).tolist()) == list(range(52))
    with pytest.raises(ValueError, match="deal number must be 0"):
        deck_of(-1)


@pytest.mark.parametrize(
    ("deal", "fragment"),
    [
        (example_deal()[:51], "a deal must have 52 cards, got 51"),
        (example_deal()[:51] + ["4H"], "duplicate card\\(s\\): 4H"),
        (example_deal()[:51] + ["1X"], "card 52: unknown card code '1X'"),
        ("AS 2S", "a deal must be a list of 52 card codes"),
    ],
)
def test_bad_deals_say_what_is_wrong(deal, fragment):
    with pytest.raises(ValueError, match=fragment):
        make().reset(options={"deal": deal})


def test_bad_options_and_positions():
    env = make()
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"shuffle": True})
    bad = position({1: "KH"})
    bad["face_down"][0] = 1
    with pytest.raises(ValueError, match=r"face_down.*\(column 1\) is 1, but the column has 1"):
        env.reset(options={"position": bad})
    missing = position({1: "KH"})
    missing["columns"][6].remove("4D")
    with pytest.raises(ValueError, match="missing: 4D"):
        env.reset(options={"position": missing})


def test_cards_parse_and_print():
    assert parse_card("4H") == 16 and parse_card("ts") == 9 and parse_card("10♥") == 22
    assert card_code(0) == "AS" and card_code(12) == "KS" and card_code(13) == "AH"
    assert card_code(51) == "KC"
    with pytest.raises(ValueError, match="unknown card code"):
        parse_card("ZZ")


def test_position_format():
    env = make()
    env.reset(options={"deal": example_deal()})
    pos = env.unwrapped.position()
    assert set(pos) == {"columns", "face_down", "reserve", "removed", "score", "moves"}
    assert pos["columns"][4] == codes("6H 8C JS 4C 9C 8D 5C")
    assert pos["face_down"] == [3, 3, 3, 3, 0, 0, 0]


def test_encoders_hide_face_down_and_reserve_cards():
    deal = example_deal()
    swapped = deal.copy()
    swapped[0], swapped[51] = swapped[51], swapped[0]  # a face-down card ↔ a reserve card
    for name in ("tableau", "cards"):
        a, b = make(obs_encoder=name), make(obs_encoder=name)
        obs_a, _ = a.reset(options={"deal": deal})
        obs_b, _ = b.reset(options={"deal": swapped})
        np.testing.assert_array_equal(obs_a, obs_b)


def test_tableau_encoder_features():
    env = make(obs_encoder="tableau")
    obs, _ = env.reset(options={"deal": example_deal()})
    assert obs.shape == (366,) and obs.dtype == np.int8
    assert obs[0] == 53 and obs[3] == parse_card("3D") + 1
    assert obs[6 * 52 + 6] == parse_card("5H") + 1 and obs[6 * 52 + 7] == 0
    assert (obs[364], obs[365]) == (3, 0)


def test_cards_encoder_features():
    env = make(obs_encoder="cards")
    obs, _ = env.reset(options={"deal": example_deal()})
    feats = obs[:208].reshape(52, 4)
    assert feats[parse_card("4H")].tolist() == [1, 5, 1, 1]
    assert feats[parse_card("5H")].tolist() == [6, 6, 0, 1]
    hidden = sorted(
        set(range(52)) - {parse_card(c) for c in example_deal()[:49]}
        | {parse_card(c) for col in range(4) for c in example_deal()[col * 7 : col * 7 + 3]}
    )
    assert all(feats[c].tolist() == [7, 0, 0, 0] for c in hidden)
    assert obs[208:215].tolist() == [3, 3, 3, 3, 0, 0, 0] and obs[215] == 3 and obs[216] == 0
    removed = make(obs_encoder="cards")
    obs, _ = removed.reset(options={"position": position({1: "KH"}, removed="S")})
    assert obs[: 13 * 4 : 4].tolist() == [8] * 13 and obs[216] == 1


def test_users_can_register_their_own_encoder():
    class Score:
        space = spaces.Box(0, 10_000, (1,), np.int32)

        def encode(self, state):
            return np.array([state.score], np.int32)

    register_encoder("score_only_test", Score, overwrite=True)
    assert "score_only_test" in ENCODERS.names()
    env = make(obs_encoder="score_only_test")
    env.reset(options={"deal": example_deal()})
    obs, *_ = env.step(action("4H", 7))
    assert obs.tolist() == [5]
    with pytest.raises(ValueError, match="already has an encoder"):
        register_encoder("tableau", TableauEncoder)
    direct = make(obs_encoder=Score())
    obs, _ = direct.reset(seed=0)
    assert obs.tolist() == [0]


def test_render_ansi():
    env = make(render_mode="ansi")
    env.reset(options={"deal": example_deal()})
    text = env.render()
    lines = text.splitlines()
    assert lines[0].startswith("Scorpion (Classic)  score 0")
    assert "##" in lines[3] and "TD" in text
    assert lines[2].split() == ["1", "2", "3", "4", "5", "6", "7"]
    assert lines[3].split()[4:] == ["6H", "6D", "AD"]
    # every card as the messages write it and moves take it (its code), no suit symbols
    assert not set(text) & set("♠♥♦♣")
    shown = [code for line in lines[3:] for code in line.split() if code != "##"]
    assert len(shown) == 52 - 4 * 3 - 3 and all(card_code(parse_card(c)) == c for c in shown)


def test_render_rgb_array():
    env = make(render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10
    env.reset(
        options={"position": position({1: " ".join(card_code(i) for i in range(13, 52))}, filler=2)}
    )
    assert env.render().shape == frame.shape


def test_render_human_with_a_dummy_display(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = make(render_mode="human")
    env.reset(seed=1)
    env.step(rules.RESERVE_ACTION)
    assert env.render() is None
    env.close()


def test_pickle_and_deepcopy_continue_identically():
    env = make(allow_undo=True)
    env.reset(seed=21)
    env.step(rules.RESERVE_ACTION)
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.unwrapped.position() == env.unwrapped.position()
        np.testing.assert_array_equal(clone.unwrapped.action_masks(), env.unwrapped.action_masks())
        a = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        assert clone.step(a)[1] == copy.deepcopy(env).step(a)[1]


def test_get_and_set_state():
    env = make()
    env.reset(seed=8)
    saved = env.unwrapped.get_state()
    env.step(rules.RESERVE_ACTION)
    env.unwrapped.set_state(saved)
    assert env.unwrapped.position() == saved.position()
    assert env.unwrapped.action_masks()[rules.RESERVE_ACTION]
    with pytest.raises(ValueError, match="rules do not match"):
        make(rules="relaxed").unwrapped.set_state(saved)
    with pytest.raises(ValueError, match="rules do not match"):
        make(rules="traditional").unwrapped.set_state(saved)


def test_registered_with_gymnasium():
    import shell_envs  # noqa: F401

    assert "shell_envs/Scorpion-v0" in gym.registry
    assert isinstance(gym.make("shell_envs/Scorpion-v0").unwrapped, ScorpionEnv)
