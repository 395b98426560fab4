"""Shared pieces of the fuzz suite: values that are not integers, snapshots, subprocesses."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
from hypothesis import strategies as st

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# values that are not one integer: each must get a ValueError saying so, never a guess
NOT_AN_INTEGER = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.lists(st.integers(0, 80), max_size=3),
    st.sampled_from(
        [
            np.float64(3.0),
            np.bool_(True),
            np.array([1, 2]),
            np.array([3.0]),
            np.array(["31"]),
            {"a": 1},
            (31,),
            b"31",
            3 + 0j,
        ]
    ),
)
HUGE = st.one_of(st.integers(min_value=2**63), st.integers(max_value=-(2**63)))


def generator_state(rng: Any) -> Any:
    """A comparable snapshot of a numpy Generator (or None)."""
    return None if rng is None else copy.deepcopy(rng.bit_generator.state)


def run_python(code: str, env: dict[str, str] | None = None, timeout: int = 240) -> str:
    """Run ``code`` in a fresh interpreter; a crash (segfault, abort) fails with its output."""
    full_env = {**os.environ, **(env or {})}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env=full_env,
    )
    assert result.returncode == 0, (
        f"exit status {result.returncode}\n--- stdout\n{result.stdout[-3000:]}\n"
        f"--- stderr\n{result.stderr[-3000:]}"
    )
    return result.stdout
