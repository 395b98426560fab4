"""The helper that runs each GPU check in a fresh process keeps what the caller's PYTHONPATH
carries: a GPU machine without PyPI brings gymnasium and numba-cuda that way."""

from __future__ import annotations

import os

from tests.gpu.helpers import run


def test_a_check_process_finds_the_checkout_and_the_callers_pythonpath(tmp_path, monkeypatch):
    (tmp_path / "carried_package.py").write_text("WHERE = 'carried'\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path), prepend=os.pathsep)
    code = "import carried_package, shell_envs; print(carried_package.WHERE)"
    assert run(["-c", code], simulator=False, timeout=300).strip() == "carried"
