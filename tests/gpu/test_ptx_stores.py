"""The PTX store analysis of ``benchmarks/gpu_kernels.py`` on kernels whose store pattern is
known by construction, so that what it says of the games' kernels can be trusted."""

from __future__ import annotations

import numpy as np
import pytest

from tests.gpu.helpers import load_benchmark, needs_numba_cuda


def _row_last(i, out, values):
    """A coalesced byte store and a coalesced float store, the game index last."""
    out[3, i] = 1
    values[2, i] = 0.5


def _row_first(i, out, values):
    """The same stores with the game index first: a row apart from one thread to the next."""
    out[i, 3] = 1
    values[i, 2] = 0.5


def _scatter(i, out, where):
    """A store whose row is the game's own data."""
    out[where[i], i] = 1


def _loop(i, out, values):
    """Loops over rows, the game index last: every store coalesced."""
    for k in range(out.shape[0]):
        out[k, i] = k
    for k in range(values.shape[0]):
        values[k, i] = k * 0.25


CASES = {
    _row_last: ({"out": {"coalesced": 1}, "values": {"coalesced": 1}}, np.float32),
    _row_first: ({"out": {"strided": 1}, "values": {"strided": 1}}, np.float32),
    _scatter: ({"out": {"data-indexed": 1}}, np.int64),
    _loop: (None, np.float32),
}


@pytest.mark.parametrize("body", list(CASES), ids=lambda f: f.__name__)
def test_the_store_analysis_on_known_patterns(body):
    needs_numba_cuda()
    from numba import types
    from numba.np.numpy_support import from_dtype

    from shell_envs.core import cuda

    kernels = load_benchmark("gpu_kernels")
    want, second = CASES[body]
    arrays = (
        types.Array(from_dtype(np.dtype(np.int8)), 2, "C"),
        types.Array(from_dtype(np.dtype(second)), 2 if second == np.float32 else 1, "C"),
    )
    kernel = cuda.Kernel(body)
    stores = kernels.store_kinds(kernel, arrays, cuda.compile_ptx(kernel, arrays))
    got = {name: dict(counts) for name, counts in stores.items()}
    if want is None:  # loops: however the compiler unrolls them, all coalesced
        assert set(got) == {"out", "values"}
        assert all(set(kinds) == {"coalesced"} for kinds in got.values()), got
    else:
        assert got == want


def test_a_vector_store_counts_its_whole_width():
    kernels = load_benchmark("gpu_kernels")
    ptx = """
.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1
)
{
	ld.param.u64 	%rd1, [k_param_1];
	mov.u32 	%r1, %tid.x;
	mul.wide.s32 	%rd2, %r1, 16;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.v4.u32 	[%rd3], {%r1, %r1, %r1, %r1};
	st.global.u32 	[%rd3+4], %r1;
	ret;
}
"""
    stores = sorted(kernels.store_strides(ptx), key=lambda s: s[1])
    assert stores == [(frozenset({1}), 4, 16, False), (frozenset({1}), 16, 16, False)]
