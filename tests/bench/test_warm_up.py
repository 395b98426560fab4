"""The bench compiles each game once before the games start, the second game at the same time
in a process of its own (``runner.warm_up_games``)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shell_envs.bench import runner
from shell_envs.core import jit

BOTH = ["what_the_shell", "scorpion"]


@pytest.fixture(autouse=True)
def forked_helpers(monkeypatch) -> None:
    """The helper process is forked, so it runs the stand-in below (a spawned one would import
    the real ``warm_up``), whatever start method an earlier import chose (torchrl's is spawn)."""
    monkeypatch.setattr(runner, "_process_context", lambda: multiprocessing.get_context("fork"))


def test_processes_are_spawned_once_torch_has_run(monkeypatch) -> None:
    monkeypatch.undo()  # the fixture's forked context aside
    monkeypatch.setitem(sys.modules, "torch", object())
    assert runner._process_context().get_start_method() == "spawn"
    monkeypatch.delitem(sys.modules, "torch")
    assert runner._process_context() is multiprocessing.get_context()


def recording_warm_up(folder: Path, hang_in_child: bool = False, stop_in_main: bool = False):
    """A stand-in for ``runner.warm_up`` that leaves a file ``PID-GAMES`` for each call."""
    main = os.getpid()

    def warm_up(games_played, rules=(), agents=(), notice=True):
        (folder / f"{os.getpid()}-{'+'.join(games_played)}").touch()
        if hang_in_child and os.getpid() != main:
            time.sleep(120)
        if stop_in_main and os.getpid() == main:
            raise KeyboardInterrupt

    return warm_up


def calls(folder: Path) -> dict[str, set[int]]:
    """Which processes warmed up which games, from the files ``recording_warm_up`` left."""
    done: dict[str, set[int]] = {}
    for path in folder.iterdir():
        pid, games_played = path.name.split("-", 1)
        done.setdefault(games_played, set()).add(int(pid))
    return done


def test_the_second_game_compiles_beside_the_first(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(runner, "warm_up", recording_warm_up(tmp_path))
    monkeypatch.setattr(jit, "is_cached", lambda *functions: False)
    runner.warm_up_games(BOTH, ["classic"], [], workers=2, notice=False)
    done = calls(tmp_path)
    assert done["what_the_shell"] == {os.getpid()}
    helper = done["scorpion"] - {os.getpid()}
    assert len(helper) == 1 and os.getpid() in done["scorpion"]  # then loaded here from the cache


@pytest.mark.parametrize(("workers", "cached"), [(1, False), (2, True)])
def test_one_process_when_one_worker_or_cached(tmp_path, monkeypatch, workers, cached) -> None:
    monkeypatch.setattr(runner, "warm_up", recording_warm_up(tmp_path))
    monkeypatch.setattr(jit, "is_cached", lambda *functions: cached)
    runner.warm_up_games(BOTH, ["classic"], [], workers=workers, notice=False)
    assert calls(tmp_path) == {"what_the_shell": {os.getpid()}, "scorpion": {os.getpid()}}


def test_ctrl_c_while_compiling_stops_the_other_process(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(runner, "warm_up", recording_warm_up(tmp_path, True, True))
    monkeypatch.setattr(jit, "is_cached", lambda *functions: False)
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        runner.warm_up_games(BOTH, ["classic"], [], workers=2, notice=False)
    assert time.perf_counter() - start < 60  # the helper, asleep for 120 s, was stopped
    for _ in range(100):  # the helper may not have reached its warm-up yet when it was stopped
        if "scorpion" in calls(tmp_path) or not any(tmp_path.iterdir()):
            break
        time.sleep(0.01)
    for pid in calls(tmp_path).get("scorpion", set()):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_cold_start_compiles_scorpion_only_in_the_other_process(tmp_path: Path) -> None:
    """With an empty cache this process compiles What the Shell and loads Scorpion's code,
    which the other process compiled meanwhile, from the disk cache."""
    probe = (
        "from numba.core import event\n"
        "from shell_envs.bench import runner\n"
        "compiled = []\n"
        "class Listen(event.Listener):\n"
        "    def on_start(self, e): compiled.append(e.data['dispatcher'].py_func.__module__)\n"
        "    def on_end(self, e): pass\n"
        "event.register('numba:compile', Listen())\n"
        "s = runner.make_settings(quick=True)\n"
        "runner.warm_up_games(runner.GAMES, s.rules, s.agents, workers=2, notice=False)\n"
        "print(sorted({m.split('.')[1] for m in compiled if m.startswith('shell_envs.')}))\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['what_the_shell']"
