"""The command line under bad input, impossible places and Ctrl-C.

Bad numbers get click's usage errors (exit status 2, no traceback), a bad ``--out`` fails
before any game starts, Ctrl-C stops ``bench`` at once keeping what finished, and result
files are written atomically.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from shell_envs.bench import report
from shell_envs.cli import main
from tests.fuzz.helpers import REPO

HUGE = str(2**70)


def invoke(args: list[str], text: str = ""):
    return CliRunner().invoke(main, args, input=text)


def usage_error(args: list[str], fragment: str) -> None:
    """The command must stop with a usage error naming the problem, before doing any work."""
    start = time.perf_counter()
    result = invoke(args)
    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    assert "Traceback" not in result.output
    assert fragment in result.output, result.output
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["bench", "--seed", HUGE], "--seed"),
        (["bench", "--workers", HUGE], "--workers"),
        (["bench", "--games", HUGE], "--games"),
        (["bench", "--deals", HUGE], "--deals"),
        (["bench", "--seed", "-1"], "--seed"),
        (["speed", "--seconds", "nan"], "nan is not a finite number"),
        (["speed", "--seconds", "inf"], "--seconds"),
        (["speed", "--seconds", "1e300"], "--seconds"),
        (["speed", "--repeats", HUGE], "--repeats"),
        (["play", "scorpion", "--seed", HUGE], "--seed"),
        (["play", "what-the-shell", "--seed", HUGE], "--seed"),
        (["play", "what-the-shell", "--iterations", HUGE], "--iterations"),
    ],
)
def test_bad_numbers_are_usage_errors(args, fragment):
    usage_error(args, fragment)


def test_bench_out_that_cannot_be_written_fails_before_any_game(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for out in (blocker / "results", blocker):
        usage_error(["bench", "--quick", "--no-progress", "--out", str(out)], "--out")
    with pytest.raises(ValueError, match="cannot write the results to"):
        report.check_writable(blocker / "x")


def test_play_scorpion_survives_a_5000_digit_column_number():
    moves = "4H " + "7" * 5000 + "\n4H 0\n4H 8\nq\n"
    result = invoke(["play", "scorpion", "--seed", "1"], moves)
    assert result.exit_code == 0, result.output
    assert "There is no column 777777… (5000 digits): columns are numbered 1 to 7." in result.output
    assert "There is no column 0" in result.output and "There is no column 8" in result.output


def test_the_move_reader_never_converts_long_numbers():
    from shell_envs.cli.play import read_move  # the move reader of play scorpion

    assert read_move("4H 7") == (16 * 7 + 6, None)
    assert read_move("4H " + "9" * 20)[0] is None


def test_result_files_are_written_atomically(tmp_path: Path, monkeypatch):
    summary = {
        "version": "x",
        "settings": {"mode": "x", "seed": 0, "workers": 1},
        "run": {"wall_seconds": 0, "created": "t"},
    }
    paths = report.write_all(summary, tmp_path)
    old = {k: p.read_bytes() for k, p in paths.items()}

    def interrupted_plot(results, target):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "plot", interrupted_plot)
    with pytest.raises(KeyboardInterrupt):
        report.write_all({**summary, "settings": {**summary["settings"], "seed": 1}}, tmp_path)
    assert {k: p.read_bytes() for k, p in paths.items()} == old  # the old files, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths.values())
    monkeypatch.undo()

    real_replace = os.replace
    calls = []

    def replace_with_ctrl_c(src, dst):
        calls.append(dst)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C in the middle of the moves
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace_with_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        report.write_all({**summary, "settings": {**summary["settings"], "seed": 2}}, tmp_path)
    assert len(calls) == 3  # all three files were moved in before the interrupt was raised
    assert json.loads(paths["json"].read_text())["settings"]["seed"] == 2
    assert paths["png"].read_bytes().startswith(b"\x89PNG")


def test_ctrl_c_stops_bench_promptly_and_keeps_what_finished(tmp_path: Path):
    out = tmp_path / "results"
    command = [
        sys.executable, "-m", "shell_envs.cli", "bench", "--workers", "2",
        "--games", "20", "--deals", "60", "--out", str(out),
    ]  # fmt: skip
    # compile first (a tiny bench of this checkout): a Ctrl-C during the bench's one-time
    # compile with an empty cache can go unheeded, a known open defect not tested here
    warm = [*command[:4], "--workers", "1", "--games", "1", "--deals", "1", "--no-progress"]
    subprocess.run([*warm, "--out", str(tmp_path / "warm")], cwd=REPO, check=True, timeout=600,
                   capture_output=True)  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as from a terminal: an ignored or blocked SIGINT (left by an earlier test) would be
        # inherited, and the bench would never see the Ctrl-C
        preexec_fn=_default_sigint,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
    )
    time.sleep(15)  # imports, workers started, usually a few games done
    assert process.poll() is None, process.communicate()
    sent = time.perf_counter()
    # as a terminal does: one SIGINT to the whole group, the bench and its workers together
    # (signalling them one by one raced with the bench stopping its workers)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    stopped = time.perf_counter() - sent
    assert stopped < 10, (stopped, stderr[-2000:])
    assert process.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr
    assert "Interrupted" in stderr
    if (out / "results.json").exists():  # games had finished: a whole, valid report of them
        data = json.loads((out / "results.json").read_text())
        assert data["run"]["interrupted"] is True
        assert (out / "results.md").read_text().startswith("# shell-envs bench")
        assert (out / "results.png").read_bytes().startswith(b"\x89PNG")


def _default_sigint() -> None:
    """In the child before exec: SIGINT handled by default and not blocked."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_an_interrupted_bench_writes_the_games_that_finished(tmp_path: Path, monkeypatch):
    from shell_envs.bench import runner

    real_play = runner._play
    calls = []

    def play_then_ctrl_c(task):
        calls.append(task)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_play(task)

    monkeypatch.setattr(runner, "_play", play_then_ctrl_c)
    with pytest.raises(runner.BenchInterrupted) as stop:
        runner.run_bench(tmp_path, games_per_anchor=2, deals=2, workers=1, progress=False)
    data = json.loads(stop.value.paths["json"].read_text())
    assert data["run"]["interrupted"] is True
    assert data["run"]["games_finished"].startswith("2 of ")
    assert "**Interrupted**" in stop.value.paths["markdown"].read_text()
    assert len(stop.value.paths["games"].read_text().splitlines()) == 2


def test_ctrl_c_while_compiling_stops_before_any_game(tmp_path: Path, monkeypatch):
    from shell_envs.bench import runner

    def compiling(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "warm_up", compiling)
    with pytest.raises(runner.BenchInterrupted) as stop:
        runner.run_bench(tmp_path, games_per_anchor=2, deals=2, workers=1, progress=False)
    assert stop.value.paths == {} and stop.value.report.records == []
    result = CliRunner().invoke(main, ["bench", "--out", str(tmp_path), "--no-progress"])
    assert result.exit_code == 130 and "no game finished" in result.output


def test_play_scorpion_can_take_back_the_move_that_left_no_move(monkeypatch):
    """A stuck game with a move to take back goes on (undo is its one legal action)."""
    from shell_envs.scorpion.env import ScorpionEnv
    from tests.scorpion.helpers import STUCK_AFTER_ONE_MOVE

    real_reset = ScorpionEnv.reset

    def reset_to_position(self, *, seed=None, options=None):
        return real_reset(self, seed=seed, options={"position": STUCK_AFTER_ONE_MOVE})

    monkeypatch.setattr(ScorpionEnv, "reset", reset_to_position)
    result = invoke(["play", "scorpion"], "3C 4\nu\n3C 4\nq\n")
    assert result.exit_code == 0, result.output
    assert "No card move is left: undo (u) or quit (q)." in result.output
    assert "Undone (-5 points)." in result.output
    assert result.output.count("Played: 3C onto column 4") == 2
