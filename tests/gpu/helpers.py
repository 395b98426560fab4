"""Shared by the GPU tests: skip without the extra, run a check in a fresh (simulated) process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def needs_numba_cuda() -> None:
    """Skip unless the ``cuda`` extra (numba-cuda) and torch are installed."""
    pytest.importorskip("numba_cuda", reason='needs the cuda extra: pip install "shell-envs[cuda]"')
    pytest.importorskip("torch")


def run(args: list[str], simulator: bool, timeout: int = 900) -> str:
    """Run python with ``args`` in a fresh process (the simulator must be chosen before
    numba.cuda is imported: ``NUMBA_ENABLE_CUDASIM=1``, with ``NUMBA_DISABLE_JIT=1`` so that the
    rules run as Python inside the simulated kernels); fails the test with its output unless it
    exits 0, else returns its standard output."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if simulator:
        env.update(NUMBA_ENABLE_CUDASIM="1", NUMBA_DISABLE_JIT="1")
    done = subprocess.run(
        [sys.executable, "-W", "ignore::RuntimeWarning", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
