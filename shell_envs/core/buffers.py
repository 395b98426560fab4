"""Recycled output arrays for batched environments.

A batched env returns fresh arrays every step (Gymnasium's ``copy=True`` contract: a later
step never overwrites what an earlier one returned).  Allocating several megabytes per step
costs page faults on every step, so the envs draw their output arrays from a pool: an array
goes back into use only once nothing outside the pool refers to it (not even a view, which
holds a reference to its base), so no caller can ever see it change.  Copies of several
megabytes (a batched env's masks) are made on all cores: a serial copy would be serial time in
every step, which caps how the env scales with cores.
"""

from __future__ import annotations

import sys

import numpy as np

from shell_envs.core.jit import jit_parallel, prange

_FREE_REFCOUNT = 2  # the pool's list entry plus getrefcount's own argument
PARALLEL_BYTES = 1 << 20  # copies from this size up run on all cores
_BLOCK_BYTES = 1 << 16  # bytes copied by one parallel iteration


@jit_parallel
def _copy_bytes(out, source):
    """``out[:] = source`` (1-D ``uint8``), in blocks on all cores."""
    n = source.shape[0]
    for b in prange((n + _BLOCK_BYTES - 1) // _BLOCK_BYTES):
        start = b * _BLOCK_BYTES
        stop = min(n, start + _BLOCK_BYTES)
        out[start:stop] = source[start:stop]


class BufferPool:
    """Up to ``size`` arrays of one shape and dtype, reused once released by every caller."""

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype | type, size: int = 4) -> None:
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.size = size
        self._arrays: list[np.ndarray] = []

    def take(self) -> np.ndarray:
        """A pooled array nobody else refers to (contents undefined), or a fresh one."""
        for i in range(len(self._arrays)):
            if sys.getrefcount(self._arrays[i]) == _FREE_REFCOUNT:
                return self._arrays[i]
        array = np.empty(self.shape, self.dtype)
        if len(self._arrays) < self.size:
            self._arrays.append(array)
        return array

    def copy_of(self, source: np.ndarray) -> np.ndarray:
        """``source`` copied into a pooled array."""
        out = self.take()
        if (
            source.nbytes >= PARALLEL_BYTES
            and source.shape == out.shape
            and source.dtype == out.dtype
            and source.flags.c_contiguous
        ):
            _copy_bytes(out.reshape(-1).view(np.uint8), source.reshape(-1).view(np.uint8))
        else:
            np.copyto(out, source)
        return out

    def __len__(self) -> int:
        """How many arrays the pool holds."""
        return len(self._arrays)


# the set's list slot (for a set) or tuple slot (for an array), the loop's name, and
# getrefcount's argument
_SET_REFCOUNT = 3


class BufferSets:
    """Up to ``size`` sets of arrays, one of each ``(shape, dtype)`` of ``specs``: all the
    arrays one step returns, taken in one call; a set is reused once nothing outside the pool
    refers to any of its arrays (not even a view), as with `BufferPool`."""

    def __init__(self, specs: list[tuple[tuple[int, ...], np.dtype | type]], size: int = 4) -> None:
        self.specs = [(tuple(shape), np.dtype(dtype)) for shape, dtype in specs]
        self.size = size
        self._sets: list[tuple[np.ndarray, ...]] = []

    def take(self) -> tuple[np.ndarray, ...]:
        """A set nobody else refers to (contents undefined), or a fresh one."""
        for arrays in self._sets:
            if sys.getrefcount(arrays) != _SET_REFCOUNT:  # a caller keeps the set itself
                continue
            for array in arrays:
                if sys.getrefcount(array) != _SET_REFCOUNT:
                    break
            else:
                return arrays
        arrays = tuple(np.empty(shape, dtype) for shape, dtype in self.specs)
        if len(self._sets) < self.size:
            self._sets.append(arrays)
        return arrays

    def __len__(self) -> int:
        """How many sets the pool holds."""
        return len(self._sets)
