"""One place that decides how rule code is compiled.

Every rule function in the project is decorated with [`jit`][] (or [`jit_parallel`][]
for batch loops), so the single environments, the batched environments, the agents and
the solver all run the same machine code.  ``NUMBA_DISABLE_JIT=1`` turns every one of them
into plain Python for debugging and coverage.

Compiled code is cached on disk.  Numba's own cache checks only the file a function is
defined in, so a function that calls rules from another module could keep running stale
code after an edit or an upgrade.  The cache therefore lives in a folder named after a
fingerprint of the contents of every package module that compiles code: change any of them
and everything is compiled afresh (plain-Python modules do not count).  A damaged cache file
is removed and its function compiled again (one warning), and without a usable home
directory the cache moves to the temporary directory (one warning).
"""

from __future__ import annotations

import contextlib
import copy
import glob
import hashlib
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, TextIO

import numba
from numba import njit, prange
from numba.core import caching, inline_closurecall

from shell_envs.core.background import tiered

__all__ = [
    "cache_dir",
    "compile_notice",
    "is_cached",
    "jit",
    "jit_inline",
    "jit_parallel",
    "prange",
]

_PACKAGE = Path(__file__).resolve().parents[1]


def _fingerprint() -> str:
    """A short hash of the numba version, this module and every module that compiles code
    (one with a line starting ``@jit``): editing any other module keeps the cache."""
    digest = hashlib.sha1(numba.__version__.encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        source = path.read_bytes()
        if path == Path(__file__).resolve() or b"\n@jit" in source:
            digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + source)
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    """Whether ``folder`` exists (or can be made) and takes new files."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError:
        return False
    return True


def _home_cache() -> Path | None:
    """``~/.cache/shell_envs`` (or under ``XDG_CACHE_HOME``), None without a usable home."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "shell_envs"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):  # no HOME and no password entry
        return None
    if not home.is_absolute() or str(home) == "/":
        return None
    return home / ".cache" / "shell_envs"


def cache_dir() -> Path:
    """Where compiled code is cached: under ``NUMBA_CACHE_DIR`` if set, else the user cache.

    Without a usable home directory (none at all, or one that takes no files) the cache goes
    to a per-user folder in the temporary directory instead, with a warning.
    """
    leaf = f"numba-{_fingerprint()}"
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return Path(chosen) / leaf
    home = _home_cache()
    if home is not None and _writable(home / leaf):
        return home / leaf
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    fallback = Path(tempfile.gettempdir()) / f"shell_envs-{uid}" / leaf
    warnings.warn(
        f"shell_envs: no writable cache under the home directory ({home}); compiled code is "
        f"cached in {fallback} instead (set NUMBA_CACHE_DIR to choose)",
        RuntimeWarning,
        stacklevel=2,
    )
    return fallback


numba.config.CACHE_DIR = str(cache_dir())


_original_load_overload = caching.Cache.load_overload
_damaged_warned = False


def _load_overload_or_recompile(self, sig, target_context):
    """Numba's cache lookup, turning a damaged cache file into a miss.

    A truncated or corrupted index or data file (an interrupted write, a full disk) would
    otherwise raise an unpickling error on every later start.  The function's cache files are
    removed, a warning is given once, and numba compiles the function afresh and caches it.
    """
    try:
        return _original_load_overload(self, sig, target_context)
    except Exception as exc:  # any failure to read the cache is a miss
        _discard_cache_files(self, exc)
        return None


def _discard_cache_files(cache: Any, exc: Exception) -> None:
    """Delete the index and data files of ``cache`` (a numba ``Cache``) and warn once."""
    global _damaged_warned
    index = Path(getattr(cache._cache_file, "_index_path", ""))
    if index.suffix == ".nbi":
        for path in index.parent.glob(glob.escape(index.stem) + "*"):
            with contextlib.suppress(OSError):
                path.unlink()
    if not _damaged_warned:
        _damaged_warned = True
        warnings.warn(
            f"shell_envs: a damaged file in the compile cache ({index.parent}) was removed "
            f"and the code is compiled afresh ({type(exc).__name__}: {exc})",
            RuntimeWarning,
            stacklevel=2,
        )


caching.Cache.load_overload = _load_overload_or_recompile


class _SharedBlocks:
    """Stands in for the ``copy`` module inside numba's ``InlineWorker.inline_ir``."""

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        """The block itself: the IR it belongs to was built for this one inlining."""
        return value


def _fresh_ir_inliner(module: Any) -> Any:
    """``InlineWorker.inline_function`` of the inliner ``module`` (numba's, or numba-cuda's
    copy of it) without its defensive copies of the callee.

    ``inline_ir`` deep-copies the callee's IR twice, block by block, copying the whole
    variable scope again for every block, to protect an IR that may be shared.  Here the
    IR is built afresh for this call and used once, so the copies protect nothing; they were
    most of the time numba spends inlining the rules (numba issues 8989 and 9204), seconds of
    a first start.  The IR that is inlined is the same, so is the machine code.
    """

    def inline_fresh_ir(self, caller_ir, block, i, function, arg_typs=None):
        callee_ir = self.run_untyped_passes(function)
        freevars = function.__code__.co_freevars
        module_copy = module.copy
        module.copy = _SharedBlocks
        try:
            return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
        finally:
            module.copy = module_copy

    inline_fresh_ir.__doc__ = _fresh_ir_inliner.__doc__
    return inline_fresh_ir


def inline_without_copies(module: Any, inliner: Any = None) -> bool:
    """Make the ``InlineWorker`` of ``module`` inline without defensive copies (see
    `_fresh_ir_inliner`), if its layout is the one known here; returns whether it did."""
    worker = getattr(module, "InlineWorker", None)
    if getattr(module, "copy", None) is not copy or not hasattr(worker, "run_untyped_passes"):
        return False
    worker.inline_function = inliner or _fresh_ir_inliner(module)
    return True


_inline_fresh_ir = _fresh_ir_inliner(inline_closurecall)
_numba_inline_function = inline_closurecall.InlineWorker.inline_function
inline_without_copies(inline_closurecall, _inline_fresh_ir)
# Parallel batch loops must not spin while another process holds the other core.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def jit(fn):
    """Compile ``fn`` to native code, cached on disk between runs."""
    return tiered(njit(cache=True, nogil=True)(fn))


def jit_inline(fn):
    """[`jit`][], and inlined into every compiled caller (numba IR inlining).

    For small rule steps on hot paths: inlined, their array arguments need no reference
    counting (an atomic operation per array per call, which parallel batch loops otherwise
    contend on, since every game's rows are views of one array).
    """
    return tiered(njit(cache=True, nogil=True, inline="always")(fn))


def jit_parallel(fn):
    """Compile a batch loop whose ``prange`` iterations run on all cores."""
    return tiered(njit(cache=True, nogil=True, parallel=True)(fn))


def is_cached(*functions: Any) -> bool:
    """Whether every one of ``functions`` (compiled rule functions) has machine code cached.

    True when the disk cache holds a usable entry for each (written by this numba for this
    source), or when compilation is switched off (``NUMBA_DISABLE_JIT=1``), since then nothing
    compiles.  A function is compiled together with the functions it calls, so passing the
    outermost function of a task is enough.  Any doubt (an unreadable index) counts as not
    cached: the worst case is one notice too many.
    """
    for fn in functions:
        cache = getattr(fn, "_cache", None)
        if cache is None:  # a plain Python function: NUMBA_DISABLE_JIT, or not compiled at all
            continue
        try:
            if not cache._cache_file._load_index():
                return False
        except Exception:  # numba's private layout changed, or the index is damaged
            return False
    return True


def compile_notice(
    *functions: Any,
    what: str = "the game rules",
    file: TextIO | None = None,
    background: bool = False,
) -> bool:
    """Say in one line that ``what`` compiles now, once, and where the cache lives.

    Compilation of the rules takes from seconds to a minute the first time on a machine
    and nothing afterwards, so a first command that would otherwise sit silent tells the
    user why and how long.  Prints to ``file`` (standard error by default) only when some
    of ``functions`` are not cached yet ([`is_cached`][]); returns whether it printed.
    With ``background``, says that they compile in another process and run as plain Python
    until then ([`shell_envs.core.background`][]).
    """
    if is_cached(*functions):
        return False
    now = (
        " in the background, once (about 10 s); until then they run as plain Python, slower"
        if background
        else ", once (up to a minute)"
    )
    print(
        f"Compiling {what} to native code{now}; later runs load it from the cache in "
        f"{numba.config.CACHE_DIR}",
        file=sys.stderr if file is None else file,
        flush=True,
    )
    return True
