"""A Ray cluster of two nodes on this machine, for the tests that need one, and its end.

``ray start --head`` and ``ray start --address`` make it: loopback addresses, free ports, one
temp dir per node (short: Ray puts unix sockets in them; nodes sharing one would share, and
delete, each other's unpacked working directories).  The head has no CPUs, so every task goes
to the worker node.  It runs with Ray's token authentication and a token of its own
(`token_env`): a local ``ray.init()`` leaves ``~/.ray/auth_token`` behind, which switches a
later ``ray start --head`` to token mode while a joining node without the token is refused.
`stop_cluster` ends its processes by id (``ray stop --force`` would stop every Ray on the
machine).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RAY = str(Path(sys.executable).with_name("ray"))


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
    """Stop a test's cluster: every process whose command line names its temp dirs.

    ``ray stop --force`` would also kill any other Ray on the machine (it matches processes
    by name), so the test's processes are ended by id: SIGTERM, then SIGKILL after 15 s.
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


def token_env() -> dict[str, str]:
    """This process's environment with Ray's token authentication and a new token, and no
    ``RAY_ADDRESS``."""
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    env.pop("RAY_ADDRESS", None)
    return env


@dataclass(frozen=True)
class LocalCluster:
    """A running two-node cluster: its GCS address, dashboard port (0 without), temp dirs
    and the environment its commands run with."""

    address: str
    dashboard: int
    temps: list[str]
    env: dict[str, str]


@contextlib.contextmanager
def local_cluster(
    env: dict[str, str], worker_cpus: int = 2, dashboard: bool = False, worker: tuple = ()
) -> Iterator[LocalCluster]:
    """A head without CPUs (with its dashboard, for ``ray job submit``, when asked) and a
    worker node of ``worker_cpus`` (``worker``: more ``ray start`` options), stopped and
    removed after the block whatever happened."""
    temps = [tempfile.mkdtemp(prefix="ray", dir="/tmp") for _ in range(2)]
    common = ["--node-ip-address=127.0.0.1", "--disable-usage-stats"]
    try:
        gcs, dash, client, agent, agent_grpc, metrics, runtime_env_agent = free_ports(7)
        ray("start", "--head", f"--port={gcs}", "--dashboard-host=127.0.0.1",
            f"--dashboard-port={dash}", f"--ray-client-server-port={client}",
            f"--dashboard-agent-listen-port={agent}", f"--dashboard-agent-grpc-port={agent_grpc}",
            f"--metrics-export-port={metrics}", f"--runtime-env-agent-port={runtime_env_agent}",
            "--num-cpus=0", f"--include-dashboard={str(dashboard).lower()}",
            f"--temp-dir={temps[0]}", *common, env=env)  # fmt: skip
        ports = free_ports(4)
        ray("start", f"--address=127.0.0.1:{gcs}", f"--num-cpus={worker_cpus}", *worker,
            f"--dashboard-agent-listen-port={ports[0]}", f"--dashboard-agent-grpc-port={ports[1]}",
            f"--metrics-export-port={ports[2]}", f"--runtime-env-agent-port={ports[3]}",
            f"--temp-dir={temps[1]}", *common, env=env)  # fmt: skip
        yield LocalCluster(f"127.0.0.1:{gcs}", dash if dashboard else 0, temps, env)
    finally:
        stop_cluster(temps)
        for temp in temps:
            shutil.rmtree(temp, ignore_errors=True)
