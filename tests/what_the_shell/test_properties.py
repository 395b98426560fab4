"""Invariants of What the Shell over random play (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from shell_envs import what_the_shell_v0
from shell_envs.what_the_shell import rules


def counts(board: np.ndarray) -> tuple[int, int, int]:
    """(black turtles, white turtles, eggs) on the board."""
    return (
        int((board == rules.BLACK).sum()),
        int((board == rules.WHITE).sum()),
        int((board == rules.EGG).sum()),
    )


@settings(max_examples=60, deadline=None)
@given(
    choices=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), max_size=120),
    collide=st.lists(st.booleans(), max_size=120),
)
def test_invariants_over_random_play(choices, collide):
    env = what_the_shell_v0.parallel_env()
    obs, _ = env.reset()
    for i, (x, y) in enumerate(choices):
        if not env.agents:
            break
        legal = np.flatnonzero(env.board == rules.EMPTY)
        # the mask is exactly the empty cells, the same for both players
        for agent in ("black", "white"):
            np.testing.assert_array_equal(np.flatnonzero(obs[agent]["action_mask"]), legal)
        black = int(legal[x % len(legal)])
        white = black if i < len(collide) and collide[i] else int(legal[y % len(legal)])
        before = counts(env.board)
        obs, _, _, _, infos = env.step({"black": black, "white": white})
        after = counts(env.board)
        info = infos["black"]
        # the egg queue holds exactly the eggs on the board, without repeats
        queue = env.eggs[: env.meta[rules.N_EGGS]]
        assert len(set(queue.tolist())) == len(queue)
        assert set(queue.tolist()) == set(np.flatnonzero(env.board == rules.EGG).tolist())
        assert np.all(env.eggs[env.meta[rules.N_EGGS] :] == -1)
        # piece counts change only as the rules allow
        placed = 0 if info["collision"] else 1
        assert after[0] == before[0] + placed + info["hatched"] - info["turtles_lost"]
        assert (
            after[1]
            == before[1] + placed + infos["white"]["hatched"] - info["opponent_turtles_lost"]
        )
        hatched = info["hatched"] + info["opponent_hatched"]
        assert after[2] == (
            before[2] + (1 - placed) - info["eggs_vanished"] - hatched - info["eggs_captured"]
        )
        captures = info["captures"] + info["opponent_captures"]
        removed = info["turtles_lost"] + info["opponent_turtles_lost"] + info["eggs_captured"]
        assert (captures == 0) == (removed == 0)
        assert removed <= 2 * captures
        if info["collision"]:
            assert captures == 0 and queue[-1] == black
        # only one player hatches in a wave, and never more than its claims
        assert info["eggs_vanished"] <= min(info["captures"], info["opponent_captures"])
        assert hatched <= captures
        # sudden death means equal non-zero winning counts
        if info["sudden_death"]:
            assert info["winning_turtles"] == info["opponent_winning_turtles"] > 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_compiled_playouts_end_in_a_consistent_state(seed):
    board, eggs, meta = rules.new_state()
    rules.seed_numba(seed)
    rules.random_playout(board, eggs, meta, 400)
    info = np.zeros(rules.INFO_SIZE, dtype=np.int32)
    outcome = int(meta[rules.OUTCOME])
    meta[rules.OUTCOME] = rules.ONGOING
    assert rules.check_end(board, meta, info) == outcome
    if outcome == rules.ONGOING:
        assert (board == rules.EMPTY).any()
        assert meta[rules.ROUNDS] == 400


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), clustered=st.booleans())
def test_end_checks_count_every_winning_turtle(seed, clustered):
    """Every round's winning counts, found from the lines through the arrivals (or the whole
    board in sudden death), equal a full-board count of the position after the round."""
    rng = np.random.default_rng(seed)
    board, eggs, meta = rules.new_state()
    info = np.zeros(rules.INFO_SIZE, np.int32)
    while meta[rules.OUTCOME] == rules.ONGOING and meta[rules.ROUNDS] < 200:
        legal = np.flatnonzero(board == rules.EMPTY)
        if clustered:  # play near the centre so that lines and crossings are common
            near = legal[np.abs(legal // 9 - 4) + np.abs(legal % 9 - 4) <= 3]
            legal = near if near.size else legal
        black, white = (int(c) for c in rng.choice(legal, 2))
        rules.step(board, eggs, meta, black, white, info)
        assert (info[rules.I_WIN_B], info[rules.I_WIN_W]) == rules.winning_counts(board)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_shared_scratch_gives_the_same_rounds(seed):
    """``step`` with one reused scratch array plays exactly as with a fresh one each round."""
    rng = np.random.default_rng(seed)
    fresh = rules.new_state()
    shared = rules.new_state()
    work = np.zeros(rules.WORK_SHAPE, np.int8)
    info_a = np.zeros(rules.INFO_SIZE, np.int32)
    info_b = np.zeros(rules.INFO_SIZE, np.int32)
    while fresh[2][rules.OUTCOME] == rules.ONGOING and fresh[2][rules.ROUNDS] < 200:
        legal = np.flatnonzero(fresh[0] == rules.EMPTY)
        black, white = (int(c) for c in rng.choice(legal, 2))
        out_a = rules.step(*fresh, black, white, info_a)
        out_b = rules.step(*shared, black, white, info_b, work)
        assert out_a == out_b
        np.testing.assert_array_equal(info_a, info_b)
        for a, b in zip(fresh, shared, strict=True):
            np.testing.assert_array_equal(a, b)
        assert not work[rules.W_FLAGS].any()  # capture leaves its flags zeroed
