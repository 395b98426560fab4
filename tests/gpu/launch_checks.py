"""Every GPU kernel of both games launched through numba-cuda's and cuda-core's real launch
code, without a GPU: run by test_launch_path.py in a process whose CUDA driver is the
stand-in of ``tests/gpu/fake_driver.c`` (numba's simulator skips all of this code).

Run as ``python tests/gpu/launch_checks.py CHECK [CHECK ...]`` with the stand-in first on
``LD_LIBRARY_PATH`` (``tests/gpu/fake_driver.py``); each check raises on the first fault and
prints ``ok CHECK``:

- ``kernels``: each kernel of both games, each signature, prepared and launched twice; what
  the driver receives (grid, block, default stream, every parameter's bytes) equals both an
  independent marshalling of the arguments and what numba-cuda's own ``_Kernel.launch``
  sends for them; swapping an argument reaches the driver; no warning on a launch;
- ``real_compile``: one kernel compiled for real (NVVM, nvJitLink) and launched twice;
- ``envs``: both games' GPU envs, both layouts, with and without ``copy``: reset, then a
  random-play loop (``sample_actions`` and ``step``) that makes exactly two launches a step.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
from numba import types
from numba.np.numpy_support import as_dtype

from shell_envs.core import cuda
from shell_envs.scorpion import gpu as scorpion_gpu
from shell_envs.what_the_shell import gpu as wts_gpu
from tests.gpu.fake_driver import Launches, param_bytes, param_sizes, stub_compile, stub_torch

N = 300  # three blocks of 128 threads
MODULES = (wts_gpu, scorpion_gpu)


def argument(ty: Any) -> Any:
    """A device array (zeros, small shape) or scalar of numba type ``ty``."""
    if isinstance(ty, types.Array):
        shape = (3, 5, 7)[: ty.ndim - 1] + (N,)
        return cuda.device_array(np.zeros(shape, as_dtype(ty.dtype)))
    if ty == types.boolean:
        return True
    return 7


def expected_params(values: tuple[Any, ...]) -> list[Any]:
    """The kernel parameters of ``values`` written out by hand: an array is meminfo, parent,
    size, itemsize, data pointer, shape, strides (bytes); an integer a 64-bit value; a bool
    one byte."""
    out: list[Any] = []
    for value in values:
        if hasattr(value, "device_ctypes_pointer"):
            out += [0, 0, value.size, value.dtype.itemsize, value.device_ctypes_pointer.value]
            out += [*value.shape, *value.strides]
        else:
            out.append(value if isinstance(value, bool) else int(value))
    return out


def check_kernels() -> None:
    launches = Launches()
    for module in MODULES:
        for kernel, signature in module.kernel_signatures():
            stub_compile(kernel.compiled)
            args = tuple(argument(ty) for ty in signature)
            launch = kernel.prepare(N, *args)
            native = launch._native
            sizes = param_sizes(native.params)
            launches.expect(sizes)
            before = launches.count
            for _ in range(2):  # the second launch is the one that failed (an int stream)
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    launch()
            assert launches.count == before + 2, kernel.name
            last = launches.last()
            assert last["grid"] == (3, 1, 1) and last["block"] == (128, 1, 1), last
            assert last["stream"] is None and last["shared"] == 0, last  # the default stream
            assert last["function"] == int(native.function.handle), kernel.name
            mine = param_bytes(expected_params((N, *args)))
            assert last["params"] == mine, (kernel.name, signature)
            # numba-cuda's own launch of the same arguments hands the driver the same bytes
            compiled = kernel.compiled.compile(tuple(kernel.compiled.typeof_pyval(v)
                                                     for v in (N, *args)))  # fmt: skip
            compiled.launch((N, *args), (3, 1, 1), (128, 1, 1), cuda.default_stream(), 0)
            assert launches.last()["params"] == mine, kernel.name
            # a swapped argument reaches the driver; one of another shape is refused
            k = next(k for k, ty in enumerate(signature) if isinstance(ty, types.Array))
            other = argument(signature[k])
            launch.bind(k, other)
            launch()
            swapped = expected_params((N, *args[:k], other, *args[k + 1 :]))
            assert launches.last()["params"] == param_bytes(swapped), kernel.name
            wrong = cuda.device_array(np.zeros((N + 1,) * signature[k].ndim, other.dtype))
            try:
                launch.bind(k, wrong)
            except ValueError as exc:
                assert "must keep its dtype, shape and strides" in str(exc), exc
            else:
                raise AssertionError(f"{kernel.name} took an argument of another shape")
            assert launch.args[k] is other  # a refused bind changed nothing
            assert sizes == param_sizes(launch._native.params)


def check_real_compile() -> None:
    """What the Shell's sampler, compiled by numba-cuda (NVVM, then nvJitLink to a cubin the
    stand-in driver loads), launched twice through the same path."""
    launches = Launches()
    kernel, signature = next(
        (k, s) for k, s in wts_gpu.kernel_signatures() if k is wts_gpu.SAMPLE_KERNELS["soa"]
    )
    args = tuple(argument(ty) for ty in signature)
    launch = kernel.prepare(N, *args)
    launches.expect(param_sizes(launch._native.params))
    before = launches.count
    launch()
    launch()
    assert launches.count == before + 2
    assert launches.last()["params"] == param_bytes(expected_params((N, *args)))


def all_kernels() -> list[cuda.Kernel]:
    """Every kernel object of both games' GPU modules."""
    found = []
    for module in MODULES:
        for value in vars(module).values():
            kernels = value.values() if isinstance(value, dict) else [value]
            found += [k for k in kernels if isinstance(k, cuda.Kernel)]
    return found


def check_envs() -> None:
    launches = Launches()
    stub_torch()
    for kernel in all_kernels():
        stub_compile(kernel.compiled)
    makers = {
        "What the Shell": lambda layout, copy: wts_gpu.WhatTheShellGpuVectorEnv(
            N, obs_encoder="planes_uint8", layout=layout, copy=copy
        ),
        "Scorpion": lambda layout, copy: scorpion_gpu.ScorpionGpuVectorEnv(
            N, layout=layout, copy=copy, device="cuda:0"
        ),
        "Scorpion, traditional": lambda layout, copy: scorpion_gpu.ScorpionGpuVectorEnv(
            N, rules="traditional", layout=layout, copy=copy, device="cuda:0"
        ),
    }
    for name, make in makers.items():
        for layout in ("soa", "game_major"):
            for copy in (False, True):
                env = make(layout, copy)
                launches.expect([])
                env.reset(seed=0)
                for _ in range(3):
                    before = launches.count
                    env.step(env.sample_actions())
                    assert launches.count - before == 2, (name, layout, copy)


if __name__ == "__main__":
    for check in sys.argv[1:]:
        globals()[f"check_{check}"]()
        print("ok", check, flush=True)
