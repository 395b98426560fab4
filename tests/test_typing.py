"""The package's type hints, which users' type checkers read (it ships ``py.typed``).

mypy, configured under ``[tool.mypy]`` in ``pyproject.toml``, finds nothing in ``shell_envs``
(``docs/typing.md`` says why mypy and what is left out), and the public API is fully
annotated: every public function and method (a name without a leading underscore, in a
module without one, plus ``__init__``) annotates each parameter and its return (``__init__``:
its parameters).  The annotation check reads the source, so it runs on every install; mypy
comes with the ``test`` extra, and its test skips where mypy is not installed (the core
suite's environment).  Each check is first shown to catch what it claims to.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "shell_envs"

needs_mypy = pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is not installed (the test extra brings it)",
)


def run_mypy(*paths: Path) -> subprocess.CompletedProcess[str]:
    """mypy with the project's configuration, on ``paths`` (none: its ``files``, the package)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            *map(str, paths),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )


def is_public_module(path: Path, root: Path) -> bool:
    """Whether ``path`` is a public module: no part of it starts with ``_`` (a package's
    ``__init__.py`` is the package itself)."""
    parts = path.relative_to(root).with_suffix("").parts
    return not any(p.startswith("_") for p in parts if p != "__init__")


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a module or class body, looking into ``if``/``try``/``with`` blocks
    (definitions chosen at import time)."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            out += _top_level(node.body) + _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            blocks = [node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)]
            for block in blocks:
                out += _top_level(block)
        elif isinstance(node, ast.With):
            out += _top_level(node.body)
        else:
            out.append(node)
    return out


def _missing(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    """The parameters of ``function`` without an annotation, and ``return`` if it has none
    (a method's ``self``/``cls`` is exempt, and ``__init__``'s return)."""
    decorators = {d.id for d in function.decorator_list if isinstance(d, ast.Name)}
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    if method and "staticmethod" not in decorators and positional:
        positional = positional[1:]
    every = [*positional, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
    missing = [a.arg for a in every if a.annotation is None]
    if function.returns is None and function.name != "__init__":
        missing.append("return")
    return missing


def unannotated(root: Path) -> list[str]:
    """``module.function: [what is missing]`` for every public function and method under
    ``root`` that lacks an annotation."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if not is_public_module(path, root):
            continue
        parts = path.relative_to(root.parent).with_suffix("").parts
        module = ".".join(p for p in parts if p != "__init__")
        defs = (ast.FunctionDef, ast.AsyncFunctionDef)
        for node in _top_level(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, defs) and not node.name.startswith("_"):
                missing = _missing(node, method=False)
                if missing:
                    found.append(f"{module}.{node.name}: {missing}")
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                for member in _top_level(node.body):
                    if not isinstance(member, defs):
                        continue
                    if not member.name.startswith("_") or member.name == "__init__":
                        missing = _missing(member, method=True)
                        if missing:
                            found.append(f"{module}.{node.name}.{member.name}: {missing}")
    return found


SAMPLE = """
from typing import Any

def typed(a: int, *rest: str, flag: bool = False, **more: Any) -> int: ...
def untyped_parameter(a, b: int) -> int: ...
def no_return(a: int): ...
def _private(a, b): ...

class Thing:
    def __init__(self, size) -> None: ...
    def method(self, x: int) -> int: ...
    @staticmethod
    def static(x) -> int: ...
    @classmethod
    def make(cls, **options) -> "Thing": ...
    def _helper(self, x): ...

class _Hidden:
    def method(self, x): ...

try:
    import fast
except ImportError:
    def fallback(x: int): ...
"""


def test_the_annotation_check_finds_what_is_missing(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "_private").mkdir(parents=True)
    (root / "__init__.py").write_text(SAMPLE)
    (root / "_internal.py").write_text(SAMPLE)
    (root / "_private" / "mod.py").write_text(SAMPLE)
    (root / "public.py").write_text("def f(x: int) -> int: ...\n")
    assert unannotated(root) == [
        "pkg.untyped_parameter: ['a']",
        "pkg.no_return: ['return']",
        "pkg.Thing.__init__: ['size']",
        "pkg.Thing.static: ['x']",
        "pkg.Thing.make: ['options']",
        "pkg.fallback: ['return']",
    ]


def test_the_public_api_is_fully_annotated() -> None:
    missing = unannotated(PACKAGE)
    assert not missing, "public functions or methods without annotations:\n" + "\n".join(missing)


@needs_mypy
def test_mypy_as_configured_catches_type_errors(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        textwrap.dedent(
            """
            def half(x: int) -> str:
                return x // 2

            def partly(x, y: int) -> int:
                return y
            """
        )
    )
    result = run_mypy(sample)
    report = result.stdout + result.stderr
    assert result.returncode == 1, report
    assert "[return-value]" in report and "[no-untyped-def]" in report, report


@needs_mypy
def test_mypy_finds_nothing_in_the_package() -> None:
    result = run_mypy()
    report = result.stdout + result.stderr
    assert result.returncode == 0, f"mypy ([tool.mypy] in pyproject.toml) found:\n{report}"
    checked = re.search(r"no issues found in (\d+) source files", report)
    assert checked, report
    assert int(checked[1]) == len(list(PACKAGE.rglob("*.py"))), report
