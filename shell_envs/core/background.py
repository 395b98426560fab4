"""Compile an environment's rules in a background process; run them as plain Python meanwhile.

The first use of an environment on a machine would wait 10 s or more for numba to compile
its rules.  Instead, an environment built while its rules are not in the disk cache starts
one background process that compiles them into the cache ([`start`][]), and until that
process is done the rule functions called from Python run as the plain Python functions
numba compiles (as under ``NUMBA_DISABLE_JIT=1``: the same games, about 30–200× slower).
The first call after it is done loads the machine code from the cache, and from then on
every call runs compiled.  So the first ``reset`` and ``step`` come at once, and a script
that ends before the compile does leaves a full cache for the next run.

How: every compiled rule function gets a hook on numba's compile-on-first-call path
([`tiered`][], through ``shell_envs.core.numba_patches.hook_compile``), the only path a
call from Python with new argument types takes; calls that find machine code, and compiled
code calling compiled code, never pass through it.

``SHELL_ENVS_BACKGROUND_COMPILE=0`` switches this off (compile in the foreground, as the
command-line tools do); [`wait`][] blocks until the background compiles are done.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: no cross-process lock, each process compiles its own
    fcntl = None  # type: ignore[assignment]

import numba

from shell_envs.core.compile_cache import compile_notice, is_cached
from shell_envs.core.numba_patches import hook_compile, plain_function

__all__ = ["ENV_VAR", "enabled", "pending", "start", "tiered", "wait"]

ENV_VAR = "SHELL_ENVS_BACKGROUND_COMPILE"
_POLL_S = 0.05  # how often a pending task looks whether its compile has finished


class _Task:
    """One background compile: the modules whose functions run as plain Python until it ends."""

    def __init__(self, modules: frozenset[str], process: Any, lock: Path | None) -> None:
        self.modules = modules
        self.process = process  # our own child, or None when another process compiles
        self.lock = lock
        self.done = False
        self._next_look = 0.0

    def pending(self) -> bool:
        """Whether the compile is still running (looked at no more often than every 50 ms)."""
        if self.done:
            return False
        now = time.monotonic()
        if now >= self._next_look:
            self._next_look = now + _POLL_S
            if self.process is not None:
                self.done = self.process.poll() is not None
            else:
                self.done = not _lock_held(self.lock)
        return not self.done

    def wait(self, deadline: float | None) -> bool:
        """Block until the compile is done or ``deadline`` (monotonic) passes."""
        while self.pending():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)
        return True


_tasks: dict[str, _Task] = {}
_pending_modules: frozenset[str] = frozenset()  # empty when nothing is pending: the fast test
_local = threading.local()  # .depth: plain-Python rule calls in progress on this thread


def _after_fork() -> None:
    """In a forked process the background processes are not its children: it watches their
    locks instead (a worker forked while a compile runs waits for that one, starts none)."""
    for task in _tasks.values():
        task.process = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def enabled() -> bool:
    """Whether environments compile in the background (not when ``SHELL_ENVS_BACKGROUND_COMPILE``
    is ``0``, nor when numba does not compile at all)."""
    return os.environ.get(ENV_VAR, "1") != "0" and not numba.config.DISABLE_JIT


def _key(entry: str, payload: dict[str, Any]) -> str:
    """What names one background compile: its entry point and payload."""
    return entry + " " + json.dumps(payload, sort_keys=True)


def _lock_path(key: str) -> Path | None:
    """The file a background compile of ``key`` holds locked while it runs, in the compile
    cache (None where there are no file locks)."""
    if fcntl is None or not numba.config.CACHE_DIR:
        return None
    digest = hashlib.sha1(key.encode()).hexdigest()[:16]
    return Path(numba.config.CACHE_DIR) / f".compiling-{digest}.lock"


def _lock_held(path: Path | None) -> bool:
    """Whether some process holds the lock file ``path``."""
    if fcntl is None or path is None or not path.exists():
        return False
    try:
        with open(path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


_NO_LOCK = object()  # stands for a lock where there are none (Windows, unwritable cache)


def _take(path: Path | None) -> Any:
    """The lock file ``path``, opened and locked (the background process inherits it, so the
    lock is held from its start to its end); None when another process holds it."""
    if path is None:
        return _NO_LOCK
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a")  # noqa: SIM115 (closed by the caller once handed on)
    except OSError:
        return _NO_LOCK
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    except OSError:
        handle.close()
        return _NO_LOCK
    return handle


def _refresh() -> None:
    """Recompute which modules run as plain Python, dropping finished tasks."""
    global _pending_modules
    _pending_modules = frozenset(
        m for task in _tasks.values() if task.pending() for m in task.modules
    )


def start(
    entry: str,
    payload: dict[str, Any],
    modules: Sequence[str],
    entry_points: Sequence[Any],
    what: str,
) -> bool:
    """Compile in the background what ``entry`` runs, unless ``entry_points`` are cached.

    ``entry`` (``"module:function"``) is called as ``function(payload)`` in a new Python
    process, which only fills the disk cache; ``payload`` must be JSON.  Until it exits, the
    compiled functions of ``modules`` called from Python here run as plain Python.  One
    process per ``entry`` and ``payload`` at a time, across processes too: a second
    environment of the same kind waits for the first one's compile.  Prints one line when it
    starts one; returns whether anything is now compiling in the background.
    """
    if not enabled() or getattr(sys, "frozen", False) or is_cached(*entry_points):
        return False
    key = _key(entry, payload)
    task = _tasks.get(key)
    if task is not None and task.pending():
        return True
    lock = _lock_path(key)
    handle = _take(lock)
    if handle is None:  # another process compiles the same: wait for it, start none
        _tasks[key] = _Task(frozenset(modules), None, lock)
        _refresh()
        return True
    command = [sys.executable, "-c", _CHILD, entry, json.dumps(payload)]
    # the child imports this very copy of the package, wherever it was found here
    paths = [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")]
    try:
        process = subprocess.Popen(
            command,
            env={**os.environ, ENV_VAR: "0", "PYTHONPATH": os.pathsep.join(filter(None, paths))},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C here leaves it to finish filling the cache
            pass_fds=() if handle is _NO_LOCK else (handle.fileno(),),  # it holds the lock
        )
    except OSError:  # no interpreter to start: compile in the foreground as before
        return False
    finally:
        if handle is not _NO_LOCK:
            handle.close()
    _tasks[key] = _Task(frozenset(modules), process, lock)
    _refresh()
    compile_notice(*entry_points, what=what, background=True)
    return True


def pending() -> bool:
    """Whether a background compile started here (or one this process waits for) still runs."""
    _refresh()
    return bool(_pending_modules)


def wait(timeout: float | None = None) -> bool:
    """Block until every background compile is done (at most ``timeout`` s); returns whether
    they are.  Call it before timing an environment: until then its rules run as plain Python."""
    deadline = None if timeout is None else time.monotonic() + timeout
    done = all(task.wait(deadline) for task in list(_tasks.values()))
    _refresh()
    return done


def _entered(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` counted as a plain-Python rule call in progress, so that the rule functions it
    calls run as plain Python too (whichever module they are in)."""

    def call(*args: Any) -> Any:
        _local.depth = getattr(_local, "depth", 0) + 1
        try:
            return fn(*args)
        finally:
            _local.depth -= 1

    return call


def tiered(dispatcher: Any) -> Any:
    """Hook ``dispatcher`` (a numba dispatcher; anything else is returned as it is) so that a
    call from Python that would compile runs the plain function while a background compile
    covers its module, or while another plain rule call is in progress (the compile hook:
    ``shell_envs.core.numba_patches.hook_compile``)."""
    return hook_compile(dispatcher, lambda compile_for_args: _tier(dispatcher, compile_for_args))


def _tier(dispatcher: Any, compile_for_args: Callable[..., Any]) -> Callable[..., Any]:
    """What ``dispatcher`` calls instead of numba's ``compile_for_args``: the plain function
    while its module's compile is pending or a plain rule call is in progress, else that."""
    module = dispatcher.py_func.__module__
    plain = plain_function(dispatcher)
    outermost = _entered(plain)

    def compile_or_run_plain(*args: Any, **kws: Any) -> Any:
        if _pending_modules:
            if getattr(_local, "depth", 0):
                return plain
            if module in _pending_modules:
                _refresh()
                if module in _pending_modules:
                    return outermost
        return compile_for_args(*args, **kws)

    return compile_or_run_plain


_CHILD = """
import json, sys
from shell_envs.core import background
background._child(sys.argv[1], json.loads(sys.argv[2]))
"""


def _child(entry: str, payload: dict[str, Any]) -> None:
    """The background process: run ``entry(payload)`` (the lock it inherited is released when
    it exits, whichever way)."""
    module, _, name = entry.partition(":")
    with contextlib.suppress(KeyboardInterrupt):
        getattr(importlib.import_module(module), name)(payload)
