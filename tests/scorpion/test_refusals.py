"""One table of check codes and messages: the single and the batched env refuse alike.

Both envs find a refusal's code and its words through `shell_envs.scorpion.messages`
(`refusal`); here every action of positions built to reach every check code is refused by
both, in both languages, and must get the same code and the same message.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from shell_envs.core.errors import IllegalMove
from shell_envs.scorpion import messages, rules
from shell_envs.scorpion.env import ScorpionEnv
from shell_envs.scorpion.state import ScorpionState
from shell_envs.scorpion.vector import ScorpionVectorEnv
from tests.scorpion.helpers import position

# an empty column, hearts removed, the reserve dealt, moves made but none remembered
OPEN = {
    **position({1: "KS QS", 2: "AD", 3: "5C 4C", 4: "9D", 5: "2S", 6: ""}, removed="H"),
    "moves": 5,
}
# spades alone, each card under its successor or with no top one rank higher: no move at all
STUCK = {
    "columns": [
        ["AS"],
        ["2S", "3S"],
        ["4S", "5S"],
        ["6S", "7S"],
        ["8S", "9S"],
        ["TS", "JS"],
        ["QS", "KS"],
    ],
    "face_down": [0] * 7,
    "reserve": [],
    "removed": 3,
}
WON = {"columns": [[]] * 7, "face_down": [0] * 7, "reserve": [], "removed": 4}
POSITIONS = {"deal": None, "open": OPEN, "stuck": STUCK, "won": WON}
# the same cases with all 52 cards, as the traditional rules need them (nothing is removed)
RUN = "K Q J T 9 8 7 6 5 4 3 2 A"
TRADITIONAL_POSITIONS = {
    "deal": None,
    "open": {**position({1: "KS QS", 2: "AD", 3: "5C 4C", 4: "9D", 5: "2S", 6: ""}), "moves": 5},
    # the other suits lie under column 7's spades: only spades are on top, and no column is empty
    "stuck": position(
        {1: "AS", 2: "2S 3S", 3: "4S 5S", 4: "6S 7S", 5: "8S 9S", 6: "TS JS", 7: "QS KS"}
    ),  # fmt: skip
    "won": position({c + 1: " ".join(r + s for r in RUN.split()) for c, s in enumerate("SHDC")}),
}
CODES = {v for k, v in vars(rules).items() if k.startswith("E_")}  # every code but OK


def _single(name: str, rule_set: str, allow_undo: bool, lang: str, raise_: bool = False):
    """A single env in position ``name`` (``deal``: deal 0, just dealt)."""
    single = ScorpionEnv(
        rules=rule_set, allow_undo=allow_undo, lang=lang,
        illegal_action="raise" if raise_ else "reject",
    )  # fmt: skip
    positions = TRADITIONAL_POSITIONS if rule_set == "traditional" else POSITIONS
    if positions[name] is None:
        single.reset(seed=0)
    else:
        single.reset(options={"position": positions[name]})
    return single


def _load(batched: ScorpionVectorEnv, state: ScorpionState) -> None:
    """Put ``state`` into game 0 of ``batched``, with its mask, as a step would leave it."""
    for rows, array in zip(batched.arrays, state.arrays, strict=True):
        rows[0] = array
    game = tuple(rows[0] for rows in batched.arrays)
    rules.legal_mask(game, batched.allow_undo, batched.masks[0])


def _actions(n_actions: int) -> list[int]:
    return [*range(n_actions), n_actions, n_actions + 7, 10**9, -1]


@pytest.mark.parametrize("rule_set", rules.RULE_SETS)
@pytest.mark.parametrize("allow_undo", [False, True])
@pytest.mark.parametrize("lang", ["en", "hu"])
def test_explain_agrees_for_every_action_of_every_position(rule_set, allow_undo, lang):
    seen = set()
    batched = ScorpionVectorEnv(1, rules=rule_set, allow_undo=allow_undo, lang=lang)
    batched.reset(seed=0)
    for name in POSITIONS:
        single = _single(name, rule_set, allow_undo, lang)
        state = single.get_state()
        _load(batched, state)
        n_legal = int(single.action_masks().sum())
        for action in _actions(single.n_actions):
            text = single.explain(action)
            assert batched.explain(0, action) == text, (name, action)
            code = messages.refusal_code(
                state.arrays, action, single.n_actions, allow_undo, n_legal
            )
            assert (text is None) == (code == rules.OK), (name, action)
            seen.add(code)
    unreachable = {rules.E_SAME_SUIT} if rule_set == "relaxed" else set()
    if rule_set == "traditional":
        unreachable = {rules.E_CARD_REMOVED}  # no card is ever removed
    if not allow_undo:
        unreachable |= {rules.E_NOTHING_TO_UNDO, rules.E_UNDO_LIMIT}  # undo is out of range
    assert seen - {rules.OK} == CODES - unreachable


@pytest.mark.parametrize("allow_undo", [False, True])
@pytest.mark.parametrize("lang", ["en", "hu"])
def test_a_refused_step_gets_the_same_code_and_message(allow_undo, lang):
    """Steps of games that have not ended (the batched env resets an ended game instead)."""
    reject = ScorpionVectorEnv(1, allow_undo=allow_undo, lang=lang)
    strict = ScorpionVectorEnv(1, allow_undo=allow_undo, lang=lang, illegal_action="raise")
    for batched in (reject, strict):
        batched.reset(seed=0)
    for name in ("deal", "open"):
        single = _single(name, "classic", allow_undo, lang)
        single_strict = _single(name, "classic", allow_undo, lang, raise_=True)
        state = single.get_state()
        for action in _actions(single.n_actions):
            single.set_state(state)
            *_, info = single.step(action)
            _load(reject, state)
            *_, infos = reject.step(np.array([action]))
            assert infos["code"][0] == info["code"], (name, action)
            if not info["illegal"]:
                continue
            _load(strict, state)
            with pytest.raises(IllegalMove) as refused:
                strict.step(np.array([action]))
            assert str(refused.value) == f"env 0: {single.message}"
            single_strict.set_state(state)
            with pytest.raises(IllegalMove, match=f"^{re.escape(single.message)}$"):
                single_strict.step(action)


def test_an_ended_game_says_so_in_both_envs():
    """A game with no move left: the single env's words, which the batched env now gives
    too (it used to name the card of each action)."""
    single = _single("stuck", "classic", False, "en")
    batched = ScorpionVectorEnv(1)
    batched.reset(seed=0)
    _load(batched, single.get_state())
    expected = messages.message(rules.E_NO_MOVES)
    assert single.explain(rules.encode_move(0, 1)) == expected
    assert batched.explain(0, rules.encode_move(0, 1)) == expected
    *_, info = single.step(0)
    assert info["code"] == rules.E_NO_MOVES and single.message == expected
