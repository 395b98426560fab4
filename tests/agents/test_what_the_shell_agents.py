"""The What the Shell agents: legal moves only, seeded play, tactics, the protocol and registry."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shell_envs.agents import (
    Agent,
    GreedyAgent,
    MCTSAgent,
    PolicyAgent,
    RandomAgent,
    StateAgent,
    WhatTheShellView,
    agent_names,
    choose_action,
    make_agent,
    register_agent,
)
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import encode_flat, encode_planes
from shell_envs.what_the_shell.position import cell_index, position_to_arrays

GAME = "what_the_shell"
TINY_MCTS = {"iterations": 40}


def random_positions(n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``n`` ongoing positions reached by random play of 0 to 40 rounds."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < n:
        board, eggs, meta = rules.new_state()
        rules.seed_numba(int(rng.integers(2**31)))
        rules.random_playout(board, eggs, meta, int(rng.integers(0, 41)))
        if meta[rules.OUTCOME] == rules.ONGOING:
            positions.append((board, eggs, meta))
    return positions


def view_of(position: dict, player: int = rules.BLACK) -> WhatTheShellView:
    """A view of a hand-made position."""
    return WhatTheShellView.of(*position_to_arrays(position), player)


def legal_mask(view: WhatTheShellView) -> np.ndarray:
    """The env's mask: 1 on empty cells."""
    return (view.board == rules.EMPTY).astype(np.int8)


def cells(*names: str) -> set[int]:
    """Cell indices of ``names``."""
    return {cell_index(name) for name in names}


def all_agents(seed: int = 0) -> list[Agent]:
    """One of each built-in agent, with a tiny search budget."""
    return [
        make_agent(GAME, "random", seed=seed),
        make_agent(GAME, "greedy", seed=seed),
        make_agent(GAME, "mcts", seed=seed, **TINY_MCTS),
        make_agent(GAME, "mcts", seed=seed, selection="regret_matching", **TINY_MCTS),
    ]


# --- legal actions -------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(4))
def test_every_agent_plays_only_legal_cells_over_random_positions(index):
    agent = all_agents(seed=index)[index]
    for board, eggs, meta in random_positions(60, seed=index):
        for player in (rules.BLACK, rules.WHITE):
            view = WhatTheShellView.of(board, eggs, meta, player)
            mask = legal_mask(view)
            obs = encode_planes(board, eggs, meta, player)
            assert mask[choose_action(agent, obs, mask, view)] == 1
            assert mask[agent.act(obs, mask)] == 1


@pytest.mark.parametrize("index", range(4))
def test_every_agent_respects_a_narrower_mask(index):
    agent = all_agents(seed=index)[index]
    rng = np.random.default_rng(index)
    for board, eggs, meta in random_positions(20, seed=10 + index):
        view = WhatTheShellView.of(board, eggs, meta, rules.WHITE)
        empty = np.flatnonzero(board == rules.EMPTY)
        mask = np.zeros(rules.CELLS, dtype=np.int8)
        mask[rng.choice(empty, size=min(3, empty.size), replace=False)] = 1
        assert mask[choose_action(agent, None, mask, view)] == 1


def test_mcts_with_a_time_limit_plays_legal_cells():
    agent = MCTSAgent(time_limit=0.005, max_nodes=500, seed=1)
    for board, eggs, meta in random_positions(5, seed=3):
        view = WhatTheShellView.of(board, eggs, meta, rules.BLACK)
        assert legal_mask(view)[agent.act_with_state(view, legal_mask(view))] == 1
        assert agent.last_iterations > 0


def test_an_empty_mask_is_a_clear_error():
    view = view_of({})
    for agent in all_agents():
        with pytest.raises(ValueError, match="no legal action"):
            choose_action(agent, None, np.zeros(rules.CELLS, dtype=np.int8), view)


# --- determinism ---------------------------------------------------------------------------


def test_same_seed_same_moves():
    positions = random_positions(8, seed=5)
    for first, second in zip(all_agents(seed=7), all_agents(seed=7), strict=True):
        for agent in (first, second):
            agent.reset(11)
        for board, eggs, meta in positions:
            view = WhatTheShellView.of(board, eggs, meta, rules.WHITE)
            mask = legal_mask(view)
            assert choose_action(first, None, mask, view) == choose_action(second, None, mask, view)


def test_reset_replays_the_same_choices():
    agent = RandomAgent(seed=3)
    mask = np.ones(rules.CELLS, dtype=np.int8)
    first = [agent.act(None, mask) for _ in range(20)]
    agent.reset(3)
    assert [agent.act(None, mask) for _ in range(20)] == first


# --- tactics -------------------------------------------------------------------------------

FOUR = {"black": ["a1", "b1", "c1", "d1"], "white": ["a5", "c7", "g3", "h8"]}
OPEN_FOUR = {"black": ["b5", "c5", "d5", "e5"], "white": ["a1", "c7", "g3", "h8"]}
WHITE_OPEN_FOUR = {"black": ["a7", "i9", "e9"], "white": ["b3", "c3", "d3", "e3"]}
WHITE_CLOSED_FOUR = {"black": ["a7", "i9", "e9"], "white": ["a3", "b3", "c3", "d3"]}


@pytest.mark.parametrize("seed", range(3))
def test_greedy_completes_a_winning_line(seed):
    view = view_of(FOUR, rules.BLACK)
    assert GreedyAgent(seed).act_with_state(view, legal_mask(view)) == cell_index("e1")


def test_greedy_completes_a_winning_line_as_white():
    swapped = {"black": FOUR["white"], "white": FOUR["black"]}
    view = view_of(swapped, rules.WHITE)
    assert GreedyAgent(0).act_with_state(view, legal_mask(view)) == cell_index("e1")


@pytest.mark.parametrize("seed", range(3))
def test_greedy_blocks_an_open_four(seed):
    view = view_of(WHITE_OPEN_FOUR, rules.BLACK)
    assert GreedyAgent(seed).act_with_state(view, legal_mask(view)) in cells("a3", "f3")


def test_greedy_blocks_the_only_completion_of_a_four():
    view = view_of(WHITE_CLOSED_FOUR, rules.BLACK)
    assert GreedyAgent(0).act_with_state(view, legal_mask(view)) == cell_index("e3")


def test_greedy_prefers_its_own_win_to_blocking():
    position = {"black": FOUR["black"], "white": ["a3", "b3", "c3", "d3"]}
    view = view_of(position, rules.BLACK)
    assert GreedyAgent(0).act_with_state(view, legal_mask(view)) == cell_index("e1")


def test_greedy_captures_when_nothing_else_matters():
    position = {"black": ["a5"], "white": ["b5", "c5"]}
    view = view_of(position, rules.BLACK)
    assert GreedyAgent(0).act_with_state(view, legal_mask(view)) == cell_index("d5")


@pytest.mark.parametrize("selection", ["ucb", "regret_matching"])
def test_mcts_takes_an_immediate_win_that_cannot_be_blocked(selection):
    # with two completion cells the opponent can stop only one (by taking it or colliding on it)
    view = view_of(OPEN_FOUR, rules.BLACK)
    agent = MCTSAgent(iterations=200, selection=selection, seed=0)
    assert agent.act_with_state(view, legal_mask(view)) in cells("a5", "f5")


def test_mcts_takes_an_immediate_win_as_white():
    swapped = {"black": OPEN_FOUR["white"], "white": OPEN_FOUR["black"]}
    view = view_of(swapped, rules.WHITE)
    agent = MCTSAgent(iterations=200, seed=1)
    assert agent.act_with_state(view, legal_mask(view)) in cells("a5", "f5")


def test_mcts_blocks_the_only_completion_of_a_four():
    view = view_of(WHITE_CLOSED_FOUR, rules.BLACK)
    assert MCTSAgent(iterations=200, seed=0).act_with_state(view, legal_mask(view)) == cell_index(
        "e3"
    )


def test_search_agents_read_the_position_from_the_observation():
    view = view_of(OPEN_FOUR, rules.BLACK)
    obs = encode_planes(view.board, view.eggs, view.meta, rules.BLACK)
    assert GreedyAgent(0).act(obs, legal_mask(view)) in cells("a5", "f5")
    assert MCTSAgent(iterations=100, seed=0).act(obs, legal_mask(view)) in cells("a5", "f5")


# --- views ---------------------------------------------------------------------------------


@pytest.mark.parametrize("encode", [encode_planes, encode_flat])
def test_view_from_observation_recovers_the_position_as_black(encode):
    for board, eggs, meta in random_positions(10, seed=8):
        view = WhatTheShellView.from_observation(encode(board, eggs, meta, rules.WHITE))
        swapped = board.copy()
        swapped[board == rules.BLACK] = rules.WHITE
        swapped[board == rules.WHITE] = rules.BLACK
        assert view.player == rules.BLACK
        np.testing.assert_array_equal(view.board, swapped)
        np.testing.assert_array_equal(view.eggs, eggs)
        assert view.meta[rules.N_EGGS] == meta[rules.N_EGGS]
        assert view.meta[rules.SUDDEN_DEATH] == meta[rules.SUDDEN_DEATH]


def test_view_is_a_read_only_copy():
    board, eggs, meta = rules.new_state()
    view = WhatTheShellView.of(board, eggs, meta, rules.WHITE)
    board[0] = rules.BLACK
    assert view.board[0] == rules.EMPTY
    with pytest.raises(ValueError):
        view.board[1] = rules.BLACK


def test_view_rejects_unknown_players_and_observations():
    board, eggs, meta = rules.new_state()
    with pytest.raises(ValueError, match="player"):
        WhatTheShellView.of(board, eggs, meta, 3)
    with pytest.raises(ValueError, match="shape"):
        WhatTheShellView.from_observation(np.zeros(7, dtype=np.float32))


# --- protocol and registry -----------------------------------------------------------------


def test_built_in_agents_follow_the_protocol():
    agents = all_agents()
    assert all(isinstance(agent, Agent) for agent in agents)
    assert not isinstance(agents[0], StateAgent)
    assert all(isinstance(agent, StateAgent) for agent in agents[1:])
    assert [agent.name for agent in agents[:3]] == ["random", "greedy", "mcts"]


def test_registry_names_and_errors():
    assert agent_names(GAME) == ["greedy", "learned", "mcts", "mcts-learned", "random"]
    assert agent_names("no_such_game") == []
    with pytest.raises(ValueError, match="unknown what_the_shell agent 'alphazero'"):
        make_agent(GAME, "alphazero")
    with pytest.raises(ValueError, match="no agents for game"):
        make_agent("no_such_game", "random")
    with pytest.raises(ValueError, match="already has an agent"):
        register_agent(GAME, "random", RandomAgent)


def test_register_a_new_agent():
    register_agent("test_only_game", "first", lambda seed=None: PolicyAgent(lambda o, m: 0))
    agent = make_agent("test_only_game", "first", seed=4)
    assert agent.seed == 4
    assert agent.act(None, np.ones(3)) == 0


def test_policy_agent_wraps_functions_and_models():
    mask = np.zeros(rules.CELLS, dtype=np.int8)
    mask[17] = 1
    assert PolicyAgent(lambda obs, m: int(np.flatnonzero(m)[0])).act(None, mask) == 17

    class Masked:
        def predict(self, observation, action_masks=None, deterministic=True):
            return np.array(int(np.flatnonzero(action_masks)[0])), None

    class Plain:
        def predict(self, observation, deterministic=True):
            return np.array([5]), None

    assert PolicyAgent(Masked()).act(None, mask) == 17
    assert PolicyAgent(Plain()).act(None, mask) == 5
    with pytest.raises(ValueError, match="predict"):
        PolicyAgent(42)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"iterations": 0},
        {"iterations": 1.5},
        {"time_limit": 0},
        {"time_limit": "1s"},
        {"candidates": 0},
        {"candidates": 82},
        {"selection": "exp4"},
        {"gamma": 0.0},
        {"min_share": 2.0},
        {"exploration": -1.0},
        {"time_limit": 0.1, "max_nodes": 0},
    ],
)
def test_mcts_rejects_bad_settings(kwargs):
    with pytest.raises(ValueError):
        MCTSAgent(**kwargs)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([-np.inf, -1.0, 0.0, 0.5, 2.0, np.inf]), min_size=81, max_size=81),
    st.lists(st.sampled_from([rules.EMPTY, rules.BLACK, rules.WHITE]), min_size=81, max_size=81),
    st.integers(1, 81),
)
def test_search_candidates_are_a_stable_sort_of_the_empty_cells(scores, cells, k):
    from shell_envs.what_the_shell.search import top_cells

    scores, board = np.array(scores), np.array(cells, np.int8)
    out = np.full(81, -1, np.int64)
    n = top_cells(board, scores, k, out)
    order = [c for c in np.argsort(-scores, kind="stable") if board[c] == rules.EMPTY][:k]
    assert out[:n].tolist() == order


NO_LITERALS = """
import gc
from numba.core.registry import CPUDispatcher
from shell_envs.agents.spec import parse_spec
from shell_envs.bench.runner import warm_up

agents = [parse_spec(s) for s in ("greedy", "mcts", "mcts-learned")]
warm_up(["what_the_shell"], (), agents, notice=False)
for d in gc.get_objects():
    if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith(
        "shell_envs.what_the_shell"
    ):
        # what was compiled, as the disk cache lists it (a caller loaded from the cache
        # does not load its callees)
        keys = str(list(d._cache._cache_file._load_index()))
        if "Literal" in keys:
            print(d.py_func.__module__, d.py_func.__name__)
"""


def test_each_search_function_compiles_once_not_once_per_constant_argument():
    """A Python integer constant passed to a compiled function compiles it once more for that
    constant (``Literal[int]``): the search once took 20 s longer to compile because of it."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", NO_LITERALS], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""
