"""The search package, one module per role: its public surface, the SearchTree, the aliases."""

from __future__ import annotations

import importlib
import sys
import warnings

import numpy as np
import pytest

from shell_envs.what_the_shell import rules, search
from shell_envs.what_the_shell.search import guided, heuristics, mcts
from shell_envs.what_the_shell.search import tree as tree_module
from shell_envs.what_the_shell.state import GameState


def test_search_re_exports_the_same_objects():
    for name in search.__all__:
        homes = [m for m in (heuristics, tree_module, mcts, guided) if hasattr(m, name)]
        assert homes, name
        assert all(getattr(m, name) is getattr(search, name) for m in homes), name
    for name in ("score_cells", "evaluate", "net_features", "new_tree", "run_search",
                 "init_root", "init_guided_root", "run_guided_search", "SearchTree"):  # fmt: skip
        assert name in search.__all__


def test_the_modules_have_one_role_each():
    assert heuristics.score_cells is search.score_cells
    assert mcts.run_search is search.run_search
    assert guided.run_guided_search is search.run_guided_search
    assert tree_module.new_tree is search.new_tree
    assert not hasattr(heuristics, "new_tree") and not hasattr(mcts, "PUCT")
    assert not hasattr(mcts, "new_tree") and not hasattr(tree_module, "run_search")


def test_search_tree_fields():
    tree = search.new_tree(5, 3)
    assert isinstance(tree, search.SearchTree) and isinstance(tree, tuple)
    assert tree._fields == (
        "boards", "eggs", "metas", "candidates", "n_candidates", "visits", "values",
        "strategies", "node_visits", "children", "n_nodes", "priors", "leaf",
    )  # fmt: skip
    for index, name in enumerate(tree._fields):
        assert getattr(search, "T_" + name.upper()) == index
        assert tree[index] is getattr(tree, name)
    assert tree.boards.shape == (5, rules.CELLS) and tree.children.shape == (5, 3, 3)
    assert (tree.children == search.NO_CHILD).all()


def test_the_compiled_search_takes_a_search_tree():
    tree = search.new_tree(41, 4)
    mcts.init_root(tree, *GameState.new(), np.ones(rules.CELLS, np.bool_))
    rules.seed_numba(0)
    mcts.run_search(tree, 40, search.UCB, 0.35, 0.1)
    assert int(tree.n_nodes[0]) == 41
    assert tree.node_visits[0] == 40
    assert tree.visits[0, 0].sum() == tree.visits[0, 1].sum() == 40


def test_the_old_single_agent_module_forwards_with_a_warning():
    from shell_envs.agents.single_agent import WhatTheShellSingleEnv

    old = importlib.import_module("shell_envs.what_the_shell.single_agent")
    with pytest.warns(DeprecationWarning, match="shell_envs.agents.single_agent"):
        assert old.WhatTheShellSingleEnv is WhatTheShellSingleEnv
    with pytest.warns(DeprecationWarning):
        assert old.SEATS == ("black", "white", "random")


def test_the_gym_id_uses_the_new_module():
    import gymnasium as gym

    import shell_envs  # noqa: F401

    spec = gym.spec("shell_envs/WhatTheShell-v0")
    assert spec.entry_point == "shell_envs.agents.single_agent:WhatTheShellSingleEnv"
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        gym.make("shell_envs/WhatTheShell-v0").close()


def test_the_view_lives_beside_the_encoder():
    from shell_envs.agents import WhatTheShellView as from_agents
    from shell_envs.agents.what_the_shell import WhatTheShellView as from_module
    from shell_envs.what_the_shell.view import WhatTheShellView

    assert from_agents is from_module is WhatTheShellView


def test_the_rules_package_imports_no_upper_layer():
    code = (
        "import sys, importlib, pkgutil, shell_envs.what_the_shell as p\n"
        "for m in pkgutil.iter_modules(p.__path__):\n"
        "    if m.name not in ('gpu', 'single_agent'):\n"
        "        importlib.import_module('shell_envs.what_the_shell.' + m.name)\n"
        "import shell_envs.what_the_shell_v0\n"
        "bad = [m for m in sys.modules if m.startswith(('shell_envs.agents', 'shell_envs.bench',"
        " 'shell_envs.integrations', 'shell_envs.cli'))]\n"
        "print(bad)\n"
    )
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True
    )
    assert out.stdout.strip() == "[]"
