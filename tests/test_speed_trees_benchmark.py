"""benchmarks/speed_trees.py: `shell-envs speed` for two checkouts, alternated, compared."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "speed_trees.py"
spec = importlib.util.spec_from_file_location("speed_trees_bench", SCRIPT)
speed_trees = importlib.util.module_from_spec(spec)
spec.loader.exec_module(speed_trees)

OUTPUT = """| workload | median per second | unit | warm-up (s) |
|---|---:|---|---:|
| engine | {engine:,} | rounds | 0.10 |
| peer | 1,000 | moves | 0.00 |
"""


def fake_speed(rates: dict[str, list[int]], calls: list[str]):
    """A stand-in for ``subprocess.run``: the next rate of the tree named by PYTHONPATH."""

    def run(command, env, **kwargs):
        tree = Path(env["PYTHONPATH"]).name
        calls.append(tree)
        stdout = OUTPUT.format(engine=rates[tree].pop(0))
        return subprocess.CompletedProcess(command, 0, stdout=stdout, stderr="")

    return run


def test_trees_alternate_and_the_ratios_are_per_repeat(tmp_path, monkeypatch) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    calls: list[str] = []
    rates = {"before": [100, 200, 300], "after": [110, 180, 330]}
    monkeypatch.setattr(subprocess, "run", fake_speed(rates, calls))
    text = speed_trees.main(
        ["--tree", f"before={before}", "--tree", f"after={after}", "--repeats", "3"]
    )
    assert calls == ["before", "after", "after", "before", "before", "after"]
    # ratios 1.1, 0.9, 1.1: median 1.1, range 0.9-1.1; medians of the rates 200 and 180
    assert "| engine | 200 | 180 | 1.100 | 0.900–1.100 |" in text
    assert "| peer | 1,000 | 1,000 | 1.000 | 1.000–1.000 |" in text


def test_an_output_without_rates_is_an_error_naming_the_tree(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(
        subprocess, "run", lambda command, **kw: subprocess.CompletedProcess(command, 0, "", "x")
    )
    with pytest.raises(RuntimeError, match="no rates in the output of"):
        speed_trees.measure(tmp_path, 1.0)


def test_one_tree_is_refused(tmp_path) -> None:
    with pytest.raises(SystemExit):
        speed_trees.main(["--tree", f"a={tmp_path}"])


def test_batched_rates_come_from_cpu_scaling_json(tmp_path, monkeypatch) -> None:
    """``--batched N`` adds each game's one-thread batched rate, read from cpu_scaling's JSON."""
    before, after = tmp_path / "before", tmp_path / "after"
    calls: list[list[str]] = []
    batched = {"before": [50.0, 70.0], "after": [55.0, 63.0]}
    speed = {"before": [100, 100], "after": [100, 100]}

    def run(command, env, **kwargs):
        tree = Path(env["PYTHONPATH"]).name
        calls.append(command)
        if "--json" not in command:
            return subprocess.CompletedProcess(
                command, 0, OUTPUT.format(engine=speed[tree].pop(0)), ""
            )
        rate = batched[tree].pop(0)
        games = {"scorpion": {"1": {"unit": "steps", "median": rate, "all": [rate]}}}
        out = Path(command[command.index("--json") + 1])
        out.write_text(json.dumps({"num_envs": 64, "games": games}), encoding="utf-8")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(subprocess, "run", run)
    text = speed_trees.main(
        [
            "--tree",
            f"before={before}",
            "--tree",
            f"after={after}",
            "--repeats",
            "2",
            "--batched",
            "64",
        ]  # fmt: skip
    )
    scaling = [c for c in calls if "--json" in c]
    assert len(scaling) == 4 and all(c[c.index("--num-envs") + 1] == "64" for c in scaling)
    assert all(c[c.index("--threads") + 1] == "1" for c in scaling)
    # ratios 55/50 = 1.1 and 63/70 = 0.9: median 1.0; medians of the rates 60 and 59
    assert "| scorpion batched, 64 envs | 60 | 59 | 1.000 | 0.900–1.100 |" in text
