"""Ratings inside training: the background rater, the SB3 callback and the torch hook.

The ratings run in a worker process; a few tests hold a rating at a gate (a file the test
creates) to show that training goes on while a rating runs, by the order of events rather
than by timings.  Needs the ``train`` and ``clients`` extras; skipped without them.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the SB3 callback needs the train extra")
pytest.importorskip("torchrl", reason="the torch hook lives with the TorchRL adapters")

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import KVWriter, Logger
from torchrl.record.loggers import CSVLogger

from shell_envs.agents.what_the_shell import WhatTheShellView
from shell_envs.integrations.rating import BackgroundRater, Rating, RatingFailed, plot_ratings
from shell_envs.integrations.sb3 import RatingCallback, ScorpionVecEnv, WhatTheShellSelfPlayVecEnv
from shell_envs.integrations.torchrl import RatingHook
from shell_envs.what_the_shell.encoders import encode_flat
from tests.examples.helpers import load_example

GATE_SECONDS = 120.0  # a rating held at a gate gives up after this long


def gated_agent(gate: str) -> str:
    """The ``random`` agent, once the file ``gate`` exists (made in the worker process)."""
    deadline = time.monotonic() + GATE_SECONDS
    while not os.path.exists(gate):
        if time.monotonic() > deadline:
            raise TimeoutError("the gate never opened: the training loop waited for the rating")
        time.sleep(0.02)
    return "random"


def started_gated_agent(started: str, gate: str) -> str:
    """`gated_agent`, first making the file ``started`` (the rating has begun)."""
    Path(started).touch()
    return gated_agent(gate)


def failing_agent() -> Any:
    """An agent factory that fails in the worker."""
    raise OSError("no weights here")


class TinyPolicy(torch.nn.Module):
    """A linear What the Shell policy over the ``flat`` encoding."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(325, 81)


class TinyAgent:
    """``TinyPolicy``'s most likely legal cell."""

    name = "tiny"

    def __init__(self, module: TinyPolicy) -> None:
        self.module = module

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset."""

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """The move for a ``planes`` or ``flat`` observation."""
        return self.act_with_state(WhatTheShellView.from_observation(observation), action_mask)

    def act_with_state(self, view: Any, action_mask: np.ndarray) -> int:
        """The legal cell with the highest logit."""
        observation = encode_flat(view.board, view.eggs, view.meta, view.player)
        with torch.no_grad():
            logits = self.module.linear(torch.as_tensor(observation, dtype=torch.float32))
        logits[~torch.as_tensor(np.asarray(action_mask, bool))] = -torch.inf
        return int(logits.argmax())


def tiny_agent(state: dict[str, torch.Tensor]) -> TinyAgent:
    """The agent of a ``TinyPolicy`` state dict (what the hook's worker builds)."""
    module = TinyPolicy()
    module.load_state_dict(state)
    return TinyAgent(module)


class Memory(KVWriter):
    """An SB3 logger output that keeps every dump: ``(step, values)``."""

    def __init__(self) -> None:
        self.dumps: list[tuple[int, dict[str, Any]]] = []

    def write(self, key_values: dict[str, Any], key_excluded: Any, step: int = 0) -> None:
        self.dumps.append((step, dict(key_values)))

    def close(self) -> None:
        """Nothing to close."""


def memory_logger() -> tuple[Logger, Memory]:
    """An SB3 logger writing to memory."""
    memory = Memory()
    return Logger(None, [memory]), memory


def alive(pid: int) -> bool:
    """Whether process ``pid`` still exists (not even as a zombie)."""
    return Path(f"/proc/{pid}").exists()


def worker_pids(rater: BackgroundRater) -> list[int]:
    """The pids of the rater's worker processes."""
    pool = rater._pool
    return list(pool._processes) if pool is not None else []


class WorkerSpy(BaseCallback):
    """Notes the pids of a rater's worker processes at every step."""

    def __init__(self, rater: BackgroundRater) -> None:
        super().__init__()
        self.rater = rater
        self.pids: set[int] = set()

    def _on_step(self) -> bool:
        self.pids.update(worker_pids(self.rater))
        return True


def test_the_callback_logs_scorpion_win_rates_to_the_sb3_logger():
    env = ScorpionVecEnv(2, max_moves=100)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    logger, memory = memory_logger()
    model.set_logger(logger)
    callback = RatingCallback("scorpion", every_steps=64, deals=4)
    spy = WorkerSpy(callback.rater)
    model.learn(256, callback=[callback, spy])

    results = callback.rater.results
    steps = [r.step for r in results]
    assert steps[0] == 0 and steps[-1] == model.num_timesteps == 256
    assert steps == sorted(set(steps))
    logged = [values for _, values in memory.dumps if "rating/step" in values]
    assert [step for step, values in memory.dumps if "rating/step" in values] == steps
    assert [values["rating/step"] for values in logged] == steps
    others = [values for _, values in memory.dumps if "rating/step" not in values]
    assert others and not any(key.startswith("rating/") for v in others for key in v)
    for rating, values in zip(results, logged, strict=True):
        assert rating.game == "scorpion" and rating.metric == "win_rate" and rating.games == 4
        assert values["rating/win_rate"] == rating.rating
        assert values["rating/win_rate_lower"] <= rating.rating <= values["rating/win_rate_upper"]
        assert values["rating/games"] == 4 and values["rating/seconds"] > 0
    assert len(spy.pids) == 1 and not any(alive(pid) for pid in spy.pids)  # closed at the end


class GatedRatingCallback(RatingCallback):
    """A `RatingCallback` whose ratings wait at ``gate``; it notes what happens when."""

    def __init__(self, gate: Path, events: list[tuple], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.gate = gate
        self.events = events

    def _submit(self) -> None:
        self.events.append(("submitted", self.num_timesteps))
        self.rater.submit(self.num_timesteps, functools.partial(gated_agent, str(self.gate)))

    def _write(self, rating: Rating) -> None:
        self.events.append(("rated", rating.step, self.num_timesteps))
        super()._write(rating)


class OpenGate(BaseCallback):
    """Opens the gate once training reaches ``at`` steps."""

    def __init__(self, gate: Path, at: int, events: list[tuple]) -> None:
        super().__init__()
        self.gate, self.at, self.events = gate, at, events

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.at and not self.gate.exists():
            self.gate.touch()
            self.events.append(("opened", self.num_timesteps))
        return True


def test_training_goes_on_while_a_rating_runs(tmp_path):
    """The first rating cannot finish before training reaches 192 steps: had the callback
    waited for it, training would never get there (and the rating would time out)."""
    gate, events = tmp_path / "gate", []
    env = ScorpionVecEnv(2, max_moves=100)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.set_logger(memory_logger()[0])
    rating = GatedRatingCallback(gate, events, game="scorpion", every_steps=32, deals=2)
    model.learn(320, callback=[rating, OpenGate(gate, 192, events)])

    assert events[:2] == [("submitted", 0), ("opened", 192)]
    first_rated = events[2]
    assert first_rated[:2] == ("rated", 0) and first_rated[2] > 192
    # a rating due while the first ran waited for it: the next snapshot follows its result
    assert events[3] == ("submitted", first_rated[2])
    assert events[-1][:2] == ("rated", 320)
    assert [r.step for r in rating.rater.results] == [e[1] for e in events if e[0] == "rated"]


def test_the_callback_rates_what_the_shell_on_the_elo_scale():
    env = WhatTheShellSelfPlayVecEnv(2, obs_encoder="flat")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    logger, memory = memory_logger()
    model.set_logger(logger)
    callback = RatingCallback("what_the_shell", every_steps=10_000, games_per_anchor=1)
    model.learn(128, callback=callback)  # one rollout: 2 games, both seats, 32 rounds

    first, last = callback.rater.results
    assert (first.step, last.step) == (0, 128)
    for rating in (first, last):
        assert rating.metric == "elo" and rating.games == 7  # one game against each anchor
        assert rating.upper is not None  # a policy this weak scores too little to beat it
        if rating.rating is not None and rating.lower is not None:
            assert rating.lower <= rating.rating <= rating.upper
    final = memory.dumps[-1][1]
    assert final["rating/step"] == 128 and final["rating/games"] == 7
    assert final["rating/elo_upper"] == last.upper
    assert ("rating/elo" in final) == (last.rating is not None)


def test_the_torch_hook_logs_to_a_torchrl_logger(tmp_path):
    torch.manual_seed(0)
    policy = TinyPolicy()
    logger = CSVLogger("run", log_dir=str(tmp_path))
    hook = RatingHook("what_the_shell", tiny_agent, every_steps=50, logger=logger,
                      games_per_anchor=1)  # fmt: skip
    finished = []
    for step in range(0, 200, 10):
        finished += hook(step, policy)
        with torch.no_grad():
            policy.linear.weight.add_(0.01)
    finished += hook.close(200, policy)

    results = hook.rater.results
    assert finished == results
    assert results[0].step == 0 and results[-1].step == 200
    scalars = tmp_path / "run" / "scalars" / "rating"

    def logged(name: str) -> list[tuple[int, float]]:
        with (scalars / f"{name}.csv").open() as handle:
            return [(int(step), float(value)) for step, value in csv.reader(handle)]

    assert logged("games") == [(r.step, 7.0) for r in results]
    assert logged("elo_upper") == [(r.step, r.upper) for r in results]
    rated = [(r.step, r.rating) for r in results if r.rating is not None]
    assert (logged("elo") if rated else []) == rated
    assert hook.rater._pool is None


def test_a_closed_rater_leaves_no_process_behind(tmp_path):
    rater = BackgroundRater("scorpion", every_steps=10, deals=2)
    snapshot = rater.snapshot_path(0)
    snapshot.write_bytes(b"weights")
    rater.submit(0, functools.partial(gated_agent, str(tmp_path / "never")), files=[snapshot])
    for step in range(1, 30):  # the training loop goes on; nothing finishes or falls due
        assert rater.poll() == [] and not rater.due(step)
    pids = worker_pids(rater)
    assert len(pids) == 1 and alive(pids[0])
    assert rater.close(timeout=0.2) == []  # the rating still waits: it is stopped
    assert not any(alive(pid) for pid in pids)
    assert not snapshot.parent.exists()  # the scratch folder is gone
    assert not rater.busy and rater.due(30)


def test_ctrl_c_does_not_reach_the_rating(tmp_path):
    started, gate = tmp_path / "started", tmp_path / "gate"
    rater = BackgroundRater("scorpion", every_steps=10, deals=2)
    rater.submit(0, functools.partial(started_gated_agent, str(started), str(gate)))
    deadline = time.monotonic() + GATE_SECONDS
    while not started.exists() and time.monotonic() < deadline:  # the rating is running
        time.sleep(0.02)
    (pid,) = worker_pids(rater)
    os.kill(pid, signal.SIGINT)  # what Ctrl-C in the terminal sends the whole process group
    gate.touch()
    (rating,) = rater.close(timeout=GATE_SECONDS)  # the rating finished, not interrupted
    assert rating.step == 0 and rating.games == 2
    assert not alive(pid)


def test_a_training_run_that_raises_leaves_no_worker_or_scratch_folder(tmp_path):
    # the training process raises with a rating in flight and never calls close(): exiting
    # must stop the worker rather than wait for the rating (here ten minutes of sleep)
    script = tmp_path / "crash.py"
    script.write_text(
        "import functools, time\n"
        "from shell_envs.integrations.rating import BackgroundRater\n"
        "rater = BackgroundRater('scorpion', every_steps=10, deals=2)\n"
        "path = rater.snapshot_path(0)\n"
        "rater.submit(0, functools.partial(time.sleep, 600), files=[path])\n"
        "(pid,) = rater._pool._processes\n"
        "print(path.parent, pid, flush=True)\n"
        "raise RuntimeError('training failed')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1 and "training failed" in done.stderr
    folder, pid = done.stdout.split()
    assert not Path(folder).exists() and not alive(int(pid))


def test_a_rating_that_fails_names_its_step():
    with BackgroundRater("scorpion", every_steps=10, deals=2) as rater:
        rater.submit(40, failing_agent)
        with pytest.raises(RatingFailed, match="step 40.*OSError: no weights here"):
            rater.wait(GATE_SECONDS)
        assert rater.results == [] and not rater.busy
    assert rater._pool is None  # leaving the block ended the worker


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "chess"}, "game must be"),
        ({"every_steps": 0}, "every_steps"),
        ({"rules": "strict"}, "rules must be"),
        ({"games_per_anchor": 0}, "games"),
        ({"deals": 10**6}, "deals"),
        ({"workers": 0}, "workers"),
        ({"name": "two words"}, "two words"),
        ({"at_start": "yes"}, "at_start"),
    ],
)
def test_bad_settings_fail_before_training(kwargs, message):
    settings = {"game": "scorpion", "every_steps": 10, **kwargs}
    with pytest.raises(ValueError, match=message):
        BackgroundRater(**settings)


def test_models_and_factories_that_cannot_be_rated_fail_at_once():
    with pytest.raises(TypeError, match="MaskablePPO"):
        PPO("MlpPolicy", ScorpionVecEnv(2), n_steps=32).learn(32, callback=RatingCallback())
    scorpion_model = MaskablePPO("MlpPolicy", ScorpionVecEnv(2), n_steps=32, batch_size=32)
    with pytest.raises(ValueError, match="What the Shell model"):
        scorpion_model.learn(32, callback=RatingCallback("what_the_shell"))
    with pytest.raises(TypeError, match="agent_factory must be picklable"):
        RatingHook("what_the_shell", lambda state: tiny_agent(state), every_steps=10)
    with pytest.raises(TypeError, match="log_scalar"):
        RatingHook("what_the_shell", tiny_agent, every_steps=10, logger=print)
    with pytest.raises(ValueError, match="timeout"):
        RatingCallback(timeout=-1)


def test_ratings_are_written_for_plotting(tmp_path):
    rater = BackgroundRater("what_the_shell", every_steps=100)
    rater.results += [
        Rating(0, "what_the_shell", None, None, 120.0, 70, 0.0, 3.0),
        Rating(100, "what_the_shell", 250.0, 80.0, 410.0, 70, 0.1, 3.5),
        Rating(200, "what_the_shell", 520.0, 390.0, 660.0, 70, 0.2, 3.1),
    ]
    data = json.loads(rater.write_json(tmp_path / "ratings.json").read_text())
    assert data["metric"] == "elo" and data["settings"]["games_per_anchor"] == 10
    assert [r["rating"] for r in data["ratings"]] == [None, 250.0, 520.0]
    with rater.write_csv(tmp_path / "ratings.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["step"], row["rating"], row["upper"]) for row in rows][:2] == [
        ("0", "", "120.0"),
        ("100", "250.0", "410.0"),
    ]
    png = rater.plot(tmp_path / "curve.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no ratings"):
        plot_ratings([], tmp_path / "empty.png")


def test_the_example_writes_its_ratings_and_curve(tmp_path, capsys):
    example = load_example("train_with_ratings")
    results = example.main(["--smoke", "--out", str(tmp_path)])
    steps = [r["step"] for r in results["ratings"]]
    assert steps[0] == 0 and steps[-1] == results["timesteps"] >= 256
    saved = json.loads((tmp_path / "ratings.json").read_text())
    assert saved["metric"] == "elo" and [r["step"] for r in saved["ratings"]] == steps
    assert all(r["games"] == 7 for r in saved["ratings"])
    assert (tmp_path / "rating_curve.png").read_bytes()[:4] == b"\x89PNG"
    with (tmp_path / "logs" / "progress.csv").open() as handle:
        logged = [row["rating/step"] for row in csv.DictReader(handle) if row["rating/step"]]
    assert [int(step) for step in logged] == steps
    assert f"rating of step {steps[-1]}: elo" in capsys.readouterr().out
