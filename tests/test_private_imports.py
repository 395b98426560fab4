"""No module of ``shell_envs/`` uses another module's private name or a compatibility name.

Read from the source, as ``tests/test_layers.py`` reads the imports (module level and inside
functions alike), each module of the package is checked for:

- ``from module import _name`` (absolute or relative) of a single-underscore name that is not
  itself a module: another module's private name;
- ``module._name`` where ``module`` is bound in that file to a module of the package (by
  ``import a.b``, ``import a.b as m`` or ``from a import b``): the same, read as an attribute;
- an import of a module or a name that ``docs/deprecations.md`` lists as deprecated, or the
  attribute read of one: compatibility names are for users only.

A deprecated alias module may load its new home (it is listed, and no module imports it).
The checker is tried on small packages written to a temporary folder first.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from tests.test_layers import ROOT, _absolute, modules_of, write_package

PAGE = ROOT / "docs" / "deprecations.md"
ROW = re.compile(r"^\| `([\w.]+)` \| `[\w.]+` \| [\d.]+ \| [\d.]+ \|$", re.M)


@dataclass(frozen=True)
class Use:
    """One use of another module's private name, or of a deprecated name."""

    path: Path
    line: int
    name: str  # the dotted name used: ``shell_envs.x._y``
    why: str  # "private" or "deprecated"

    def where(self, root: Path) -> str:
        """``shell_envs/x.py:12``: where the use is written."""
        return f"{self.path.relative_to(root).as_posix()}:{self.line}"


def deprecated_names(page: Path = PAGE) -> set[str]:
    """The deprecated names listed on the deprecation policy's page."""
    return set(ROW.findall(page.read_text(encoding="utf-8")))


def _private(name: str) -> bool:
    """A single-underscore name (``_x``; dunder names such as ``__version__`` are not)."""
    return name.startswith("_") and not name.startswith("__")


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def uses_of(
    module: str, path: Path, modules: dict[str, Path], package: str, deprecated: set[str]
) -> list[Use]:
    """Every use in ``module`` (at ``path``) of another module's private name or of a
    deprecated name of ``package``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[Use] = []
    bound: dict[str, str] = {}  # local name -> module of the package it is bound to

    def check(name: str, node: ast.AST) -> None:
        owner, _, last = name.rpartition(".")
        if name in deprecated or any(name.startswith(d + ".") for d in deprecated):
            found.append(Use(path, node.lineno, name, "deprecated"))
        elif _private(last) and owner != module and name not in modules:
            found.append(Use(path, node.lineno, name, "private"))

    for node in ast.walk(tree):  # the bindings first: a function may use a later import
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != package:
                    continue
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[package] = package
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.module or "", node.level)
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == package:
                    check(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.module or "", node.level)
            if base.split(".")[0] == package:
                for alias in node.names:
                    check(f"{base}.{alias.name}", node)
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node.value)
            if dotted is None:
                continue
            head, _, rest = dotted.partition(".")
            if head not in bound:
                continue
            target = ".".join(filter(None, (bound[head], rest)))
            if target in modules:  # an attribute of a module of the package
                check(f"{target}.{node.attr}", node)
    return list(dict.fromkeys(found))


def uses(root: Path, package: str, deprecated: set[str]) -> list[Use]:
    """Every such use in ``package`` under ``root``; a module listed as deprecated may use
    anything (it is the compatibility surface itself)."""
    modules = modules_of(root, package)
    return [
        use
        for module, path in modules.items()
        if module not in deprecated
        for use in uses_of(module, path, modules, package, deprecated)
    ]


def problems(root: Path, package: str, deprecated: set[str]) -> list[str]:
    """One line per use of another module's private name or of a deprecated name."""
    found = sorted(uses(root, package, deprecated), key=lambda u: (u.path, u.line, u.name))
    lines = []
    for use in found:
        what = "another module's private name" if use.why == "private" else "a deprecated name"
        lines.append(f"{use.where(root)} uses {use.name}, {what}")
    return lines


# -- the checker, tried on small packages ----------------------------------------------------

TOY = {
    "toy/__init__.py": "from toy._version import __version__\n",
    "toy/_version.py": "__version__ = '1'\n",
    "toy/core/__init__.py": "",
    "toy/core/jit.py": "_cache = {}\n\n\ndef jit():\n    return _cache\n",
    "toy/games/__init__.py": "",
    "toy/games/rules.py": """
        import toy.core.jit
        from toy.core import jit
        from toy.core.jit import jit as compile


        class Rules:
            def __init__(self):
                self._steps = 0


        def step(rules):
            rules._steps += 1
            return compile(), jit.jit()
        """,
    "toy/games/old.py": "def __getattr__(name):\n    from toy.games.rules import _hidden\n",
}
TOY_DEPRECATED = {"toy.games.old", "toy.games.rules.OLD"}


def test_the_checker_passes_a_clean_package(tmp_path: Path) -> None:
    root = write_package(tmp_path, TOY)
    assert problems(root, "toy", TOY_DEPRECATED) == []


def test_the_checker_finds_private_and_deprecated_names(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            **TOY,
            "toy/games/view.py": """
                import toy.core.jit
                import toy.games.old as old
                from toy.core import jit as j
                from toy.core.jit import _cache
                from ..games.rules import OLD, __doc__


                def show():
                    from . import old
                    return toy.core.jit._cache, j._cache, old.thing
                """,
        },
    )
    assert problems(root, "toy", TOY_DEPRECATED) == [
        "toy/games/view.py:3 uses toy.games.old, a deprecated name",
        "toy/games/view.py:5 uses toy.core.jit._cache, another module's private name",
        "toy/games/view.py:6 uses toy.games.rules.OLD, a deprecated name",
        "toy/games/view.py:10 uses toy.games.old, a deprecated name",
        "toy/games/view.py:11 uses toy.core.jit._cache, another module's private name",
        "toy/games/view.py:11 uses toy.games.old.thing, a deprecated name",
    ]


# -- the package itself -----------------------------------------------------------------------


def test_the_page_lists_deprecated_names() -> None:
    assert "shell_envs.what_the_shell.single_agent" in deprecated_names()


def test_no_module_uses_a_private_or_deprecated_name_of_another() -> None:
    found = problems(ROOT, "shell_envs", deprecated_names())
    print("\n".join(found))
    assert not found, f"{len(found)} uses:\n" + "\n".join(found)
