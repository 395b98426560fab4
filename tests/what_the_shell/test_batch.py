"""The CPU and GPU batched What the Shell envs share one host side,
`shell_envs.what_the_shell.batch`: the GPU env's module imports neither the CPU env's module
nor anything that does (it needs no batch loop of the CPU's), checked on the source."""

from __future__ import annotations

from pathlib import Path

from shell_envs.what_the_shell.batch import BatchedWhatTheShellEnv
from shell_envs.what_the_shell.vector import WhatTheShellVectorEnv
from tests.test_layers import ROOT, import_graph, write_package

GPU = "what_the_shell.gpu"
CPU = "what_the_shell.vector"


def imports_of_the_cpu_env(root: Path, package: str) -> list[str]:
    """Where the GPU env's module of ``package`` under ``root`` loads the CPU env's module,
    directly or through other modules of the package (module level or in a function)."""
    edges: dict[str, list[str]] = {}
    for found in import_graph(root, package):
        edges.setdefault(found.importer, []).append(found.imported)
    gpu, cpu = f"{package}.{GPU}", f"{package}.{CPU}"
    seen, todo, chains = {gpu}, [(gpu, [gpu])], []
    while todo:
        module, chain = todo.pop()
        for imported in edges.get(module, []):
            if imported == cpu:
                chains.append(" -> ".join([*chain, cpu]))
            elif imported not in seen:
                seen.add(imported)
                todo.append((imported, [*chain, imported]))
    return chains


def test_the_gpu_env_does_not_load_the_cpu_env() -> None:
    assert imports_of_the_cpu_env(ROOT, "shell_envs") == []


def test_the_check_finds_an_import_of_the_cpu_env_through_another_module(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            "toy/__init__.py": "",
            "toy/what_the_shell/__init__.py": "",
            "toy/what_the_shell/batch.py": "",
            "toy/what_the_shell/helpers.py": "from toy.what_the_shell import vector\n",
            "toy/what_the_shell/vector.py": "from toy.what_the_shell import batch\n",
            "toy/what_the_shell/gpu.py": """
                from toy.what_the_shell import batch


                def late():
                    from toy.what_the_shell import helpers
                """,
        },
    )
    assert imports_of_the_cpu_env(root, "toy") == [
        "toy.what_the_shell.gpu -> toy.what_the_shell.helpers -> toy.what_the_shell.vector"
    ]


def test_both_batched_envs_share_the_host_side_base() -> None:
    assert issubclass(WhatTheShellVectorEnv, BatchedWhatTheShellEnv)
    env = WhatTheShellVectorEnv(2)
    assert env.metadata is BatchedWhatTheShellEnv.metadata
    assert env.autoreset_mode is BatchedWhatTheShellEnv.autoreset_mode
