"""numba-cuda's real launch path on a machine without a GPU: a stand-in driver and its stubs.

``fake_driver.c`` is built into a ``libcuda.so.1`` that a process finds first on
``LD_LIBRARY_PATH`` (`environment`); in that process numba-cuda, cuda-core and cuda-bindings
run their own code down to the driver's entry points, and `Launches` reads back what each
kernel launch handed the driver.  Two things still need a GPU and are stubbed in the process
(`stub_compile`, `stub_torch`): numba-cuda's compile of a kernel (NVVM and ptxas run without
a GPU, but take seconds a kernel, so a test swaps in a kernel object made without them; its
function handle comes from the stand-in driver through cuda-core) and torch's CUDA tensors
(torch's CPU build has none; the envs get CPU placeholders of the right shapes).  Used by
``tests/gpu/launch_checks.py`` and ``benchmarks/gpu_host.py``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

SOURCE = Path(__file__).with_name("fake_driver.c")
LIBRARY = "libcuda.so.1"


def build(directory: Path) -> Path:
    """Compile the stand-in driver into ``directory`` (with the C compiler ``cc``, ``gcc`` or
    ``clang``); returns ``directory``."""
    compiler = next(filter(None, map(shutil.which, ("cc", "gcc", "clang"))), None)
    if compiler is None:
        raise RuntimeError("building the stand-in CUDA driver needs a C compiler (cc, gcc)")
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / LIBRARY
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O1", "-o", str(target), str(SOURCE), "-ldl"],
        check=True,
        capture_output=True,
    )
    return directory


def environment(directory: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a process that loads the stand-in driver from ``directory``: first on
    ``LD_LIBRARY_PATH``, numba's CUDA simulator off."""
    env = dict(os.environ if base is None else base)
    paths = [str(directory), *filter(None, [env.get("LD_LIBRARY_PATH")])]
    env["LD_LIBRARY_PATH"] = os.pathsep.join(paths)
    for name in ("NUMBA_ENABLE_CUDASIM", "NUMBA_DISABLE_JIT"):
        env.pop(name, None)
    return env


class Launches:
    """What the stand-in driver recorded, read through ctypes in the process that loaded it."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL(LIBRARY)  # the copy cuda-bindings loaded (same soname)
        assert "fake_driver.c" in self.name_of_device(), "the real driver is loaded"

    def name_of_device(self) -> str:
        """The name the driver gives its device (says it is the stand-in)."""
        buffer = ctypes.create_string_buffer(128)
        self.lib.cuDeviceGetName(buffer, 128, 0)
        return buffer.value.decode()

    @property
    def count(self) -> int:
        """Kernel launches so far."""
        return ctypes.c_longlong.in_dll(self.lib, "fake_launches").value

    def expect(self, sizes: Sequence[int]) -> None:
        """The next launches have parameters of these byte sizes (for `params`)."""
        count = ctypes.c_int.in_dll(self.lib, "fake_param_count")
        array = (ctypes.c_int * 1024).in_dll(self.lib, "fake_param_sizes")
        for i, size in enumerate(sizes):
            array[i] = size
        count.value = len(sizes)

    def last(self) -> dict[str, Any]:
        """The last launch: function handle, grid, block, shared bytes, stream, parameters (the
        bytes behind each parameter pointer, as ``expect`` sized them)."""
        lib = self.lib
        count = ctypes.c_int.in_dll(lib, "fake_param_count").value
        raw = (ctypes.c_ubyte * (1024 * 8)).in_dll(lib, "fake_last_params")
        params = np.frombuffer(bytes(raw), np.uint8).reshape(1024, 8)[:count]
        return {
            "function": ctypes.c_void_p.in_dll(lib, "fake_last_function").value,
            "grid": tuple((ctypes.c_uint * 3).in_dll(lib, "fake_last_grid")),
            "block": tuple((ctypes.c_uint * 3).in_dll(lib, "fake_last_block")),
            "shared": ctypes.c_uint.in_dll(lib, "fake_last_shared").value,
            "stream": ctypes.c_void_p.in_dll(lib, "fake_last_stream").value,
            "params": [bytes(row) for row in params],
        }


def param_sizes(params: Sequence[Any]) -> list[int]:
    """The byte size of each marshalled kernel parameter as cuda-core's ``launch`` passes it:
    Python bools as C++ ``bool``, other Python ints as pointer-sized integers, ctypes and
    numpy scalars as their own."""
    sizes = []
    for value in params:
        if isinstance(value, bool):
            sizes.append(1)
        elif isinstance(value, ctypes._SimpleCData):
            sizes.append(ctypes.sizeof(value))
        elif isinstance(value, np.generic):
            sizes.append(value.nbytes)
        else:
            sizes.append(ctypes.sizeof(ctypes.c_void_p))
    return sizes


def param_bytes(params: Sequence[Any]) -> list[bytes]:
    """The bytes the driver should see behind each parameter (8 a parameter, zero-padded)."""
    out = []
    for value, size in zip(params, param_sizes(params), strict=True):
        if isinstance(value, ctypes._SimpleCData):
            data = bytes(value)
        elif isinstance(value, np.generic):
            data = value.tobytes()
        else:
            data = int(value).to_bytes(size, "little", signed=int(value) < 0)
        out.append(data.ljust(8, b"\0"))
    return out


def stub_compile(dispatcher: Any) -> None:
    """Make ``dispatcher`` (a numba-cuda kernel dispatcher) hand out kernels without compiling:
    numba-cuda's own kernel class, its argument types as asked, and a function handle that
    cuda-core loads through the stand-in driver; everything after the compile is real."""
    from cuda.core import ObjectCode
    from numba import types
    from numba.cuda.core import sigutils
    from numba.cuda.dispatcher import _Kernel

    class Library:  # numba-cuda's code library: only the loaded function is asked for
        def __init__(self, name: str) -> None:
            code = ObjectCode.from_ptx(b"// no code: the stand-in driver runs nothing\n")
            self.function = type("Function", (), {"kernel": code.get_kernel(name)})()

        def get_cufunc(self) -> Any:
            return self.function

    original = dispatcher.compile

    def compile(signature: Any) -> Any:
        argument_types, _ = sigutils.normalize_signature(signature)
        if argument_types not in dispatcher.overloads:  # what a compile would leave there
            kernel = _Kernel.__new__(_Kernel)
            kernel.signature = types.void(*argument_types)
            kernel.entry_name = f"stub_{dispatcher.py_func.__name__}"
            kernel.extensions = []
            kernel.debug = False
            kernel.cooperative = False
            kernel._codelibrary = Library(kernel.entry_name)
            dispatcher.overloads[argument_types] = kernel
        return original(signature)  # numba-cuda finds the kernel it holds in memory

    dispatcher.compile = compile


def stub_torch() -> None:
    """Let the GPU envs run their launch code with torch's CPU build: torch says it sees a
    CUDA device; views of device arrays are CPU placeholders of their shapes and dtypes (the
    stand-in driver runs no kernel, so there is nothing to view); fresh result buffers are
    uninitialised CPU tensors, whose addresses the kernels are given as torch's CUDA
    allocator's would be (the stand-in never reads them); actions stay numba arrays."""
    import torch

    from shell_envs.core import cuda

    torch.cuda.is_available = lambda: True

    def placeholder(array: Any) -> Any:
        return torch.from_numpy(np.zeros(array.shape, array.dtype))

    def output(shape: tuple[int, ...], dtype: Any) -> tuple[Any, Any]:
        tensor = torch.from_numpy(np.empty(shape, dtype))
        return tensor, tensor

    def integer_array(values: Any, shape: tuple[int, ...], what: str) -> Any:
        host = np.asarray(values.cpu() if isinstance(values, torch.Tensor) else values)
        return cuda.device_array(cuda._checked(host, shape, what, host.dtype.kind).astype(np.int64))

    cuda.as_torch = placeholder
    cuda.output = output
    cuda.integer_array = integer_array
