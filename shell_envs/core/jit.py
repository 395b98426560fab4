"""One place that decides how rule code is compiled.

Every rule function in the project is decorated with [`jit`][] (or [`jit_parallel`][]
for batch loops), so the single environments, the batched environments, the agents and
the solver all run the same machine code.  ``NUMBA_DISABLE_JIT=1`` turns every one of them
into plain Python for debugging and coverage.

Compiled code is cached on disk, in a folder named after a fingerprint of every module
that compiles code ([`cache_dir`][], from ``shell_envs.core.compile_cache``), so stale code
never runs.  Importing this module applies the project's patches of numba's internals
(``shell_envs.core.numba_patches``): a damaged cache file is removed and its function
compiled again (one warning), and inlining skips numba's defensive copies.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import os
from collections.abc import Callable
from typing import Any, TypeVar

import numba  # noqa: F401  (``jit.numba``: the numba this module compiles with)
from numba import njit, prange

from shell_envs.core import numba_patches
from shell_envs.core.background import tiered
from shell_envs.core.compile_cache import cache_dir, compile_notice, is_cached

__all__ = [
    "cache_dir",
    "compile_notice",
    "is_cached",
    "jit",
    "jit_inline",
    "jit_parallel",
    "load_tbb",
    "prange",
]

numba_patches.apply()
# Parallel batch loops must not spin while another process holds the other core (the omp
# layer's setting, where TBB is not installed).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
_TBB_LIBRARIES = ("libtbb.so.12", "libtbb.12.dylib")
# a compiled function keeps the signature of the Python function it compiles
F = TypeVar("F", bound=Callable[..., Any])


def load_tbb() -> bool:
    """Load Intel TBB's library from the ``tbb`` package, if it is installed, so that numba's
    default choice of threading layer (TBB first) finds it; returns whether it did.

    The batched envs scale best on TBB's layer (``benchmarks/threading_layers.py``: on two
    cores What the Shell's random-play step at N = 4,096 ran 1.95x faster on 2 threads than
    on 1 with TBB, 1.39x with OpenMP), and TBB is the one layer numba calls safe with both
    threads and ``fork``.  The ``tbb`` wheel puts its library beside the environment's other
    libraries, off the loader's path, where numba does not look.  A layer chosen with
    ``NUMBA_THREADING_LAYER`` is left alone."""
    if numba.config.THREADING_LAYER not in ("default", "safe", "forksafe", "threadsafe", "tbb"):
        return False
    try:
        files = importlib.metadata.files("tbb") or []
    except importlib.metadata.PackageNotFoundError:
        return False
    for file in files:
        if file.name in _TBB_LIBRARIES:
            try:
                ctypes.CDLL(str(file.locate()), mode=ctypes.RTLD_GLOBAL)
            except OSError:
                return False
            return True
    return False


load_tbb()


def jit(fn: F) -> F:
    """Compile ``fn`` to native code, cached on disk between runs."""
    return tiered(njit(cache=True, nogil=True)(fn))


def jit_inline(fn: F) -> F:
    """[`jit`][], and inlined into every compiled caller (numba IR inlining).

    For small rule steps on hot paths: inlined, their array arguments need no reference
    counting (an atomic operation per array per call, which parallel batch loops otherwise
    contend on, since every game's rows are views of one array).
    """
    return tiered(njit(cache=True, nogil=True, inline="always")(fn))


def jit_parallel(fn: F) -> F:
    """Compile a batch loop whose ``prange`` iterations run on all cores."""
    return tiered(njit(cache=True, nogil=True, parallel=True)(fn))
