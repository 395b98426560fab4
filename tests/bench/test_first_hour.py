"""A newcomer's first bench runs: the README's commands in order, an agent that fails every
game, and benches refused before writing, which leave no folder behind."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shell_envs.agents.spec import AgentSpecError
from shell_envs.bench import report, runner
from shell_envs.cli import main

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--game", "scorpion", "--rules", "relaxed", "--deals", "1", "--workers", "1"]
QUIET = [*TINY, "--no-progress"]
AGENTS = """\
import numpy as np


def floats(observation, action_mask):
    return float(np.flatnonzero(action_mask)[0])


def raising(observation, action_mask):
    raise ValueError("no idea")


def first(observation, action_mask):
    return int(np.flatnonzero(action_mask)[0])


def sometimes(observation, action_mask):
    if action_mask.size == 81:  # What the Shell: raises; Scorpion: plays
        raise ValueError("not this game")
    return int(np.flatnonzero(action_mask)[0])


def broken_factory(game, seed):
    raise RuntimeError("cannot build")
"""


def readme_example() -> str:
    """The bash block of the README's "Benchmark your agent" section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Benchmark your agent", 1)[1]
    return re.search(r"^```bash\n(.*?)^```$", section, re.S | re.M)[1]


def out_folder(command: str) -> str:
    """The ``--out`` of a ``shell-envs bench`` command line (the default: results)."""
    words = shlex.split(command)
    return words[words.index("--out") + 1] if "--out" in words else "results"


def bench(tmp_path: Path, *args: str):
    """``shell-envs bench`` in-process with the agents file in ``tmp_path``."""
    (tmp_path / "agents.py").write_text(AGENTS, encoding="utf-8")
    return CliRunner().invoke(main, ["bench", *args])


def test_the_readme_example_runs_right_after_the_setup_bench(tmp_path: Path) -> None:
    """The setup bench writes results/; the example, typed next, must not be refused."""
    example = readme_example()
    bench_lines = [line for line in example.splitlines() if line.startswith("shell-envs bench")]
    assert bench_lines and all(out_folder(line) != "results" for line in bench_lines)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    setup = [sys.executable, "-m", "shell_envs.cli", "bench", *QUIET, "--agents", "random"]
    done = subprocess.run(setup, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "results" / "results.json").is_file()  # the setup bench's folder
    example_run = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", example],
        cwd=tmp_path,
        env=dict(os.environ, PATH=path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert example_run.returncode == 0, example_run.stdout + example_run.stderr
    for line in bench_lines:
        assert (tmp_path / out_folder(line) / "results.json").is_file()


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("agents.py:floats", "an illegal action: returned 19.0, not an action index 0-364"),
        ("agents.py:raising", "ValueError: no idea"),
    ],
)
def test_an_agent_that_fails_every_game_fails_the_bench(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = bench(tmp_path, *QUIET, "--agent", f"mine={spec}", "--agent", "greedy")
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: agent 'mine' failed every game it played (1 of 1); the first: ")
    assert f"{says}" in line and "(Scorpion relaxed deal 5000, move 0)" in line
    assert line.endswith(f"see {Path('results') / 'results.md'}")
    assert "greedy" not in line
    data = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert set(data["scorpion"]["relaxed"]["agents"]) == {"mine", "greedy"}  # still written


def test_an_agent_that_fails_some_games_only_does_not_fail_the_bench(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(AGENTS, encoding="utf-8")
    agent = f"{tmp_path / 'agents.py'}:sometimes"
    result = runner.run_bench(
        tmp_path / "out", [agent], games_per_anchor=1, deals=1, rules="relaxed", workers=1,
        progress=False,
    )[0]  # fmt: skip
    assert result.to_dict()["what_the_shell"]["errors"]["counts"]["sometimes"] > 0
    assert result.failed_agents() == {}


def test_what_the_shell_failures_name_the_game_record_and_round(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(AGENTS, encoding="utf-8")
    result, _ = runner.run_bench(
        tmp_path / "out", [f"boom={tmp_path / 'agents.py'}:raising", "greedy"],
        game="what-the-shell", games_per_anchor=1, workers=1, progress=False,
    )  # fmt: skip
    games = len(runner.scale.ANCHOR_SPECS)
    first = min(r["index"] for r in result.records if r["pairing"]["candidate"] == "boom")
    assert result.failed_agents() == {
        "boom": f"failed every game it played ({games} of {games}); the first: ValueError: no "
        f"idea (What the Shell game record {first}, round 0)"
    }


def test_a_user_agent_named_like_an_anchor_is_told_apart_by_its_seat(tmp_path: Path) -> None:
    """``random`` the candidate raises; ``random`` the anchor plays on: only one fails."""
    (tmp_path / "agents.py").write_text(AGENTS, encoding="utf-8")
    result, _ = runner.run_bench(
        tmp_path / "out", [f"random={tmp_path / 'agents.py'}:raising"],
        game="what-the-shell", games_per_anchor=2, workers=1, progress=False,
    )  # fmt: skip
    assert list(result.failed_agents()) == ["random"]
    seats = {c["seat"] for r in result.records for c in r["errors"]}
    assert seats == {"black", "white"}  # the candidate's seat, swapped between games
    for record in result.records:
        candidate_seat = record["pairing"]["candidate_seat"]
        assert [c["seat"] for c in record["errors"]] == [candidate_seat]


@pytest.mark.parametrize(
    "refusal",
    [
        ["--agent", "x=/nowhere/agents.py:f"],
        ["--agent", "agents.py:broken_factory"],
        ["--fail-fast", "--agent", "agents.py:raising"],
        ["--agent", "greedy", "--agents", "greedy,random"],
    ],
    ids=["bad-spec", "factory-raises", "fail-fast", "two-named-alike"],
)
def test_a_refused_bench_leaves_no_folder_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "new" / "deeper" / "results"
    result = bench(tmp_path, *QUIET, "--out", str(out), *refusal)
    assert result.exit_code in (1, 2), result.output
    assert not (tmp_path / "new").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("kept\n")
    again = bench(tmp_path, *QUIET, "--out", str(mine / "results"), *refusal)
    assert again.exit_code == result.exit_code
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]  # its own folder only
    empty = tmp_path / "empty"
    empty.mkdir()
    bench(tmp_path, *QUIET, "--out", str(empty), *refusal)
    assert empty.is_dir() and not any(empty.iterdir())  # a folder that existed stays


def test_the_python_api_leaves_no_folder_either(tmp_path: Path) -> None:
    out = tmp_path / "made" / "results"
    with pytest.raises(AgentSpecError, match="no file"):
        runner.run_bench(out, ["x=/nowhere/agents.py:f"], game="scorpion", progress=False)
    assert not (tmp_path / "made").exists()
    with pytest.raises(ValueError, match="boom"), report.results_folder(out):
        assert out.is_dir()
        raise ValueError("boom")
    assert not (tmp_path / "made").exists()
