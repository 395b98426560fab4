"""Every patch of numba's internals, one function each, applied from here.

The project replaces three private pieces of numba.  Each function below names the numba
internal it replaces and why; ``tests/test_numba_patches.py`` checks, one test per patch,
that the internal still has the shape the patch assumes, so a numba upgrade that changes
it fails there with a message naming the patch instead of somewhere deep in a compile.

- [`recover_damaged_cache`][]: ``numba.core.caching.Cache.load_overload`` (the cache
  recovery: a damaged cache file is a miss, not an error on every start).
- [`inline_without_copies`][]: ``InlineWorker.inline_function`` of
  ``numba.core.inline_closurecall`` and of numba-cuda's copy of that module (inlining
  without defensive copies of the callee's IR: seconds of a first start).
- [`hook_compile`][]: a dispatcher's ``_compile_for_args`` (the compile hook through which
  [`shell_envs.core.background`][] runs rule functions as plain Python until their
  background compile is done), with [`plain_function`][] for the arguments numba passes it.

[`apply`][] applies the process-wide ones; [`shell_envs.core.jit`][] calls it on import.
The compile hook is applied per dispatcher ([`shell_envs.core.background.tiered`][]) and
the inliner of numba-cuda when that is first imported (``shell_envs.core.cuda``).
"""

from __future__ import annotations

import contextlib
import copy
import glob
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from numba.core import caching, inline_closurecall
from numba.core.dispatcher import OmittedArg

__all__ = [
    "apply",
    "hook_compile",
    "inline_fresh_ir",
    "inline_without_copies",
    "numba_inline_function",
    "plain_function",
    "recover_damaged_cache",
]

# -- the cache recovery: numba.core.caching.Cache.load_overload ------------------------------

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


def recover_damaged_cache() -> None:
    """Replace ``numba.core.caching.Cache.load_overload`` (numba's lookup of a function's
    machine code in the disk cache) by one that treats a damaged cache file as a miss.

    Numba raises on a file it cannot unpickle, on every start until someone deletes it; the
    replacement calls numba's own lookup, and on any failure removes the function's cache
    files, warns once and returns ``None`` (a miss), so numba compiles and caches afresh.
    """
    # numba's method, replaced on purpose
    caching.Cache.load_overload = _load_overload_or_recompile  # type: ignore[method-assign]


# -- inlining without copies: InlineWorker.inline_function -----------------------------------


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
    """Replace ``InlineWorker.inline_function`` of the inliner ``module``
    (``numba.core.inline_closurecall``, or numba-cuda's copy ``numba.cuda.core.
    inline_closurecall``) by one that inlines without defensive copies of the callee's IR
    (see `_fresh_ir_inliner`), if its layout is the one known here; returns whether it did.

    Why: those copies were most of the time numba spends inlining the rules; the IR inlined,
    and so the machine code, is the same.
    """
    worker = getattr(module, "InlineWorker", None)
    if worker is None or not hasattr(worker, "run_untyped_passes"):
        return False
    if getattr(module, "copy", None) is not copy:
        return False
    worker.inline_function = inliner or _fresh_ir_inliner(module)
    return True


# numba's inliner without the copies (what `apply` installs), and numba's own, kept to compare
inline_fresh_ir = _fresh_ir_inliner(inline_closurecall)
numba_inline_function = inline_closurecall.InlineWorker.inline_function


# -- the compile hook: Dispatcher._compile_for_args ------------------------------------------


def hook_compile(dispatcher: Any, hook: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Any:
    """Replace ``_compile_for_args`` of ``dispatcher`` (a numba CPU dispatcher) by
    ``hook(original)``; anything else is returned as it is.

    Numba's dispatcher calls ``_compile_for_args(*args, **kws)`` when it has no machine code
    for the argument types of a call from Python (the only path such a call takes; calls
    that find machine code, and compiled code calling compiled code, never pass through it)
    and then calls what it returns with the same arguments.  So a replacement may return
    another callable, such as the plain Python function ([`plain_function`][]), to run
    instead of compiling.  Why: [`shell_envs.core.background`][] runs the rules as plain
    Python while their machine code compiles in another process.
    """
    compile_for_args = getattr(dispatcher, "_compile_for_args", None)
    if compile_for_args is None:
        return dispatcher
    dispatcher._compile_for_args = hook(compile_for_args)
    return dispatcher


def plain_function(dispatcher: Any) -> Callable[..., Any]:
    """The Python function of ``dispatcher``, callable with the arguments numba passes to
    ``_compile_for_args``: an omitted argument with a default comes as a
    ``numba.core.dispatcher.OmittedArg`` holding its default value."""
    fn = dispatcher.py_func
    if not fn.__defaults__:
        return fn

    def call(*args: Any) -> Any:
        return fn(*[a.value if isinstance(a, OmittedArg) else a for a in args])

    return call


def apply() -> None:
    """Apply the process-wide patches: the cache recovery and inlining without copies in
    numba's inliner (numba-cuda's is patched when it is imported)."""
    recover_damaged_cache()
    inline_without_copies(inline_closurecall, inline_fresh_ir)
