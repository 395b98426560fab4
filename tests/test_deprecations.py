"""The deprecation policy's list (``docs/deprecations.md``) is the package's deprecations.

Both ways: every deprecation in ``shell_envs`` (read from the source: a module's
``__getattr__`` built from a table by `shell_envs.core.deprecation`, a ``warn_deprecated``
call, or a hand-written ``warnings.warn(..., DeprecationWarning)``, which fails a test of its
own) is a listed name, or the ``__getattr__`` of a listed module or of the module of listed
names; every name of such a table is listed with the table's replacement and removal release,
and every other name such a ``__getattr__`` forwards with a warning is listed; and every
listed name, used, warns naming its replacement and its removal release, and gives the
replacement.  No listed name outlives its removal release.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import types
import warnings
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import shell_envs
from shell_envs.core.deprecation import DeprecatedNames

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "deprecations.md"
ROW = re.compile(
    r"^\| `([\w.]+)` \| `([\w.]+)` \| (\d+)\.(\d+)\.\d+ \| (\d+)\.(\d+)\.\d+ \|$", re.M
)


class Deprecation(NamedTuple):
    """One row of the page's tables."""

    name: str
    replacement: str
    since: tuple[int, int]
    removed_in: tuple[int, int]

    @property
    def removal(self) -> str:
        """The removal release as the warnings write it: ``0.4.0``."""
        return f"{self.removed_in[0]}.{self.removed_in[1]}.0"


def listed() -> dict[str, Deprecation]:
    """The page's rows by deprecated name."""
    rows = {}
    for m in ROW.finditer(PAGE.read_text(encoding="utf-8")):
        name, new, a, b, c, d = m.groups()
        assert name not in rows, f"{name} listed twice"
        rows[name] = Deprecation(name, new, (int(a), int(b)), (int(c), int(d)))
    return rows


LISTED = listed()


HELPER = ROOT / "shell_envs" / "core" / "deprecation.py"  # the one place that warns
TABLES = ("moved_names", "alias_module")  # build a module's __getattr__ from a table


class Site(NamedTuple):
    """One place in the source that deprecates something."""

    module: str
    function: str  # qualified name of the function; "__getattr__" for a module's table
    where: str  # file:line
    kind: str  # "table", "warn_deprecated" or "warn" (a hand-written warnings.warn)


def warning_sites(package: Path = ROOT / "shell_envs", helper: Path = HELPER) -> list[Site]:
    """Every deprecation in the package's source: each ``__getattr__`` built from a table
    (a call of `moved_names` or `alias_module`), each ``warn_deprecated`` call, and each
    ``warnings.warn`` or ``warn`` call with a ``DeprecationWarning``, outside ``helper``."""
    sites = []
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(parts)

        def visit(node: ast.AST, scope: tuple[str, ...], path: Path = path, module: str = module):
            for child in ast.iter_child_nodes(node):
                inner = scope
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = (*scope, child.name)
                if isinstance(child, ast.Call):
                    kind = _deprecates(child) if path != helper else None
                    if kind:
                        function = "__getattr__" if kind == "table" else ".".join(scope)
                        sites.append(Site(module, function, f"{path.name}:{child.lineno}", kind))
                visit(child, inner)

        visit(ast.parse(path.read_text(encoding="utf-8")), ())
    return sites


def _deprecates(call: ast.Call) -> str | None:
    """How ``call`` deprecates something, or None: ``"table"``, ``"warn_deprecated"``, or
    ``"warn"`` (``warnings.warn(...)`` or ``warn(...)`` with a ``DeprecationWarning``)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name in TABLES:
        return "table"
    if name == "warn_deprecated":
        return "warn_deprecated"
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if name == "warn" and any(
        isinstance(a, ast.Name) and a.id == "DeprecationWarning" for a in arguments
    ):
        return "warn"
    return None


def covers(module: str, function: str, name: str) -> bool:
    """Whether a warning in ``function`` of ``module`` may be the one for listed ``name``."""
    if function == "__getattr__":  # the module's own: the module itself, or names read from it
        return name == module or name.rpartition(".")[0] == module
    return name == f"{module}.{function}"


def test_the_checker_finds_warning_sites(tmp_path: Path) -> None:
    package = tmp_path / "toy"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text(
        "import warnings\n"
        "from warnings import warn\n"
        "from toy.core.deprecation import moved_names, warn_deprecated\n"
        "class A:\n"
        "    def old(self):\n"
        "        warnings.warn('old', DeprecationWarning, stacklevel=2)\n"
        "    def older(self):\n"
        "        warn_deprecated('A.older()', 'old()', '0.5.0')\n"
        "def __getattr__(name):\n"
        "    warn(f'{name}', category=DeprecationWarning)\n"
        "def other():\n"
        "    warnings.warn('not this kind', RuntimeWarning)\n"
        "b = moved_names(__name__, '0.5.0', {'b': ('toy.new', 'b')})\n",
        encoding="utf-8",
    )
    helper = package / "core" / "deprecation.py"
    helper.write_text(
        "import warnings\ndef moved_names(*a):\n    warnings.warn('x', DeprecationWarning)\n"
        "def alias_module(*a):\n    return moved_names(*a)\n"
    )
    found = [(m, f, k) for m, f, _, k in warning_sites(package, helper)]
    assert found == [
        ("toy", "A.old", "warn"),
        ("toy", "A.older", "warn_deprecated"),
        ("toy", "__getattr__", "warn"),
        ("toy", "__getattr__", "table"),
    ]


def test_every_deprecation_is_written_with_the_helper() -> None:
    """A name's ``__getattr__`` table or ``warn_deprecated``, from
    `shell_envs.core.deprecation`: not a ``warnings.warn`` of its own."""
    for site in warning_sites():
        assert site.kind != "warn", (
            f"{site.where} warns by hand: use shell_envs.core.deprecation (moved_names, "
            "alias_module or warn_deprecated)"
        )


def _tables() -> dict[str, DeprecatedNames]:
    """Each module's ``__getattr__`` built from a table, by module."""
    return {
        site.module: vars(importlib.import_module(site.module))["__getattr__"]
        for site in warning_sites()
        if site.kind == "table"
    }


def test_every_name_of_a_table_is_listed_with_its_replacement_and_removal() -> None:
    tables = _tables()
    assert tables, "no deprecation table found in the source: the checker is broken"
    for module, table in tables.items():
        assert isinstance(table, DeprecatedNames), f"{module}.__getattr__ is not the table's"
        if table.alias_of is not None:  # a module moved whole
            d = LISTED.get(module)
            assert d, f"{module} forwards every name of {table.alias_of}: list it"
            assert (d.replacement, d.removal) == (table.alias_of, table.removal), module
        for old, moved in table.moved.items():
            d = LISTED.get(f"{module}.{old}")
            if d is None and table.alias_of is not None:
                continue  # listed whole, with the module
            assert d, f"{module}.{old} is deprecated in the source: list it in {PAGE.name}"
            assert (d.replacement, d.removal) == (f"{moved.home}.{moved.new}", moved.removal), (
                f"{module}.{old}: the page says {d.replacement} until {d.removal}, the source "
                f"{moved.home}.{moved.new} until {moved.removal}"
            )


def test_the_page_lists_names() -> None:
    assert len(LISTED) >= 4
    assert all(d.name.startswith("shell_envs.") for d in LISTED.values())


def test_every_deprecation_warning_in_the_source_is_listed() -> None:
    sites = warning_sites()
    assert sites, "no DeprecationWarning found in the source: the checker is broken"
    for module, function, where, _ in sites:
        assert any(covers(module, function, name) for name in LISTED), (
            f"{where} warns about {module}.{function}: list it in docs/deprecations.md"
        )
    for name in LISTED:
        assert any(covers(m, f, name) for m, f, _, _ in sites), (
            f"{name} is listed in docs/deprecations.md, but no DeprecationWarning is raised "
            "for it in the source: was it removed? Drop its row"
        )


def _forwarders() -> list[types.ModuleType]:
    """The modules whose ``__getattr__`` raises a ``DeprecationWarning``."""
    return [
        importlib.import_module(module)
        for module, function, _, _ in warning_sites()
        if function == "__getattr__"
    ]


def _candidates(module: types.ModuleType) -> set[str]:
    """Names ``module``'s ``__getattr__`` might forward: those of its submodules and of the
    modules its listed names moved to, that it does not hold itself."""
    sources = {
        d.replacement.rpartition(".")[0]
        for d in LISTED.values()
        if d.name.rpartition(".")[0] == module.__name__
    }
    if hasattr(module, "__path__"):
        sources |= {f"{module.__name__}.{m.name}" for m in pkgutil.iter_modules(module.__path__)}
    names = set()
    for source in sources:
        names |= set(vars(importlib.import_module(source)))
    return {n for n in names if not n.startswith("__")} - set(vars(module))


def test_every_name_a_module_forwards_with_a_warning_is_listed() -> None:
    for module in _forwarders():
        if module.__name__ in LISTED:
            continue  # listed whole: every name it forwards
        for name in sorted(_candidates(module)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    getattr(module, name)
                except AttributeError:
                    continue
            if any(issubclass(w.category, DeprecationWarning) for w in caught):
                assert f"{module.__name__}.{name}" in LISTED, (
                    f"{module.__name__}.{name} warns: list it in docs/deprecations.md"
                )


def _resolve(dotted: str) -> tuple[Any, str]:
    """The object holding the last part of ``dotted`` (a module or a class), and that part."""
    parts = dotted.split(".")
    for end in range(len(parts) - 1, 0, -1):
        try:
            holder: Any = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for part in parts[end:-1]:
            holder = getattr(holder, part)
        return holder, parts[-1]
    raise AssertionError(f"{dotted}: no importable module in it")


def _use(dotted: str) -> tuple[list[warnings.WarningMessage], Any]:
    """Use the listed name as a user would; the warnings raised and what it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        holder, last = _resolve(dotted)
        if inspect.isclass(holder):  # a method: called on a started instance
            instance = holder()
            if hasattr(instance, "reset"):
                instance.reset(seed=0)
            caught.clear()  # only the deprecated name's own warning counts
            value = getattr(instance, last)()
        else:
            caught.clear()
            value = getattr(holder, last)
    return list(caught), value


def _expected(replacement: str) -> Any:
    """What the replacement gives, used as `_use` uses the deprecated name."""
    holder, last = _resolve(replacement)
    if inspect.isclass(holder):
        instance = holder()
        if hasattr(instance, "reset"):
            instance.reset(seed=0)
        return getattr(instance, last)()
    return getattr(holder, last)


def _check_message(caught: list[warnings.WarningMessage], d: Deprecation, shown: str) -> None:
    """One ``DeprecationWarning`` that names ``shown`` and the removal release."""
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1, f"{d.name}: {[str(w.message) for w in caught]}"
    message = str(deprecations[0].message)
    assert shown in message, f"{d.name}: the warning does not name {shown}: {message!r}"
    assert f"removed in {d.removal}" in message, (
        f"{d.name}: the warning does not say 'removed in {d.removal}': {message!r}"
    )
    assert deprecations[0].filename == __file__, f"{d.name}: the warning names no user line"


@pytest.mark.parametrize("name", sorted(LISTED))
def test_each_listed_name_warns_and_gives_its_replacement(name: str) -> None:
    d = LISTED[name]
    try:
        module = importlib.import_module(name)
    except ImportError:
        module = None
    if module is not None:  # a module listed whole: every name of its new home, forwarded
        new = importlib.import_module(d.replacement)
        names = [
            n
            for n, v in vars(new).items()
            if not n.startswith("_") and getattr(v, "__module__", None) == new.__name__
        ]
        assert names, d.replacement
        for n in names:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = getattr(module, n)
            _check_message(list(caught), d, d.replacement)
            assert value is getattr(new, n), f"{name}.{n}"
        return
    caught, value = _use(name)
    _check_message(caught, d, d.replacement.rpartition(".")[2])
    expected = _expected(d.replacement)
    if isinstance(expected, type(value)) and hasattr(expected, "shape"):
        assert (value == expected).all(), name
    else:
        assert value is expected, name


def test_the_removal_releases_keep_the_policy() -> None:
    """Removed at least two minor releases after the deprecation (at the latest the next
    release), and not yet due."""
    major, minor = (int(x) for x in shell_envs.__version__.split(".")[:2])
    for d in LISTED.values():
        assert d.removed_in >= (d.since[0], d.since[1] + 2), f"{d.name}: too soon"
        # deprecated at the latest in the release being prepared (CHANGELOG.md's Unreleased)
        assert d.since <= (major, minor + 1), f"{d.name}: deprecated in a later release"
        assert (major, minor) < d.removed_in, (
            f"{d.name} was to be removed in {d.removal}; this is {shell_envs.__version__}: "
            "remove it, its row here and its warning, and say so in CHANGELOG.md"
        )
