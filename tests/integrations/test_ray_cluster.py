"""The cluster path of docs/tutorials/rllib.md on one machine: a Ray head, a worker, the example.

``ray start --head`` and ``ray start --address`` (loopback only, free ports, a private temp
dir) make a two-node cluster; ``ray job submit`` sends ``examples/rllib_what_the_shell.py
--smoke`` with a working-directory runtime env (the packages are installed already); the test
checks that the job succeeds and that its env runners ran on the worker node, then stops the
cluster whatever happened.  The head has no CPUs, so every env runner must go to the worker.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.integrations.cluster import RAY, local_cluster, processes_naming, ray, token_env

EXCLUDES = [".git", ".venv*", "results", "benchmarks/results", "**/__pycache__"]


@pytest.mark.skipif(not Path(RAY).exists(), reason="the ray command line is not installed")
@pytest.mark.skipif(sys.platform != "linux", reason="finds the cluster's processes in /proc")
def test_the_rllib_example_runs_as_a_job_with_env_runners_on_the_worker_node():
    started = time.perf_counter()
    # Ray's token authentication with a token of this test's own: every command, the job and
    # the state queries below use it, whatever ~/.ray/auth_token another Ray left behind
    with local_cluster(token_env(), dashboard=True, worker=('--resources={"worker": 1}',)) as c:
        env, temps = c.env, c.temps
        address = f"http://127.0.0.1:{c.dashboard}"
        runtime_env = json.dumps({"excludes": EXCLUDES, "env_vars": {"PYTHONUNBUFFERED": "1"}})
        job = ray("job", "submit", f"--address={address}", "--working-dir=.",
                  f"--runtime-env-json={runtime_env}", "--", sys.executable,
                  "examples/rllib_what_the_shell.py", "--smoke", "--num-env-runners=1",
                  f"--out={temps[0]}/results", env=env, timeout=600)  # fmt: skip
        assert "succeeded" in job.stdout, job.stdout[-3000:]
        assert "trained" in job.stdout and "checkpoint" in job.stdout
        results = json.loads(Path(temps[0], "results", "results.json").read_text())
        assert results["env_steps"] >= 512 and results["args"]["num_env_runners"] == 1

        # the state API from the command line: this process's Ray may have settled on another
        # authentication mode already
        listed = {
            what: json.loads(
                ray("list", what, f"--address={address}", "--format=json", env=env).stdout
            )
            for what in ("nodes", "actors")
        }
        nodes = listed["nodes"]
        assert len(nodes) == 2 and all(n["state"] == "ALIVE" for n in nodes)
        worker = next(n["node_id"] for n in nodes if not n["is_head_node"])
        runners = [a for a in listed["actors"] if "EnvRunner" in a["class_name"]]
        assert runners, "the job started no env runner actor"
        assert {a["node_id"] for a in runners} == {worker}
    assert not processes_naming(temps)
    assert time.perf_counter() - started < 300
