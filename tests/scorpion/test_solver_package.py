"""The solver package: its kernel, Python API and text, and every name the one module had."""

from __future__ import annotations

import ast
import importlib
import warnings
from pathlib import Path

import pytest

from shell_envs.scorpion import messages, solver
from shell_envs.scorpion.solver import api, kernel, text

# every public name the single module shell_envs/scorpion/solver.py defined, and action_text
# (RULES, deprecated, is tested in test_old_and_new_import_paths_agree)
OLD_NAMES = [
    "C_DEPTH",
    "C_MAXDEPTH",
    "C_NODES",
    "C_OVERFLOW",
    "C_STATUS",
    "DEFAULT_MAX_NODES",
    "EVAL_WEIGHTS",
    "LOST",
    "MAX_BRANCH",
    "MAX_DEPTH",
    "MAX_NODES_LIMIT",
    "O_DEALT",
    "O_FD",
    "O_LENS",
    "O_REMOVED",
    "O_RES",
    "PACK",
    "PROBE_NODES",
    "PROBE_NOISE",
    "PROBE_SHARE",
    "PRUNE_ALL",
    "PRUNINGS",
    "P_CYCLIC",
    "P_KING_BASE",
    "P_KING_ONE_EMPTY",
    "P_SAFE_MOVE",
    "P_STARVED",
    "P_STUCK",
    "P_SYMMETRY",
    "QUOTA_WITH_CLOCK",
    "ROW",
    "S_LOST",
    "S_RUNNING",
    "S_WON",
    "TABLE_MIN_BITS",
    "UNKNOWN",
    "WON",
    "ZOBRIST",
    "Outcome",
    "SolveResult",
    "action_text",
    "apply_packed",
    "check_deal_codes",
    "dead_reason",
    "evaluate",
    "gen_moves",
    "load_row",
    "pack_row",
    "position_hash",
    "probe",
    "read_deal_file",
    "read_position_file",
    "search_init",
    "search_run",
    "solve",
    "solve_children",
    "solve_command",
    "solve_quick",
    "tt_insert",
    "tt_rehash",
    "unpack_row",
]


@pytest.mark.parametrize("name", OLD_NAMES)
def test_every_old_name_is_importable_from_the_package(name):
    """The public API without a warning; the compiled search's names (and the notation's
    action_text) with one naming their home, until 0.5.0."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(solver, name)
    homes = [m for m in (kernel, api, text, messages) if name in vars(m)]
    assert homes, f"{name} lives in none of kernel, api, text, messages"
    assert all(vars(m)[name] is value for m in homes), name
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    if name in solver.__all__:
        assert not deprecations, name
    else:
        assert len(deprecations) == 1 and "removed in 0.5.0" in str(deprecations[0].message)
        assert name not in vars(solver), name


def test_the_package_is_the_public_api():
    assert set(solver.__all__) == {
        "DEFAULT_MAX_NODES", "LOST", "MAX_DEPTH", "MAX_NODES_LIMIT", "PROBE_SHARE", "PRUNINGS",
        "QUOTA_WITH_CLOCK", "TABLE_MIN_BITS", "UNKNOWN", "WON", "Outcome", "SolveResult",
        "check_deal_codes", "dead_reason", "read_deal_file", "read_position_file", "solve",
        "solve_children", "solve_command", "solve_quick",
    }  # fmt: skip
    for name in solver.__all__:
        assert getattr(solver, name) is not None


def test_each_name_has_one_home():
    defined = {}
    for module in (kernel, api, text):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        for node in tree.body:
            names = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            for name in names:
                assert name not in defined, f"{name} in {defined.get(name)} and {module}"
                defined[name] = module.__name__
    assert set(OLD_NAMES) - {"action_text"} <= set(defined)


def test_the_parts_import_one_way():
    """kernel ← api ← text: the compiled search knows nothing of results or printing."""
    for module, forbidden in ((kernel, ("api", "text")), (api, ("text",))):
        source = Path(module.__file__).read_text(encoding="utf-8")
        imported = {
            n.module
            for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.ImportFrom) and n.module
        }
        for part in forbidden:
            assert f"shell_envs.scorpion.solver.{part}" not in imported, module.__name__


def test_old_and_new_import_paths_agree():
    from shell_envs.scorpion.solver import solve

    assert solve is api.solve and solver.solve_command is text.solve_command
    with pytest.warns(DeprecationWarning, match=r"solver\.gen_moves moved to .*kernel\.gen_moves"):
        assert solver.gen_moves is kernel.gen_moves
    assert importlib.import_module("shell_envs.scorpion.solver.kernel")._cyclic is kernel._cyclic
    with pytest.warns(DeprecationWarning, match=r"solver\.RULES is deprecated: use .*RULE_SETS"):
        assert solver.RULES == ("classic", "relaxed", "traditional")


def test_old_private_names_still_resolve_with_a_warning():
    with pytest.warns(DeprecationWarning, match=r"solver\._cyclic moved to .*kernel\._cyclic"):
        from shell_envs.scorpion.solver import _cyclic
    assert _cyclic is kernel._cyclic
    with pytest.warns(DeprecationWarning, match=r"solver\.api\._Search"):
        assert solver._Search is api._Search
    with pytest.warns(DeprecationWarning, match=r"solver\._waits moved to .*kernel\.cyclic_waits"):
        assert solver._waits is kernel.cyclic_waits
    with pytest.raises(AttributeError, match="no attribute '_nothing'"):
        solver._nothing  # noqa: B018
