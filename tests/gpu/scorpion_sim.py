"""Checks of the Scorpion GPU env against the CPU env, run by test_scorpion_gpu.py: under
numba's CUDA simulator on any machine, and on a real GPU when there is one.

Run as ``python tests/gpu/scorpion_sim.py [CHECK ...]`` (default: every check but
``lockstep_large``, which is for a real GPU) with ``NUMBA_ENABLE_CUDASIM=1`` and
``NUMBA_DISABLE_JIT=1`` (the simulator runs kernels as Python, so the rules run as Python too),
or without them on a machine with a GPU.  Each check raises on the first difference; the
script prints ``ok CHECK`` or ``FAILED CHECK`` and the traceback for each, in one process
(starting one costs more than most checks).
"""

from __future__ import annotations

import sys
import traceback
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from gymnasium.spaces import Discrete

from shell_envs.core.errors import IllegalMove
from shell_envs.scorpion import rules
from shell_envs.scorpion.gpu import LAYOUTS, ScorpionGpuVectorEnv
from shell_envs.scorpion.kernels import STATE
from shell_envs.scorpion.state import ScorpionState
from shell_envs.scorpion.vector import ScorpionVectorEnv
from tests.gpu.helpers import poisoned_outputs
from tests.scorpion.test_traditional import near_win


def host(value):
    """A torch tensor (or a dict of them) as numpy, checking it is a tensor."""
    if isinstance(value, dict):
        return {k: host(v) for k, v in value.items()}
    assert isinstance(value, torch.Tensor), type(value)
    return value.cpu().numpy()


def same(gpu, cpu, what):
    """Assert a GPU result (tensors) equals the CPU env's (numpy), dtype included."""
    if isinstance(cpu, dict):
        assert set(gpu) == set(cpu), (what, sorted(gpu), sorted(cpu))
        for key in cpu:
            same(gpu[key], cpu[key], f"{what}[{key!r}]")
        return
    got = host(gpu)
    assert got.dtype == cpu.dtype, (what, got.dtype, cpu.dtype)
    np.testing.assert_array_equal(got, cpu, err_msg=what)


def same_all(gpu, cpu, what):
    """:func:`same` over the matching items of two tuples of results."""
    for k, (g, c) in enumerate(zip(gpu, cpu, strict=True)):
        same(g, c, f"{what}[{k}]")


def actions_for(step, masks, gpu, rng, n_actions):
    """A mix of actions: the device sampler's, random legal ones, and some illegal ones."""
    if step % 3 == 0:
        own = host(gpu.action_masks())
        picked = host(gpu.sample_actions()).copy()
        assert all(own[i, a] for i, a in enumerate(picked)), "the sampler chose an illegal action"
        return picked
    picked = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
    if step % 7 == 1:  # illegal actions are rejected, codes and infos say so
        picked[0] = rng.integers(n_actions)
        picked[-1] = [-1, n_actions, 10**6][step % 3]
    return picked


def lockstep(n, steps, seed, layout="soa", pool_at=None, redeal_at=None, **kwargs):
    """GPU and CPU envs play the same actions; every returned field is compared at every
    step, and the full state at the end."""
    gpu = ScorpionGpuVectorEnv(n, layout=layout, **kwargs)
    cpu = ScorpionVectorEnv(n, **kwargs)
    assert gpu.single_observation_space == cpu.single_observation_space
    assert gpu.observation_space == cpu.observation_space
    assert gpu.action_space == cpu.action_space
    assert gpu.metadata == cpu.metadata
    same_all(gpu.reset(seed=seed), cpu.reset(seed=seed), "reset")
    rng = np.random.default_rng(seed)
    ended = 0
    for step in range(steps):
        if step == pool_at:
            pool = [5, 17, 2**40 + 3, 99]
            gpu.set_deal_pool(pool)
            cpu.set_deal_pool(pool)
        if step == redeal_at:
            gpu.redeal([0, n - 1])
            cpu.redeal([0, n - 1])
        masks = cpu.action_masks()
        same(gpu.action_masks(), masks, f"masks before step {step}")
        acts = actions_for(step, masks, gpu, rng, cpu.n_actions)
        given = torch.as_tensor(acts, device=gpu.device) if step % 2 else acts.tolist()
        out_gpu, out_cpu = gpu.step(given), cpu.step(acts)
        same_all(out_gpu, out_cpu, f"step {step}")
        ended += int(out_cpu[2].sum() + out_cpu[3].sum())
    for g, c in zip(gpu.host_arrays(), cpu.arrays, strict=True):
        np.testing.assert_array_equal(g, c)
    return ended


def check_lockstep_tableau():
    """Classic, tableau, score rewards, short games: many autoresets."""
    ended = lockstep(6, 240, seed=11, max_moves=4)
    assert ended > 6 * 40, ended  # every env drew dozens of deal numbers


def check_lockstep_cards_relaxed_undo():
    """Relaxed, cards, win rewards, undo, masks in the observation, game-major layout, then a
    deal pool and a redeal; long enough games for sequences and stuck positions to come."""
    ended = lockstep(5, 160, seed=4, layout="game_major", pool_at=60, redeal_at=100,
                     rules="relaxed", obs_encoder="cards", reward="win", allow_undo=True,
                     mask_in_obs=True, max_moves=30)  # fmt: skip
    assert ended > 5, ended


def check_lockstep_soa_options():
    """Struct-of-arrays with the options of the previous check, and explicit deals."""
    gpu = ScorpionGpuVectorEnv(4, allow_undo=True, mask_in_obs=True, max_moves=9)
    cpu = ScorpionVectorEnv(4, allow_undo=True, mask_in_obs=True, max_moves=9)
    deals = {"deals": [0, 2**63 - 1, 7, 123456789]}
    seeds = [1, None, 3, None]
    same_all(gpu.reset(seed=seeds, options=deals), cpu.reset(seed=seeds, options=deals), "reset")
    rng = np.random.default_rng(2)
    for step in range(40):
        masks = cpu.action_masks()
        acts = actions_for(step + 1, masks, gpu, rng, cpu.n_actions)
        # envs 1 and 3 were not seeded: their later deals differ, so only envs 0 and 2 count
        out_gpu, out_cpu = gpu.step(acts), cpu.step(acts)
        for g, c in zip(out_gpu[1:4], out_cpu[1:4], strict=True):
            np.testing.assert_array_equal(host(g)[[0, 2]], c[[0, 2]])
        for key, value in out_cpu[0].items():
            np.testing.assert_array_equal(host(out_gpu[0][key])[[0, 2]], value[[0, 2]])
        for key, value in out_cpu[4].items():
            np.testing.assert_array_equal(host(out_gpu[4][key])[[0, 2]], value[[0, 2]])


def load(gpu, cpu, states):
    """Put ``states`` into the games of both envs, with their legal masks, as a step leaves
    them (the CPU env's arrays, then all of them copied into the GPU env's buffers)."""
    for i, state in enumerate(states):
        for rows, array in zip(cpu.arrays, state.arrays, strict=True):
            rows[i] = array
        rules.legal_mask(tuple(rows[i] for rows in cpu.arrays), cpu.allow_undo, cpu.masks[i])
    soa = gpu.layout == "soa"
    for spec, rows in zip(STATE, cpu.arrays, strict=True):
        gpu.state[spec.name].copy_to_device(
            np.ascontiguousarray(np.moveaxis(rows, 0, -1) if soa else rows)
        )
    gpu._masks.copy_to_device(np.ascontiguousarray(cpu.masks.T if soa else cpu.masks))


def check_lockstep_traditional():
    """Traditional: positions a few moves from a win (runs standing, stacked, covered, the
    reserve undealt in some) loaded into both envs, both layouts, then played in lockstep
    through wins and autoresets into numbered deals."""
    rng = np.random.default_rng(52)
    wins = 0
    for layout, options in (
        ("soa", {"allow_undo": True}),
        ("game_major", {"reward": "win", "obs_encoder": "cards", "mask_in_obs": True}),
    ):
        gpu = ScorpionGpuVectorEnv(4, layout=layout, rules="traditional", max_moves=30, **options)
        cpu = ScorpionVectorEnv(4, rules="traditional", max_moves=30, **options)
        same_all(gpu.reset(seed=7), cpu.reset(seed=7), f"{layout} reset")
        positions = [near_win(rng, reserve=i % 2 == 1, face_down=i >= 2) for i in range(4)]
        load(gpu, cpu, [ScorpionState.from_position(p, "traditional") for p in positions])
        for step in range(50):
            masks = cpu.action_masks()
            same(gpu.action_masks(), masks, f"{layout} masks before step {step}")
            acts = actions_for(step, masks, gpu, rng, cpu.n_actions)
            out_gpu, out_cpu = gpu.step(acts), cpu.step(acts)
            same_all(out_gpu, out_cpu, f"{layout} step {step}")
            wins += int(out_cpu[4]["won"].sum())
        for g, c in zip(gpu.host_arrays(), cpu.arrays, strict=True):
            np.testing.assert_array_equal(g, c)
        assert (cpu.arrays[4][:, rules.M_RULES] == rules.TRADITIONAL).all()
    assert wins > 0, wins


def check_lockstep_large():
    """Real GPU only (too slow in the simulator): many games, both layouts, long enough for
    wins, stuck games and truncations."""
    for layout in ("soa", "game_major"):
        assert lockstep(512, 300, seed=21, layout=layout, max_moves=120) > 512


def check_deals_equal_cpu():
    """The device shuffles and deals exactly the CPU deal of every deal number."""
    numbers = [0, 1, 2, 2**31, 2**32 - 1, 2**32, 2**62 - 1, 2**63 - 1]
    numbers += [int(x) for x in np.random.default_rng(0).integers(0, 2**63 - 1, size=56)]
    gpu = ScorpionGpuVectorEnv(len(numbers), obs_encoder="cards")
    gpu.reset(options={"deals": numbers})
    cards = np.empty(rules.N_CARDS, np.int8)
    for i, (tab, lens, fd, reserve, meta, hist) in enumerate(zip(*gpu.host_arrays(), strict=True)):
        rules.shuffled_deck(numbers[i], cards)
        want = rules.new_arrays()
        rules.deal(want, cards, rules.CLASSIC)
        for got, expected in zip((tab, lens, fd, reserve, meta, hist), want, strict=True):
            np.testing.assert_array_equal(got, expected, err_msg=f"deal {numbers[i]}")


def check_raise_and_errors():
    """illegal_action='raise' refuses with the CPU env's message and changes nothing; bad
    arguments and unsupported options get clear errors; results are torch tensors."""
    gpu = ScorpionGpuVectorEnv(3, illegal_action="raise")
    cpu = ScorpionVectorEnv(3, illegal_action="raise")
    gpu.reset(seed=8)
    cpu.reset(seed=8)
    before = gpu.host_arrays()
    masks = cpu.action_masks()
    acts = np.array([np.flatnonzero(row)[0] for row in masks])
    acts[1] = next(a for a in range(rules.N_ACTIONS) if not masks[1, a])
    with pytest.raises(IllegalMove) as got:
        gpu.step(acts)
    with pytest.raises(IllegalMove) as want:
        cpu.step(acts)
    assert str(got.value) == str(want.value), (got.value, want.value)
    for a, b in zip(before, gpu.host_arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert gpu.explain(1, int(acts[1])) == cpu.explain(1, int(acts[1]))
    assert gpu.explain(0, int(acts[0])) is None
    with pytest.raises(ValueError, match="actions must be integers of shape"):
        gpu.step(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="actions must be integers"):
        gpu.step(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="autoreset_mode must be 'next_step'"):
        ScorpionGpuVectorEnv(2, autoreset_mode="same_step")
    with pytest.raises(ValueError, match="built-in encoders"):
        ScorpionGpuVectorEnv(2, obs_encoder=SimpleNamespace(space=Discrete(2), encode=len))
    with pytest.raises(ValueError, match="layout must be one of"):
        ScorpionGpuVectorEnv(2, layout="rows")
    with pytest.raises(ValueError, match="got 1 seeds for 3 envs"):
        gpu.reset(seed=[1])
    obs, rewards, terminated, truncated, infos = gpu.step(gpu.sample_actions())
    assert obs.shape == (3, 366) and obs.dtype == torch.int8
    assert rewards.dtype == torch.float32 and terminated.dtype == torch.bool
    assert truncated.dtype == torch.bool and gpu.action_masks().shape == (3, 365)
    assert infos["code"].dtype == torch.int64 and infos["won"].dtype == torch.bool
    copying = ScorpionGpuVectorEnv(2, copy=True)
    first, _ = copying.reset(seed=0)
    held = first.clone()
    copying.step(copying.sample_actions())
    np.testing.assert_array_equal(host(first), host(held))  # a clone is never written


def check_copies():
    """``copy=True``: every step's results are fresh buffers the kernels write in full (they
    start as poison bytes) and no later step, redeal or reset writes; held for a whole run,
    they equal the CPU env's at every step, in both layouts, masks in the observation."""
    for layout in LAYOUTS:
        options = {"max_moves": 7, "mask_in_obs": True, "allow_undo": layout == "soa"}
        cpu = ScorpionVectorEnv(4, **options)
        with poisoned_outputs():
            gpu = ScorpionGpuVectorEnv(4, copy=True, layout=layout, **options)
            kept = [(gpu.reset(seed=9), cpu.reset(seed=9))]
            masks = [(gpu.action_masks(), cpu.action_masks())]
            rng = np.random.default_rng(9)
            for step in range(40):
                if step == 20:
                    gpu.redeal([1])
                    cpu.redeal([1])
                    masks.append((gpu.action_masks(), cpu.action_masks()))
                acts = actions_for(step + 1, cpu.action_masks(), gpu, rng, cpu.n_actions)
                kept.append((gpu.step(acts), cpu.step(acts)))
                masks.append((gpu.action_masks(), cpu.action_masks()))
        for k, (g, c) in enumerate(kept):
            same_all(g, c, f"{layout}, step {k} read after the run")
        for k, (g, c) in enumerate(masks):
            same(g, c, f"{layout}, masks {k} read after the run")


def check_devices():
    """``device`` as ``"cuda"``, ``"cuda:0"`` or a ``torch.device``, through ``make_vec`` too;
    another index is refused with the way to choose a GPU."""
    import gymnasium as gym

    import shell_envs  # noqa: F401  (registers the ids)

    for device in ("cuda", "cuda:0", torch.device("cuda"), torch.device("cuda", 0)):
        env = gym.make_vec("shell_envs/Scorpion-v0", num_envs=2, device=device,
                           vectorization_mode="vector_entry_point")  # fmt: skip
        assert isinstance(env, ScorpionGpuVectorEnv), device
    with pytest.raises(ValueError, match="CUDA_VISIBLE_DEVICES"):
        ScorpionGpuVectorEnv(2, device="cuda:1")
    with pytest.raises(ValueError, match="a GPU env runs on device 'cuda'"):
        ScorpionGpuVectorEnv(2, device="cpu")


def check_jax_handoff():
    """A JAX user's path (JAX is in the test extra): results through DLPack with their
    shapes, dtypes and values, JAX arrays of actions back in, the CPU env's games."""
    import jax.dlpack
    import jax.numpy as jnp

    gpu = ScorpionGpuVectorEnv(4, max_moves=6)
    cpu = ScorpionVectorEnv(4, max_moves=6)
    obs, _ = gpu.reset(seed=3)
    cpu.reset(seed=3)
    for step in range(20):
        masks = jax.dlpack.from_dlpack(gpu.action_masks())
        assert masks.shape == (4, cpu.n_actions) and masks.dtype == jnp.bool_
        np.testing.assert_array_equal(np.asarray(masks), cpu.action_masks())
        planes = jax.dlpack.from_dlpack(obs)
        assert planes.shape == (4, 366) and planes.dtype == jnp.int8
        actions = jnp.argmax(masks, axis=1)  # an int32 JAX array: the first legal action
        out = gpu.step(actions)
        same_all(out, cpu.step(np.asarray(actions)), f"JAX actions, step {step}")
        obs = out[0]


CHECKS = {name[len("check_") :]: fn for name, fn in globals().items() if name.startswith("check_")}

if __name__ == "__main__":
    for name in sys.argv[1:] or [name for name in CHECKS if name != "lockstep_large"]:
        try:
            CHECKS[name]()
        except Exception:
            print(f"FAILED {name}\n{traceback.format_exc()}", flush=True)
        else:
            print(f"ok {name}", flush=True)
