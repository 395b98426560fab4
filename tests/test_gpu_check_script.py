"""benchmarks/gpu_check.sh, the one command a GPU machine runs: its steps, its failures and
its usage errors behave as its header says (on this machine without a GPU)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_check.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_an_unknown_step_is_a_usage_error(tmp_path):
    done = check(str(tmp_path), "benchmark")
    assert done.returncode == 2 and "unknown step benchmark" in done.stderr


def test_a_failed_step_is_reported_and_the_others_still_run(tmp_path):
    # without a GPU the versions step fails, and so do the real-GPU tests: they skip, and on
    # the machine this script is for, a skip means a missing package or device
    done = check(str(tmp_path), "versions", "tests")
    assert done.returncode == 1
    log = (tmp_path / "log.txt").read_text()
    assert "!! versions failed" in log
    assert "== tests" in log and "SKIPPED" in log and "!! tests failed" in log
