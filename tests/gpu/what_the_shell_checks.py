"""Checks of the What the Shell GPU env against the CPU batched env, run by
test_what_the_shell_gpu.py: under numba's CUDA simulator everywhere, and on a real GPU where
there is one.

Run as ``python tests/gpu/what_the_shell_checks.py CHECK [CHECK ...]`` (with
``NUMBA_ENABLE_CUDASIM=1`` and ``NUMBA_DISABLE_JIT=1`` for the simulator); each check raises on
the first difference and prints ``ok CHECK``.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

from shell_envs import what_the_shell_v0
from shell_envs.core.errors import IllegalMove
from shell_envs.what_the_shell.gpu import LAYOUTS, WhatTheShellGpuVectorEnv
from shell_envs.what_the_shell.vector import WhatTheShellVectorEnv
from tests.gpu.helpers import poisoned_outputs

N = 6
AGENTS = ("black", "white")


def same(gpu, cpu, what):
    """Assert a GPU result (torch tensors, nested in dicts and tuples) equals the CPU env's,
    dtype and shape too."""
    if isinstance(cpu, tuple):
        assert len(gpu) == len(cpu), what
        for k, (g, c) in enumerate(zip(gpu, cpu, strict=True)):
            same(g, c, f"{what}[{k}]")
        return
    if isinstance(cpu, dict):
        assert set(gpu) == set(cpu), (what, sorted(gpu), sorted(cpu))
        for key in cpu:
            same(gpu[key], cpu[key], f"{what}[{key!r}]")
        return
    assert isinstance(gpu, torch.Tensor), (what, type(gpu))
    got = gpu.cpu().numpy()
    assert got.dtype == cpu.dtype and got.shape == cpu.shape, (what, got.dtype, got.shape)
    np.testing.assert_array_equal(got, cpu, err_msg=what)


def random_actions(masks, rng, illegal_share):
    """A random legal cell per game from the CPU env's ``masks``, sometimes an illegal one."""
    actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
    bad = rng.random(len(actions)) < illegal_share
    actions[bad] = rng.integers(-2, 83, int(bad.sum()))
    return actions


def lockstep(encoder, layout="soa", steps=300, max_rounds=25, illegal_share=0.02):
    """Both envs play the same games through autoresets; every field compared at every step."""
    cpu = WhatTheShellVectorEnv(N, obs_encoder=encoder, max_rounds=max_rounds)
    gpu = what_the_shell_v0.vector_env(
        N, device="cuda", obs_encoder=encoder, max_rounds=max_rounds, layout=layout
    )
    assert isinstance(gpu, WhatTheShellGpuVectorEnv)
    assert gpu.observation_space == cpu.observation_space
    assert gpu.single_observation_space == cpu.single_observation_space
    assert gpu.action_space == cpu.action_space
    assert gpu.single_action_space == cpu.single_action_space
    assert gpu.autoreset_mode == cpu.autoreset_mode and gpu.metadata == cpu.metadata
    rng = np.random.default_rng(1)
    obs_c, info_c = cpu.reset(seed=3)
    obs_g, info_g = gpu.reset(seed=3)
    same(obs_g, obs_c, "reset observations")
    same(info_g, info_c, "reset infos")
    ends = illegal = 0
    for step in range(steps):
        actions = {a: random_actions(obs_c[a]["action_mask"], rng, illegal_share) for a in AGENTS}
        out_c = cpu.step(actions)
        out_g = gpu.step(actions)
        same(out_g, out_c, f"step {step}")
        same(gpu.action_masks(), cpu.action_masks(), f"step {step} action_masks()")
        obs_c = out_c[0]
        ends += int(out_c[2]["black"].sum() + out_c[3]["black"].sum())
        illegal += int((out_c[4]["illegal"] != 0).sum())
    assert ends >= 10 and (illegal >= 3 or not illegal_share), (ends, illegal)  # autoresets seen


def lockstep_planes():
    lockstep("planes")


def lockstep_planes_uint8():
    lockstep("planes_uint8")


def lockstep_flat():
    lockstep("flat")


def lockstep_game_major():
    lockstep("planes_uint8", layout="game_major", steps=120, max_rounds=15)


def long_games():
    """Games to their natural ends (wins, draws, sudden death) with no truncation."""
    lockstep("planes", steps=200, max_rounds=300, illegal_share=0.0)


def sampler():
    """The device sampler: legal actions, the same for the same seed, never a pending game's."""
    env = WhatTheShellGpuVectorEnv(N, obs_encoder="planes_uint8", max_rounds=20)
    draws = []
    for seed in (7, 7, 8):
        obs, _ = env.reset(seed=seed)
        taken = []
        for _ in range(60):
            actions = env.sample_actions()
            assert actions["black"].dtype == torch.int64 and actions["black"].shape == (N,)
            for agent in AGENTS:
                cells = actions[agent].cpu().numpy()
                masks = obs[agent]["action_mask"].cpu().numpy()
                assert (masks[np.arange(N), cells] == 1).all()
            taken.append(np.stack([actions[a].cpu().numpy() for a in AGENTS]))
            obs, _, terms, truncs, infos = env.step(actions)
            assert (infos["illegal"].cpu().numpy() == 0).all()
        draws.append(np.array(taken))
    assert np.array_equal(draws[0], draws[1]) and not np.array_equal(draws[0], draws[2])


def handoff():
    """Results are torch tensors viewing the env's buffers; actions come as any array."""
    env = WhatTheShellGpuVectorEnv(N, obs_encoder="planes_uint8")
    obs, infos = env.reset(seed=0)
    assert obs["black"]["observation"].dtype == torch.uint8
    assert obs["black"]["observation"].shape == (N, 5, 9, 9)
    assert obs["white"]["action_mask"].dtype == torch.int8
    assert infos["collision"].dtype == torch.bool and infos["round"].dtype == torch.int32
    first = obs["black"]["observation"]
    cells = np.array([0, 1, 2, 3, 4, 5])
    for black in (torch.as_tensor(cells), cells.astype(np.int32), list(cells)):
        out = env.step({"black": black, "white": cells + 10})
        assert out[0]["black"]["observation"].data_ptr() == first.data_ptr()  # a view, no copy
        assert out[1]["black"].dtype == torch.float32 and out[2]["black"].dtype == torch.bool
        env.reset()
    clones = WhatTheShellGpuVectorEnv(N, copy=True)
    a, _ = clones.reset()
    b, *_ = clones.step({"black": cells, "white": cells + 10})
    assert a["black"]["observation"].data_ptr() != b["black"]["observation"].data_ptr()
    assert a["black"]["observation"][:, 0].sum() == 0 and b["black"]["observation"][:, 0].sum() == N


def copies():
    """``copy=True``: every step's results are fresh buffers the kernel writes in full (they
    start as poison bytes) and no later step writes; held for a whole run, they equal the CPU
    env's at every step, in both layouts, with every encoder."""
    for layout in LAYOUTS:
        for encoder in ("planes", "planes_uint8", "flat"):
            cpu = WhatTheShellVectorEnv(N, obs_encoder=encoder, max_rounds=9)
            with poisoned_outputs():
                gpu = what_the_shell_v0.vector_env(
                    N, device="cuda", copy=True, obs_encoder=encoder, max_rounds=9, layout=layout
                )
                kept = [(gpu.reset(seed=3), cpu.reset(seed=3))]
                rng = np.random.default_rng(3)
                for _ in range(30):
                    obs = kept[-1][1][0]
                    actions = {a: random_actions(obs[a]["action_mask"], rng, 0.05) for a in AGENTS}
                    kept.append((gpu.step(actions), cpu.step(actions)))
            for k, (g, c) in enumerate(kept):
                same(g, c, f"{layout} {encoder}, step {k} read after the run")


def devices():
    """``device`` as ``"cuda"``, ``"cuda:0"`` or a ``torch.device``; another index is refused
    with the way to choose a GPU."""
    for device in ("cuda", "cuda:0", torch.device("cuda"), torch.device("cuda", 0)):
        env = what_the_shell_v0.vector_env(N, device=device)
        assert isinstance(env, WhatTheShellGpuVectorEnv), device
    with pytest.raises(ValueError, match="CUDA_VISIBLE_DEVICES"):
        what_the_shell_v0.vector_env(N, device="cuda:1")
    with pytest.raises(ValueError, match="'cpu', 'cuda', 'cuda:N'"):
        what_the_shell_v0.vector_env(N, device="cuda:x")


def jax_handoff():
    """A JAX user's path (JAX is in the test extra): results through DLPack with their
    shapes, dtypes and values, JAX arrays of actions back in, the CPU env's games."""
    import jax.dlpack
    import jax.numpy as jnp

    env = WhatTheShellGpuVectorEnv(N, obs_encoder="planes_uint8")
    cpu = WhatTheShellVectorEnv(N, obs_encoder="planes_uint8")
    obs, _ = env.reset(seed=0)
    cpu.reset(seed=0)
    for _ in range(12):
        planes = jax.dlpack.from_dlpack(obs["black"]["observation"])
        assert planes.shape == (N, 5, 9, 9) and planes.dtype == jnp.uint8
        np.testing.assert_array_equal(np.asarray(planes), obs["black"]["observation"].cpu())
        masks = {a: jax.dlpack.from_dlpack(obs[a]["action_mask"]) for a in AGENTS}
        assert masks["white"].shape == (N, 81) and masks["white"].dtype == jnp.int8
        actions = {a: jnp.argmax(masks[a], axis=1) for a in AGENTS}  # int32 JAX arrays
        out = env.step(actions)
        same(out, cpu.step({a: np.asarray(x) for a, x in actions.items()}), "JAX actions")
        obs = out[0]


def raise_and_errors():
    """``illegal_action="raise"`` as on the CPU (same error, nothing moved); bad input refused."""
    cpu = WhatTheShellVectorEnv(N, illegal_action="raise")
    gpu = WhatTheShellGpuVectorEnv(N, illegal_action="raise")
    cpu.reset(seed=0)
    gpu.reset(seed=0)
    cells = np.arange(N)
    for env in (cpu, gpu):
        env.step({"black": cells, "white": cells + 10})
    messages = []
    for env in (cpu, gpu):
        with pytest.raises(IllegalMove) as caught:
            env.step({"black": cells + 20, "white": np.where(cells % 2, cells, 40)})
        messages.append(str(caught.value))
    assert messages[0] == messages[1], messages
    after = {"black": cells + 20, "white": cells + 30}
    same(gpu.step(after), cpu.step(after), "the step after a refused one")
    bad_steps = (
        {"black": cells},
        {"black": cells[:3], "white": cells},
        {"black": cells + 0.5, "white": cells},
    )
    for bad in bad_steps:
        with pytest.raises(ValueError):
            gpu.step(bad)

    class Custom:
        space = cpu.encoder.space

        def encode(self, board, eggs, meta, player):
            return None

    with pytest.raises(ValueError, match="built-in encoders"):
        WhatTheShellGpuVectorEnv(N, obs_encoder=Custom())
    with pytest.raises(ValueError, match="layout"):
        WhatTheShellGpuVectorEnv(N, layout="aos")
    with pytest.raises(ValueError, match="device"):
        what_the_shell_v0.vector_env(N, device="tpu")


if __name__ == "__main__":
    for check in sys.argv[1:]:  # several in one process share its compiled kernels
        globals()[check]()
        print("ok", check, flush=True)
