"""``device="cuda"`` where it cannot run names everything missing at once (issue 51): the
``cuda`` extra's packages with the command that installs them, and the GPU; the GPU envs ask
for ``reset()`` before they play, as the CPU envs do."""

from __future__ import annotations

import ctypes
import sys

import gymnasium as gym
import pytest

import shell_envs  # noqa: F401  (registers the ids)
from shell_envs import what_the_shell_v0
from shell_envs.core import cuda
from tests.gpu.helpers import needs_numba_cuda, run

NO_DRIVER = "no CUDA device found: no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)"
PIP = 'pip install "shell-envs[cuda]"'


def _what_the_shell() -> None:
    what_the_shell_v0.vector_env(4, device="cuda")


def _scorpion() -> None:
    gym.make_vec(
        "shell_envs/Scorpion-v0", num_envs=4, vectorization_mode="vector_entry_point", device="cuda"
    )


GAMES = {"what_the_shell": _what_the_shell, "scorpion": _scorpion}


@pytest.fixture
def checks(monkeypatch):
    """Set what the checks find: ``checks(missing=[...], driver=...)``; no simulator."""
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)

    def found(missing: list[str], driver: str | None) -> None:
        monkeypatch.setattr(cuda, "missing_packages", lambda: list(missing))
        monkeypatch.setattr(cuda, "driver_problem", lambda: driver)

    return found


@pytest.fixture
def without_numba_cuda(monkeypatch):
    """numba-cuda cannot be imported (as without the extra), with ``cuda.cuda``'s cache empty
    before and after, so the import is tried here and redone by later tests."""
    monkeypatch.setitem(sys.modules, "numba_cuda", None)
    cuda.cuda.cache_clear()
    yield
    cuda.cuda.cache_clear()


# --- the message ----------------------------------------------------------------------------


def test_without_the_extra_and_a_gpu_both_are_named(checks):
    checks(["numba-cuda", "cuda-core", "torch"], NO_DRIVER)
    text = str(cuda.unavailable("numba-cuda cannot be imported", "numba-cuda"))
    assert text.startswith("device='cuda' cannot run here: (1) the cuda extra is not installed")
    assert "(numba-cuda, cuda-core and torch missing): " + PIP in text
    assert "(2) " + NO_DRIVER in text and "device='cpu' plays the same games" in text
    assert "cannot be imported" not in text  # the checks explain the failure


def test_only_the_extra_missing_says_only_that(checks):
    checks(["numba-cuda"], None)
    text = str(cuda.unavailable("numba-cuda cannot be imported", "numba-cuda"))
    expected = "the cuda extra is not installed (numba-cuda missing): " + PIP
    assert text == "device='cuda' cannot run here: " + expected


def test_only_the_gpu_missing_says_only_that(checks):
    checks([], NO_DRIVER)
    text = str(cuda.unavailable("no CUDA device found: numba-cuda sees no GPU", "device"))
    assert text.startswith(f"device='cuda' cannot run here: {NO_DRIVER}. Without a GPU")
    assert "pip install" not in text and "(1)" not in text


def test_a_failure_the_checks_do_not_explain_is_named_beside_them(checks):
    checks(["torch"], None)
    text = str(cuda.unavailable("no CUDA device found: numba-cuda sees no GPU", "device"))
    assert "(1) the cuda extra is not installed (torch missing)" in text
    assert "(2) no CUDA device found: numba-cuda sees no GPU" in text


def test_under_the_simulator_no_gpu_is_asked_for(checks, monkeypatch):
    checks(["numba-cuda"], NO_DRIVER)
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    text = str(cuda.unavailable("numba-cuda cannot be imported", "numba-cuda"))
    assert "no CUDA device" not in text and PIP in text


# --- through the envs -------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_without_numba_cuda_the_env_names_the_extra_and_the_gpu(game, checks, without_numba_cuda):
    checks(["numba-cuda", "cuda-core"], NO_DRIVER)
    with pytest.raises(cuda.CudaUnavailableError) as got:
        GAMES[game]()
    text = str(got.value)
    assert "(1) the cuda extra is not installed (numba-cuda and cuda-core missing)" in text
    assert PIP in text and "(2) " + NO_DRIVER in text


@pytest.mark.parametrize("game", GAMES)
def test_without_numba_cuda_on_a_gpu_machine_only_the_extra_is_named(
    game, checks, without_numba_cuda
):
    checks(["numba-cuda"], None)
    with pytest.raises(cuda.CudaUnavailableError, match="numba-cuda missing") as got:
        GAMES[game]()
    assert "no CUDA device" not in str(got.value)


@pytest.mark.parametrize("game", GAMES)
def test_with_the_extra_and_no_gpu_only_the_gpu_is_named(game, checks, monkeypatch):
    needs_numba_cuda()
    checks([], NO_DRIVER)
    monkeypatch.setattr(cuda.cuda(), "is_available", lambda: False)
    with pytest.raises(cuda.CudaUnavailableError, match="no CUDA device found") as got:
        GAMES[game]()
    assert "pip install" not in str(got.value)


# --- finding what is missing ------------------------------------------------------------------


def test_missing_packages_finds_blocked_modules_without_importing(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba_cuda", None)
    monkeypatch.setitem(sys.modules, "torch", None)
    assert {"numba-cuda", "torch"} <= set(cuda.missing_packages())


class _Driver:
    """A stand-in ``libcuda``: ``cuInit`` returns ``error``; ``devices`` GPUs are counted."""

    def __init__(self, error: int, devices: int) -> None:
        self.error, self.devices = error, devices

    def cuInit(self, flags: int) -> int:  # noqa: N802  (the driver's name)
        return self.error

    def cuDeviceGetCount(self, count) -> int:  # noqa: N802
        count._obj.value = self.devices
        return 0


@pytest.mark.parametrize(
    "driver, expected",
    [
        (None, NO_DRIVER),
        (_Driver(100, 0), "no CUDA device found: the NVIDIA driver (libcuda.so.1) sees no GPU"),
        (_Driver(0, 0), "no CUDA device found: the NVIDIA driver (libcuda.so.1) sees no GPU"),
        (_Driver(999, 0), "fails with CUDA error 999"),
        (_Driver(0, 2), None),
    ],
    ids=["no-driver", "no-device", "no-gpu-counted", "driver-error", "two-gpus"],
)
def test_the_driver_is_asked_directly(driver, expected, monkeypatch):
    def load(name: str):
        assert name == "libcuda.so.1"
        if driver is None:
            raise OSError(f"{name}: cannot open shared object file")
        return driver

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(ctypes, "CDLL", load)
    problem = cuda.driver_problem()
    assert problem is None if expected is None else expected in problem


def test_macos_has_no_cuda_driver(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert "macOS" in cuda.driver_problem()


# --- the GPU envs before reset ----------------------------------------------------------------

BEFORE_RESET = """
import numpy as np
from gymnasium.error import ResetNeeded
from shell_envs import what_the_shell_v0
from shell_envs.scorpion.gpu import ScorpionGpuVectorEnv

wts, scorpion = what_the_shell_v0.vector_env(2, device="cuda"), ScorpionGpuVectorEnv(2)
actions = {"black": np.zeros(2, np.int64), "white": np.ones(2, np.int64)}
calls = {
    "wts step": lambda: wts.step(actions),
    "wts action_masks": wts.action_masks,
    "wts sample_actions": wts.sample_actions,
    "scorpion step": lambda: scorpion.step(np.zeros(2, np.int64)),
    "scorpion action_masks": scorpion.action_masks,
    "scorpion sample_actions": scorpion.sample_actions,
    "scorpion redeal": lambda: scorpion.redeal([0]),
}
for name, call in calls.items():
    try:
        call()
    except ResetNeeded as exc:
        print("refused", name, "|", exc)
for env, bad in ((wts, {"positon": 1}), (scorpion, {"dael": [1, 2]})):
    try:
        env.reset(seed=0, options=bad)
    except ValueError as exc:
        print("refused", exc)
wts.reset(seed=0)
wts.step(wts.sample_actions())
scorpion.reset(seed=0)
scorpion.step(scorpion.sample_actions())
print("played")
"""


def test_the_gpu_envs_ask_for_a_reset_under_the_simulator():
    needs_numba_cuda()
    lines = run(["-c", BEFORE_RESET], simulator=True, timeout=300).splitlines()
    refused = [line for line in lines if line.startswith("refused")]
    assert len(refused) == 9, lines
    for line in refused[:7]:
        assert line.endswith("before reset(): no game has started; call reset() first"), line
    assert refused[7] == "refused unknown reset option(s) in options: 'positon'; accepted: none"
    assert "'dael' (did you mean 'deals'?); accepted: 'deals'" in refused[8]
    assert lines[-1] == "played"
