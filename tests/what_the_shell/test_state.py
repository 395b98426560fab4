"""The named game state: GameState, the envs' get_state/set_state, renderers, the cell codec."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from shell_envs import what_the_shell_v0
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.actions import cell_at, cell_at_plain, row_col, row_col_plain
from shell_envs.what_the_shell.position import (
    arrays_to_position,
    cell_index,
    cell_name,
    position_to_arrays,
)
from shell_envs.what_the_shell.render import render_ansi, render_rgb
from shell_envs.what_the_shell.state import GameState, check_state
from shell_envs.what_the_shell.view import WhatTheShellView

POSITION = {"black": ["e5", "d4"], "white": ["f6"], "eggs": ["a1", "c3"]}


def played_env(**kwargs):
    """A parallel env a few rounds into a game from `POSITION`."""
    env = what_the_shell_v0.parallel_env(**kwargs)
    env.reset(seed=0, options={"position": POSITION})
    env.step({"black": cell_index("b2"), "white": cell_index("h8")})
    env.step({"black": cell_index("g7"), "white": cell_index("g7")})  # a collision: an egg
    return env


def same(a: GameState, b: GameState) -> bool:
    """Equal arrays, field by field, with equal dtypes."""
    return all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_game_state_is_a_named_tuple_of_the_rules_arrays():
    state = GameState.new()
    board, eggs, meta = rules.new_state()
    assert state._fields == ("board", "eggs", "meta")
    assert same(state, GameState(board, eggs, meta))
    copy = state.copy()
    copy.board[0] = rules.BLACK
    assert state.board[0] == rules.EMPTY
    state.validate()
    assert same(pickle.loads(pickle.dumps(state)), state)


def test_rules_run_on_a_game_state():
    state = GameState.new()
    info = np.zeros(rules.INFO_SIZE, dtype=np.int32)
    rules.step(*state, cell_index("e5"), cell_index("d4"), info)
    assert state.board[cell_index("e5")] == rules.BLACK
    assert state.meta[rules.ROUNDS] == 1


def test_get_state_is_a_copy_and_set_state_round_trips():
    env = played_env()
    state = env.get_state()
    assert isinstance(state, GameState)
    assert same(state, GameState(env.board, env.eggs, env.meta))
    position = env.position()
    state.board[:] = rules.EMPTY  # a copy: the env is untouched
    assert env.position() == position
    saved = env.get_state()
    observations, *_ = env.step({"black": cell_index("a9"), "white": cell_index("i1")})
    other = what_the_shell_v0.parallel_env()
    other.reset(seed=0)
    other.set_state(saved)
    assert other.agents == ["black", "white"]
    assert other.position() == position
    again, *_ = other.step({"black": cell_index("a9"), "white": cell_index("i1")})
    for agent in ("black", "white"):
        for key in ("observation", "action_mask"):
            assert np.array_equal(again[agent][key], observations[agent][key])
    saved.board[:] = rules.EMPTY  # set_state keeps a copy
    assert other.board[cell_index("e5")] == rules.BLACK


def test_set_state_of_a_decided_game_leaves_no_agents():
    env = what_the_shell_v0.parallel_env()
    env.reset(seed=0)
    state = GameState.new()
    state.board[[cell_index(c) for c in ("a1", "b1", "c1", "d1", "e1")]] = rules.BLACK
    state.meta[rules.OUTCOME] = rules.BLACK_WINS
    env.set_state(state)
    assert env.agents == []


def bad_states():
    """States set_state refuses, each with a fragment of its message."""
    good = GameState.new()
    board, eggs, meta = good
    egg_board = board.copy()
    egg_board[3] = rules.EGG
    return [
        ((board, eggs, meta), "GameState"),
        ("no state", "GameState"),
        (GameState(board.astype(np.int16), eggs, meta), "board must be int8"),
        (GameState(board, eggs[:80], meta), "eggs must be int8 of shape (81,)"),
        (GameState(board, eggs, meta.astype(np.int64)), "meta must be int32"),
        (GameState(list(board), eggs, meta), "board must be int8"),
        (GameState(np.full(81, 7, np.int8), eggs, meta), "board holds 7"),
        (GameState(egg_board, eggs, meta), "egg count"),
        (GameState(board, eggs, np.array([0, 2, 0, 0], np.int32)), "sudden death"),
    ]


@pytest.mark.parametrize(("bad", "fragment"), bad_states())
def test_a_refused_set_state_leaves_the_game_unchanged(bad, fragment):
    env = played_env()
    before = env.get_state()
    agents = list(env.agents)
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        env.set_state(bad)
    assert same(env.get_state(), before)
    assert env.agents == agents
    with pytest.raises(ValueError):
        check_state(bad)


def test_aec_get_and_set_state():
    source = played_env()
    state = source.get_state()
    env = what_the_shell_v0.env()
    env.set_state(state)  # counts as a reset: play may follow at once
    assert same(env.get_state(), state)
    assert env.agent_selection == "black"
    assert np.array_equal(env.action_masks(), source.action_masks())
    assert np.array_equal(env.observe("white")["action_mask"], source.action_masks())
    env.step(cell_index("a9"))
    env.set_state(state)  # drops black's pending choice: the round starts again
    assert env.agent_selection == "black"
    env.step(cell_index("a9"))
    env.step(cell_index("i1"))
    source.step({"black": cell_index("a9"), "white": cell_index("i1")})
    assert same(env.get_state(), source.get_state())
    with pytest.raises(ValueError, match="GameState"):
        env.set_state(tuple(state))
    assert same(env.get_state(), source.get_state())


def test_aec_set_state_keeps_the_books_a_reset_keeps():
    # every attribute PettingZoo's parallel-to-AEC reset sets, set_state sets alike
    by_reset = what_the_shell_v0.env()
    by_reset.reset(options={"position": POSITION})
    by_state = what_the_shell_v0.env()
    by_state.set_state(by_reset.get_state())
    books = {name: vars(env.env) for name, env in (("reset", by_reset), ("set_state", by_state))}
    assert set(books["reset"]) == set(books["set_state"])

    def shown(value):  # an object (the agent selector) by its attributes
        return repr(vars(value) if hasattr(value, "__dict__") else value)

    for key, value in books["reset"].items():
        if key != "env":
            assert shown(books["set_state"][key]) == shown(value), key


def test_action_masks_everywhere_and_the_deprecated_alias():
    env = played_env()
    mask = env.action_masks()
    assert mask.dtype == np.int8 and np.array_equal(mask, env.board == rules.EMPTY)
    with pytest.warns(DeprecationWarning, match="action_masks"):
        old = env.action_mask()
    assert np.array_equal(old, mask)
    aec = what_the_shell_v0.env()
    aec.reset(seed=0)
    assert np.array_equal(aec.action_masks(), np.ones(rules.CELLS, np.int8))
    vector = what_the_shell_v0.vector_env(2)
    vector.reset(seed=0)
    assert vector.action_masks().shape == (2, rules.CELLS)


def test_renderers_take_a_state_or_the_three_arrays():
    env = played_env(render_mode="ansi")
    state = env.get_state()
    text = render_ansi(state)
    assert text == render_ansi(*state) == env.render()
    assert np.array_equal(render_rgb(state), render_rgb(state.board, state.eggs, state.meta))


@pytest.mark.parametrize("render", [render_ansi, render_rgb])
def test_renderers_refuse_a_partial_state(render):
    state = played_env().get_state()
    for args in ((state.board, state.eggs), (state.board, None, state.meta), (state, *state[1:])):
        with pytest.raises(ValueError, match="GameState, or the three arrays"):
            render(*args)


def test_view_of_a_state():
    state = played_env().get_state()
    view = WhatTheShellView.from_state(state, rules.WHITE)
    assert same(view.state, state)
    assert same(WhatTheShellView.of(*state, rules.WHITE).state, state)
    assert view.player == rules.WHITE and not view.board.flags.writeable


def test_the_cell_codec():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for cell in range(rules.CELLS):
            row, col = row_col_plain(cell)
            assert cell_at_plain(row, col) == cell == 9 * row + col
            assert (row, col) == row_col(cell) and cell_at(row, col) == cell
            assert cell_name(cell) == "abcdefghi"[col] + str(row + 1)
            assert cell_index(cell_name(cell)) == cell


def test_game_state_converts_positions_both_ways():
    state = GameState.from_position(POSITION)
    assert same(state, GameState(*position_to_arrays(POSITION)))
    assert state.position() == arrays_to_position(*state)
    assert GameState.from_position(state.position()).position() == state.position()
    with pytest.raises(ValueError, match="unknown position keys"):
        GameState.from_position({"red": []})
