"""The policy network behind ``learned``: a small residual convolutional network, compiled.

A move is chosen without search, so the policy must see the board's patterns wherever they
lie: five-in-a-row threats and captures are the same shapes at every cell, which convolutions
share and a perceptron over 81 cells must learn again at each one.  The input is the search
network's (`search.net_features`): the seven observation and cell-value planes, with the
window evaluation as an eighth, constant plane.  A 3×3 convolution widens it to ``channels``
planes, ``blocks`` residual 3×3 convolutions follow (``h + relu(conv(h))``), and two heads
read the result: a 1×1 convolution gives the player's and the opponent's move logits at each
cell (the layout of `network`: 162 logits), and a linear map of the planes' means the
player's winning chance.  No batch normalisation, so the compiled forward pass is the layers
as trained.

The weights are numpy ``float32`` arrays (`WEIGHT_NAMES`) in an ``.npz`` file; the
shipped one is ``shell_envs/data/wts_policy.npz``.  It was distilled from ``mcts``
(``examples/train_what_the_shell_policy.py``, torch); playing needs only numpy and numba.
"""

from __future__ import annotations

import numpy as np

from shell_envs.core import weights
from shell_envs.core.jit import jit
from shell_envs.what_the_shell import network, rules
from shell_envs.what_the_shell.actions import cell_at, row_col

WEIGHTS_FILE = "wts_policy.npz"
WEIGHT_NAMES = ("w_in", "b_in", "w_mid", "b_mid", "w_policy", "b_policy", "w_value", "b_value")
IN_PLANES = network.N_PLANES + 1  # the feature planes and the window evaluation, spread
PADDED = rules.SIZE + 2  # the planes with a border of zeros: a 3×3 kernel never reads outside

Network = tuple[np.ndarray, ...]


@jit
def _convolve(source, kernel, bias, target):
    """``target``'s interior = relu(3×3 ``kernel`` over padded ``source`` + ``bias``).

    The 3×3 windows are first copied out as rows of 81 cells (im2col), so the inner loop runs
    over contiguous cells and vectorises; each cell sums its terms in the same order as a
    direct convolution would.
    """
    taps = np.empty((kernel.shape[1] * 9, rules.CELLS), dtype=np.float32)
    for plane in range(kernel.shape[1]):
        for d in range(9):
            for i in range(rules.SIZE):
                for j in range(rules.SIZE):
                    taps[plane * 9 + d, cell_at(i, j)] = source[plane, i + d // 3, j + d % 3]
    total = np.empty(rules.CELLS, dtype=np.float32)
    for out in range(kernel.shape[0]):
        total[:] = bias[out]
        for plane in range(kernel.shape[1]):
            for d in range(9):
                w = kernel[out, plane, d // 3, d % 3]
                row = taps[plane * 9 + d]
                for cell in range(rules.CELLS):
                    total[cell] += w * row[cell]
        for cell in range(rules.CELLS):
            i, j = row_col(cell)
            target[out, i + 1, j + 1] = max(total[cell], np.float32(0.0))


@jit
def forward(net: Network, x: np.ndarray, logits: np.ndarray) -> float:
    """One forward pass on features ``x`` (`network.N_FEATURES`): writes ``logits``
    (``float32[162]``: own moves, then the opponent's) and returns the winning chance."""
    w_in, b_in, w_mid, b_mid, w_policy, b_policy, w_value, b_value = net
    planes = np.zeros((IN_PLANES, PADDED, PADDED), dtype=np.float32)
    for cell in range(rules.CELLS):
        i, j = row_col(cell)
        i, j = i + 1, j + 1  # inside the zero border
        for k in range(network.N_PLANES):
            planes[k, i, j] = x[k * rules.CELLS + cell]
        planes[network.N_PLANES, i, j] = x[network.N_PLANES * rules.CELLS]
    channels = w_in.shape[0]
    h = np.zeros((channels, PADDED, PADDED), dtype=np.float32)
    spare = np.zeros((channels, PADDED, PADDED), dtype=np.float32)
    _convolve(planes, w_in, b_in, h)
    for block in range(w_mid.shape[0]):  # residual: h + relu(conv(h)); no literal flag, which
        _convolve(h, w_mid[block], b_mid[block], spare)  # would compile a second _convolve
        spare += h
        h, spare = spare, h
    v = b_value[0]
    for c in range(channels):
        v += w_value[0, c] * h[c, 1 : rules.SIZE + 1, 1 : rules.SIZE + 1].sum() / rules.CELLS
    for head in range(2):
        for cell in range(rules.CELLS):
            i, j = row_col(cell)
            i, j = i + 1, j + 1
            total = b_policy[head]
            for c in range(channels):
                total += w_policy[head, c] * h[c, i, j]
            logits[head * rules.CELLS + cell] = total
    return 1.0 / (1.0 + np.exp(-v))


def shapes(channels: int, blocks: int) -> dict[str, tuple[int, ...]]:
    """The shape of each weight array for ``channels`` planes and ``blocks`` residual blocks."""
    return {
        "w_in": (channels, IN_PLANES, 3, 3),
        "b_in": (channels,),
        "w_mid": (blocks, channels, channels, 3, 3),
        "b_mid": (blocks, channels),
        "w_policy": (2, channels),
        "b_policy": (2,),
        "w_value": (1, channels),
        "b_value": (1,),
    }


def size(arrays: dict[str, np.ndarray]) -> tuple[int, int]:
    """The network's channels and residual blocks, read off its arrays."""
    w_in, w_mid = arrays["w_in"], arrays["w_mid"]
    return (w_in.shape[0] if w_in.ndim == 4 else -1, w_mid.shape[0] if w_mid.ndim == 5 else -1)


def zeros(channels: int = 8, blocks: int = 1) -> Network:
    """A network of zeros: uniform policy and value ½ everywhere."""
    return tuple(np.zeros(shape, np.float32) for shape in shapes(channels, blocks).values())


FORMAT = weights.NetworkFormat(WEIGHT_NAMES, shapes, WEIGHTS_FILE, size)
check = FORMAT.check  # the arrays as float32, shapes checked
save = FORMAT.save  # to an .npz file
load = FORMAT.load  # from an .npz file written by save
shipped = FORMAT.shipped  # the network in shell_envs/data/wts_policy.npz
