"""benchmarks/first_run.py: every run is a fresh process with an empty cache of its own."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "first_run.py"
spec = importlib.util.spec_from_file_location("first_run", SCRIPT)
first_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(first_run)

# a case that fails unless its cache folder is new and empty and its working folder fresh
FRESH = """
import os, sys
cache = os.environ["NUMBA_CACHE_DIR"]
assert not os.path.exists(cache), cache
assert os.listdir(".") == [] and os.getcwd() != sys.argv[1]
"""


def test_each_run_gets_an_empty_cache_and_the_table_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = (lambda tmp: [sys.executable, "-c", FRESH, str(Path.cwd())], 30)
    monkeypatch.setattr(first_run, "CASES", {"fresh": case})
    results = first_run.main(["--cases", "fresh", "--repeats", "2", "--out", str(tmp_path / "r")])
    fresh = results["fresh"]
    assert len(fresh["runs_s"]) == 2 and fresh["min_s"] <= fresh["median_s"] <= fresh["max_s"]
    assert fresh["met"] is True
    table = (tmp_path / "r.md").read_text()
    assert "| fresh |" in table and "| met |" in table and (tmp_path / "r.json").is_file()


def test_a_failing_case_is_an_error_not_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = (lambda tmp: [sys.executable, "-c", "raise SystemExit(3)"], 8)
    monkeypatch.setattr(first_run, "CASES", {"broken": broken})
    with pytest.raises(RuntimeError, match="broken failed"):
        first_run.measure(["broken"], 1)


def test_the_goals_are_the_issues() -> None:
    goals = {name: goal for name, (_, goal) in first_run.CASES.items()}
    assert goals == {
        "scorpion": 8,
        "what-the-shell-single": 8,
        "what-the-shell-parallel": 8,
        "scorpion-vector": 8,
        "what-the-shell-vector": 8,
        "bench-quick": 90,
    }


MARKED = """
import time
print("STEPPED", flush=True)
time.sleep(1.0)
print("COMPILED", flush=True)
time.sleep(0.5)
"""


def test_a_case_is_timed_to_its_first_step_and_to_compiled_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        first_run, "CASES", {"marked": (lambda tmp: [sys.executable, "-c", MARKED], 8)}
    )
    first, compiled = first_run.run_once("marked")
    assert first + 0.9 < compiled  # the second mark, not the end of the process
    result = first_run.measure(["marked"], 1)["marked"]
    assert result["compiled_runs_s"] and result["compiled_median_s"] > result["median_s"]


# a case that fails unless it runs with the package of the tree it was given
TREE = """
import os, sys
assert os.environ["PYTHONPATH"] == sys.argv[1], (os.environ["PYTHONPATH"], sys.argv[1])
"""


def test_trees_run_each_case_with_their_own_package_interleaved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real_run_once = first_run.run_once

    def recorded(name: str, tree: Path | None = None) -> tuple[float, float | None]:
        calls.append(tree.name)
        monkeypatch.setattr(
            first_run, "CASES", {"tree": (lambda tmp: [sys.executable, "-c", TREE, str(tree)], 8)}
        )
        return real_run_once(name, tree)

    for name in ("old", "new"):
        (tmp_path / name / "shell_envs").mkdir(parents=True)
    monkeypatch.setattr(first_run, "run_once", recorded)
    monkeypatch.setattr(first_run, "CASES", {"tree": (lambda tmp: [], 8)})
    trees = [f"--tree=before={tmp_path / 'old'}", f"--tree=after={tmp_path / 'new'}"]
    results = first_run.main(["--cases", "tree", "--repeats", "2", *trees])
    assert calls == ["old", "new", "old", "new"]
    assert set(results) == {"tree [before]", "tree [after]"}
    assert all(len(r["runs_s"]) == 2 for r in results.values())
    with pytest.raises(SystemExit):
        first_run.main(["--cases", "tree", "--tree", f"x={tmp_path}"])  # no package there
