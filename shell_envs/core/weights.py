"""Small networks stored as named ``float32`` arrays in ``.npz`` files, checked on load.

The learned agents of both games (`shell_envs.what_the_shell.network`,
[`shell_envs.scorpion.network`][]) keep their weights this way, so that playing needs only
numpy: each game module describes its network with a `NetworkFormat` (the arrays'
names, their shapes for a hidden-layer width, the file shipped in ``shell_envs/data``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from shell_envs.core.validation import number_in

Network = tuple[np.ndarray, ...]


def trunk_shapes(n_features: int, hidden: int) -> dict[str, tuple[int, ...]]:
    """The shapes of a perceptron's two hidden layers (``w1``, ``b1``, ``w2``, ``b2``) of
    ``hidden`` units each, on ``n_features`` inputs: the trunk both games' networks share."""
    return {"w1": (n_features, hidden), "b1": (hidden,), "w2": (hidden, hidden), "b2": (hidden,)}


def hidden_width(arrays: dict[str, np.ndarray]) -> tuple[int, ...]:
    """A perceptron's size: its hidden width, the second dimension of its array ``w1``."""
    w1 = arrays["w1"]
    return (w1.shape[1] if w1.ndim == 2 else -1,)


def check(
    net: Sequence[np.ndarray],
    names: Sequence[str],
    shapes: Callable[..., dict[str, tuple[int, ...]]],
    dims: Callable[[dict[str, np.ndarray]], tuple[int, ...]] = hidden_width,
) -> Network:
    """``net`` as contiguous ``float32`` arrays, after checking each has the shape ``shapes``
    gives for the network's size (``dims`` reads the size off the arrays: by default the
    hidden width of a perceptron)."""
    arrays = tuple(np.ascontiguousarray(a, dtype=np.float32) for a in net)
    if len(arrays) != len(names):
        raise ValueError(f"a network has {len(names)} arrays, got {len(arrays)}")
    expected = shapes(*dims(dict(zip(names, arrays, strict=True))))
    for name, array in zip(names, arrays, strict=True):
        if array.shape != expected[name]:
            raise ValueError(f"weight {name} has shape {array.shape}, expected {expected[name]}")
    return arrays


def save(net: Network, names: Sequence[str], path: str | Path) -> None:
    """Write the arrays of ``net`` under ``names`` to a compressed ``.npz`` file."""
    arrays = dict(zip(names, net, strict=True))
    # numpy's stub matches **arrays against its allow_pickle keyword too
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def load(path: str | Path, names: Sequence[str]) -> Network:
    """The arrays ``names`` of an ``.npz`` file, in that order (``ValueError`` if one lacks)."""
    with np.load(path) as data:
        missing = [name for name in names if name not in data]
        if missing:
            raise ValueError(f"{path} is not a network file: it lacks {', '.join(missing)}")
        return tuple(data[name] for name in names)


class NetworkFormat:
    """One kind of network: its arrays' names and shapes, and the file shipped with the package.

    ``shapes(*size)`` gives each array's shape for the network's size, which ``dims`` reads off
    the arrays (default: a perceptron's hidden width); ``shipped_file`` is the file's name in
    ``shell_envs/data``.
    """

    def __init__(
        self,
        names: Sequence[str],
        shapes: Callable[..., dict[str, tuple[int, ...]]],
        shipped_file: str,
        dims: Callable[[dict[str, np.ndarray]], tuple[int, ...]] = hidden_width,
    ) -> None:
        self.names = tuple(names)
        self.shapes = shapes
        self.shipped_file = shipped_file
        self.dims = dims
        self._shipped: Network | None = None

    def check(self, net: Sequence[np.ndarray]) -> Network:
        """``net`` as contiguous ``float32`` arrays, after checking the shapes fit together."""
        return check(net, self.names, self.shapes, self.dims)

    def save(self, net: Sequence[np.ndarray], path: str | Path) -> None:
        """Write ``net`` to an ``.npz`` file."""
        save(self.check(net), self.names, path)

    def load(self, path: str | Path) -> Network:
        """Read a network from an ``.npz`` file written by `save`."""
        return self.check(load(path, self.names))

    def shipped(self) -> Network:
        """The network shipped with the package (read once)."""
        if self._shipped is None:
            files = resources.files("shell_envs.data") / self.shipped_file
            with resources.as_file(files) as path:
                self._shipped = self.load(path)
        return self._shipped

    def choose(self, weights: str | Path | None, net: Sequence[np.ndarray] | None) -> Network:
        """An agent's network: ``net`` if given, else the ``weights`` file, else the shipped one."""
        if net is not None:
            return self.check(net)
        return self.shipped() if weights is None else self.load(weights)


def check_temperature(temperature: Any) -> float:
    """``temperature`` as a float; a ValueError naming it unless it is a finite number ≥ 0
    (an infinite one would divide the logits into NaN where they are infinite)."""
    if not number_in(temperature, 0.0, np.inf) or not np.isfinite(temperature):
        raise ValueError(f"temperature must be a finite non-negative number, got {temperature!r}")
    return float(temperature)


def check_top_p(top_p: Any) -> float:
    """``top_p`` as a float; a ValueError naming it unless it is a number in (0, 1]."""
    if not number_in(top_p, 0.0, 1.0, low_open=True):
        raise ValueError(f"top_p must be a number in (0, 1], got {top_p!r}")
    return float(top_p)


def pick(
    rng: np.random.Generator,
    moves: np.ndarray,
    logits: np.ndarray,
    temperature: float,
    top_p: float = 1.0,
) -> int:
    """A learned policy's move among ``moves`` by their ``logits``: the best (ties at random)
    at temperature 0, else sampled from the softmax of the logits divided by ``temperature``,
    restricted to its nucleus: the most likely moves whose probabilities first sum to at
    least ``top_p`` (nucleus sampling; 1 keeps every move)."""
    if temperature == 0.0:
        return int(rng.choice(moves[logits >= logits.max() - 1e-6]))
    p = np.exp((logits - logits.max()) / temperature)
    p /= p.sum()
    if top_p < 1.0:
        order = np.argsort(-p, kind="stable")
        keep = order[: int(np.searchsorted(np.cumsum(p[order]), top_p)) + 1]
        moves, p = moves[keep], p[keep] / p[keep].sum()
    return int(rng.choice(moves, p=p))
