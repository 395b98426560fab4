"""The cluster path of docs/tutorials/rllib.md on one machine: a Ray head, a worker, the example.

``ray start --head`` and ``ray start --address`` (loopback only, free ports, a private temp
dir) make a two-node cluster; ``ray job submit`` sends ``examples/rllib_what_the_shell.py
--smoke`` with a working-directory runtime env (the packages are installed already); the test
checks that the job succeeds and that its env runners ran on the worker node, then stops the
cluster whatever happened.  The head has no CPUs, so every env runner must go to the worker.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RAY = str(Path(sys.executable).with_name("ray"))
EXCLUDES = [".git", ".venv*", "results", "benchmarks/results", "**/__pycache__"]


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on 127.0.0.1."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def processes_naming(paths: list[str]) -> list[int]:
    """Ids of the processes whose command line names one of ``paths`` (Linux ``/proc``)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if any(path in cmdline for path in paths):
            pids.append(int(entry.name))
    return pids


def stop_cluster(paths: list[str]) -> None:
    """Stop this test's cluster: every process whose command line names its temp dirs.

    ``ray stop --force`` would also kill any other Ray on the machine (it matches processes
    by name), so this test's processes are ended by id: SIGTERM, then SIGKILL after 15 s.
    """
    for sig, wait in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
        pids = processes_naming(paths)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while pids and time.monotonic() < deadline:
            time.sleep(0.2)
            pids = processes_naming(paths)
        if not pids:
            return


def ray(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the ``ray`` command line, failing with its output when it fails."""
    out = subprocess.run(
        [RAY, *args], env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )
    assert out.returncode == 0, f"ray {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}"
    return out


@pytest.mark.skipif(not Path(RAY).exists(), reason="the ray command line is not installed")
@pytest.mark.skipif(sys.platform != "linux", reason="finds the cluster's processes in /proc")
def test_the_rllib_example_runs_as_a_job_with_env_runners_on_the_worker_node(monkeypatch):
    started = time.perf_counter()
    # Ray's token authentication with a token of this test's own: every command, the job and
    # the state queries below use it, whatever ~/.ray/auth_token another Ray left behind
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", secrets.token_hex(32))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    # one temp dir per node (short: Ray puts unix sockets in them); nodes sharing one would
    # share (and delete) each other's unpacked working directories
    temps = [tempfile.mkdtemp(prefix="ray", dir="/tmp") for _ in range(2)]
    gcs, dashboard, client, agent, agent_grpc, metrics, runtime_env_agent = free_ports(7)
    env = dict(os.environ)
    common = ["--node-ip-address=127.0.0.1", "--disable-usage-stats"]
    try:
        ray("start", "--head", f"--port={gcs}", "--dashboard-host=127.0.0.1",
            f"--dashboard-port={dashboard}", f"--ray-client-server-port={client}",
            f"--dashboard-agent-listen-port={agent}", f"--dashboard-agent-grpc-port={agent_grpc}",
            f"--metrics-export-port={metrics}", f"--runtime-env-agent-port={runtime_env_agent}",
            "--num-cpus=0", "--include-dashboard=true", f"--temp-dir={temps[0]}", *common,
            env=env)  # fmt: skip
        ports = free_ports(4)
        ray("start", f"--address=127.0.0.1:{gcs}", "--num-cpus=2", '--resources={"worker": 1}',
            f"--dashboard-agent-listen-port={ports[0]}", f"--dashboard-agent-grpc-port={ports[1]}",
            f"--metrics-export-port={ports[2]}", f"--runtime-env-agent-port={ports[3]}",
            f"--temp-dir={temps[1]}", *common, env=env)  # fmt: skip
        address = f"http://127.0.0.1:{dashboard}"
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
    finally:
        stop_cluster(temps)
        for temp in temps:
            shutil.rmtree(temp, ignore_errors=True)
    assert not processes_naming(temps)
    assert time.perf_counter() - started < 300
