"""Imports in ``shell_envs/`` run one way, without cycles (``docs/design.md``, "Layers").

Every import is read from the source (module level and inside functions alike): ``import
a.b``, ``from a import b``, relative ones, ``importlib.import_module("literal")``, and the
new homes named in a deprecation table (``moved_names``/``alias_module`` of
`shell_envs.core.deprecation`: loaded when an old name is read, so as in a function).  The
layers, lowest first: core, games, agents, bench and integrations, cli; the top package's
``__init__.py`` may import anything.  A module imports only from its own layer or lower
ones, and no two modules import each other, directly or round a longer cycle.

Importing a package counts as importing its ``__init__.py``; ``from package import name``
where ``name`` is a submodule counts as importing that submodule.  The checker is tried on
small packages written to a temporary folder first, so that it is shown to catch what it
claims to.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (module or package, layer), lowest layer first; a module belongs to its longest match, and
# the top package to its own entry only (a new module directly under it must be given a layer)
LAYERS = {
    "shell_envs.core": 0,
    "shell_envs.what_the_shell": 1,
    "shell_envs.scorpion": 1,
    "shell_envs._version": 0,
    "shell_envs.registry": 1,
    "shell_envs.what_the_shell_v0": 1,
    "shell_envs.agents": 2,
    "shell_envs.bench": 3,
    "shell_envs.integrations": 3,
    "shell_envs.cli": 4,
    "shell_envs": 5,  # the top package's __init__.py: registers the gym ids
}
LAYER_NAMES = ["core", "games", "agents", "bench / integrations", "cli", "top"]
# deprecated alias modules left where a module moved up a layer: each may load its new home
# (lazily, when a name is read), and nothing else upward
DEPRECATED_ALIASES = {"shell_envs.what_the_shell.single_agent": "shell_envs.agents.single_agent"}


@dataclass(frozen=True)
class Import:
    """One import of a module of the package by another, and where it is written."""

    importer: str
    imported: str
    path: Path
    line: int
    in_function: bool

    def where(self, root: Path) -> str:
        """``shell_envs/x.py:12 (in a function)``: where the import is written."""
        inside = " (in a function)" if self.in_function else ""
        return f"{self.path.relative_to(root).as_posix()}:{self.line}{inside}"


def modules_of(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name (a package by its own)."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` names, or the longest package or module it lies in."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _absolute(module: str, is_package: bool, name: str, level: int) -> str:
    """The absolute name of ``name`` imported with ``level`` leading dots from ``module``."""
    if not level:
        return name
    base = module.split(".")
    if not is_package:
        base.pop()
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _in_functions(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside a function (or lambda) of ``tree``."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inside.update(id(child) for child in ast.walk(node) if child is not node)
    return inside


def _literal_import(node: ast.Call) -> tuple[str, int] | None:
    """``(name, level)`` of an ``importlib.import_module("literal")`` (or ``__import__``) call."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if called not in ("import_module", "__import__") or not node.args:
        return None
    first = node.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    name = first.value
    level = len(name) - len(name.lstrip("."))
    return name[level:], level


def imports_of(module: str, path: Path, modules: dict[str, Path], package: str) -> list[Import]:
    """Every import of a module of ``package`` written in ``module`` (at ``path``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    inside = _in_functions(tree)
    is_package = path.name == "__init__.py"
    found: list[Import] = []
    seen: set[tuple[str, int]] = set()  # one per module imported on a line

    def add(name: str | None, node: ast.AST) -> None:
        if name is None or name == module or (name, node.lineno) in seen:
            return
        if name == package or name.startswith(package + "."):
            seen.add((name, node.lineno))
            found.append(Import(module, name, path, node.lineno, id(node) in inside))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_known(alias.name, modules), node)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.module or "", node.level)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in modules else _known(base, modules), node)
        elif isinstance(node, ast.Call) and (literal := _literal_import(node)):
            add(_known(_absolute(module, is_package, *literal), modules), node)
        elif isinstance(node, ast.Call) and _deprecation_table(node):
            for home in ast.walk(node):
                if isinstance(home, ast.Constant) and home.value in modules:
                    inside.add(id(home))  # loaded lazily, when an old name is read
                    add(home.value, home)
    return found


def _deprecation_table(node: ast.Call) -> bool:
    """Whether ``node`` builds a ``__getattr__`` that forwards old names to new homes."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return called in ("moved_names", "alias_module")


def import_graph(root: Path, package: str) -> list[Import]:
    """Every import between modules of ``package`` under ``root``."""
    modules = modules_of(root, package)
    return [found for m, p in modules.items() for found in imports_of(m, p, modules, package)]


def layer_of(module: str, layers: dict[str, int]) -> int | None:
    """The layer of ``module``: that of its longest entry in ``layers`` (None: in none).

    The top package's entry covers its ``__init__.py`` alone, not every module under it.
    """
    parts = module.split(".")
    for end in range(len(parts), 1, -1):
        found = layers.get(".".join(parts[:end]))
        if found is not None:
            return found
    return layers.get(module)


def layer_violations(
    imports: list[Import],
    layers: dict[str, int],
    names: list[str],
    root: Path,
    aliases: dict[str, str] | None = None,
) -> list[str]:
    """One line per import of a higher layer, or of or by a module in no layer; a deprecated
    alias module's import of its new home (``aliases``) is allowed."""
    lines = []
    for found in imports:
        if (aliases or {}).get(found.importer) == found.imported:
            continue
        low, high = layer_of(found.importer, layers), layer_of(found.imported, layers)
        if low is None or high is None:
            lost = found.importer if low is None else found.imported
            lines.append(f"{lost} is in no layer: add it to LAYERS ({found.where(root)})")
        elif high > low:
            lines.append(
                f"{found.importer} ({names[low]}) imports {found.imported} ({names[high]}), "
                f"a higher layer, at {found.where(root)}"
            )
    return lines


def cycles(imports: list[Import], root: Path) -> list[str]:
    """One line per group of modules that import each other round cycles: the shortest cycle
    through the first of them, each step with where it is written, and the whole group when
    it has more modules than that cycle."""
    edges: dict[str, dict[str, Import]] = {}
    for found in imports:
        edges.setdefault(found.importer, {}).setdefault(found.imported, found)
    lines = []
    for component in _strongly_connected(edges):
        start = min(component)
        path = _path_back(start, component, edges)
        steps = [edges[a][b] for a, b in pairwise(path)]
        shown = " -> ".join(f"{s.importer} [{s.where(root)}]" for s in steps)
        rest = sorted(component - set(path))
        among = f" (one of the cycles among {', '.join(sorted(component))})" if rest else ""
        lines.append(f"import cycle: {shown} -> {start}{among}")
    return lines


def _strongly_connected(edges: dict[str, dict[str, Import]]) -> list[set[str]]:
    """The components of the import graph with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found, key=min)


def _path_back(start: str, component: set[str], edges: dict[str, dict[str, Import]]) -> list[str]:
    """A shortest path from ``start`` round to itself within ``component`` (breadth first)."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(edges.get(node, {})):
                if target not in component:
                    continue
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"no way back to {start} in {sorted(component)}")


def problems(
    root: Path,
    package: str,
    layers: dict[str, int],
    names: list[str],
    aliases: dict[str, str] | None = None,
) -> list[str]:
    """Every cycle and every import against the layers in ``package`` under ``root``."""
    imports = import_graph(root, package)
    return cycles(imports, root) + layer_violations(imports, layers, names, root, aliases)


# -- the checker, tried on small packages ----------------------------------------------------

TOY_LAYERS = {"toy.core": 0, "toy.games": 1, "toy.agents": 2, "toy.cli": 3, "toy": 4}
TOY_NAMES = ["core", "games", "agents", "cli", "top"]


def write_package(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path: source) under ``root``; returns ``root``."""
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


CLEAN = {
    "toy/__init__.py": "from toy import cli\nimport toy.agents.pick\n",
    "toy/core/__init__.py": "",
    "toy/core/jit.py": "import numpy\n",
    "toy/core/patches.py": "from .jit import numpy\n",
    "toy/games/__init__.py": "from . import rules\n",
    "toy/games/rules.py": "from toy.core import jit\nfrom ..core.patches import numpy\n",
    "toy/agents/__init__.py": "",
    "toy/agents/pick.py": """
        import importlib

        from toy.games import rules


        def load():
            import toy.core.jit
            return importlib.import_module("toy.games.rules")
        """,
    "toy/cli/__init__.py": "from toy.agents.pick import load\nfrom toy.games import *\n",
}


def test_the_checker_passes_a_clean_package(tmp_path: Path) -> None:
    root = write_package(tmp_path, CLEAN)
    assert problems(root, "toy", TOY_LAYERS, TOY_NAMES) == []
    seen = {(i.importer, i.imported, i.in_function) for i in import_graph(root, "toy")}
    assert seen == {
        ("toy", "toy.cli", False),
        ("toy", "toy.agents.pick", False),
        ("toy.core.patches", "toy.core.jit", False),
        ("toy.games", "toy.games.rules", False),
        ("toy.games.rules", "toy.core.jit", False),
        ("toy.games.rules", "toy.core.patches", False),
        ("toy.agents.pick", "toy.games.rules", False),
        ("toy.agents.pick", "toy.core.jit", True),
        ("toy.agents.pick", "toy.games.rules", True),
        ("toy.cli", "toy.agents.pick", False),
        ("toy.cli", "toy.games", False),
    }


def test_the_checker_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            **CLEAN,
            "toy/core/jit.py": "from toy.core.background import tiered\n",
            "toy/core/background.py": """
                def start():
                    from . import cache


                tiered = start
                """,
            "toy/core/cache.py": "from toy.core.jit import numba\n",
        },
    )
    found = problems(root, "toy", TOY_LAYERS, TOY_NAMES)
    assert found == [
        "import cycle: toy.core.background [toy/core/background.py:3 (in a function)] -> "
        "toy.core.cache [toy/core/cache.py:1] -> toy.core.jit [toy/core/jit.py:1] -> "
        "toy.core.background"
    ]


def test_the_checker_finds_imports_of_higher_layers(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            **CLEAN,
            "toy/games/view.py": """
                import toy


                def describe():
                    from toy.agents import pick
                """,
            "toy/core/jit.py": "import importlib\nimportlib.import_module('toy.games')\n",
            "toy/extra.py": "",
            "toy/games/rules.py": "import toy.extra\n",
        },
    )
    assert problems(root, "toy", TOY_LAYERS, TOY_NAMES) == [
        "toy.core.jit (core) imports toy.games (games), a higher layer, at toy/core/jit.py:2",
        "toy.extra is in no layer: add it to LAYERS (toy/games/rules.py:1)",
        "toy.games.view (games) imports toy (top), a higher layer, at toy/games/view.py:2",
        "toy.games.view (games) imports toy.agents.pick (agents), a higher layer, at "
        "toy/games/view.py:6 (in a function)",
    ]


def test_the_checker_finds_a_cycle_of_two_modules_at_module_level(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            **CLEAN,
            "toy/agents/one.py": "import toy.agents.two\n",
            "toy/agents/two.py": "from toy.agents import one\n",
        },
    )
    assert problems(root, "toy", TOY_LAYERS, TOY_NAMES) == [
        "import cycle: toy.agents.one [toy/agents/one.py:1] -> "
        "toy.agents.two [toy/agents/two.py:1] -> toy.agents.one"
    ]


# -- the package itself -----------------------------------------------------------------------


def test_imports_run_one_way_without_cycles() -> None:
    assert (ROOT / "shell_envs" / "__init__.py").is_file()
    found = problems(ROOT, "shell_envs", LAYERS, LAYER_NAMES, DEPRECATED_ALIASES)
    print("\n".join(found))
    assert not found, f"{len(found)} import problems:\n" + "\n".join(found)


def test_the_allowed_upward_imports_are_deprecated_aliases_of_their_new_home() -> None:
    edges = {(i.importer, i.imported) for i in import_graph(ROOT, "shell_envs")}
    for old, new in DEPRECATED_ALIASES.items():
        source = (ROOT / (old.replace(".", "/") + ".py")).read_text()
        assert (old, new) in edges, f"{old} no longer loads {new}: drop it from DEPRECATED_ALIASES"
        assert "__getattr__ = alias_module(" in source, old
        assert not any(i == old and j != new for i, j in edges if layer_of(j, LAYERS) > 1), old


def test_an_alias_may_load_only_its_new_home(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            **CLEAN,
            "toy/games/old.py": (
                "import importlib\n\n\ndef __getattr__(name):\n"
                "    importlib.import_module('toy.agents.new')\n"
                "    importlib.import_module('toy.cli.main')\n"
            ),
            "toy/agents/new.py": "",
            "toy/cli/main.py": "",
        },
    )
    found = problems(root, "toy", TOY_LAYERS, TOY_NAMES, {"toy.games.old": "toy.agents.new"})
    assert len(found) == 1 and "imports toy.cli.main (cli)" in found[0], found


def test_a_deprecation_table_loads_its_new_homes(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            **CLEAN,
            "toy/games/old.py": (
                "from toy.core.deprecation import alias_module, moved_names\n\n"
                "__getattr__ = alias_module(__name__, 'toy.agents.new', '0.5.0')\n"
                "other = moved_names(__name__, '0.5.0', {'x': ('toy.cli.main', 'x')})\n"
            ),
            "toy/core/deprecation.py": "",
            "toy/agents/new.py": "",
            "toy/cli/main.py": "",
        },
    )
    found = problems(root, "toy", TOY_LAYERS, TOY_NAMES, {"toy.games.old": "toy.agents.new"})
    assert found == [
        "toy.games.old (games) imports toy.cli.main (cli), a higher layer, at "
        "toy/games/old.py:4 (in a function)"
    ], found
