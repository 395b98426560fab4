"""The What the Shell GPU env without a GPU: the same games as the CPU batched env under numba's
CUDA simulator, every kernel compiled to PTX for sm_90, and the clear errors."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys

import pytest

from shell_envs import what_the_shell_v0
from shell_envs.what_the_shell.vector import WhatTheShellVectorEnv
from tests.gpu.helpers import ROOT, load_benchmark, needs_numba_cuda, process_env, run

SIM_CHECKS = [
    "lockstep_planes",
    "lockstep_planes_uint8",
    "lockstep_flat",
    "lockstep_game_major",
    "long_games",
    "sampler",
    "handoff",
    "copies",
    "devices",
    "jax_handoff",
    "raise_and_errors",
]
CONSTANT_MEMORY = 64 * 1024  # bytes of constant data ptxas accepts in one module


CHECKS = ROOT / "tests" / "gpu" / "what_the_shell_checks.py"


@pytest.mark.parametrize("check", SIM_CHECKS)
def test_under_the_simulator(check):
    needs_numba_cuda()
    out = run([str(CHECKS), check], simulator=True)
    assert out.strip().endswith(f"ok {check}")


def test_on_a_gpu():
    """Every check on a real GPU where there is one, in one process (kernels compile once)."""
    needs_numba_cuda()
    from shell_envs.core import cuda

    if not cuda.cuda().is_available():
        pytest.skip("no CUDA device here (the simulator tests cover the same checks)")
    out = run([str(CHECKS), *SIM_CHECKS], simulator=False)
    assert out.split() == [word for check in SIM_CHECKS for word in ("ok", check)]


PTX_CASES = {  # each kernel once, both layouts and both observation dtypes between them
    ("step_soa_kernel", "uint8"),
    ("step_game_major_kernel", "float32"),
    ("sample_soa_kernel", "int8"),
    ("sample_game_major_kernel", "int8"),
}
OUTPUTS = ("obs_b", "obs_w", "masks", "flat_b", "flat_w", "rewards", "flags", "report")


def test_every_kernel_compiles_to_ptx_for_sm_90():
    needs_numba_cuda()
    from shell_envs.core import cuda
    from shell_envs.what_the_shell import gpu

    kernels = load_benchmark("gpu_kernels")
    cases = [
        (k, args) for k, args in gpu.kernel_signatures() if (k.name, _obs_dtype(args)) in PTX_CASES
    ]
    assert len(cases) == len(PTX_CASES)
    for kernel, args in cases:
        ptx = cuda.compile_ptx(kernel, args, cc=(9, 0))
        assert re.search(r"^\.target sm_90\b", ptx, re.M), kernel.name
        assert f"{kernel.name}" in ptx and ".entry" in ptx
        # the rule tables are small enough for constant memory (int64 ones were not)
        constant = sum(int(m) for m in re.findall(r"^\.const [^\[]*\[(\d+)\]", ptx, re.M))
        assert constant < CONSTANT_MEMORY, (kernel.name, constant)
        # ptxas (nvJitLink, from the extra's CUDA wheels) assembles it for sm_90, no spills
        report = cuda.assemble(ptx, cc=(9, 0))
        assert "0 bytes spill stores" in report and "0 bytes lmem" in report, report
        if kernel.name.startswith("step"):
            check_output_stores(kernel.name, kernels.store_kinds(kernel, args, ptx))


def check_output_stores(name, stores):
    """Game index last (soa): every store of a result is coalesced, but the egg-order plane's
    writes at each egg's cell; game-major rows: the observations and masks are strided."""
    kinds = load_benchmark("gpu_kernels")
    assert set(OUTPUTS) <= set(stores), sorted(stores)
    if "soa" in name:
        for output in OUTPUTS:
            assert stores[output][kinds.STRIDED] == 0, (output, stores[output])
            assert stores[output][kinds.COALESCED] > 0, (output, stores[output])
        for output in ("masks", "flat_b", "flat_w", "rewards", "flags", "report"):
            assert stores[output][kinds.DATA_INDEXED] == 0, (output, stores[output])
        for state in ("board", "eggs", "meta", "info"):
            assert stores[state][kinds.STRIDED] == 0, (state, stores[state])
    else:
        for output in ("obs_b", "obs_w", "masks", "flat_b", "flat_w"):
            assert stores[output][kinds.COALESCED] == 0, (output, stores[output])
            assert stores[output][kinds.STRIDED] > 0, (output, stores[output])


def _obs_dtype(args):
    """The dtype of a step kernel's observations (argument 10), or of the sampler's masks."""
    return str(args[10].dtype if len(args) > 10 else args[0].dtype)


NO_EXTRA = """
import sys
sys.modules["numba_cuda"] = None  # as if the cuda extra were not installed
from shell_envs import what_the_shell_v0
from shell_envs.core.cuda import CudaUnavailableError
try:
    what_the_shell_v0.vector_env(4, device="cuda")
except CudaUnavailableError as exc:
    print(exc)
"""


def test_without_the_extra_device_cuda_says_what_to_install():
    out = run(["-c", NO_EXTRA], simulator=False, timeout=300)
    assert 'pip install "shell-envs[cuda]"' in out and "numba-cuda" in out


def test_without_a_gpu_device_cuda_says_none_was_found(monkeypatch):
    needs_numba_cuda()
    from shell_envs.core import cuda

    monkeypatch.setattr(cuda.cuda(), "is_available", lambda: False)
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    with pytest.raises(cuda.CudaUnavailableError, match="no CUDA device found"):
        what_the_shell_v0.vector_env(4, device="cuda")


SIM_WITH_JIT = """
from shell_envs import what_the_shell_v0
from shell_envs.core.cuda import CudaUnavailableError
try:
    what_the_shell_v0.vector_env(4, device="cuda")
except CudaUnavailableError as exc:
    print(exc)
"""


def test_the_simulator_asks_for_plain_python_rules():
    needs_numba_cuda()
    out = subprocess.run(
        [sys.executable, "-c", SIM_WITH_JIT],
        cwd=ROOT,
        env=process_env(False, NUMBA_ENABLE_CUDASIM="1", NUMBA_DISABLE_JIT="0"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "NUMBA_DISABLE_JIT=1" in out.stdout, out.stdout + out.stderr


CPU_PATH = """
import sys
import gymnasium as gym
import shell_envs
from shell_envs import what_the_shell_v0
env = what_the_shell_v0.vector_env(4, device="cpu")
gym.make_vec("shell_envs/Scorpion-v0", num_envs=2, vectorization_mode="vector_entry_point")
print(sorted(m for m in sys.modules if m.startswith(("numba_cuda", "numba.cuda", "torch"))))
"""


def test_the_cpu_path_imports_neither_numba_cuda_nor_torch():
    assert run(["-c", CPU_PATH], simulator=False, timeout=300).strip() == "[]"


def test_device_cpu_is_the_cpu_env_and_other_devices_are_refused():
    assert isinstance(what_the_shell_v0.vector_env(2), WhatTheShellVectorEnv)
    assert isinstance(what_the_shell_v0.vector_env(2, device="cpu"), WhatTheShellVectorEnv)
    for device in ("gpu", "cuda:-1", "cpu:0", 3):
        with pytest.raises(ValueError, match="device must be 'cpu', 'cuda', 'cuda:N' or a torch"):
            what_the_shell_v0.vector_env(2, device=device)


def test_the_gpu_benchmark_runs_under_the_simulator(tmp_path):
    needs_numba_cuda()
    out = tmp_path / "gpu"
    args = ["--quick", "--cpu-batch", "8", "--pgx-batch", "8", "--seconds", "0.02", "--repeats"]
    run([str(ROOT / "benchmarks" / "gpu.py"), *args, "2", "--out", str(out)], simulator=True)
    result = json.loads(out.with_suffix(".json").read_text())
    rows = {(r["workload"].split(" (")[0], r["device"], r["layout"]) for r in result["rows"]}
    for layout in ("soa", "game_major"):
        assert ("What the Shell GPU", "simulator", layout) in rows
        assert ("Scorpion GPU env", "simulator", layout) in rows
    assert ("What the Shell CPU vector_env", "cpu, 2 threads", "-") in rows
    assert result["failed"] == [] and not result["skipped"], result
    gpu_rows = [r for r in result["rows"] if r["device"] == "simulator"]
    assert all(r["host_us_per_step"] > 0 for r in gpu_rows), gpu_rows
    if importlib.util.find_spec("pgx") is not None:  # the test extra has it; the core one not
        assert ("pgx connect_four", "jax cpu", "-") in rows
    assert all(r["steps_per_s"] > 0 and r["min"] <= r["max"] for r in result["rows"])
    assert result["goals"] == []  # simulated speeds are not judged
    assert "| What the Shell GPU (planes_uint8" in out.with_suffix(".md").read_text()


def test_the_gpu_benchmark_exits_non_zero_when_a_section_fails(tmp_path):
    needs_numba_cuda()
    out = tmp_path / "gpu"
    args = ["--quick", "--sizes", "0", "--cpu-batch", "8", "--seconds", "0.02", "--no-pgx"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "gpu.py"), *args, "--out", str(out)],
        cwd=ROOT,
        env=process_env(simulator=True),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "section(s) failed: What the Shell GPU: ValueError" in done.stderr
    result = json.loads(out.with_suffix(".json").read_text())
    assert [f.split(":")[0] for f in result["failed"]] == ["What the Shell GPU", "Scorpion GPU"]
    assert any(r["workload"].startswith("What the Shell CPU") for r in result["rows"])
    assert "FAILED:" in out.with_suffix(".md").read_text()
