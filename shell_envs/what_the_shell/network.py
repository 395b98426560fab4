"""The network that guides ``mcts-learned``: features, a compiled forward pass, its weights file.

(``learned``, which plays without search, uses the convolutional
[`policy_network`][] over the same features.)

A small multilayer perceptron (two ReLU hidden layers) read from one player's point of view:
its input (`search.net_features`) is the five observation planes (own turtles, opponent
turtles, eggs, egg order, sudden death), both players' one-ply cell values from
`search.score_both` (log-squashed) and the window evaluation, `N_FEATURES`
numbers in all; its outputs are the logits of the player's own move and of the opponent's
move over the 81 cells, and the player's winning chance (a sigmoid, a draw counting ½).  One
forward pass therefore gives the search both sides' priors and the leaf value.

The weights are a tuple of numpy ``float32`` arrays (`WEIGHT_NAMES`), stored as an
``.npz`` file; the shipped one is ``shell_envs/data/wts_network.npz`` (`shipped`).  The
forward pass is numba-compiled numpy, so playing needs no torch (training does: see
``examples/train_what_the_shell_alphazero.py``).
"""

from __future__ import annotations

import numpy as np

from shell_envs.core import weights
from shell_envs.core.jit import jit
from shell_envs.what_the_shell import rules

WEIGHTS_FILE = "wts_network.npz"
WEIGHT_NAMES = ("w1", "b1", "w2", "b2", "w_policy", "b_policy", "w_value", "b_value")
N_PLANES = 7  # own, opponent, eggs, egg order, sudden death, own cell values, opponent's
N_FEATURES = N_PLANES * rules.CELLS + 1  # and the window evaluation
N_LOGITS = 2 * rules.CELLS  # own move, then the opponent's

Network = tuple[np.ndarray, ...]


@jit
def forward(net: Network, x: np.ndarray, logits: np.ndarray) -> float:
    """One forward pass on features ``x``: writes ``logits`` (``float32[162]``), returns the value.

    The value is the winning chance of the player the features were made for, in (0, 1).
    """
    w1, b1, w2, b2, wp, bp, wv, bv = net
    h1 = b1.copy()
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:  # the planes are mostly zero
            for j in range(h1.shape[0]):
                h1[j] += xi * w1[i, j]
    h2 = b2.copy()
    for i in range(h1.shape[0]):
        hi = h1[i]
        if hi > 0.0:  # ReLU
            for j in range(h2.shape[0]):
                h2[j] += hi * w2[i, j]
    logits[:] = bp
    v = bv[0]
    for i in range(h2.shape[0]):
        hi = h2[i]
        if hi > 0.0:
            for j in range(logits.shape[0]):
                logits[j] += hi * wp[i, j]
            v += hi * wv[i, 0]
    return 1.0 / (1.0 + np.exp(-v))


def zeros(hidden: int = 128) -> Network:
    """A network of zeros: uniform priors and value ½ everywhere (the uniform network)."""
    return tuple(np.zeros(shape, np.float32) for shape in shapes(hidden).values())


def shapes(hidden: int) -> dict[str, tuple[int, ...]]:
    """The shape of each weight array of a network with ``hidden`` units per hidden layer."""
    return {
        **weights.trunk_shapes(N_FEATURES, hidden),
        "w_policy": (hidden, N_LOGITS),
        "b_policy": (N_LOGITS,),
        "w_value": (hidden, 1),
        "b_value": (1,),
    }


FORMAT = weights.NetworkFormat(WEIGHT_NAMES, shapes, WEIGHTS_FILE)
check = FORMAT.check  # the arrays as float32, shapes checked
save = FORMAT.save  # to an .npz file
load = FORMAT.load  # from an .npz file written by save
shipped = FORMAT.shipped  # the network in shell_envs/data/wts_network.npz
