"""Rows of batched arrays for compiled batch loops, without reference counting.

A batch loop (``jit_parallel`` over ``prange``) hands each game's rows (``tab[i]``,
``meta[i]``, ...) to the rule functions.  A numba view holds a counted reference to its
parent's memory, so every ``tab[i]`` and every call that passes it on costs atomic increments
and decrements of one shared counter: several per array per game step, and on two cores the
counter's cache line bounces between them.  Profiles of the Scorpion batch step showed these
atomics as the largest single cost.

`row` makes the same view with no reference to the parent's memory, so nothing is
counted.  That is safe only while the parent is alive for the whole loop, as an argument of
the compiled batch function is, and only while the view stays inside compiled code (never
returned or stored).  Called from plain Python (under ``NUMBA_DISABLE_JIT=1``, or in a batch
loop that runs as plain Python while it compiles in the background) it is plain ``array[i]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.core.extending import _Intrinsic
from numba.np.arrayobj import make_array, populate_array

__all__ = ["row"]


def _row_codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """LLVM of `row`: the parent's row ``index`` with a null memory-info pointer."""
    array_type, index_type = signature.args
    parent = make_array(array_type)(context, builder, args[0])
    i = context.cast(builder, args[1], index_type, types.intp)
    shape = cgutils.unpack_tuple(builder, parent.shape)
    strides = cgutils.unpack_tuple(builder, parent.strides)
    start = builder.gep(
        builder.bitcast(parent.data, cgutils.voidptr_t), [builder.mul(i, strides[0])], inbounds=True
    )
    view = make_array(signature.return_type)(context, builder)
    populate_array(
        view,
        data=builder.bitcast(start, parent.data.type),
        shape=shape[1:],
        strides=strides[1:],
        itemsize=parent.itemsize,
        meminfo=None,
    )
    return view._getvalue()


if config.DISABLE_JIT:

    def row(array: np.ndarray, index: int) -> np.ndarray:
        """``array[index]``: plain Python has no reference counts to skip."""
        return array[index]

else:
    # numba's stub marks its intrinsic class final (its __call__ only raises): extended here
    class _RowIntrinsic(_Intrinsic):  # type: ignore[misc]
        """numba's intrinsic, also callable from plain Python, where it is ``array[index]``
        (numba's own refuses), so a batch loop can run as plain Python as it is."""

        def __call__(self, array: np.ndarray, index: int) -> np.ndarray:  # type: ignore[override]
            return array[index]

    def _row_typing(typingctx: Any, array: types.Type, index: types.Type) -> Any:
        """``array[index]`` (``0 <= index < len(array)``, no wrap-around) as an uncounted view.

        ``array`` must be C-contiguous with 2 or more dimensions and outlive the view, and the
        view must not leave compiled code (see the module docstring).
        """
        if not (
            isinstance(array, types.Array)
            and array.ndim >= 2
            and array.layout == "C"
            and isinstance(index, types.Integer)
        ):
            return None
        return array.copy(ndim=array.ndim - 1)(array, index), _row_codegen

    row = _RowIntrinsic("row", _row_typing)  # what numba's @intrinsic makes, with the call
    row._register()
