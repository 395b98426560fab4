"""One place that decides how rule code is compiled.

Every rule function in the project is decorated with :func:`jit` (or :func:`jit_parallel`
for batch loops), so the single environments, the batched environments, the agents and
the solver all run the same machine code.  ``NUMBA_DISABLE_JIT=1`` turns every one of them
into plain Python for debugging and coverage.
"""

from __future__ import annotations

from numba import njit, prange

__all__ = ["jit", "jit_parallel", "prange"]


def jit(fn):
    """Compile ``fn`` to native code, cached on disk between runs."""
    return njit(cache=True, nogil=True)(fn)


def jit_parallel(fn):
    """Compile a batch loop whose ``prange`` iterations run on all cores."""
    return njit(cache=True, nogil=True, parallel=True)(fn)
