"""The thread-scaling benchmark: rates per thread count, the table, the serial share."""

from __future__ import annotations

import numba
import pytest

from shell_envs.bench.threads import (
    amdahl,
    format_scaling,
    run_scaling,
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
