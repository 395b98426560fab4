"""Where compiled code is cached, and whether a function's code is there yet.

Numba's own cache checks only the file a function is defined in, so a function that calls
rules from another module could keep running stale code after an edit or an upgrade.  The
cache therefore lives in a folder named after a fingerprint of the contents of every package
module that compiles code, and of the modules that decide how it compiles
([`shell_envs.core.jit`][], ``shell_envs.core.numba_patches``): change any of them and
everything is compiled afresh (plain-Python modules do not count).  Without a usable home
directory the cache moves to the temporary directory (one warning).

Shared by [`shell_envs.core.jit`][] (which re-exports its public names) and
[`shell_envs.core.background`][], so that neither imports the other's module for it.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, TextIO

import numba

__all__ = ["cache_dir", "compile_notice", "is_cached"]

_PACKAGE = Path(__file__).resolve().parents[1]
# the modules that decide how code compiles, beside those that compile code (``@jit``)
_COMPILER = frozenset(_PACKAGE / "core" / name for name in ("jit.py", "numba_patches.py"))


def _fingerprint() -> str:
    """A short hash of the numba version, the compiler modules and every module that compiles
    code (one with a line starting ``@jit``): editing any other module keeps the cache."""
    digest = hashlib.sha1(numba.__version__.encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        source = path.read_bytes()
        if path in _COMPILER or b"\n@jit" in source:
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
