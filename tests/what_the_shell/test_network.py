"""The learned network: numba forward equals torch's, the weights file, the guided search.

The tests against torch skip without it (the ``train`` extra); the others run on a core install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from shell_envs.agents import make_agent
from shell_envs.agents.what_the_shell import GuidedMCTSAgent, LearnedAgent, WhatTheShellView
from shell_envs.what_the_shell import network, rules, search
from tests.examples.helpers import load_example

if TYPE_CHECKING:
    import torch


def positions(n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``n`` ongoing positions reached by random play of 0 to 30 rounds."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        board, eggs, meta = rules.new_state()
        rules.seed_numba(int(rng.integers(2**31)))
        rules.random_playout(board, eggs, meta, int(rng.integers(0, 31)))
        if meta[rules.OUTCOME] == rules.ONGOING:
            out.append((board, eggs, meta))
    return out


def test_numpy_forward_equals_torch_forward():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = load_example("train_what_the_shell_alphazero").Net(hidden=24)
    for p in model.parameters():  # larger weights than the init, so every unit matters
        torch.nn.init.normal_(p, std=0.3)
    net = model.export()
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((20, network.N_FEATURES)).astype(np.float32)
    xs[:10] *= rng.random((10, network.N_FEATURES)) < 0.2  # sparse rows, like the planes
    assert_forward_matches(model, net, network.forward, xs)


def assert_forward_matches(model: torch.nn.Module, net, forward, xs: np.ndarray) -> None:
    """The compiled ``forward`` of ``net`` gives the torch ``model``'s logits and value on
    every row of ``xs``."""
    import torch

    logits = np.empty(network.N_LOGITS, np.float32)
    with torch.no_grad():
        t_logits, t_value = model(torch.from_numpy(xs))
    for i, x in enumerate(xs):
        value = forward(net, x, logits)
        np.testing.assert_allclose(logits, t_logits[i].numpy(), rtol=1e-4, atol=1e-4)
        assert value == pytest.approx(float(torch.sigmoid(t_value[i])), abs=1e-5)


def test_features_are_colour_symmetric():
    for board, eggs, meta in positions(5, 1):
        black = np.empty(network.N_FEATURES, np.float32)
        white = np.empty(network.N_FEATURES, np.float32)
        search.net_features(board, eggs, meta, rules.BLACK, black)
        search.net_features(board, eggs, meta, rules.WHITE, white)
        c = rules.CELLS
        for a, b in ((0, 1), (5, 6)):
            np.testing.assert_array_equal(black[a * c : (a + 1) * c], white[b * c : (b + 1) * c])
        np.testing.assert_array_equal(black[2 * c : 5 * c], white[2 * c : 5 * c])
        assert black[-1] == pytest.approx(-white[-1])


def test_save_load_round_trip_and_bad_files(tmp_path):
    rng = np.random.default_rng(0)
    net = tuple(rng.standard_normal(a.shape).astype(np.float32) for a in network.zeros(8))
    network.save(net, tmp_path / "net.npz")
    for a, b in zip(net, network.load(tmp_path / "net.npz"), strict=True):
        np.testing.assert_array_equal(a, b)
    np.savez(tmp_path / "bad.npz", w1=np.zeros(3))
    with pytest.raises(ValueError, match="lacks"):
        network.load(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="shape"):
        network.check(net[:2] + (np.zeros((3, 3)),) + net[3:])


def test_shipped_network_is_small_and_loads():
    path = Path(network.__file__).parents[1] / "data" / network.WEIGHTS_FILE
    assert path.stat().st_size < 4_000_000
    assert network.check(network.shipped())[0].shape[0] == network.N_FEATURES


HYBRIDS = (  # option sets of the guided search's blends with the plain search's heuristics
    {},  # the defaults
    {"mix": 0.0, "candidates_from": "network", "c_puct": 1.5},  # pure AlphaZero
    {"mix": 0.5, "candidates_from": "heuristic"},
    {"mix": 1.0, "candidates_from": "both", "c_puct": 0.5},
    {"mix": 0.3, "candidates_from": "heuristic", "selection": "ucb", "exploration": 0.2},
)


@pytest.mark.parametrize("options", HYBRIDS)
def test_uniform_network_plays_like_uniform_priors(options):
    """A network of zeros (uniform priors, value ½) searches exactly as ``uniform=True``,
    with or without the blends."""
    for i, (board, eggs, meta) in enumerate(positions(4, 2)):
        for player in (rules.BLACK, rules.WHITE):
            view = WhatTheShellView.of(board, eggs, meta, player)
            mask = board == rules.EMPTY
            zero = GuidedMCTSAgent(iterations=120, net=network.zeros(16), seed=i, **options)
            uniform = GuidedMCTSAgent(iterations=120, uniform=True, seed=i, **options)
            assert zero.act_with_state(view, mask) == uniform.act_with_state(view, mask)
            for field in (search.T_CANDIDATES, search.T_VISITS, search.T_VALUES, search.T_PRIORS):
                np.testing.assert_array_equal(zero._tree[field], uniform._tree[field])


# GuidedMCTSAgent(iterations=150, seed=i) from black's view of positions(3, 7), recorded with
# the search before mix, candidates_from and selection existed (commit ef6c4de): the move, the
# root's candidates and visits of both sides, and the node count
RECORDED = (
    (76, [[76, 30, 35, 39, 42, 22, 48, 44], [30, 76, 35, 39, 42, 22, 48, 44]],
     [[60, 44, 22, 11, 4, 2, 5, 2], [80, 46, 18, 3, 1, 1, 1, 0]], 60),
    (43, [[43, 64, 37, 58, 32, 49, 75, 68], [43, 64, 37, 58, 32, 49, 75, 60]],
     [[128, 5, 5, 6, 3, 1, 2, 0], [124, 5, 13, 2, 1, 2, 2, 1]], 125),
    (40, [[40, 57, 21, 15, 16, 12, 33, 28], [40, 57, 16, 15, 21, 12, 33, 28]],
     [[27, 15, 27, 27, 25, 14, 7, 8], [26, 16, 22, 26, 25, 16, 10, 9]], 151),
)  # fmt: skip


def test_pure_guided_search_plays_as_before_the_blends():
    """``mix=0``, network candidates and PUCT with ``c_puct=1.5`` (the defaults before the
    blends) search exactly as the search did before."""
    pure = {"mix": 0.0, "candidates_from": "network", "selection": "puct", "c_puct": 1.5}
    for i, (board, eggs, meta) in enumerate(positions(3, 7)):
        view = WhatTheShellView.of(board, eggs, meta, rules.BLACK)
        agent = GuidedMCTSAgent(iterations=150, seed=i, **pure)
        move = agent.act_with_state(view, board == rules.EMPTY)
        tree = agent._tree
        assert (
            move,
            tree[search.T_CANDIDATES][0].tolist(),
            tree[search.T_VISITS][0].astype(int).tolist(),
            int(tree[search.T_N_NODES][0]),
        ) == RECORDED[i]


@pytest.mark.parametrize("options", HYBRIDS)
def test_guided_options_are_deterministic_for_a_seed(options):
    for board, eggs, meta in positions(2, 9):
        mask = board == rules.EMPTY
        view = WhatTheShellView.of(board, eggs, meta, rules.WHITE)
        runs = []
        for _ in range(2):
            agent = GuidedMCTSAgent(iterations=100, seed=4, **options)
            runs.append((agent.act_with_state(view, mask), agent._tree[search.T_VISITS].copy()))
        assert runs[0][0] == runs[1][0]
        np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_leaf_value_mixes_the_value_head_and_the_window_evaluation():
    """Each node's stored value is ``(1 - mix)`` times the network's plus ``mix`` times
    :func:`search.evaluate`'s (the outcome when the game is decided)."""
    board, eggs, meta = positions(1, 3)[0]
    net = network.shipped()
    x = np.empty(network.N_FEATURES, np.float32)
    logits = np.empty(network.N_LOGITS, np.float32)
    for mix in (0.0, 0.25, 1.0):
        agent = GuidedMCTSAgent(iterations=60, mix=mix, seed=0)
        agent.act_with_state(WhatTheShellView.of(board, eggs, meta, 1), board == rules.EMPTY)
        tree = agent._tree
        for node in range(int(tree[search.T_N_NODES][0])):
            fields = (search.T_BOARDS, search.T_EGGS, search.T_METAS)
            b, e, m = (tree[f][node].copy() for f in fields)
            window = search.evaluate(b, m)
            if m[rules.OUTCOME] != rules.ONGOING:
                expected = window  # the outcome: 1, 0 or ½
            else:
                search.net_features(b, e, m, rules.BLACK, x)
                expected = (1 - mix) * network.forward(net, x, logits) + mix * window
            assert tree[search.T_LEAF][node] == pytest.approx(expected, abs=1e-12)


def test_candidates_from_the_heuristic_or_both():
    """``"heuristic"`` takes the plain search's candidates; ``"both"`` takes the network's and
    the heuristic's best cells in turn; the priors are the network's softmax over them."""
    for board, eggs, meta in positions(3, 11):
        mask = board == rules.EMPTY
        view = WhatTheShellView.of(board, eggs, meta, rules.BLACK)
        plain = search.new_tree(2, 8)
        search.init_root(plain, board, eggs, meta, mask)
        trees = {}
        for source in ("network", "heuristic", "both"):
            agent = GuidedMCTSAgent(iterations=20, candidates_from=source, seed=0)
            agent.act_with_state(view, mask)
            trees[source] = agent._tree
        for side in range(2):
            net_cells = trees["network"][search.T_CANDIDATES][0, side].tolist()
            heuristic_cells = plain[search.T_CANDIDATES][0, side].tolist()
            assert trees["heuristic"][search.T_CANDIDATES][0, side].tolist() == heuristic_cells
            both = trees["both"][search.T_CANDIDATES][0, side].tolist()
            assert len(set(both)) == 8
            assert set(net_cells[:4]) | set(heuristic_cells[:4]) <= set(both)
            assert both[:2] == [net_cells[0], heuristic_cells[0]] or (
                net_cells[0] == heuristic_cells[0] and both[0] == net_cells[0]
            )
            for tree in trees.values():
                priors = tree[search.T_PRIORS][0, side]
                assert priors.sum() == pytest.approx(1.0) and (priors > 0).all()


def test_ucb_hybrid_with_the_window_evaluation_searches_as_mcts():
    """``mix=1``, heuristic candidates and UCB: the guided search is the plain ``mcts``
    search (same candidates, values and visits), so the blends span both searches."""
    for board, eggs, meta in positions(3, 13):
        for player in (rules.BLACK, rules.WHITE):
            view = WhatTheShellView.of(board, eggs, meta, player)
            mask = board == rules.EMPTY
            guided = GuidedMCTSAgent(
                iterations=200, candidates=6, mix=1.0, candidates_from="heuristic",
                selection="ucb", exploration=0.35, seed=1,
            )  # fmt: skip
            plain = make_agent("what_the_shell", "mcts", iterations=200, seed=1)
            guided.act_with_state(view, mask)
            plain.act_with_state(view, mask)
            for field in (search.T_CANDIDATES, search.T_VISITS, search.T_VALUES):
                np.testing.assert_array_equal(guided._tree[field][0], plain._tree[field][0])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mix": -0.1}, "mix must be a number in \\[0, 1\\]"),
        ({"mix": 1.5}, "mix must be"),
        ({"mix": "half"}, "mix must be"),
        ({"candidates_from": "rollouts"}, "candidates_from must be one of"),
        ({"selection": "regret_matching"}, "selection must be one of 'puct', 'ucb'"),
        ({"exploration": -1.0}, "exploration must be a non-negative number"),
        ({"c_puct": -1.0}, "c_puct must be a non-negative number"),
        ({"uniform": "yes"}, "uniform must be True or False"),
    ],
)
def test_guided_options_are_validated(options, message):
    with pytest.raises(ValueError, match=message):
        GuidedMCTSAgent(**options)


def test_guided_search_finds_the_winning_cell():
    board, eggs, meta = rules.new_state()
    board[[36, 37, 38, 39]] = rules.BLACK  # a5-d5: e5 (40) completes five
    board[[0, 10, 60, 70]] = rules.WHITE
    view = WhatTheShellView.of(board, eggs, meta, rules.BLACK)
    agent = GuidedMCTSAgent(iterations=800, candidates=81, uniform=True, seed=0)
    assert agent.act_with_state(view, board == rules.EMPTY) == 40
    assert make_agent("what_the_shell", "mcts-learned", seed=0).act_with_state(
        view, board == rules.EMPTY
    ) in (40, 35)  # e5 wins; a5's other end is off the board, so 35 is not a threat
    # With one winning cell white can deny it by colliding there, and `mcts`, the policy's
    # teacher, often prepares elsewhere instead; an open four (b5-e5) cannot be denied twice.
    board[36] = rules.EMPTY
    board[40] = rules.BLACK
    view = WhatTheShellView.of(board, eggs, meta, rules.BLACK)
    argmax = make_agent("what_the_shell", "learned:temperature=0")
    move = argmax.act_with_state(view, board == rules.EMPTY)
    assert move in (36, 41)  # a5 or f5 completes five


def test_both_searches_keep_to_a_full_tree():
    # far more iterations than nodes: once the tree is full, new positions are valued without
    # being kept, every visit is still credited, and the node count never passes capacity
    board, eggs, meta = rules.new_state()
    mask = np.ones(rules.CELLS, dtype=np.bool_)
    net = network.shipped()
    for guided in (False, True):
        tree = search.new_tree(12, 8)
        if guided:
            source = search.NETWORK_CANDIDATES
            search.init_guided_root(tree, board, eggs, meta, mask, net, False, 0.0, source)
            search.run_guided_search(tree, 400, net, False, search.PUCT, 1.5, 0.0, source)
        else:
            search.init_root(tree, board, eggs, meta, mask)
            search.run_search(tree, 400, search.UCB, 1.0, 0.1)
        assert tree[search.T_N_NODES][0] == 12
        assert tree[search.T_NODE_VISITS][0] == 400
        assert tree[search.T_VISITS][0, 0].sum() == tree[search.T_VISITS][0, 1].sum() == 400
        assert (tree[search.T_CHILDREN][:12] < 12).all()


def test_agents_play_legal_seeded_moves():
    for spec in ("learned", "mcts-learned:iterations=60", "learned:temperature=1.0"):
        moves = []
        for _ in range(2):
            agent = make_agent("what_the_shell", spec, seed=3)
            played = []
            for board, eggs, meta in positions(3, 4):
                mask = board == rules.EMPTY
                mask[np.flatnonzero(mask)[:5]] = False
                cell = agent.act_with_state(WhatTheShellView.of(board, eggs, meta, 2), mask)
                assert mask[cell]
                played.append(cell)
            moves.append(played)
        assert moves[0] == moves[1]
    for bad in (-1, float("inf"), float("nan"), True, "hot"):
        with pytest.raises(ValueError, match="temperature"):
            LearnedAgent(temperature=bad)


def test_agents_take_a_weights_file(tmp_path):
    network.save(network.zeros(8), tmp_path / "zero.npz")
    agent = make_agent("what_the_shell", f"learned:weights={tmp_path / 'zero.npz'}")
    assert agent.net[0].shape == (network.N_FEATURES, 8)


PLAY_SCRIPT = """
import json, sys
{prelude}
import numpy as np
from shell_envs.agents import WhatTheShellView, make_agent
from shell_envs.what_the_shell import rules
rng = np.random.default_rng(5)
moves = []
for spec in ("learned", "mcts-learned:iterations=24"):
    board, eggs, meta = rules.new_state()
    rules.seed_numba(7)
    rules.random_playout(board, eggs, meta, 14)
    agent = make_agent("what_the_shell", spec, seed=1)
    for player in (1, 2):
        view = WhatTheShellView.of(board, eggs, meta, player)
        moves.append(agent.act_with_state(view, board == rules.EMPTY))
print(json.dumps(moves))
"""


def test_same_moves_without_jit():
    outputs = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        script = PLAY_SCRIPT.format(prelude="")
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(json.loads(out.stdout))
    assert outputs[0] == outputs[1]


def test_shipped_agents_play_without_torch():
    prelude = (
        "sys.modules['torch'] = None  # importing torch now fails\n"
        "from shell_envs.bench.games import play_what_the_shell\n"
        "from shell_envs.agents.spec import parse_spec\n"
        "for spec in ('learned', 'mcts-learned:iterations=24'):\n"
        "    record, _ = play_what_the_shell(parse_spec(spec), parse_spec('greedy'), 0, 200)\n"
        "    assert record['end'] in ('win', 'draw'), record\n"
        "try:\n"
        "    import torch\n"
        "except ImportError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('torch imported')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", PLAY_SCRIPT.format(prelude=prelude)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)) == 4
