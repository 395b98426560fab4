"""The GPU envs' launch path as it runs on a GPU, tested on a machine without one.

numba's CUDA simulator runs kernels as Python and returns before numba-cuda's launch code,
so it never saw that every kernel's second launch raised (an integer stream that cuda-core
refuses).  These tests run ``tests/gpu/launch_checks.py`` in a process whose CUDA driver is
the stand-in of ``tests/gpu/fake_driver.c``: numba-cuda, cuda-core and cuda-bindings run their
own code, and only the kernel compile (in two of three checks) and torch's CUDA tensors are
stubbed (see ``tests/gpu/fake_driver.py``).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.gpu import fake_driver
from tests.gpu.helpers import ROOT, needs_numba_cuda, process_env

CHECKS = ROOT / "tests" / "gpu" / "launch_checks.py"


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    """The stand-in driver, built once for this module."""
    needs_numba_cuda()
    return fake_driver.build(tmp_path_factory.mktemp("fake_cuda_driver"))


def run_checks(driver, *checks: str) -> str:
    """The named checks in a fresh process on the stand-in driver; fails with their output."""
    done = subprocess.run(
        [sys.executable, str(CHECKS), *checks],
        cwd=ROOT,
        env=fake_driver.environment(driver, process_env(simulator=False)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("check", ["kernels", "real_compile", "envs"])
def test_launch_path_without_a_gpu(driver, check):
    assert run_checks(driver, check).split() == ["ok", check]


def test_the_stand_in_driver_is_what_numba_cuda_sees(driver):
    code = (
        "from numba import cuda; import numpy as np; d = cuda.get_current_device();"
        "a = cuda.to_device(np.arange(5)); print(d.name, tuple(d.compute_capability),"
        " a.copy_to_host().tolist())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=fake_driver.environment(driver, process_env(simulator=False)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "fake_driver.c" in done.stdout and "(9, 0) [0, 1, 2, 3, 4]" in done.stdout
