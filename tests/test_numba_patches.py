"""Each patch of numba's internals (``shell_envs/core/numba_patches.py``) still fits numba.

One test per patch checks that the numba internal it replaces still has the shape the patch
assumes (its signature, the attributes and calls it relies on) and fails naming the patch to
review after a numba upgrade; a second one per patch checks its behaviour where that is
cheap.  The heavier behavioural checks live beside the features:
``tests/test_jit_inlining.py`` (inlining without copies compiles the same games),
``tests/fuzz/test_fuzz_startup.py`` (a damaged cache file, in fresh interpreters) and
``tests/test_background_compile.py`` (the compile hook plays the same games as plain Python).
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import warnings
from pathlib import Path

import numba
import pytest
from numba import njit
from numba.core import caching, dispatcher, inline_closurecall

import shell_envs.core.jit  # noqa: F401  (importing it applies the patches, as rule code does)
from shell_envs.core import compile_cache, numba_patches

PATCHES = "shell_envs/core/numba_patches.py"


def needs_review(internal: str, patch: str, detail: str) -> str:
    """The message of a failed shape check: which numba internal changed, which patch to review."""
    return (
        f"numba {numba.__version__} changed {internal}: the patch in {PATCHES} ({patch}) "
        f"needs review ({detail})"
    )


def params(fn: object) -> list[str]:
    """The parameter names of ``fn``, ``*args`` and ``**kws`` written as such."""
    marks = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    found = inspect.signature(fn).parameters.values()  # type: ignore[arg-type]
    return [marks.get(p.kind, "") + p.name for p in found]


# -- the cache recovery: numba.core.caching.Cache.load_overload ------------------------------

RECOVERY = "the cache recovery, recover_damaged_cache"


def test_the_cache_lookup_it_replaces_has_the_shape_it_assumes() -> None:
    load = numba_patches._original_load_overload
    internal = "numba.core.caching.Cache.load_overload"
    assert params(load) == ["self", "sig", "target_context"], needs_review(
        internal, RECOVERY, f"signature {inspect.signature(load)}"
    )
    init = inspect.getsource(caching.IndexDataCacheFile.__init__)
    assert "self._index_path" in init, needs_review(
        "numba.core.caching.IndexDataCacheFile", RECOVERY, "no _index_path to find the files by"
    )
    assert "_cache_file" in inspect.getsource(caching.Cache.__init__), needs_review(
        "numba.core.caching.Cache", RECOVERY, "no _cache_file attribute"
    )
    assert caching.Cache.load_overload is numba_patches._load_overload_or_recompile, (
        f"the patch in {PATCHES} ({RECOVERY}) is not applied"
    )


def load_module(path: Path, name: str) -> object:
    """The module at ``path``, imported afresh under ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_damaged_cache_file_is_a_miss_removed_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(numba_patches, "_damaged_warned", False)
    source = tmp_path / "cached_probe.py"
    source.write_text("def twice(x):\n    return 2 * x\n")
    probe = load_module(source, "cached_probe")
    assert njit(cache=True)(probe.twice)(21) == 42
    files = sorted((tmp_path / "cache").rglob("*.nb[ic]"))
    assert {f.suffix for f in files} == {".nbi", ".nbc"}
    for f in files:  # an interrupted write
        f.write_bytes(f.read_bytes()[:20])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert njit(cache=True)(probe.twice)(21) == 42  # compiled afresh, and cached again
    said = [str(w.message) for w in caught if "damaged file in the compile cache" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in caught]
    assert njit(cache=True)(probe.twice)(21) == 42


# -- inlining without copies: InlineWorker.inline_function -----------------------------------

INLINER = "inline without copies, inline_without_copies"


def check_inliner_shape(module: object, name: str) -> None:
    """Fail naming the patch when the inliner ``module`` is not laid out as it assumes."""
    worker = getattr(module, "InlineWorker", None)
    assert worker is not None, needs_review(name, INLINER, "no InlineWorker")
    import copy

    assert getattr(module, "copy", None) is copy, needs_review(
        name, INLINER, "the module no longer imports copy, which the patch swaps out"
    )
    expected = {
        "inline_function": ["self", "caller_ir", "block", "i", "function", "arg_typs"],
        "inline_ir": [
            "self",
            "caller_ir",
            "block",
            "i",
            "callee_ir",
            "callee_freevars",
            "arg_typs",
        ],
        "run_untyped_passes": ["self", "func", "enable_ssa"],
    }
    for method, names in expected.items():
        found = getattr(worker, method, None)
        assert found is not None, needs_review(f"{name}.InlineWorker", INLINER, f"no {method}")
        assert params(found) == names, needs_review(
            f"{name}.InlineWorker.{method}", INLINER, f"signature {inspect.signature(found)}"
        )
    uses = set(re.findall(r"\bcopy\.(\w+)", inspect.getsource(worker.inline_ir)))
    assert uses == {"deepcopy"}, needs_review(
        f"{name}.InlineWorker.inline_ir", INLINER, f"it uses copy.{sorted(uses)}, not deepcopy"
    )


def test_the_inliner_it_replaces_has_the_shape_it_assumes() -> None:
    name = "numba.core.inline_closurecall"
    check_inliner_shape(inline_closurecall, name)
    # the replacement does what numba's inline_function does, minus the copies
    own = numba_patches.numba_inline_function.__code__.co_names
    assert own == ("run_untyped_passes", "__code__", "co_freevars", "inline_ir"), needs_review(
        f"{name}.InlineWorker.inline_function", INLINER, f"its body now uses {own}"
    )
    assert inline_closurecall.InlineWorker.inline_function is numba_patches.inline_fresh_ir, (
        f"the patch in {PATCHES} ({INLINER}) is not applied"
    )


def test_numba_cudas_copy_of_the_inliner_has_the_same_shape() -> None:
    pytest.importorskip("numba_cuda")
    module = pytest.importorskip("numba.cuda.core.inline_closurecall")
    check_inliner_shape(module, "numba.cuda.core.inline_closurecall")


def inlined_callee(x):
    """A callee for numba's inliner, with a branch (more than one block to inline)."""
    if x > 3:
        return x * 2
    return x - 1


def test_functions_inlined_without_copies_compute_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import copy

    inlined = []

    def counted(self, *args, **kws):
        inlined.append(args[3])
        return numba_patches.inline_fresh_ir(self, *args, **kws)

    monkeypatch.setattr(inline_closurecall.InlineWorker, "inline_function", counted)
    callee = njit(inline="always")(inlined_callee)

    @njit
    def caller(n):
        total = 0
        for x in range(n):
            total += callee(x) + callee(x + 1)
        return total

    assert caller(10) == sum(inlined_callee(x) + inlined_callee(x + 1) for x in range(10))
    assert inlined == [inlined_callee, inlined_callee]  # both calls, by the patched inliner
    assert inline_closurecall.copy is copy  # the stand-in is put back after each inlining
    assert not numba_patches.inline_without_copies(object())  # an unknown layout: left alone


# -- the compile hook: Dispatcher._compile_for_args ------------------------------------------

HOOK = "the compile hook, hook_compile"


def test_the_compile_path_it_hooks_has_the_shape_it_assumes() -> None:
    internal = "numba.core.dispatcher.Dispatcher._compile_for_args"
    found = getattr(dispatcher.Dispatcher, "_compile_for_args", None)
    assert found is not None, needs_review(internal, HOOK, "it is gone")
    assert params(found) == ["self", "*args", "**kws"], needs_review(
        internal, HOOK, f"signature {inspect.signature(found)}"
    )
    omitted = getattr(dispatcher, "OmittedArg", None)
    assert omitted is not None and params(omitted.__init__) == ["self", "value"], needs_review(
        "numba.core.dispatcher.OmittedArg", HOOK, "plain_function reads its .value"
    )


def with_default(x, y=5):
    """A function with a default argument, which numba passes as an ``OmittedArg``."""
    return x + y


def test_the_hook_runs_what_it_returns_instead_of_compiling() -> None:
    seen = []

    def hook(compile_for_args):
        def instead(*args, **kws):
            seen.append(args)
            return numba_patches.plain_function(compiled)

        return instead

    compiled = numba_patches.hook_compile(njit(with_default), hook)
    assert compiled(1) == 6 and compiled(1, 2) == 3
    assert not compiled.signatures, needs_review(
        "numba's dispatcher", HOOK, "it compiled instead of calling what the hook returned"
    )
    assert isinstance(seen[0][1], dispatcher.OmittedArg), needs_review(
        "numba's dispatcher", HOOK, f"an omitted argument came as {seen[0]!r}"
    )
    assert numba_patches.hook_compile(with_default, hook) is with_default  # not a dispatcher


# -- not a patch, but a private read: is_cached asks numba's cache index ---------------------


def test_the_cache_index_is_cached_reads_is_still_there() -> None:
    internal = "numba.core.caching.IndexDataCacheFile._load_index"
    found = getattr(caching.IndexDataCacheFile, "_load_index", None)
    assert found is not None and params(found) == ["self"], (
        f"numba {numba.__version__} changed {internal}: "
        "shell_envs/core/compile_cache.py (is_cached) needs review"
    )
    assert compile_cache.is_cached(with_default)  # a plain function compiles nothing
