"""The learned network: numba forward equals torch's, the weights file, the guided search."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from shell_envs.agents import make_agent
from shell_envs.agents.what_the_shell import GuidedMCTSAgent, LearnedAgent, WhatTheShellView
from shell_envs.what_the_shell import network, rules, search

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_what_the_shell_alphazero.py"


def load_example():
    """Import the training example (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location("train_wts_az", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    torch.manual_seed(0)
    model = load_example().Net(hidden=24)
    for p in model.parameters():  # larger weights than the init, so every unit matters
        torch.nn.init.normal_(p, std=0.3)
    net = model.export()
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((20, network.N_FEATURES)).astype(np.float32)
    xs[:10] *= rng.random((10, network.N_FEATURES)) < 0.2  # sparse rows, like the planes
    logits = np.empty(network.N_LOGITS, np.float32)
    with torch.no_grad():
        t_logits, t_value = model(torch.from_numpy(xs))
    for i, x in enumerate(xs):
        value = network.forward(net, x, logits)
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


def test_uniform_network_plays_like_uniform_priors():
    """A network of zeros (uniform priors, value ½) searches exactly as ``uniform=True``."""
    for i, (board, eggs, meta) in enumerate(positions(4, 2)):
        for player in (rules.BLACK, rules.WHITE):
            view = WhatTheShellView.of(board, eggs, meta, player)
            mask = board == rules.EMPTY
            zero = GuidedMCTSAgent(iterations=120, net=network.zeros(16), seed=i)
            uniform = GuidedMCTSAgent(iterations=120, uniform=True, seed=i)
            assert zero.act_with_state(view, mask) == uniform.act_with_state(view, mask)
            for field in (search.T_CANDIDATES, search.T_VISITS, search.T_VALUES, search.T_PRIORS):
                np.testing.assert_array_equal(zero._tree[field], uniform._tree[field])


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
    assert make_agent("what_the_shell", "learned").act_with_state(view, board == rules.EMPTY) == 40


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
    with pytest.raises(ValueError, match="temperature"):
        LearnedAgent(temperature=-1)


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
