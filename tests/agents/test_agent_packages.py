"""Each game's agents are a package laid out alike, whose modules share helpers by public name
only, and no module of the package imports a deprecated alias module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shell_envs"
AGENTS = PACKAGE / "agents"
GAMES = ("scorpion", "what_the_shell")
LAYOUT = {"__init__.py", "common.py", "simple.py", "search.py", "learned.py"}
# a deprecated module is listed whole on the deprecations page: a row naming no attribute
ROW = re.compile(r"^\| `(shell_envs\.[\w.]+)` \|", re.M)


def private_imports(path: Path) -> list[str]:
    """``module.name`` of each private name that ``path`` imports from another module of the
    package (dunder names such as ``__version__`` are public)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("shell_envs"):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{node.module}.{alias.name}")
    return found


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, and every ``module.name`` it imports from one."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def deprecated_modules() -> set[str]:
    """The modules the deprecations page lists whole."""
    page = (ROOT / "docs" / "deprecations.md").read_text(encoding="utf-8")
    names = set(ROW.findall(page))
    return {name for name in names if (PACKAGE.parent / f"{name.replace('.', '/')}.py").is_file()}


def test_both_games_lay_their_agents_out_alike() -> None:
    for game in GAMES:
        assert {p.name for p in (AGENTS / game).glob("*.py")} == LAYOUT, game


def test_agent_modules_share_helpers_by_public_name_only() -> None:
    for path in sorted(AGENTS.rglob("*.py")):
        assert not private_imports(path), f"{path.relative_to(ROOT)}: {private_imports(path)}"


def test_no_module_of_the_package_imports_a_deprecated_module() -> None:
    deprecated = deprecated_modules()
    assert "shell_envs.agents.scorpion_pimc" in deprecated
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if module in deprecated:
            continue  # the alias itself loads its new home
        used = imported_modules(path) & deprecated
        assert not used, f"{path.relative_to(ROOT)} imports deprecated {sorted(used)}"


def test_the_checks_find_violations(tmp_path: Path) -> None:
    module = tmp_path / "toy.py"
    module.write_text(
        "from shell_envs.agents.scorpion.search import _hidden\n"
        "from shell_envs._version import __version__\n"
        "from shell_envs.agents import scorpion_pimc\n",
        encoding="utf-8",
    )
    assert private_imports(module) == ["shell_envs.agents.scorpion.search._hidden"]
    assert "shell_envs.agents.scorpion_pimc" in imported_modules(module)
