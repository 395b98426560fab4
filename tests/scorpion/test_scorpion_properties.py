"""Property tests over random play: masks, an independent reference model, undo, playouts."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shell_envs.scorpion import ScorpionState, rules
from shell_envs.scorpion.encoders import encode_tableau
from tests.scorpion.helpers import Reference, make, run_position

SETTINGS = settings(max_examples=25, deadline=None)
seeds = st.integers(0, 2**32 - 1)
rule_sets = st.sampled_from(rules.RULE_SETS)


def accepted(env) -> np.ndarray:
    """The actions the engine's check accepts, one by one."""
    s = env.unwrapped.get_state()
    n = env.action_space.n
    return np.array([rules.check_action(s.arrays, a, n == 366) == rules.OK for a in range(n)])


@SETTINGS
@given(seed=seeds, rule_set=rule_sets, undo=st.booleans())
def test_mask_equals_the_actions_the_engine_accepts(seed, rule_set, undo):
    env = make(rules=rule_set, allow_undo=undo)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(40):
        np.testing.assert_array_equal(info["action_mask"], accepted(env))
        if rng.random() < 0.2:
            a = int(rng.integers(env.action_space.n))
        else:
            legal = np.flatnonzero(info["action_mask"])
            if len(legal) == 0:
                break
            a = int(rng.choice(legal))
        expected_legal = bool(info["action_mask"][a])
        _, _, terminated, _, info = env.step(a)
        assert info["illegal"] == (not expected_legal)
        if terminated:
            break


@SETTINGS
@given(seed=seeds, rule_set=rule_sets, reserve=st.booleans())
def test_engine_matches_an_independent_reference_model(seed, rule_set, reserve):
    rng = np.random.default_rng(seed)
    pos = run_position(rng, reserve)
    env = make(rules=rule_set, allow_undo=True)
    _, info = env.reset(options={"position": pos})
    ref = Reference(pos, rule_set)
    for _ in range(60):
        legal = ref.legal()
        mask = info["action_mask"]
        assert set(np.flatnonzero(mask[:365]).tolist()) == legal
        assert bool(mask[365]) == (365 in ref.actions())  # undo: a move remembered, not won
        if ref.over:
            break
        take_back = 365 in ref.actions() and (not legal or rng.random() < 0.25)
        a = 365 if take_back else int(rng.choice(sorted(legal)))
        points = ref.play(a)
        _, reward, terminated, _, info = env.step(a)
        assert terminated == ref.over
        got = env.unwrapped.position()
        assert reward == points
        assert got["columns"] == ref.columns()
        assert got["face_down"] == ref.fd
        assert (got["score"], got["removed"]) == (ref.score, ref.removed)
        assert env.unwrapped.get_state().runs == ref.runs  # traditional: complete runs standing
        assert info["won"] == ref.won


REPLAY_DEALS = [2010, *range(40)]  # deal 2010 once ended the game when stuck after move 46
REPLAY_MOVES = 300


def random_choice(ref: Reference, rng: np.random.Generator) -> int:
    """A random legal action of ``ref``: undo one time in ten, or when nothing else is left."""
    actions = ref.actions()
    moves = [a for a in actions if a != rules.UNDO_ACTION]
    if not moves or (rules.UNDO_ACTION in actions and rng.random() < 0.1):
        return rules.UNDO_ACTION
    return int(rng.choice(moves))


def check_against(ref: Reference, mask: np.ndarray, position: dict) -> None:
    """The env's mask and position are the reference engine's."""
    assert np.flatnonzero(mask).tolist() == sorted(ref.actions())
    assert position["columns"] == ref.columns() and position["face_down"] == ref.fd
    assert (position["score"], position["removed"]) == (ref.score, ref.removed)


@pytest.mark.parametrize("rule_set", ["classic", "traditional"])
def test_random_games_with_undo_from_deals_replay_exactly_on_the_reference_engine(rule_set):
    """Random games with undo from real deals, move by move against the rules of record's
    engine: masks, rewards, positions and the end of each game agree, games that get stuck
    with a move to take back included (undo is then their only legal action)."""
    stuck = 0
    for deal in REPLAY_DEALS:
        env = make(rules=rule_set, allow_undo=True, max_moves=None)
        _, info = env.reset(seed=deal)
        ref = Reference(env.unwrapped.position(), rule_set)
        rng = np.random.default_rng(deal)
        for _ in range(REPLAY_MOVES):
            check_against(ref, info["action_mask"], env.unwrapped.position())
            if ref.over:
                break
            stuck += ref.actions() == [rules.UNDO_ACTION]
            a = random_choice(ref, rng)
            points = ref.play(a)
            _, reward, terminated, _, info = env.step(a)
            assert not info["illegal"] and reward == points and terminated == ref.over
    assert stuck >= 5  # the case that once diverged is exercised


@pytest.mark.parametrize("rule_set", ["classic", "traditional"])
def test_batched_random_games_with_undo_from_deals_replay_exactly_on_the_reference_engine(
    rule_set,
):
    """The same replay in the batched env, every game checked until its first game ends."""
    n = 8
    env = gym.make_vec(
        "shell_envs/Scorpion-v0", num_envs=n, rules=rule_set, allow_undo=True, max_moves=None
    )
    env.reset(options={"deals": REPLAY_DEALS[:n]})
    u = env.unwrapped

    def position(i: int) -> dict:
        return ScorpionState(tuple(x[i].copy() for x in u.arrays)).position()

    refs = [Reference(position(i), rule_set) for i in range(n)]
    rngs = [np.random.default_rng(deal) for deal in REPLAY_DEALS[:n]]
    live = np.ones(n, bool)
    stuck = 0
    for _ in range(REPLAY_MOVES):
        masks = env.action_masks()
        actions = np.zeros(n, np.int64)
        for i in np.flatnonzero(live):
            check_against(refs[i], masks[i], position(i))
            stuck += refs[i].actions() == [rules.UNDO_ACTION]
            actions[i] = random_choice(refs[i], rngs[i])
        _, rewards, terminated, truncated, info = env.step(actions)
        for i in np.flatnonzero(live):
            points = refs[i].play(int(actions[i]))
            assert not info["illegal"][i] and rewards[i] == points
            assert terminated[i] == refs[i].over and not truncated[i]
        live &= ~terminated
    assert stuck >= 1


@SETTINGS
@given(seed=seeds, rule_set=rule_sets, n=st.integers(1, 100))
def test_undoing_every_move_restores_the_start(seed, rule_set, n):
    rng = np.random.default_rng(seed)
    env = make(rules=rule_set, allow_undo=True)
    _, info = env.reset(options={"position": run_position(rng, True)})
    start = env.unwrapped.get_state()
    played = 0
    for _ in range(n):
        legal = np.flatnonzero(info["action_mask"][:365])
        if len(legal) == 0:  # stuck: undo is the one legal action left
            assert np.flatnonzero(info["action_mask"]).tolist() == [rules.UNDO_ACTION]
            break
        _, _, terminated, _, info = env.step(int(rng.choice(legal)))
        played += 1
        if terminated:  # won, and a won game stays won: the env refuses undo, the rules still can
            assert info["won"]
            _, _, _, _, info = env.step(rules.UNDO_ACTION)
            assert info["illegal"]
            state = env.unwrapped.get_state()
            assert rules.undo(state.arrays) >= 0
            env.unwrapped.set_state(state)
            played -= 1
            break
    for _ in range(played):
        _, _, _, _, info = env.step(rules.UNDO_ACTION)
        assert not info["illegal"]
    end = env.unwrapped.get_state()
    for a, b in zip(end.arrays[:5], start.arrays[:5], strict=True):
        np.testing.assert_array_equal(a, b)


@SETTINGS
@given(seed=seeds, rule_set=rule_sets)
def test_compiled_random_playout_keeps_every_card(seed, rule_set):
    state = ScorpionState()
    games = rules.random_playout(state.arrays, seed, 500, 200, rules.RULE_SETS.index(rule_set))
    assert games >= 1
    on_table = [c for col in range(7) for c in state.column(col)]
    on_table += [int(c) for c in state.reserve if c >= 0]
    removed = [s * 13 + r for s in state.slots for r in range(13)]
    assert sorted(on_table + removed) == list(range(52))
    assert all(state.fd[c] < state.lens[c] or state.lens[c] == 0 for c in range(7))


def random_play(seed: int, rule_set: str, moves: int = 80) -> Iterator[ScorpionState]:
    """Deal ``seed`` and yield its state before each of up to ``moves`` random legal moves
    (the same object, played on after each yield), stopping when no move is left."""
    rng = np.random.default_rng(seed)
    state = ScorpionState.from_number(seed, rule_set)
    listed = np.empty(rules.N_ACTIONS, np.int64)
    for _ in range(moves):
        yield state
        k = rules.legal_moves(state.arrays, listed)
        if k == 0:
            return
        rules.apply_action(state.arrays, int(listed[rng.integers(k)]))


def listing_key(state: ScorpionState, action: int) -> tuple[int, ...]:
    """Where ``legal_moves`` lists an action: by source card, then destination, reserve last."""
    if action == rules.RESERVE_ACTION:
        return (7,)
    card, dest = divmod(action, 7)
    col, depth = rules.find_card(*state.arrays[:2], card)
    n = int(state.lens[dest])
    to = int(state.tab[dest, n - 1]) // 13 if n else dest  # suit of the top, or empty column
    return (col, depth, to)


@SETTINGS
@given(seed=seeds, rule_set=rule_sets)
def test_legal_moves_lists_the_accepted_actions_in_source_card_order(seed, rule_set):
    moves = np.empty(rules.N_ACTIONS, np.int64)
    for state in random_play(seed, rule_set):
        k = rules.legal_moves(state.arrays, moves)
        accepted = [
            a
            for a in range(rules.N_ACTIONS)
            if rules.check_action(state.arrays, a, False) == rules.OK
        ]
        assert moves[:k].tolist() == sorted(accepted, key=lambda a: listing_key(state, a))


def reference_tableau(state: ScorpionState) -> np.ndarray:
    """The tableau encoding, written out plainly from its documentation."""
    out = np.zeros(366, np.int8)
    for col in range(7):
        for depth, card in enumerate(state.column(col)):
            out[col * 52 + depth] = 53 if depth < state.fd[col] else card + 1
    out[364] = 0 if state.reserve_dealt else 3
    out[365] = state.removed
    return out


@SETTINGS
@given(seed=seeds, rule_set=st.sampled_from(["classic", "relaxed"]))
def test_tableau_encoding_matches_its_documentation(seed, rule_set):
    out = np.full(366, -7, np.int8)
    for state in random_play(seed, rule_set):
        encode_tableau(state.arrays, out)
        np.testing.assert_array_equal(out, reference_tableau(state))
