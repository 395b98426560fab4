"""The Scorpion GPU env without a GPU: numpy's PCG64 reproduced for the device's deal numbers,
the env against the CPU batched env under numba's CUDA simulator, and every kernel compiled
to PTX for sm_90 (numba-cuda's NVVM, no device needed)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from gymnasium.utils import seeding

from shell_envs.scorpion.gpu import (
    G_HAS32,
    G_INC,
    G_UINT32,
    GEN_ROWS,
    generator_columns,
    pcg64_below,
    pcg64_deal_number,
)
from tests.gpu.helpers import ROOT

SIM_CHECKS = [
    "lockstep_tableau",
    "lockstep_cards_relaxed_undo",
    "lockstep_soa_options",
    "deals_equal_cpu",
    "raise_and_errors",
]


class Job:
    """python with some arguments in a fresh process, started at once, its output read when
    wanted (the simulator must be chosen before numba.cuda is imported, and the slow jobs run
    side by side)."""

    def __init__(self, args: list[str], simulator: bool) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        if simulator:
            env.update(NUMBA_ENABLE_CUDASIM="1", NUMBA_DISABLE_JIT="1")
        self.process = subprocess.Popen(
            [sys.executable, "-W", "ignore::RuntimeWarning", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def output(self, timeout: int = 900) -> str:
        """Everything it printed; fails the test with it unless it exits 0."""
        out, _ = self.process.communicate(timeout=timeout)
        assert self.process.returncode == 0, out
        return out


PTX = """
import sys
from shell_envs.core import cuda
from shell_envs.scorpion.gpu import kernel_signatures
for kernel, sig in kernel_signatures()[int(sys.argv[1])::2]:
    ptx = cuda.compile_ptx(kernel, sig, cc=(9, 0))
    assert ".target sm_90" in ptx and ".entry" in ptx, kernel.name
    assert ".local" not in ptx, kernel.name + " keeps arrays in local memory"
    assert ".const" not in ptx, kernel.name + " has tables in constant memory"
    print("compiled", kernel.name)
"""


@pytest.fixture(scope="module")
def jobs() -> dict[str, Job]:
    """The simulator checks and the PTX compiles (in two halves), started side by side."""
    pytest.importorskip("numba_cuda", reason='needs the cuda extra: pip install "shell-envs[cuda]"')
    pytest.importorskip("torch")
    started = {"sim": Job([str(ROOT / "tests" / "gpu" / "scorpion_sim.py"), *SIM_CHECKS], True)}
    for half in range(2):
        started[f"ptx{half}"] = Job(["-c", PTX, str(half)], False)
    yield started
    for job in started.values():
        if job.process.poll() is None:
            job.process.kill()
            job.process.wait()


def numpy_column(seed: int) -> np.ndarray:
    """The generator column of ``seeding.np_random(seed)``, read from numpy's own state."""
    state = seeding.np_random(seed)[0].bit_generator.state
    column = np.zeros(GEN_ROWS, np.int64)
    for k in range(8):
        column[k] = (state["state"]["state"] >> (16 * k)) & 0xFFFF
        column[G_INC + k] = (state["state"]["inc"] >> (16 * k)) & 0xFFFF
    column[G_HAS32] = state["has_uint32"]
    column[G_UINT32] = state["uinteger"]
    return column


def test_generators_are_seeded_as_numpy_seeds_them():
    seeds = [0, 1, 2**32 - 1, 2**32, 2**62, 2**63 - 1]
    seeds += [int(x) for x in np.random.default_rng(5).integers(0, 2**63 - 1, size=200)]
    seeds += [int(x) for x in np.random.default_rng(6).integers(0, 2**32, size=200)]
    columns = generator_columns([*seeds, None])
    for j, seed in enumerate(seeds):
        np.testing.assert_array_equal(columns[:, j], numpy_column(seed), err_msg=str(seed))


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 5, 2**63 - 1])
def test_device_deal_numbers_are_numpys_draws(seed):
    # the CPU env draws rng.integers(0, 2**62) and, with a deal pool, rng.integers(len(pool))
    # from seeding.np_random(seed); the device functions must give the same, interleaved
    rng = seeding.np_random(seed)[0]
    gen = generator_columns([seed])[:, 0].copy()
    for k in [1, 2, 3, 5, 52, 1000, 2**31 - 1, 7] * 4:
        for _ in range(3):
            assert pcg64_deal_number(gen) == rng.integers(0, 2**62)
        assert pcg64_below(gen, k) == rng.integers(k), k
        assert pcg64_below(gen, k) == rng.integers(k), k  # the second half of a 64-bit draw
    assert gen[G_HAS32] in (0, 1)


def test_device_deal_numbers_as_plain_python_too():
    gen_compiled = generator_columns([3])[:, 0].copy()
    gen_plain = gen_compiled.copy()
    plain = [pcg64_deal_number.py_func, pcg64_below.py_func]
    for k in range(2, 40):
        assert pcg64_deal_number(gen_compiled) == plain[0](gen_plain)
        assert pcg64_below(gen_compiled, k) == plain[1](gen_plain, k)
    np.testing.assert_array_equal(gen_compiled, gen_plain)


def test_unseeded_generators_are_valid_and_distinct():
    gen = generator_columns([None, None])
    assert (gen[8] & 1).all()  # PCG increments are odd
    assert not np.array_equal(gen[:, 0], gen[:, 1])


@pytest.mark.parametrize("check", SIM_CHECKS)
def test_gpu_env_plays_the_cpu_games_in_the_simulator(jobs, check):
    out = jobs["sim"].output()
    if f"ok {check}\n" not in out:
        pytest.fail(out.split(f"FAILED {check}\n", 1)[-1][:4000])


def test_every_scorpion_kernel_compiles_to_ptx_for_sm90(jobs):
    out = jobs["ptx0"].output() + jobs["ptx1"].output()
    names = {line.split()[1] for line in out.splitlines() if line.startswith("compiled")}
    assert {"step_soa_kernel", "step_game_major_kernel", "reset_soa_kernel"} <= names
    assert len(names) == 10, names


def test_gpu_env_plays_the_cpu_games_on_a_real_gpu():
    torch = pytest.importorskip("torch")
    pytest.importorskip("numba_cuda", reason='needs the cuda extra: pip install "shell-envs[cuda]"')
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU (the simulator checks above run everywhere)")
    checks = [*SIM_CHECKS, "lockstep_large"]
    out = Job([str(ROOT / "tests" / "gpu" / "scorpion_sim.py"), *checks], False).output()
    assert all(f"ok {check}\n" in out for check in checks), out[-6000:]
