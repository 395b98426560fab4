"""The TorchRL envs over the GPU batched envs against the same over the CPU batched envs, run
by tests/integrations/test_torchrl_env.py: under numba's CUDA simulator on any machine
(``NUMBA_ENABLE_CUDASIM=1 NUMBA_DISABLE_JIT=1``), and on a real GPU when there is one.

Run as ``python tests/gpu/torchrl_checks.py OUT_DIR``: for each game, ``check_env_specs`` and
a 40-step rollout and three batches of a TorchRL ``Collector`` through autoresets with the
same seeded legal actions on both, compared key by key afterwards (a step that overwrote an
earlier step's tensors shows there); ``"cuda:0"`` and a ``torch.device`` as the env device;
a GPU env made with ``copy=False`` is refused; then one iteration of
``examples/train_torchrl_ppo.py`` with the batched env on the GPU.  Prints ``ok`` at the end.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import torch
from torchrl.envs.utils import check_env_specs

from shell_envs.integrations.torchrl import SEATS, make_env

ROOT = Path(__file__).resolve().parents[2]
N, STEPS = 8, 40
OPTIONS = {"what_the_shell": {}, "scorpion": {"max_moves": 15}}  # Scorpion truncates too


def seeded_legal_actions(game: str, seed: int):
    """A policy drawing legal actions from its own generator, the same on either env (the
    masks are made contiguous first: a strided one draws other, equally legal, actions)."""
    generator = torch.Generator().manual_seed(seed)
    groups = [(seat,) for seat in SEATS] if game == "what_the_shell" else [()]

    def policy(td):
        for group in groups:
            mask = td[(*group, "action_mask")].cpu().float().contiguous()
            action = torch.multinomial(mask, 1, generator=generator).squeeze(-1)
            td[(*group, "action")] = action.to(td.device)
        return td

    return policy


def rollout(game: str, device: str, env_device: str):
    """check_env_specs, then a seeded rollout of N games for STEPS steps."""
    env = make_env(game, N, device=device, env_device=env_device, **OPTIONS[game])
    assert type(env.env).__name__.endswith("GpuVectorEnv" if env_device == "cuda" else "VectorEnv")
    check_env_specs(env)
    env.set_seed(5)
    return env.rollout(STEPS, seeded_legal_actions(game, 0), break_when_any_done=False)


def check_same_games(game: str, device: str) -> None:
    cpu = rollout(game, "cpu", "cpu")
    gpu = rollout(game, device, "cuda")
    assert gpu.device.type == torch.device(device).type
    keys = sorted(cpu.keys(True, True), key=str)
    assert keys == sorted(gpu.keys(True, True), key=str), game
    for key in keys:
        a, b = cpu[key], gpu[key].cpu()
        assert a.dtype == b.dtype and torch.equal(a, b), (game, key)
    assert bool(cpu["next", "done"].any()) and bool(cpu["autoreset"].any()), game


def collect(game: str, device: str, env_device: str) -> list:
    """Three batches of a TorchRL collector over N games with the seeded policy, each kept
    (cloned) as a learner keeps it."""
    from torchrl.collectors import Collector

    env = make_env(game, N, device=device, env_device=env_device, **OPTIONS[game])
    env.set_seed(5)
    collector = Collector(
        env, seeded_legal_actions(game, 1), frames_per_batch=N * 10, total_frames=N * 30,
        device=device, trust_policy=True,
    )  # fmt: skip
    batches = [batch.clone() for batch in collector]
    collector.shutdown()
    return batches


def check_same_collected(game: str, device: str) -> None:
    """A collector over the GPU env gathers the CPU env's data, every key of every batch."""
    cpu, gpu = collect(game, "cpu", "cpu"), collect(game, device, "cuda")
    assert len(cpu) == len(gpu) == 3
    for k, (a, b) in enumerate(zip(cpu, gpu, strict=True)):
        keys = sorted(a.keys(True, True), key=str)
        assert keys == sorted(b.keys(True, True), key=str), (game, k)
        for key in keys:
            assert a[key].dtype == b[key].dtype and torch.equal(a[key], b[key].cpu()), (
                game,
                k,
                key,
            )


def check_copy_false_is_refused(game: str, device: str) -> None:
    with pytest.raises(ValueError, match="copy=False"):
        make_env(game, N, device=device, env_device="cuda", copy=False)


def check_device_forms(game: str, device: str) -> None:
    """The env device as ``"cuda:0"`` or a ``torch.device``: the GPU batched env either way."""
    for env_device in ("cuda:0", torch.device("cuda", 0)):
        env = make_env(game, N, device=device, env_device=env_device)
        assert type(env.env).__name__.endswith("GpuVectorEnv"), env_device


def check_ppo_example(game: str, device: str, out: Path) -> None:
    spec = importlib.util.spec_from_file_location("ppo", ROOT / "examples" / "train_torchrl_ppo.py")
    ppo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ppo)
    args = ["--game", game, "--device", device, "--env-device", "cuda", "--num-envs", "8"]
    args += ["--steps", "4", "--minutes", "0", "--eval-games", "4", "--max-moves", "20"]
    ppo.train(ppo.parse([*args, "--out", str(out / game)]))
    results = json.loads((out / game / "results.json").read_text())
    assert results["env_steps"] == 32 and results["steps_per_s"] > 0
    assert [row["iteration"] for row in results["curve"] if "eval" in row] == [0, 1]
    assert (out / game / "learning_curve.png").stat().st_size > 0


if __name__ == "__main__":
    out_dir = Path(sys.argv[1])
    learner = "cuda" if torch.cuda.is_available() else "cpu"  # the simulator has no torch GPU
    for name in OPTIONS:
        check_same_games(name, learner)
        check_same_collected(name, learner)
        check_copy_false_is_refused(name, learner)
        check_device_forms(name, learner)
        check_ppo_example(name, learner, out_dir)
    print("ok")
