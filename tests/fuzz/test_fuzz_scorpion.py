"""Fuzzing Scorpion's public surface: actions, seeds, deals, positions, set_state, make_vec.

Every bad input must get an error of the right type whose message names the problem, and
leave the game exactly as it was (``get_state()``, ``position()``, the generators).
"""

from __future__ import annotations

import json
import re

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import shell_envs  # noqa: F401  (registers the envs)
from shell_envs.core.errors import IllegalMove
from shell_envs.scorpion import rules
from shell_envs.scorpion.cards import parse_cards
from shell_envs.scorpion.state import ScorpionState
from tests.fuzz.helpers import HUGE, NOT_AN_INTEGER, generator_state, run_python
from tests.scorpion.helpers import action, position, start

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def snapshot(env) -> tuple:
    """Everything a refused input must leave alone."""
    u = env.unwrapped
    return (
        u.get_state(),
        u.position(),
        u._steps,
        u._deal,
        u.action_masks().tolist(),
        generator_state(u.np_random),
    )


@FUZZ
@given(bad=NOT_AN_INTEGER, mode=st.sampled_from(["reject", "raise"]))
def test_an_action_that_is_not_one_integer_says_so_and_changes_nothing(bad, mode):
    env = gym.make("shell_envs/Scorpion-v0", illegal_action=mode, allow_undo=True)
    env.reset(seed=3)
    before = snapshot(env)
    with pytest.raises(ValueError, match="an action must be one integer") as caught:
        env.step(bad)
    assert not isinstance(caught.value, IllegalMove)
    with pytest.raises(ValueError, match="an action must be one integer"):
        env.unwrapped.explain(bad)
    assert snapshot(env) == before


@FUZZ
@given(
    bad=st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=366),
        HUGE,
        st.sampled_from([10**5000, -(10**5000)]),  # beyond what Python will write out
    )
)
def test_an_integer_out_of_range_is_refused_by_the_rules(bad):
    env = gym.make("shell_envs/Scorpion-v0", allow_undo=True)
    env.reset(seed=3)
    state = env.unwrapped.get_state()
    _, reward, terminated, _, info = env.step(bad)
    assert info["illegal"] and reward == 0 and not terminated
    assert "out of range" in env.unwrapped.message
    assert env.unwrapped.get_state() == state


def test_a_refused_action_then_legal_play_is_the_game_never_sent_it():
    rng = np.random.default_rng(0)
    clean = gym.make("shell_envs/Scorpion-v0")
    noisy = gym.make("shell_envs/Scorpion-v0")
    _, info = clean.reset(seed=21)
    noisy.reset(seed=21)
    for _ in range(40):
        with pytest.raises(ValueError):
            noisy.step(float(rng.integers(365)))
        legal = np.flatnonzero(info["action_mask"])
        if legal.size == 0:
            break
        a = int(rng.choice(legal))
        o1, r1, t1, u1, info = clean.step(a)
        o2, r2, t2, u2, info2 = noisy.step(a)
        np.testing.assert_array_equal(o1, o2)
        assert (r1, t1, u1) == (r2, t2, u2)
        assert clean.unwrapped.get_state() == noisy.unwrapped.get_state()


@pytest.mark.parametrize(
    "seed, fragment",
    [
        (2**70, "seed must be an integer from 0 to"),
        pytest.param(10**5000, "got an integer of about 5001 digits", id="5000 digits"),
        (-1, "seed must be an integer from 0 to"),
        (3.0, "seed must be an integer"),
        ("5", "seed must be an integer"),
        (True, "seed must be an integer"),
    ],
)
def test_bad_seeds_are_value_errors_and_change_nothing(seed, fragment):
    env = gym.make("shell_envs/Scorpion-v0")
    env.reset(seed=11)
    before = snapshot(env)
    with pytest.raises(ValueError, match=fragment):
        env.reset(seed=seed)
    assert snapshot(env) == before


def test_numpy_integer_seeds_and_deal_numbers_are_accepted_like_ints():
    a, b = gym.make("shell_envs/Scorpion-v0"), gym.make("shell_envs/Scorpion-v0")
    oa, ia = a.reset(seed=12345)
    ob, ib = b.reset(seed=np.int64(12345))
    np.testing.assert_array_equal(oa, ob)
    assert ia["deal"] == ib["deal"] == 12345
    _, ic = b.reset(options={"deal": np.uint32(12345)})
    assert ic["deal"] == 12345 and a.unwrapped.get_state() == b.unwrapped.get_state()
    with pytest.raises(ValueError, match=r"options\['deal'\] must be an integer from 0"):
        b.reset(options={"deal": 2**70})


def valid_position() -> dict:
    env = gym.make("shell_envs/Scorpion-v0")
    env.reset(seed=5)
    return env.unwrapped.position()


BAD_FIELDS = [
    ("face_down", [3.0, 3, 3, 3, 0, 0, 0], r"face_down'\]\[0\] \(column 1\) must be an integer"),
    ("face_down", [None, 3, 3, 3, 0, 0, 0], r"face_down'\]\[0\].*got None"),
    ("face_down", ["3", 3, 3, 3, 0, 0, 0], r"face_down'\]\[0\].*got '3'"),
    ("face_down", [3, 3, 3, 3, 1, 0, 0], r"\(column 5\) is 1: face-down cards lie only in columns"),
    ("face_down", [3, 3, 3, 3, 0, 0, 2], r"\(column 7\) is 2"),
    ("face_down", [4, 3, 3, 3, 0, 0, 0], r"\(column 1\) is 4: .*at most 3"),
    ("face_down", [3, 3, 3, 3, 1, 1, 1], r"\(column 5\) is 1"),  # 15 face down
    ("face_down", [-1, 3, 3, 3, 0, 0, 0], r"face_down'\]\[0\].*≥ 0; got -1"),
    ("face_down", [3, 3, 3], "must be 7 counts"),
    ("face_down", "3333000", "must be 7 counts"),
    ("score", -5, r"position\['score'\] must be an integer from 0"),
    ("score", 2**70, r"position\['score'\] must be an integer from 0 to 2147483647; got 11805"),
    ("score", 1.5, r"position\['score'\].*1\.5"),
    ("score", "10", r"position\['score'\].*'10'"),
    ("moves", -1, r"position\['moves'\] must be an integer from 0"),
    ("moves", None, r"position\['moves'\].*None"),
    ("removed", 1.0, r"position\['removed'\] must be an integer"),
    ("removed", 2, r"position\['removed'\] is 2 but 0 suits are missing"),
    ("reserve", ["KS"], "must hold 3 cards or none"),
    ("reserve", "KS QS JS", "must hold 3 cards or none"),
    ("columns", None, r"position\['columns'\] must be 7 lists"),
    ("columns", "abc", r"position\['columns'\] must be 7 lists"),
]


@pytest.mark.parametrize("field, value, fragment", BAD_FIELDS)
def test_bad_position_fields_name_the_field_and_change_nothing(field, value, fragment):
    env = gym.make("shell_envs/Scorpion-v0")
    env.reset(seed=1)
    before = snapshot(env)
    pos = valid_position()
    pos[field] = value
    with pytest.raises(ValueError, match=fragment):
        env.reset(options={"position": pos})
    assert snapshot(env) == before


def test_misspelt_or_unknown_position_keys_are_named_with_a_suggestion():
    env = gym.make("shell_envs/Scorpion-v0")
    pos = valid_position()
    pos["facedown"] = pos.pop("face_down")
    with pytest.raises(ValueError, match=r"'facedown' \(did you mean 'face_down'\?\)"):
        env.reset(options={"position": pos})
    with pytest.raises(ValueError, match=r"unknown reset option.*'dael' \(did you mean 'deal'\?\)"):
        env.reset(options={"dael": 3})


def test_bad_columns_name_the_column_and_card():
    pos = valid_position()
    pos["columns"][2][0] = 3.0
    with pytest.raises(ValueError, match=r"column 3: card 1: not a card code: 3\.0"):
        ScorpionState.from_position(pos)
    pos = valid_position()
    pos["columns"][4] = "KS QS"
    with pytest.raises(ValueError, match="column 5 must be a list of card codes"):
        ScorpionState.from_position(pos)


def test_valid_positions_round_trip_including_numpy_arrays():
    pos = valid_position()
    state = ScorpionState.from_position(pos)
    assert state.position() == pos
    as_arrays = {
        **pos,
        "columns": [np.array(c) for c in pos["columns"]],
        "face_down": np.array(pos["face_down"], np.int8),
        "reserve": np.array(pos["reserve"]),
        "score": np.int64(0),
    }
    assert ScorpionState.from_position(as_arrays) == state


def test_deals_float_arrays_are_refused_numpy_strings_and_ints_are_accepted():
    deal = [c for col in valid_position()["columns"] for c in col] + valid_position()["reserve"]
    indices = parse_cards(deal)
    reference = ScorpionState.from_deal(deal)
    assert ScorpionState.from_deal(np.array(deal)) == reference
    assert ScorpionState.from_deal(np.array(indices, np.int8)) == reference
    with pytest.raises(ValueError, match="a deal array must hold card codes.*float64"):
        ScorpionState.from_deal(np.array(indices, float))
    with pytest.raises(ValueError, match="card 1: not a card code: 5.0"):
        ScorpionState.from_deal([5.0] + indices[1:])
    with pytest.raises(ValueError, match="a deal must have 52 cards, got 51"):
        ScorpionState.from_deal(indices[:51])


@FUZZ
@given(bad=st.one_of(st.floats(), st.none(), st.booleans(), st.text(max_size=3)))
def test_a_bad_card_in_a_deal_is_named(bad):
    deal = list(range(52))
    deal[10] = bad
    if isinstance(bad, str):
        try:  # a string may happen to be a valid code: then it duplicates a card
            parse_cards([bad])
            pytest.skip("a valid card code")
        except ValueError:
            pass
    with pytest.raises(ValueError, match="card 11: "):
        ScorpionState.from_deal(deal)


CORRUPTIONS = {  # label: (code run on state ``s``, fragment of the message)
    "card 99": ("s.tab[0, 0] = 99", "state.tab column 1 holds 99"),
    "length 127": ("s.lens[0] = 127", r"state.lens\[0\] \(column 1\) must be 0–52; got 127"),
    "face down > length": ("s.fd[0] = 9", r"state.fd\[0\] \(column 1\) is 9"),
    "face down in column 6": ("s.fd[5] = 1", r"state.fd\[5\] \(column 6\) is 1"),
    "garbage undo record": (
        "s.hist[:] = 77; s.meta[5] = 50; s.meta[2] = 50",
        r"state.hist\[\d+\] \(undo 1\): kind must be 1",
    ),
    "undo record off the board": (
        "s.hist[(s.meta[6] - 1) % 100, 4] = 9",
        r"state.hist\[\d+\] \(undo 1\): move record .* does not fit",
    ),
    "dtype": ("s.tab = s.tab.astype(np.int64)", "state.tab must be int8 of shape"),
    "shape": ("s.lens = np.zeros(8, np.int8)", r"state.lens must be int8 of shape \(7,\)"),
    "duplicate": ("s.tab[5, 0] = s.tab[4, 0]", "duplicate card"),
    "half a reserve": ("s.reserve[1] = -1", "state.reserve is"),
    "negative score": ("s.meta[1] = -3", "state.meta score must be ≥ 0; got -3"),
    "rule-set code": ("s.meta[4] = 3", r"state.meta rule-set code must be 0–2 .*got 3"),
    "runs under classic": ("s.meta[11] = 1", "state.meta runs count is 1 but the tableau has 0"),
}


@pytest.fixture(scope="module")
def corrupted() -> dict:
    """Each corruption tried on ``set_state`` in a subprocess (a crash fails, not kills, the run).

    Returns, per label: the error's type and message and whether the env was left unchanged.
    """
    out = run_python(
        f"""
        import json
        import gymnasium as gym, numpy as np, shell_envs
        from shell_envs.scorpion import rules
        report = {{}}
        for label, (code, _) in {CORRUPTIONS!r}.items():
            env = gym.make("shell_envs/Scorpion-v0", allow_undo=True)
            env.reset(seed=9)
            env.step(int(np.flatnonzero(env.unwrapped.action_masks()[: rules.N_ACTIONS])[0]))
            before = (env.unwrapped.get_state(), env.unwrapped.position())
            s = env.unwrapped.get_state()
            exec(code)
            try:
                env.unwrapped.set_state(s)
                report[label] = ["accepted", "", False]
            except Exception as exc:
                after = (env.unwrapped.get_state(), env.unwrapped.position())
                report[label] = [type(exc).__name__, str(exc), after == before]
        print(json.dumps(report))
        """
    )
    return json.loads(out)


@pytest.mark.parametrize("label", sorted(CORRUPTIONS))
def test_set_state_refuses_impossible_arrays_and_changes_nothing(corrupted, label):
    kind, text, unchanged = corrupted[label]
    assert kind == "ValueError", (kind, text)
    assert re.search(CORRUPTIONS[label][1], text), text
    assert unchanged


@pytest.mark.parametrize("rule_set", ["relaxed", "traditional"])
def test_set_state_accepts_every_state_reached_by_play_history_included(rule_set):
    rng = np.random.default_rng(1)
    env = gym.make("shell_envs/Scorpion-v0", allow_undo=True, rules=rule_set)
    other = gym.make("shell_envs/Scorpion-v0", allow_undo=True, rules=rule_set)
    env.reset(seed=4)
    for _ in range(80):
        mask = env.unwrapped.action_masks()
        if not mask.any():
            break
        env.step(int(rng.choice(np.flatnonzero(mask))))
        other.unwrapped.set_state(env.unwrapped.get_state())
        assert other.unwrapped.position() == env.unwrapped.position()


def test_set_state_fuzz_never_crashes_the_process():
    """Random single-entry corruptions: each is refused, or plays (moves, undos) without a crash."""
    out = run_python(
        """
        import gymnasium as gym, numpy as np, shell_envs
        from shell_envs.scorpion import rules
        rng = np.random.default_rng(0)
        envs = [gym.make("shell_envs/Scorpion-v0", allow_undo=True, rules=name)
                for name in ("classic", "traditional")]
        refused = accepted = 0
        for trial in range(400):
            env = envs[trial % 2]
            env.reset(seed=int(trial))
            for _ in range(int(rng.integers(0, 30))):
                m = env.unwrapped.action_masks()
                if not m.any():
                    break
                env.step(int(rng.choice(np.flatnonzero(m))))
            state = env.unwrapped.get_state()
            array = state.arrays[int(rng.integers(6))]
            flat = array.reshape(-1)
            info = np.iinfo(array.dtype)
            low, high = max(info.min, -200), min(info.max, 200)
            flat[int(rng.integers(flat.size))] = int(rng.integers(low, high))
            before = env.unwrapped.get_state()
            try:
                env.unwrapped.set_state(state)
            except ValueError:
                refused += 1
                assert env.unwrapped.get_state() == before
                continue
            accepted += 1
            env.unwrapped.position(); env.render()
            for _ in range(40):
                m = env.unwrapped.action_masks()
                if not m.any():
                    break
                env.step(int(rng.choice(np.flatnonzero(m))))
            for _ in range(100):
                if env.step(rules.UNDO_ACTION)[4]["illegal"]:
                    break
        print(refused, accepted)
        """
    )
    refused, accepted = map(int, out.split())
    assert refused > 100 and accepted > 20  # both kinds were exercised


def test_a_won_game_stays_won_no_undo():
    from tests.scorpion.test_scorpion_rules import SPADES_K_TO_2  # a same-suit run K … 2

    pos = position({1: SPADES_K_TO_2, 2: "AS"}, removed="HDC")
    env, _ = start(pos, allow_undo=True)
    _, reward, terminated, _, info = env.step(action("AS", 1))
    assert terminated and info["won"] and reward > 0
    assert not info["action_mask"].any()
    before = snapshot(env)
    _, reward, terminated, _, info = env.step(rules.UNDO_ACTION)
    assert info["illegal"] and reward == 0 and "game is over" in env.unwrapped.message
    assert snapshot(env)[0] == before[0] and env.unwrapped.get_state().won
    assert "game is over" in env.unwrapped.explain(rules.UNDO_ACTION)


def make_vec(n=3, **kwargs):
    return gym.make_vec("shell_envs/Scorpion-v0", num_envs=n, **kwargs)


def vec_snapshot(env) -> tuple:
    u = env.unwrapped if hasattr(env, "unwrapped") else env
    return (
        tuple(a.copy().tolist() for a in u.arrays),
        u.deals.tolist(),
        u.steps.tolist(),
        u._gen.tolist(),
        u._pool.tolist(),
        u._use_pool,
    )


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"seed": 2**70}, "seed must be an integer from 0 to"),
        ({"seed": [1, 2, 2**70]}, r"seed\[2\] must be an integer from 0 to"),
        ({"seed": [1, 2, -1]}, r"seed\[2\] must be an integer"),
        ({"seed": [1, 2, 3.5]}, r"seed\[2\] must be an integer"),
        ({"seed": [1, 2]}, "got 2 seeds for 3 envs"),
        ({"seed": "abc"}, "seed must be an integer, None or a list"),
        ({"seed": 1, "options": {"deals": [1, 2, 2**70]}}, r"options\['deals'\]\[2\]"),
        ({"seed": 1, "options": {"deals": [1, 2, -4]}}, r"options\['deals'\]\[2\]"),
        ({"seed": 1, "options": {"deals": [1, 2]}}, "has 2 deal numbers for 3 envs"),
        ({"seed": 1, "options": {"deal": [1, 2, 3]}}, r"'deal' \(did you mean 'deals'\?\)"),
    ],
)
def test_make_vec_refused_resets_change_nothing(kwargs, fragment):
    env = make_vec()
    env.reset(seed=5)
    env.step(np.zeros(3, np.int64))
    before = vec_snapshot(env)
    with pytest.raises(ValueError, match=fragment):
        env.reset(**kwargs)
    assert vec_snapshot(env) == before


def test_make_vec_bad_actions_change_nothing_and_numpy_seeds_work():
    env = make_vec()
    env.reset(seed=np.int64(5))
    reference = make_vec()
    reference.reset(seed=5)
    assert vec_snapshot(env)[:2] == vec_snapshot(reference)[:2]
    before = vec_snapshot(env)
    for bad in ([0.5, 1, 2], np.zeros(2, np.int64), np.zeros((3, 1), np.int64), "abc", [True] * 3):
        with pytest.raises(ValueError, match="actions must be 3 integers"):
            env.step(bad)
        assert vec_snapshot(env) == before
    with pytest.raises(ValueError, match="index must be an integer from 0 to 2"):
        env.unwrapped.explain(7, 0)
    with pytest.raises(ValueError, match="an action must be one integer"):
        env.unwrapped.explain(0, 1.5)
    assert env.unwrapped.explain(0, 364) is None  # the reserve deal is legal at the start


JUNK = st.one_of(
    st.integers(-3, 60),
    st.integers(),
    st.floats(),
    st.none(),
    st.booleans(),
    st.text(max_size=3),
    st.lists(st.one_of(st.integers(-2, 55), st.sampled_from(["KS", "AH", "9D", "x"])), max_size=8),
)


@settings(max_examples=150, deadline=None)
@given(
    key=st.sampled_from(["columns", "face_down", "reserve", "removed", "score", "moves", "col"]),
    index=st.integers(0, 6),
    value=JUNK,
    rule_set=st.sampled_from(rules.RULE_SETS),
)
def test_any_position_accepted_is_a_possible_game(key, index, value, rule_set):
    """Whatever a position holds, from_position refuses it or builds a state check_state accepts."""
    from shell_envs.scorpion.state import check_state

    pos = valid_position()
    if key in ("columns", "face_down") and not isinstance(value, list):
        pos[key][index] = value  # one entry of a list field
    else:
        pos[key] = value
    try:
        state = ScorpionState.from_position(pos, rule_set)
    except ValueError:
        return
    check_state(state)
    assert ScorpionState.from_position(state.position(), rule_set) == state
