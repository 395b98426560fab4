"""The saved-model loaders of agent specs: a table of "module:function" strings, resolved when a
model is loaded, so that the agents layer never imports the integrations that need extras."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys

import pytest

from shell_envs.agents import spec
from shell_envs.agents.spec import EXTRAS, LOADERS, MODEL_KINDS, AgentSpecError, loader, parse_spec


def test_every_model_kind_has_a_loader_and_an_extra():
    assert set(MODEL_KINDS) == set(LOADERS) == set(EXTRAS)
    for target in LOADERS.values():
        module, colon, function = target.partition(":")
        assert colon and module.startswith("shell_envs.integrations.") and function.isidentifier()


@pytest.mark.parametrize(("kind", "module"), [("ppo", "sb3_contrib"), ("rllib", "ray.rllib")])
def test_a_loader_is_the_integration_function_it_names(kind, module):
    pytest.importorskip(module, reason=f"the {kind} loader needs the {EXTRAS[kind]} extra")
    module_name, _, function = LOADERS[kind].partition(":")
    assert loader(kind) is getattr(importlib.import_module(module_name), function)


@pytest.mark.parametrize(
    ("text", "game", "extra_module", "extra"),
    [
        ("ppo:/nowhere/model.zip", "scorpion", "stable_baselines3", "train"),
        ("rllib:/nowhere/checkpoint", "what_the_shell", "ray", "rllib"),
    ],
)
def test_a_missing_extra_says_which_to_install(monkeypatch, text, game, extra_module, extra):
    kind = text.partition(":")[0]
    for name in [extra_module, *(m for m in sys.modules if m.startswith(f"{extra_module}."))]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it fails, as if uninstalled
    monkeypatch.delitem(sys.modules, LOADERS[kind].partition(":")[0], raising=False)
    with pytest.raises(AgentSpecError) as error:
        parse_spec(text).make(game)
    message = str(error.value)
    assert message.startswith(f"agent spec {text!r}: ")
    assert message.endswith(f"(install the extra: pip install 'shell-envs[{extra}]')")


def test_a_loader_module_that_is_not_there_names_the_extra(monkeypatch):
    monkeypatch.setitem(LOADERS, "ppo", "shell_envs_no_such_module:load_agent")
    with pytest.raises(AgentSpecError, match=r"pip install 'shell-envs\[train\]'"):
        parse_spec("ppo:model.zip").make("scorpion")


def test_a_loader_function_that_is_not_there_is_an_import_error(monkeypatch):
    monkeypatch.setitem(LOADERS, "ppo", "shell_envs.registry:no_such_loader")
    with pytest.raises(ImportError, match="shell_envs.registry has no loader 'no_such_loader'"):
        loader("ppo")


def test_an_unknown_model_kind_has_no_loader():
    with pytest.raises(KeyError):
        loader("keras")


def test_the_agent_specs_import_no_bench_and_no_integration():
    tree = ast.parse(inspect.getsource(spec))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ] + [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    upper = [m for m in imported if m.startswith(("shell_envs.bench", "shell_envs.integrations"))]
    assert upper == []
