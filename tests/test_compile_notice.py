"""The one-line notice before compiling, and the cache check behind it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shell_envs.cli import main
from shell_envs.core import compile_cache as jit  # is_cached, compile_notice, cache_dir

PROBE = """
import io
from shell_envs.core.jit import compile_notice, is_cached
from shell_envs.what_the_shell import rules
import numpy as np

before = is_cached(rules.count_empty)
said = io.StringIO()
printed = compile_notice(rules.count_empty, what="the probe", file=said)
rules.count_empty(np.zeros(81, np.int8))
print(before, printed, is_cached(rules.count_empty), repr(said.getvalue()))
"""


def probe(cache: Path, **extra: str) -> str:
    """Run PROBE in a fresh process whose compile cache is ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), **extra)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_notice_comes_once_per_cache_and_names_it(tmp_path: Path) -> None:
    first = probe(tmp_path)
    assert first.startswith("False True True 'Compiling the probe to native code, once")
    assert str(tmp_path) in first and first.count("\\n") == 1  # one line
    assert probe(tmp_path) == "True False True ''"  # the next process loads it: no notice


def test_without_compilation_nothing_is_said(tmp_path: Path) -> None:
    assert probe(tmp_path, NUMBA_DISABLE_JIT="1") == "True False True ''"


@pytest.mark.parametrize(
    ("args", "text", "what"),
    [
        (["play", "scorpion"], "q\n", "the rules"),
        (["play", "what-the-shell", "--opponent", "mcts"], "q\n", "the rules and the mcts agent"),
        (["solve", "--seed", "0", "--max-nodes", "10"], "", "the solver"),
    ],
)
def test_commands_say_they_compile_when_the_cache_is_cold(
    args: list[str], text: str, what: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jit, "is_cached", lambda *functions: False)
    result = CliRunner().invoke(main, args, input=text)
    assert result.exit_code == 0, result.output
    assert f"Compiling {what} to native code, once" in result.output
    assert jit.cache_dir().parent.as_posix() in result.output


def test_commands_are_silent_when_the_cache_is_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit, "is_cached", lambda *functions: True)
    result = CliRunner().invoke(main, ["play", "scorpion"], input="q\n")
    assert result.exit_code == 0 and "Compiling" not in result.output


VECTOR = """
from shell_envs.scorpion.vector import ScorpionVectorEnv
from shell_envs.what_the_shell.vector import WhatTheShellVectorEnv
ScorpionVectorEnv(2)
WhatTheShellVectorEnv(2)
"""


def test_the_batched_environments_say_they_compile_when_the_cache_is_cold(tmp_path: Path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", VECTOR], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    for what in ("the batched Scorpion rules", "the batched What the Shell rules"):
        assert sum(f"Compiling {what} to native code, once" in line for line in lines) == 1
    assert all(str(tmp_path) in line for line in lines if "Compiling" in line)
