"""The thread-scaling benchmark: rates per thread count, the table, the serial share."""

from __future__ import annotations

import numba
import pytest

from shell_envs.bench.threads import (
    CEILING,
    CEILING_UNIT,
    OTHER,
    STEP_PARTS,
    amdahl,
    breakdown_json,
    breakdown_summary,
    ceiling_workload,
    format_breakdown,
    format_scaling,
    run_scaling,
    scaling_breakdown,
    scaling_json,
    serial_share,
)


def test_rates_at_each_thread_count_and_the_table():
    threads = sorted({1, numba.config.NUMBA_NUM_THREADS})
    results = run_scaling(threads, num_envs=64, seconds=0.02, repeats=2)
    assert set(results) == {"what_the_shell", "scorpion"}
    for by_threads in results.values():
        assert list(by_threads) == threads
        assert all(len(rate.rates) == 2 and rate.median > 0 for rate in by_threads.values())
    table = format_scaling(results, 64)
    assert table.count("\n") == 1 + 2 * len(threads) and "| 1.00 |" in table
    data = scaling_json(results, 64)
    assert data["games"]["scorpion"][str(threads[0])]["all"] == results["scorpion"][1].rates
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS  # restored


def test_thread_counts_beyond_numbas_are_refused():
    with pytest.raises(ValueError, match="thread counts"):
        run_scaling([0, numba.config.NUMBA_NUM_THREADS + 1], num_envs=8)
    with pytest.raises(ValueError, match="unknown games"):
        run_scaling([1], games=("chess",), num_envs=8)


@pytest.mark.parametrize("game", ["what_the_shell", "scorpion"])
def test_serial_share_is_a_share(game):
    assert 0.0 < serial_share(game, num_envs=64, seconds=0.05) < 1.0


def test_amdahl_bound():
    assert amdahl(0.0, 2, 16) == pytest.approx(8.0)
    assert amdahl(1.0, 2, 16) == pytest.approx(1.0)
    assert amdahl(0.1, 2, 16) == pytest.approx(0.55 / 0.15625)


def test_the_breakdown_accounts_for_every_millisecond_of_a_step():
    results = scaling_breakdown(sizes=(64,), threads=(1, 2), seconds=0.02, repeats=2)
    assert set(results) == {("what_the_shell", 64), ("scorpion", 64), (CEILING, 0)}
    for key, by_threads in results.items():
        assert list(by_threads) == [1, 2] and all(len(rows) == 2 for rows in by_threads.values())
        for rows in by_threads.values():
            for row in rows:
                if key[0] == CEILING:
                    assert set(row) == {"total"} and row["total"] > 0
                    continue
                assert set(row) == {*STEP_PARTS, OTHER, "total"}
                assert row["parallel loops"] > 0 and row["sampler, host side"] > 0
                parts = sum(value for part, value in row.items() if part != "total")
                assert parts == pytest.approx(row["total"])
    summary = breakdown_summary(results)
    assert all(0 < share < 1 for s in summary.values() for share in s["serial_share"])
    text = format_breakdown(results)
    assert "serial share of a 1-thread step" in text and "of the ceiling's" in text
    assert (
        breakdown_json(results)["scorpion 64"]["summary"]["speedup"]
        == summary[("scorpion", 64)]["speedup"]
    )
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS  # restored


def test_the_timers_come_off_after_the_breakdown():
    from shell_envs.core import buffers, sampling

    before = (sampling.random_legal_actions, buffers.BufferSets.take)
    scaling_breakdown(games=("scorpion",), sizes=(32,), threads=(1,), seconds=0.01, repeats=1)
    assert (sampling.random_legal_actions, buffers.BufferSets.take) == before


def test_the_ceiling_loop_does_the_work_it_counts():
    run = ceiling_workload(rounds=3)
    assert run(3 * CEILING_UNIT) == 3 * CEILING_UNIT and run(1) == CEILING_UNIT


def test_numba_runs_the_batched_envs_on_tbb_where_the_tbb_package_is():
    import os
    import subprocess
    import sys

    if not _tbb_installed():
        pytest.skip("the tbb package is not installed here (a dependency on Linux x86_64)")
    code = (
        "import numpy as np, numba; from shell_envs import what_the_shell_v0;"
        "env = what_the_shell_v0.vector_env(16); env.reset(seed=0);"
        "env.step({'black': np.arange(16), 'white': np.arange(16) + 20});"
        "print(numba.threading_layer())"
    )
    env = dict(os.environ, SHELL_ENVS_BACKGROUND_COMPILE="0")
    env.pop("NUMBA_THREADING_LAYER", None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "tbb"


def _tbb_installed() -> bool:
    """Whether the ``tbb`` distribution is installed (it has no importable module)."""
    import importlib.metadata

    try:
        importlib.metadata.distribution("tbb")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True
