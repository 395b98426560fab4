"""One place that decides how rule code is compiled.

Every rule function in the project is decorated with :func:`jit` (or :func:`jit_parallel`
for batch loops), so the single environments, the batched environments, the agents and
the solver all run the same machine code.  ``NUMBA_DISABLE_JIT=1`` turns every one of them
into plain Python for debugging and coverage.

Compiled code is cached on disk.  Numba's own cache checks only the file a function is
defined in, so a function that calls rules from another module could keep running stale
code after an edit or an upgrade.  The cache therefore lives in a folder named after a
fingerprint of every source file of the package: change any file and everything is
compiled afresh.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
from numba import njit, prange

__all__ = ["jit", "jit_parallel", "prange", "cache_dir"]

_PACKAGE = Path(__file__).resolve().parents[1]


def _fingerprint() -> str:
    """A short hash of the path, size and modification time of every package source file."""
    digest = hashlib.sha1()
    for path in sorted(_PACKAGE.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(_PACKAGE)}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    digest.update(numba.__version__.encode())
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


def jit_parallel(fn):
    """Compile a batch loop whose ``prange`` iterations run on all cores."""
    return njit(cache=True, nogil=True, parallel=True)(fn)
