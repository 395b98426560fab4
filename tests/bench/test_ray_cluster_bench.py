"""``shell-envs bench --ray`` and ``shell-envs match --ray``: the games as Ray tasks on a
cluster of two nodes on this machine give the records and results of a local run.

The cluster's head has no CPUs, so every game is played on the worker node
(`tests.integrations.cluster`); it is stopped whatever happens.  The runs on it are
processes of their own, with the cluster's token; the local ones run in this process.  An
address where nothing answers, and Ray missing, are refused in one line, leaving no folder.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from shell_envs.agents.spec import object_spec, parse_spec
from shell_envs.bench import cluster
from shell_envs.cli import main
from tests.integrations.cluster import RAY, local_cluster, processes_naming, token_env

AGENTS = """\
import numpy as np


def first(observation, action_mask):
    return int(np.flatnonzero(action_mask)[0])
"""
# a file agent by a relative path: the Ray workers run in folders of their own
BENCH = ["bench", "--agents", "random,mine=agents.py:first", "--games", "2", "--deals", "2",
         "--rules", "relaxed", "--seed", "5", "--workers", "2", "--no-progress"]  # fmt: skip
MATCH = ["match", "random", "greedy", "--games", "6", "--seed", "3", "--workers", "2",
         "--no-progress"]  # fmt: skip
TIMES = ("created", "finished", "machine", "python")

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="no ray")
needs_ray_cli = pytest.mark.skipif(not Path(RAY).exists(), reason="no ray command line")
on_linux = pytest.mark.skipif(
    sys.platform != "linux", reason="finds the cluster's processes in /proc"
)


def timeless(data: Any) -> Any:
    """``data`` without the clock's figures: times, seconds and where it ran."""
    if isinstance(data, dict):
        return {k: timeless(v) for k, v in data.items() if k not in TIMES and "seconds" not in k}
    if isinstance(data, list):
        return [timeless(v) for v in data]
    return data


def outputs(folder: Path, command: str) -> tuple[list[dict], dict]:
    """The records of ``games.jsonl`` and the results (``results.json``, ``match.json``),
    without timings."""
    lines = (folder / "games.jsonl").read_text(encoding="utf-8").splitlines()
    name = "results.json" if command == "bench" else "match.json"
    data = json.loads((folder / name).read_text(encoding="utf-8"))
    return [json.loads(line) for line in lines], timeless(data)


@needs_ray
@needs_ray_cli
@on_linux
def test_bench_and_match_on_a_cluster_write_what_local_runs_write(tmp_path, monkeypatch) -> None:
    started = time.perf_counter()
    (tmp_path / "agents.py").write_text(AGENTS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    local = {}
    for command, args in (("bench", BENCH), ("match", MATCH)):
        done = CliRunner().invoke(main, [*args, "--out", f"local-{command}"])
        assert done.exit_code == 0, done.output
        local[command] = outputs(tmp_path / f"local-{command}", command)
    with local_cluster(token_env(), worker_cpus=2) as c:
        temps = c.temps
        for command, args in (("bench", BENCH), ("match", MATCH)):
            line = [sys.executable, "-m", "shell_envs.cli", *args, "--out", f"ray-{command}"]
            run = subprocess.run(
                [*line, "--ray", c.address],
                env=c.env,
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
            assert "Traceback" not in run.stderr, run.stderr[-3000:]
            records, data = outputs(tmp_path / f"ray-{command}", command)
            assert len(records) == len(local[command][0]) > 0
            assert records == local[command][0], command
            assert data == local[command][1], command
        logs = [p.read_text() for p in Path(temps[1]).glob("session_*/logs/worker-*.out")]
        assert any(":task_name:_play" in text for text in logs)  # played on the worker node
    assert not processes_naming(temps)
    assert time.perf_counter() - started < 180


@needs_ray
@pytest.mark.parametrize("command", [BENCH, MATCH], ids=["bench", "match"])
def test_an_address_where_nothing_answers_is_one_line_and_leaves_no_folder(
    tmp_path, command
) -> None:
    out = tmp_path / "new" / "out"
    args = [*command, "--out", str(out), "--ray", "127.0.0.1:1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1, result.output
    assert result.output.startswith("Error: --ray: no Ray cluster answers at 127.0.0.1:1: ")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("command", [BENCH, MATCH], ids=["bench", "match"])
def test_without_ray_the_error_names_the_extra(tmp_path, monkeypatch, command) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    out = tmp_path / "new" / "out"
    result = CliRunner().invoke(main, [*command, "--out", str(out), "--ray", "auto"])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1
    assert 'needs Ray, which is not installed: pip install "shell-envs[rllib]"' in result.output
    assert not (tmp_path / "new").exists()


def test_agents_go_to_the_workers_with_absolute_paths(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for text, target in (
        ("mine=agents.py:first", f"{Path.cwd().resolve() / 'agents.py'}:first"),
        ("ppo:models/best", str(Path.cwd() / "models" / "best")),
        ("greedy", "greedy"),
        ("numpy:argmax", "numpy:argmax"),
    ):
        spec = parse_spec(text)
        sent = cluster.portable(spec)
        assert (sent.target, sent.label, sent.spec) == (target, spec.label, spec.spec)
    with pytest.raises(cluster.ClusterError, match="an object of this process"):
        cluster.portable(object_spec(lambda observation, action_mask: 0, "mine"))
    for bad in ("nowhere", "host:port", "ray://host"):
        with pytest.raises(cluster.ClusterError, match="not a Ray cluster's address"):
            cluster.probe(bad)
