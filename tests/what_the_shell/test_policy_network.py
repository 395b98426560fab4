"""The policy network behind ``learned``: numba forward equals torch's, its file, the agent.

The tests against torch skip without it (the ``train`` extra); the others run on a core install.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shell_envs.agents import make_agent
from shell_envs.agents.what_the_shell import LearnedAgent, WhatTheShellView
from shell_envs.what_the_shell import network, policy_network, rules, search
from tests.examples.helpers import load_example
from tests.what_the_shell.test_network import assert_forward_matches, positions


@pytest.mark.parametrize(("channels", "blocks"), [(6, 0), (5, 2)])
def test_numpy_forward_equals_torch_forward(channels, blocks):
    torch = pytest.importorskip("torch")
    torch.manual_seed(blocks)
    model = load_example("train_what_the_shell_policy").Net(channels, blocks)
    for p in model.parameters():  # larger weights than the init, so every unit matters
        torch.nn.init.normal_(p, std=0.3)
    net = model.export()
    rng = np.random.default_rng(blocks)
    xs = rng.standard_normal((12, network.N_FEATURES)).astype(np.float32)
    for i, (board, eggs, meta) in enumerate(positions(4, 3)):  # and real features
        search.net_features(board, eggs, meta, rules.BLACK + i % 2, xs[i])
    assert_forward_matches(model, net, policy_network.forward, xs)


def test_bfloat16_autocast_gives_float32_outputs_close_to_float32():
    """The recipe's ``--bf16`` fit: same network, float32 outputs, bfloat16 rounding only."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = load_example("train_what_the_shell_policy").Net(8, 2)
    x = (torch.rand(16, network.N_FEATURES) < 0.2).float()
    logits, value = model(x)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low_logits, low_value = model(x)
    assert low_logits.dtype == low_value.dtype == torch.float32
    assert not torch.equal(low_logits, logits)  # the autocast did run in bfloat16
    torch.testing.assert_close(low_logits, logits, atol=0.05, rtol=0.05)
    torch.testing.assert_close(low_value, value, atol=0.05, rtol=0.05)


def test_convolution_sums_as_a_direct_convolution_term_for_term():
    """The compiled (im2col) 3×3 convolution equals a plain direct one bit for bit in float32:
    bias first, then planes, kernel rows and columns in order."""
    rng = np.random.default_rng(7)
    padded = policy_network.PADDED
    source = np.zeros((3, padded, padded), np.float32)
    source[:, 1:-1, 1:-1] = rng.standard_normal((3, rules.SIZE, rules.SIZE))
    kernel = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    target = np.zeros((4, padded, padded), np.float32)
    policy_network._convolve(source, kernel, bias, target)
    expected = np.zeros_like(target)
    for out, i, j in np.ndindex(4, rules.SIZE, rules.SIZE):
        total = bias[out]
        for plane, di, dj in np.ndindex(3, 3, 3):
            total = np.float32(total + kernel[out, plane, di, dj] * source[plane, i + di, j + dj])
        expected[out, i + 1, j + 1] = max(total, np.float32(0.0))
    np.testing.assert_array_equal(target, expected)


def test_edge_cells_see_zeros_beyond_the_board():
    """A kernel that reads only its left neighbour: column 0 gets the bias alone."""
    net = list(policy_network.zeros(channels=1, blocks=0))
    net[0][0, 0, 1, 0] = 1.0  # w_in: own turtles, one column to the left
    net[4][0, 0] = 1.0  # own-move logit = the plane
    x = np.zeros(network.N_FEATURES, np.float32)
    x[: rules.CELLS] = 1.0  # own turtles everywhere
    logits = np.empty(network.N_LOGITS, np.float32)
    policy_network.forward(policy_network.check(net), x, logits)
    grid = logits[: rules.CELLS].reshape(rules.SIZE, rules.SIZE)
    assert (grid[:, 0] == 0.0).all() and (grid[:, 1:] == 1.0).all()


def test_save_load_round_trip_and_bad_files(tmp_path):
    rng = np.random.default_rng(0)
    net = tuple(rng.standard_normal(a.shape).astype(np.float32) for a in policy_network.zeros(4, 2))
    policy_network.save(net, tmp_path / "net.npz")
    for a, b in zip(net, policy_network.load(tmp_path / "net.npz"), strict=True):
        np.testing.assert_array_equal(a, b)
    network.save(network.zeros(8), tmp_path / "mlp.npz")
    with pytest.raises(ValueError, match="lacks"):
        policy_network.load(tmp_path / "mlp.npz")
    with pytest.raises(ValueError, match="w_mid has shape"):
        policy_network.check(net[:2] + (np.zeros((2, 4, 3, 3, 3)),) + net[3:])


def test_shipped_policy_is_small_and_loads():
    path = Path(policy_network.__file__).parents[1] / "data" / policy_network.WEIGHTS_FILE
    assert path.stat().st_size < 1_000_000
    arrays = dict(zip(policy_network.WEIGHT_NAMES, policy_network.shipped(), strict=True))
    channels, blocks = policy_network.size(arrays)
    assert channels > 0 and blocks >= 0


def test_learned_plays_the_argmax_of_its_network(tmp_path):
    """``learned`` at temperature 0 plays the legal cell with the best own-move logit of the
    policy network by default, and of the perceptron when given the search network's file."""
    network.save(network.shipped(), tmp_path / "mlp.npz")
    policy_network.save(policy_network.shipped(), tmp_path / "policy.npz")
    conv = (policy_network.shipped(), policy_network.forward)
    mlp = (network.shipped(), network.forward)
    cases = (
        ("learned:temperature=0", *conv),
        (f"learned:temperature=0,weights={tmp_path / 'policy.npz'}", *conv),
        (f"learned:temperature=0,weights={tmp_path / 'mlp.npz'}", *mlp),
    )
    x = np.empty(network.N_FEATURES, np.float32)
    logits = np.empty(network.N_LOGITS, np.float32)
    for spec, net, forward in cases:
        agent = make_agent("what_the_shell", spec, seed=0)
        for board, eggs, meta in positions(6, 9):
            for player in (rules.BLACK, rules.WHITE):
                mask = board == rules.EMPTY
                search.net_features(board, eggs, meta, player, x)
                forward(net, x, logits)
                own = np.where(mask, logits[: rules.CELLS], -np.inf)
                view = WhatTheShellView.of(board, eggs, meta, player)
                assert agent.act_with_state(view, mask) == int(np.argmax(own))


def test_learned_takes_either_network_as_arrays():
    assert LearnedAgent(net=policy_network.zeros(4, 1)).net[0].ndim == 4
    assert LearnedAgent(net=network.zeros(8)).net[0].shape == (network.N_FEATURES, 8)
