"""One place that decides how rule code is compiled.

Every rule function in the project is decorated with :func:`jit` (or :func:`jit_parallel`
for batch loops), so the single environments, the batched environments, the agents and
the solver all run the same machine code.  ``NUMBA_DISABLE_JIT=1`` turns every one of them
into plain Python for debugging and coverage.

Compiled code is cached on disk.  Numba's own cache checks only the file a function is
defined in, so a function that calls rules from another module could keep running stale
code after an edit or an upgrade.  The cache therefore lives in a folder named after a
fingerprint of the contents of every package module that compiles code: change any of them
and everything is compiled afresh (plain-Python modules do not count).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
from numba import njit, prange

__all__ = ["jit", "jit_inline", "jit_parallel", "prange", "cache_dir"]

_PACKAGE = Path(__file__).resolve().parents[1]


def _fingerprint() -> str:
    """A short hash of the numba version and of every package module that uses ``jit``."""
    digest = hashlib.sha1(numba.__version__.encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        source = path.read_bytes()
        if b"jit" in source:
            digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + source)
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where compiled code is cached: under ``NUMBA_CACHE_DIR`` if set, else the user cache."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "shell_envs"
    )
    return Path(base) / f"numba-{_fingerprint()}"


numba.config.CACHE_DIR = str(cache_dir())
# Parallel batch loops must not spin while another process holds the other core.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def jit(fn):
    """Compile ``fn`` to native code, cached on disk between runs."""
    return njit(cache=True, nogil=True)(fn)


def jit_inline(fn):
    """:func:`jit`, and inlined into every compiled caller (numba IR inlining).

    For small rule steps on hot paths: inlined, their array arguments need no reference
    counting (an atomic operation per array per call, which parallel batch loops otherwise
    contend on, since every game's rows are views of one array).
    """
    return njit(cache=True, nogil=True, inline="always")(fn)


def jit_parallel(fn):
    """Compile a batch loop whose ``prange`` iterations run on all cores."""
    return njit(cache=True, nogil=True, parallel=True)(fn)
