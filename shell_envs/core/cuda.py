"""Everything numba-cuda-specific, in one module: the GPU envs use only these helpers.

The GPU envs (``device="cuda"``) run the very rule functions the CPU core runs, compiled for
CUDA by numba-cuda from their Python source: a rule function compiled with
[`jit`][shell_envs.core.jit.jit] called from a kernel body is compiled for the GPU by numba-cuda
itself (see its docs, "JIT Function CPU-GPU Compatibility").  This module turns per-game
Python functions into kernels (`Kernel`: one GPU thread per game), moves arrays in and
out (actions in from any CUDA array or a host array, results out as torch tensors that are
zero-copy views of device buffers), and answers the current-device lookups of an offline PTX
compile (`compile_ptx`).  numba-cuda is in maintenance mode for the life of CUDA 13;
keeping it in this one module means a move to another compiler touches one place.

Nothing here imports ``numba.cuda`` or ``torch`` at module level: the CPU path never pays for
them, and without the ``cuda`` extra or a GPU, `require` raises one clear error
(`CudaUnavailableError`) that names everything missing at once: the extra's packages
(`missing_packages`) and the GPU (`driver_problem`), both found without importing them.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, for tests on machines without a
GPU) kernels run as Python threads on the CPU; the rule functions they call must then be
plain Python too, so the simulator needs ``NUMBA_DISABLE_JIT=1`` as well, and results come
out as CPU torch tensors over the simulator's host memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from shell_envs.core import validation
from shell_envs.core.jit import jit_inline
from shell_envs.core.numba_patches import inline_without_copies

__all__ = [
    "INSTALL",
    "LAYOUTS",
    "THREADS_PER_BLOCK",
    "CudaUnavailableError",
    "DeviceKeywords",
    "Kernel",
    "Launch",
    "StateArray",
    "as_torch",
    "assemble",
    "batch_shape",
    "compile_ptx",
    "cuda",
    "default_stream",
    "device_array",
    "device_function",
    "driver_problem",
    "empty",
    "fresh_batch",
    "from_device",
    "game_major_copy",
    "game_rows",
    "integer_array",
    "layout_kernels",
    "missing_packages",
    "output",
    "random_states",
    "require",
    "simulated",
    "synchronize",
    "torch",
    "torch_device",
    "unavailable",
]

INSTALL = 'pip install "shell-envs[cuda]"'
# the packages of the cuda extra, each with the module it provides (numba-cuda needs cuda-core)
EXTRA_MODULES = (("numba-cuda", "numba_cuda"), ("cuda-core", "cuda.core"), ("torch", "torch"))
THREADS_PER_BLOCK = 128


class CudaUnavailableError(RuntimeError):
    """``device="cuda"`` cannot run here: the ``cuda`` extra or a CUDA device is missing."""


def missing_packages() -> list[str]:
    """The packages of the ``cuda`` extra that are not installed, found without importing them
    (``importlib.util.find_spec``; a module set to None in ``sys.modules`` counts as missing)."""
    return [name for name, module in EXTRA_MODULES if not _installed(module)]


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported (its parent package is imported to look, not it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # no parent package, or a module without a spec
        return False


_NO_DEVICE = 100  # CUDA_ERROR_NO_DEVICE: the driver's answer where it sees no GPU


def driver_problem() -> str | None:
    """Why no CUDA GPU is visible here, or None when the NVIDIA driver reports at least one.

    Asks the driver library itself through ``ctypes`` (``libcuda.so.1``, ``nvcuda.dll`` on
    Windows: what numba-cuda and torch load too): ``cuInit`` and ``cuDeviceGetCount``, which
    answer in milliseconds, with no numba-cuda or torch import and no subprocess
    (``nvidia-smi`` may be missing where the driver is not, as in many containers).
    """
    if sys.platform == "darwin":
        return "no CUDA device found: macOS has no NVIDIA CUDA driver"
    name = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
    try:
        driver = ctypes.CDLL(name)
    except OSError:
        return f"no CUDA device found: no NVIDIA driver is installed ({name} cannot be loaded)"
    count = ctypes.c_int(0)
    try:
        error = driver.cuInit(0) or driver.cuDeviceGetCount(ctypes.byref(count))
    except AttributeError:  # a library of that name without the driver's entry points
        return f"no CUDA device found: {name} is not a usable NVIDIA driver"
    if error and error != _NO_DEVICE:
        return f"no CUDA device found: the NVIDIA driver ({name}) fails with CUDA error {error}"
    if count.value < 1:
        return f"no CUDA device found: the NVIDIA driver ({name}) sees no GPU"
    return None


def unavailable(failure: str, what: str) -> CudaUnavailableError:
    """The one error of ``device="cuda"``, naming everything missing here: the ``cuda``
    extra's packages (with the command that installs them) and a GPU (not needed under the
    simulator).  ``failure`` says what failed; it is named too unless the checks already
    name ``what`` failed for (a package of the extra, or ``"device"``)."""
    missing = missing_packages()
    device = None if simulated() else driver_problem()
    reasons = []
    if missing:
        reasons.append(f"the cuda extra is not installed ({_listed(missing)} missing): {INSTALL}")
    if device:
        reasons.append(device)
    if not (device if what == "device" else what in missing):
        reasons.append(failure)
    text = reasons[0]
    if len(reasons) > 1:
        text = "; ".join(f"({i}) {reason}" for i, reason in enumerate(reasons, 1))
    if device or what == "device":
        text += (
            ". Without a GPU, device='cpu' plays the same games; NUMBA_ENABLE_CUDASIM=1 with "
            "NUMBA_DISABLE_JIT=1 runs the CUDA simulator instead (slow; for tests)"
        )
    return CudaUnavailableError(f"device='cuda' cannot run here: {text}")


def _listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def simulated() -> bool:
    """Whether numba's CUDA simulator is on (``NUMBA_ENABLE_CUDASIM=1``, read at import)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


@functools.cache
def cuda() -> Any:
    """The ``numba.cuda`` module of numba-cuda, imported on first use.

    Raises `CudaUnavailableError` naming everything missing (`unavailable`) when numba-cuda
    cannot be imported (numba's own deprecated built-in ``numba.cuda`` does not count).
    """
    try:
        import numba_cuda  # noqa: F401  (the package of the extra; it provides numba.cuda)
        from numba import cuda as module
    except ImportError as exc:
        raise unavailable(f"numba-cuda cannot be imported ({exc})", "numba-cuda") from exc
    with contextlib.suppress(ImportError):  # numba-cuda's own copy of numba's inliner
        from numba.cuda.core import inline_closurecall

        inline_without_copies(inline_closurecall)
    return module


def require() -> Any:
    """``numba.cuda``, with a usable device (or the simulator), else one clear error."""
    module = cuda()
    if simulated():
        from numba import config

        if not config.DISABLE_JIT:
            raise CudaUnavailableError(
                "the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) runs kernels as Python, so the "
                "rule functions must be plain Python too: set NUMBA_DISABLE_JIT=1 as well"
            )
        return module
    if not module.is_available():
        raise unavailable("no CUDA device found: numba-cuda sees no GPU", "device")
    return module


def device_function(fn: Callable[..., Any]) -> Any:
    """A CUDA device function from ``fn``: a plain Python function, or a rule function
    compiled for the CPU by [`shell_envs.core.jit`][] (its Python function is compiled)."""
    return require().jit(device=True)(getattr(fn, "py_func", fn))


_LAUNCH_TEMPLATE = """
def {name}(n, {args}):
    i = cuda.grid(1)
    if i < n:
        body(i, {args})
"""


def _kernel_source(body: Callable[..., Any]) -> tuple[str, str]:
    """The name and source of the kernel that calls ``body(i, ...)`` for each ``i < n``."""
    params = list(inspect.signature(body).parameters)
    if not params:
        raise TypeError(f"a kernel body takes the game index first: {body.__name__}(i, ...)")
    args = ", ".join(params[1:])
    name = f"{body.__name__.lstrip('_')}_kernel"
    return name, _LAUNCH_TEMPLATE.format(name=name, args=args)


class Kernel:
    """``body(i, *arrays)`` run once for every game index ``i < n``, one GPU thread each.

    ``body`` is a plain Python function of one game (game modules never write ``cuda.grid``);
    it may call the rule functions directly, and any helper it calls must be compiled
    ([`jit`][shell_envs.core.jit.jit]).  `prepare` gives a `Launch` with its arguments
    marshalled once (an env prepares its launches when it is made: its buffers never move);
    calling the kernel prepares and launches in one go, for rare launches.
    """

    def __init__(self, body: Callable[..., Any], threads: int = THREADS_PER_BLOCK) -> None:
        self.body = body
        self.threads = threads
        self.name, self.source = _kernel_source(body)

    @functools.cached_property
    def python_function(self) -> Callable[..., Any]:
        """The kernel as a Python function (what numba-cuda compiles; see `compile_ptx`)."""
        namespace = {"cuda": cuda(), "body": device_function(self.body)}
        exec(compile(self.source, f"<kernel {self.name}>", "exec"), namespace)
        return namespace[self.name]

    @functools.cached_property
    def compiled(self) -> Any:
        """The numba-cuda kernel dispatcher (compiles once per argument types)."""
        return require().jit(self.python_function)

    def prepare(self, n: int, *args: Any) -> Launch:
        """A `Launch` of this kernel over ``n`` games with ``args`` (compiled for their types
        now, if not yet)."""
        return Launch(self, n, args)

    def __call__(self, n: int, *args: Any) -> None:
        """Prepare and launch over ``n`` games (nothing when ``n`` is 0)."""
        self.prepare(n, *args)()


class Launch:
    """A kernel launch over ``n`` games whose arguments are marshalled once.

    numba-cuda turns every argument into kernel parameters at every launch (tens of
    microseconds an array); an env's buffers never move, so a `Launch` does that once, with
    numba-cuda's own marshalling, and each call hands the same parameters to cuda-core's
    ``launch`` on the default stream (converted once: cuda-core takes no bare ``0``).
    `bind` swaps one argument for another array of the same dtype, shape and strides (fresh
    output buffers, a caller's actions).  Under the simulator each call runs the kernel as
    Python.
    """

    def __init__(self, kernel: Kernel, n: int, args: tuple[Any, ...]) -> None:
        self.kernel = kernel
        self.n = n
        self.args = list(args)
        self.threads = min(kernel.threads, max(n, 1))
        self.blocks = -(-n // self.threads)
        self._native = None
        if n > 0 and not simulated():
            self._native = _Native(kernel.compiled, n, self.args, self.blocks, self.threads)

    def bind(self, index: int, array: Any) -> None:
        """Argument ``index`` (0 is the first after ``n``) is ``array`` from now on: a device
        array or CUDA tensor of the same dtype, shape and strides as the one it replaces."""
        if self.args[index] is array:
            return
        if self._native is not None:
            self._native.bind(index + 1, array)
        self.args[index] = array

    def __call__(self) -> None:
        """Launch (asynchronously: nothing waits for the GPU)."""
        if self.n <= 0:
            return
        if self._native is None:
            self.kernel.compiled[self.blocks, self.threads](self.n, *self.args)
        else:
            self._native()


LAYOUTS = ("soa", "game_major")  # game index last (struct-of-arrays) or first (the CPU's rows)


class StateArray(NamedTuple):
    """One state array of a game: its name, the shape of one game's part, its dtype and the
    value of a fresh game (a scalar or one game's array); a GPU env's arrays, in either
    layout, and their host copies are made from these."""

    name: str
    shape: tuple[int, ...]
    dtype: Any
    fresh: Any = 0


def batch_shape(n: int, per_game: tuple[int, ...], layout: str) -> tuple[int, ...]:
    """The shape of an array of ``n`` games' ``per_game`` parts in ``layout``: the game index
    last (``"soa"``) or first (``"game_major"``)."""
    return (*per_game, n) if layout == "soa" else (n, *per_game)


def fresh_batch(spec: StateArray, n: int, layout: str = "game_major") -> np.ndarray:
    """Host array of ``n`` fresh games' ``spec`` array in ``layout`` (contiguous)."""
    rows = np.broadcast_to(np.asarray(spec.fresh, spec.dtype), (n, *spec.shape))
    return np.array(np.moveaxis(rows, 0, -1) if layout == "soa" else rows, order="C")


def game_major_copy(array: Any, layout: str) -> np.ndarray:
    """A host copy of the device array ``array`` (in ``layout``) in the CPU env's
    ``(N, ...)`` rows (waits for the GPU)."""
    host = from_device(array)
    return np.ascontiguousarray(np.moveaxis(host, -1, 0)) if layout == "soa" else host


@jit_inline
def _game_last(array, i):
    """Game ``i``'s part of an array with the game index last."""
    return array[..., i]


@jit_inline
def _game_first(array, i):
    """Game ``i``'s part of an array with the game index first."""
    return array[i]


def game_rows(layout: str) -> Callable[..., Any]:
    """``part(array, i)``: game ``i``'s part of an array in ``layout``, for kernel bodies."""
    return _game_last if layout == "soa" else _game_first


def layout_kernels(
    make_body: Callable[[Callable[..., Any]], Callable[..., Any]], name: str
) -> dict[str, Kernel]:
    """One kernel per layout from one per-game body: ``make_body(part)`` returns the body
    (``body(i, ...)``) that reads each game's arrays through ``part`` (`game_rows`); the
    kernels are named ``{name}_soa_kernel`` and ``{name}_game_major_kernel``."""
    kernels = {}
    for layout in LAYOUTS:
        body = make_body(game_rows(layout))
        body.__name__ = body.__qualname__ = f"_{name}_{layout}"
        kernels[layout] = Kernel(body)
    return kernels


@functools.cache
def default_stream() -> Any:
    """The default stream as cuda-core's ``launch`` takes it (numba-cuda's conversion, once)."""
    from numba.cuda.cudadrv import driver

    return driver._to_core_stream(0)


_DATA = 4  # an array's parameters: meminfo, parent, size, itemsize, data, shape..., strides...


class _Native:
    """The marshalled parameters of one launch on a device, and the launch itself."""

    def __init__(self, dispatcher: Any, n: int, args: list[Any], blocks: int, threads: int) -> None:
        from cuda.core import LaunchConfig, launch

        values = (n, *args)
        compiled = dispatcher.compile(tuple(dispatcher.typeof_pyval(v) for v in values))
        self.entry_name = compiled.entry_name
        self._spans: list[int] = []  # where each argument's parameters start
        self.params: list[Any] = []
        for ty, value in zip(compiled.argument_types, values, strict=True):
            self._spans.append(len(self.params))
            compiled._prepare_args(ty, value, default_stream(), [], self.params)
        self._layouts = [_layout(value) for value in values]
        self.function = compiled._codelibrary.get_cufunc().kernel
        self.config = LaunchConfig(grid=(blocks, 1, 1), block=(threads, 1, 1))
        self._launch = launch

    def bind(self, position: int, array: Any) -> None:
        """Parameter group ``position`` (``n`` is 0) for ``array``: its data pointer swapped in
        when it has the dtype, shape and strides of the array before, else a ``ValueError``."""
        layout, before = _layout(array), self._layouts[position]
        if before is None or layout != before:
            raise ValueError(
                f"argument {position - 1} of {self.entry_name} must keep its dtype, shape and "
                f"strides {before}; got {layout}"
            )
        self.params[self._spans[position] + _DATA] = _pointer(array)

    def __call__(self) -> None:
        self._launch(default_stream(), self.config, self.function, *self.params)


def _layout(value: Any) -> tuple[Any, ...] | None:
    """``(dtype, shape, strides in bytes)`` of a device array or CUDA tensor, else None."""
    if hasattr(value, "data_ptr") and hasattr(value, "stride"):  # a torch tensor
        dtype = _numpy_dtype(value.dtype)
        size = dtype.itemsize
        return dtype, tuple(value.shape), tuple(s * size for s in value.stride())
    if hasattr(value, "device_ctypes_pointer"):  # a numba-cuda device array
        return value.dtype, tuple(value.shape), tuple(value.strides)
    return None


@functools.cache
def _numpy_dtype(torch_dtype: Any) -> np.dtype:
    """The numpy dtype of a torch dtype (``torch.int8`` -> ``int8``)."""
    return np.dtype(str(torch_dtype).removeprefix("torch."))


def _pointer(value: Any) -> int:
    """The device address of a device array's or a tensor's first element."""
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    return value.device_ctypes_pointer.value or 0


@contextlib.contextmanager
def _offline_device(cc: tuple[int, int]) -> Iterator[None]:
    """Answer numba-cuda's current-device lookups with a device of compute capability ``cc``.

    Compiling a kernel that calls a device function asks the current device for its compute
    capability; on a machine without a GPU there is none, so the lookup is answered here.
    """
    from numba.cuda import dispatcher

    class Device:
        compute_capability = cc

    saved = dispatcher.get_current_device
    dispatcher.get_current_device = Device
    try:
        yield
    finally:
        dispatcher.get_current_device = saved


def compile_ptx(kernel: Kernel, arg_types: tuple[Any, ...], cc: tuple[int, int] = (9, 0)) -> str:
    """The PTX of ``kernel`` for numba types ``arg_types`` (after ``n``) and compute capability
    ``cc``, with numba-cuda's NVVM; needs no GPU (for tests and ahead-of-time checks)."""
    from numba import types

    module = cuda()
    namespace = {"cuda": module, "body": module.jit(device=True)(kernel.body)}
    exec(compile(kernel.source, f"<kernel {kernel.name}>", "exec"), namespace)
    with _offline_device(cc):
        ptx, _ = module.compile_ptx(namespace[kernel.name], (types.intp, *arg_types), cc=cc)
    return ptx


def assemble(ptx: str, cc: tuple[int, int] = (9, 0)) -> str:
    """Assemble ``ptx`` for compute capability ``cc`` with nvJitLink (ptxas, from the CUDA
    wheels of the extra; no GPU needed) and return its report: registers, spills, constant
    memory.  Raises ``RuntimeError`` with ptxas's log when it refuses the code (as it refused
    the int64 rule tables: too much constant data)."""
    from cuda.bindings import nvjitlink

    options = [f"-arch=sm_{cc[0]}{cc[1]}", "-verbose"]
    handle = nvjitlink.create(len(options), options)

    def log(size: Callable[[int], int], read: Callable[[int, bytearray], None]) -> str:
        buffer = bytearray(size(handle))
        read(handle, buffer)
        return buffer.rstrip(b"\0").decode(errors="replace")

    try:
        data = ptx.encode()
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "kernel.ptx")
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as exc:
            error = log(nvjitlink.get_error_log_size, nvjitlink.get_error_log)
            raise RuntimeError(f"ptxas refused the PTX for sm_{cc[0]}{cc[1]}: {error}") from exc
        return log(nvjitlink.get_info_log_size, nvjitlink.get_info_log)
    finally:
        nvjitlink.destroy(handle)


def empty(shape: tuple[int, ...] | int, dtype: Any) -> Any:
    """An uninitialised device array."""
    return require().device_array(shape, dtype=np.dtype(dtype))


def device_array(host: np.ndarray) -> Any:
    """A device copy of the host array ``host``."""
    return require().to_device(np.ascontiguousarray(host))


def from_device(array: Any) -> np.ndarray:
    """A host copy of the device array or tensor ``array`` (waits for the GPU)."""
    if hasattr(array, "copy_to_host"):
        return array.copy_to_host()
    return array.cpu().numpy()


def random_states(n: int, seed: int | None) -> Any:
    """``uint64[n]`` device states of ``n`` independent splitmix64 streams, one per game, for
    [`shell_envs.core.sampling.draw_below`][] and
    [`random_legal`][shell_envs.core.sampling.random_legal] in kernels; seeded from ``seed``
    by numpy's ``SeedSequence`` (None: fresh entropy)."""
    words = np.random.SeedSequence(seed).generate_state(max(n, 1), np.uint64)[:n]
    return device_array(words)


def synchronize() -> None:
    """Wait until every kernel launched so far has finished."""
    require().synchronize()


def torch() -> Any:
    """``torch``, imported on first use (results come out as torch tensors); on a GPU, a
    torch built with CUDA, else `CudaUnavailableError`."""
    try:
        import torch
    except ImportError as exc:
        raise unavailable(f"torch cannot be imported ({exc})", "torch") from exc
    if not simulated() and not torch.cuda.is_available():
        raise CudaUnavailableError(
            f"device='cuda' returns torch tensors on the GPU, but this torch ({torch.__version__})"
            " sees no CUDA device: install a CUDA build of torch"
        )
    return torch


def torch_device(device: Any = "cuda") -> Any:
    """The torch device of a GPU env made with ``device`` (``"cuda"``, ``"cuda:N"`` or a
    ``torch.device``): numba-cuda's current device, the CPU under the simulator.  Another
    device index than the current one gets a ``ValueError`` (select the GPU with
    ``CUDA_VISIBLE_DEVICES``); no device or no extra, `CudaUnavailableError`."""
    kind, index = validation.device("device", device)
    if kind != "cuda":
        raise ValueError(f"a GPU env runs on device 'cuda' or 'cuda:N'; got {device!r}")
    module = require()
    torch_ = torch()
    current = 0 if simulated() else module.get_current_device().id
    if index is not None and index != current:
        raise ValueError(
            f"device={device!r}: the GPU envs run on the current CUDA device, cuda:{current}; "
            "choose another GPU with CUDA_VISIBLE_DEVICES"
        )
    return torch_.device("cpu") if simulated() else torch_.device("cuda", current)


class DeviceKeywords:
    """What a GPU batched env adds to its game's batched base (the class after this one in its
    bases): the keywords ``copy`` (False by default on the GPU), ``layout`` and ``device``.

    ``__init__`` keeps them and passes every other keyword to the base; the env checks them
    with `check_device_keywords` once the base has checked its own (its ``_allocate``).
    """

    copy: bool
    layout: str
    device: Any

    def __init__(
        self,
        num_envs: int,
        *,
        copy: bool = False,
        layout: str = "soa",
        device: Any = "cuda",
        **keywords: Any,
    ) -> None:
        """``keywords``: those of the game's batched base, which checks them first."""
        self._device_keywords = (copy, layout, device)
        super().__init__(num_envs, **keywords)  # type: ignore[call-arg]  # the game's base

    def check_device_keywords(self) -> None:
        """Check ``copy``, ``layout`` and ``device`` (`torch_device`) and set them."""
        copy, layout, device = self._device_keywords
        self.copy = validation.flag("copy", copy)
        self.layout = validation.choice("layout", layout, LAYOUTS)
        self.device = torch_device(device)


def output(shape: tuple[int, ...], dtype: Any) -> tuple[Any, Any]:
    """A fresh device buffer for a kernel to write: ``(argument, tensor)``, what to pass to the
    kernel and the torch tensor over the same memory (one object on a GPU, from torch's
    caching allocator; a simulator array and a CPU tensor over it under the simulator)."""
    torch_ = torch()
    if simulated():
        array = require().device_array(shape, dtype=np.dtype(dtype))
        return array, torch_.from_numpy(array._ary)
    dtype = getattr(torch_, np.dtype(dtype).name if np.dtype(dtype) != np.bool_ else "bool")
    tensor = torch_.empty(shape, dtype=dtype, device="cuda")
    return tensor, tensor


def as_torch(array: Any) -> Any:
    """A torch tensor viewing the device array ``array`` (no copy).

    On the GPU through ``__cuda_array_interface__`` (``torch.as_tensor(..., device="cuda")``);
    under the simulator a CPU tensor over its host memory.  The view lives as long as the
    tensor does; a kernel that writes ``array`` again changes what it shows.
    """
    torch_ = torch()
    if simulated():
        return torch_.from_numpy(array._ary)
    return torch_.as_tensor(array, device="cuda")


def integer_array(values: Any, shape: tuple[int, ...], what: str) -> Any:
    """``values`` as an ``int64`` array on the device, of ``shape``, for a kernel (a contiguous
    CUDA tensor on a GPU, no copy when already one; a simulator array under the simulator).

    Takes any CUDA array (torch, CuPy, numba; through ``__cuda_array_interface__``), a DLPack
    producer (JAX), or a host array or sequence; anything else, another shape or a non-integer
    dtype raises ``ValueError`` naming ``what``.  The host never waits: kernels run on the
    default stream, which is made to wait for torch's current stream when that is another.
    """
    module = require()
    torch_ = torch()
    if simulated():
        if hasattr(values, "_ary"):  # a simulator device array
            values = values._ary
        elif isinstance(values, torch_.Tensor):
            values = values.numpy()
        host = _checked(np.asarray(values), shape, what, kind=np.asarray(values).dtype.kind)
        return module.to_device(host.astype(np.int64, copy=False))
    if isinstance(values, torch_.Tensor):
        tensor = values
    elif hasattr(values, "__cuda_array_interface__"):
        tensor = torch_.as_tensor(values, device="cuda")
    elif hasattr(values, "__dlpack__") and not isinstance(values, np.ndarray):
        tensor = torch_.from_dlpack(values)
    else:
        host = np.asarray(values)
        _checked(host, shape, what, kind=host.dtype.kind)
        tensor = torch_.as_tensor(host)
    kind = "b" if tensor.dtype == torch_.bool else ("f" if tensor.is_floating_point() else "i")
    _checked(tensor, shape, what, kind=kind if not tensor.is_complex() else "c")
    tensor = tensor.to(device="cuda", dtype=torch_.int64).contiguous()
    current, default = torch_.cuda.current_stream(), torch_.cuda.default_stream()
    if current != default:  # kernels run on the default stream: it waits, the host does not
        default.wait_stream(current)
    return tensor


def _checked(array: Any, shape: tuple[int, ...], what: str, kind: str) -> Any:
    """``array`` if it has ``shape`` and an integer dtype (``kind``), else a ``ValueError``."""
    if tuple(array.shape) != tuple(shape) or kind not in "iu":
        raise ValueError(
            f"{what} must be integers of shape {tuple(shape)}, got shape "
            f"{tuple(array.shape)} of {array.dtype}"
        )
    return array
