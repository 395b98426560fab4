"""The Scorpion GPU env without a GPU: the env against the CPU batched env under numba's CUDA
simulator, and every kernel compiled to PTX for sm_90 (numba-cuda's NVVM, no device needed).
The deal numbers both draw are tested in ``tests/scorpion/test_deals.py``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.gpu.helpers import ROOT, process_env

SIM_CHECKS = [
    "lockstep_tableau",
    "lockstep_cards_relaxed_undo",
    "lockstep_soa_options",
    "lockstep_traditional",
    "deals_equal_cpu",
    "raise_and_errors",
    "copies",
    "devices",
    "jax_handoff",
]


class Job:
    """python with some arguments in a fresh process, started at once, its output read when
    wanted (the simulator must be chosen before numba.cuda is imported, and the slow jobs run
    side by side)."""

    def __init__(self, args: list[str], simulator: bool) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-W", "ignore::RuntimeWarning", *args],
            cwd=ROOT,
            env=process_env(simulator),
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
import json, sys
from shell_envs.core import cuda
from shell_envs.scorpion.gpu import kernel_signatures
from tests.gpu.helpers import load_benchmark
kernels = load_benchmark("gpu_kernels")
for kernel, sig in kernel_signatures()[int(sys.argv[1])::2]:
    ptx = cuda.compile_ptx(kernel, sig, cc=(9, 0))
    stores = kernels.store_kinds(kernel, sig, ptx)
    print("stores", kernel.name, json.dumps({k: dict(v) for k, v in stores.items()}))
    assert ".target sm_90" in ptx and ".entry" in ptx, kernel.name
    assert ".local" not in ptx, kernel.name + " keeps arrays in local memory"
    assert ".const" not in ptx, kernel.name + " has tables in constant memory"
    report = cuda.assemble(ptx, cc=(9, 0))  # ptxas (nvJitLink): it assembles, nothing spills
    assert "0 bytes spill stores" in report and "0 bytes lmem" in report, report
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


OUTPUTS = ("obs", "masks", "rewards", "terminated", "truncated", "counts", "flags", "code", "deal")


def test_results_are_stored_coalesced_with_the_game_index_last(jobs):
    """From the PTX (benchmarks/gpu_kernels.py): with the game index last, no store of a result
    is strided, and only the cards encoding and the legal mask's per-action entries are
    data-indexed; in game-major rows the observations and masks are strided."""
    out = jobs["ptx0"].output() + jobs["ptx1"].output()
    stores = {}
    for line in out.splitlines():
        if line.startswith("stores"):
            _, name, counts = line.split(" ", 2)
            stores[name] = json.loads(counts)
    soa, rows = stores["step_soa_kernel"], stores["step_game_major_kernel"]
    for output in OUTPUTS:
        assert soa[output].get("strided", 0) == 0, (output, soa[output])
        assert soa[output].get("coalesced", 0) > 0, (output, soa[output])
    for output in ("rewards", "terminated", "truncated", "counts", "flags", "code", "deal"):
        assert "data-indexed" not in soa[output], (output, soa[output])
    for output in ("obs", "masks"):
        assert rows[output].get("coalesced", 0) == 0 and rows[output]["strided"] > 0, output
    reset = stores["reset_soa_kernel"]
    for output in ("obs", "masks", "counts", "flags", "code", "deal"):
        assert reset[output].get("strided", 0) == 0, (output, reset[output])


def test_gpu_env_plays_the_cpu_games_on_a_real_gpu():
    torch = pytest.importorskip("torch")
    pytest.importorskip("numba_cuda", reason='needs the cuda extra: pip install "shell-envs[cuda]"')
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU (the simulator checks above run everywhere)")
    checks = [*SIM_CHECKS, "lockstep_large"]
    out = Job([str(ROOT / "tests" / "gpu" / "scorpion_sim.py"), *checks], False).output()
    assert all(f"ok {check}\n" in out for check in checks), out[-6000:]
