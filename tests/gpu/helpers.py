"""Shared by the GPU tests: skip without the extra, run a check in a fresh (simulated) process."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def load_benchmark(name: str):
    """The module of ``benchmarks/NAME.py`` (the benchmarks are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", ROOT / "benchmarks" /
                                                  f"{name}.py")  # fmt: skip
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def needs_numba_cuda() -> None:
    """Skip unless the ``cuda`` extra (numba-cuda) and torch are installed."""
    pytest.importorskip("numba_cuda", reason='needs the cuda extra: pip install "shell-envs[cuda]"')
    pytest.importorskip("torch")


def process_env(simulator: bool, **extra: str) -> dict[str, str]:
    """The environment of a fresh check process: the checkout first on the caller's
    ``PYTHONPATH`` (where a GPU machine may carry packages), with the simulator
    (``NUMBA_ENABLE_CUDASIM=1``, and ``NUMBA_DISABLE_JIT=1`` so that the rules run as Python
    inside the simulated kernels) when asked, then ``extra``."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    if simulator:
        env.update(NUMBA_ENABLE_CUDASIM="1", NUMBA_DISABLE_JIT="1")
    return {**env, **extra}


def run(args: list[str], simulator: bool, timeout: int = 900) -> str:
    """Run python with ``args`` in a fresh process (`process_env`: the simulator must be chosen
    before numba.cuda is imported); fails the test with its output unless it exits 0, else
    returns its standard output."""
    done = subprocess.run(
        [sys.executable, "-W", "ignore::RuntimeWarning", *args],
        cwd=ROOT,
        env=process_env(simulator),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


POISON = 0x5A  # the byte fresh result buffers are filled with by `poisoned_outputs`


@contextlib.contextmanager
def poisoned_outputs() -> Iterator[None]:
    """Fill every fresh result buffer of the GPU envs (``cuda.output``) with `POISON` bytes,
    so a kernel that leaves any byte of a result unwritten shows it."""
    import torch

    from shell_envs.core import cuda

    original = cuda.output

    def poisoned(shape, dtype):
        argument, tensor = original(shape, dtype)
        tensor.view(-1).view(torch.uint8).fill_(POISON)
        return argument, tensor

    cuda.output = poisoned
    try:
        yield
    finally:
        cuda.output = original
