"""Bench and match games as Ray tasks on a cluster (``--ray``): more CPUs, the same records.

`connect` joins the cluster at an address (``HOST:PORT``, ``ray://HOST:PORT``, or ``auto``:
``RAY_ADDRESS`` or the cluster ``ray start`` began on this machine) and yields a `Cluster`;
its `Cluster.play` runs each game as one Ray task of one CPU and hands the results back as
they finish, as the local process pool does (`shell_envs.bench.runner.run_pool`).  A game's
record depends only on its seeds, so the records equal those of a local run.  An address
that does not answer is refused at once (Ray itself would wait for it), with
`ClusterError`, as is a missing Ray (the ``rllib`` extra).  Ray is imported here only,
when a cluster is asked for.

The workers load the agents from the same specs: a file or model path is made absolute first
(a worker runs in a folder of its own), so it must hold on every node; an agent object of
this process cannot go.  The nodes compile the games' code on first use (on the machine
that runs the bench, they load it from the cache the bench has filled).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import os
import socket
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from shell_envs.agents.spec import AgentSpec

INSTALL = 'pip install "shell-envs[rllib]"'
PROBE_SECONDS = 5.0  # how long a cluster's address may take to answer
WAIT_SECONDS = 1.0  # the longest wait for a game without looking for Ctrl-C


class ClusterError(RuntimeError):
    """Ray is missing, the cluster does not answer, or it failed during the games; the
    message is one line."""


class GameTask(Protocol):
    """What `Cluster.play` needs of a task: the function playing the game, its arguments."""

    @property
    def run(self) -> Callable[..., Any]: ...

    @property
    def args(self) -> tuple[Any, ...]: ...


def import_ray() -> Any:
    """The ``ray`` module; `ClusterError` naming the extra when it is not installed."""
    try:
        import ray
    except ImportError:
        raise ClusterError(
            f"playing on a Ray cluster needs Ray, which is not installed: {INSTALL}"
        ) from None
    return ray


def _endpoint(address: str) -> tuple[str, int]:
    """The host and port of ``HOST:PORT`` or ``SCHEME://HOST:PORT``."""
    rest = address.split("://", 1)[-1].rstrip("/")
    host, colon, port = rest.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(
            f"{address!r} is not a Ray cluster's address: HOST:PORT, ray://HOST:PORT or auto"
        )
    return host.strip("[]"), int(port)


def _bootstrap(address: str) -> str:
    """The cluster's address, ``auto`` found as Ray finds it: ``RAY_ADDRESS``, else the
    cluster that ``ray start`` began on this machine."""
    if address != "auto":
        return address
    if os.environ.get("RAY_ADDRESS"):
        return os.environ["RAY_ADDRESS"]
    try:
        from ray._private.services import canonicalize_bootstrap_address_or_die
    except ImportError:  # a Ray without it: ray.init finds the cluster
        return address
    try:
        return str(canonicalize_bootstrap_address_or_die("auto"))
    except ConnectionError:
        raise ClusterError(
            "no Ray cluster runs on this machine (auto): start one with `ray start --head`, "
            "or give its address"
        ) from None


def probe(address: str, timeout: float = PROBE_SECONDS) -> str:
    """The address to join, once something answers there; `ClusterError` when nothing
    does (Ray would go on trying for minutes)."""
    found = _bootstrap(address)
    if found == "auto":
        return found
    host, port = _endpoint(found)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        shown = address if found == address else f"{address} ({found})"
        raise ClusterError(f"no Ray cluster answers at {shown}: {reason}") from None
    return found


def portable(spec: AgentSpec) -> AgentSpec:
    """``spec`` as a Ray worker loads it: a file or model path made absolute (the label and
    spec text, which the records hold, stay); `ClusterError` for an agent object."""
    if spec.kind == "object":
        raise ClusterError(
            f"agent {spec.label!r} is an object of this process: it cannot play on a Ray "
            "cluster (give it as module:callable or file.py:callable)"
        )
    if spec.kind in ("ppo", "rllib"):
        return dataclasses.replace(spec, target=str(Path(spec.target).expanduser().absolute()))
    module, _, attr = spec.target.rpartition(":")
    if spec.kind == "callable" and module.endswith(".py"):
        return dataclasses.replace(spec, target=f"{Path(module).expanduser().resolve()}:{attr}")
    return spec


def _portable_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """A task's arguments with every agent spec `portable`."""
    return tuple(portable(a) if isinstance(a, AgentSpec) else a for a in args)


def _play(run: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """One game, on a Ray worker."""
    return run(*args)


@dataclass
class Cluster:
    """A Ray cluster this process has joined (`connect`)."""

    address: str
    ray: Any  # the ray module

    @property
    def cpus(self) -> int:
        """The CPUs of the cluster's nodes now (at least one)."""
        return max(1, int(self.ray.cluster_resources().get("CPU", 0)))

    def play(
        self,
        tasks: Sequence[GameTask],
        order: Iterable[int],
        workers: int,
        collect: Callable[[int, Any], None],
    ) -> None:
        """Play the tasks numbered ``order`` as Ray tasks, ``workers`` at a time, in that
        order, and ``collect(k, result)`` each as it finishes.  Whatever stops it (Ctrl-C,
        an exception from ``collect``, a game's error, re-raised as the game raised it)
        cancels the games still running."""
        ray = self.ray
        remote = ray.remote(num_cpus=1)(_play)
        args = {}
        numbers = [int(k) for k in order]
        for k in numbers:  # a spec that cannot go fails before any game
            args[k] = _portable_args(tasks[k].args)
        queue = iter(numbers)
        running: dict[Any, int] = {}

        def submit(count: int) -> None:
            for k in itertools.islice(queue, count):
                running[remote.remote(tasks[k].run, args[k])] = k

        try:
            submit(max(1, workers))
            while running:
                done, _ = ray.wait(list(running), num_returns=1, timeout=WAIT_SECONDS)
                for ref in done:
                    k = running.pop(ref)
                    result = self._result(ref)
                    submit(1)
                    collect(k, result)
        except BaseException:
            for ref in running:
                with contextlib.suppress(Exception):
                    ray.cancel(ref)
            raise

    def _result(self, ref: Any) -> Any:
        """A finished game's result; the error its game raised, as it raised it."""
        errors = self.ray.exceptions
        try:
            return self.ray.get(ref)
        except errors.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise ClusterError(f"a game failed on the Ray cluster: {_first_line(exc)}") from None
        except errors.RayError as exc:
            raise ClusterError(f"the Ray cluster failed: {_first_line(exc)}") from None


@contextlib.contextmanager
def _held_stderr() -> Iterator[list[str]]:
    """Hold back what is written to standard error's file descriptor in the block (Ray's
    core logs there, a line a second while it retries a cluster that refuses it); the list
    holds the lines once the block is over."""
    held: list[str] = []
    sys.stderr.flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield held
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            held += sink.read().decode("utf-8", "replace").splitlines()


def _echo(lines: list[str]) -> None:
    """Write lines held back to standard error after all."""
    for line in lines:
        print(line, file=sys.stderr)


def _first_line(exc: BaseException) -> str:
    """An exception's message, its first line."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@contextlib.contextmanager
def connect(address: str | None) -> Iterator[Cluster | None]:
    """Join the Ray cluster at ``address`` for the block (None: no cluster, yields None).

    A process already joined to a Ray cluster keeps its connection (and the block plays
    there, once the address answers); otherwise the block's end disconnects.
    `ClusterError` when Ray is missing or nothing answers at the address.
    """
    if address is None:
        yield None
        return
    ray = import_ray()
    target = probe(address)
    joined = not ray.is_initialized()
    if joined:
        try:
            with _held_stderr() as held:
                ray.init(
                    address=target,
                    ignore_reinit_error=True,
                    logging_level=logging.WARNING,
                    log_to_driver=False,
                )
        except Exception as exc:  # Ray's own errors too: any of them means it did not join
            hint = ""
            if any("InvalidAuthToken" in line or "Unauthenticated" in line for line in held):
                hint = " (the cluster wants a token: set RAY_AUTH_TOKEN to its token)"
            raise ClusterError(
                f"cannot join the Ray cluster at {address}: {_first_line(exc)}{hint}"
            ) from None
        _echo(held)
    try:
        yield Cluster(address, ray)
    finally:
        if joined:
            ray.shutdown()
