"""The side-by-side comparison with the environments people would otherwise use.

One run measures the project's environments (single and batched) and, where installed,
PettingZoo ``connect_four_v3`` (AEC), OpenSpiel ``connect_four`` (with observation tensors),
pgx ``connect_four`` (jit + vmap on the CPU) and Gymnasium ``CartPole-v1``.  Every workload
runs a random-legal-move loop with observations; batched workloads sample their actions with
compiled code (ours with numba, pgx's with JAX), single ones with the same sampler
(``np.flatnonzero`` of the mask and the standard library's generator; CartPole with an
all-true mask).
A missing peer is reported as skipped.  Compile and warm-up time is kept apart.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from shell_envs.bench.speed import connect_four_moves, env_steps, what_the_shell_env_steps
from shell_envs.bench.timing import Rate, measure_side_by_side

if TYPE_CHECKING:
    from shell_envs.scorpion.vector import ScorpionVectorEnv

BATCH = 1024


@dataclass
class Workload:
    """A named throughput workload and the bytes of state it keeps per environment."""

    name: str
    unit: str
    make: Callable[[], Callable[[int], int]]
    requires: tuple[str, ...] = ()
    batch: int = 1
    memory: Callable[[], float] | None = None


def what_the_shell_batched(encoder: str = "planes", batch: int = BATCH) -> Callable[[int], int]:
    """Joint steps of ``vector_env(batch)``: both players' observations and masks every step."""
    from shell_envs import what_the_shell_v0
    from shell_envs.core.sampling import random_legal_actions

    env = what_the_shell_v0.vector_env(batch, obs_encoder=encoder)
    obs, _ = env.reset(seed=0)

    def run(n: int) -> int:
        nonlocal obs
        steps = 0
        while steps < n:
            actions = {
                "black": random_legal_actions(obs["black"]["action_mask"]),
                "white": random_legal_actions(obs["white"]["action_mask"]),
            }
            obs, _, _, _, _ = env.step(actions)
            steps += batch
        return steps

    return run


def scorpion_batched(batch: int = BATCH) -> Callable[[int], int]:
    """Steps of ``gym.make_vec("shell_envs/Scorpion-v0", num_envs=batch)``."""
    import gymnasium as gym

    from shell_envs.core.sampling import random_legal_actions

    env = cast("ScorpionVectorEnv", gym.make_vec("shell_envs/Scorpion-v0", num_envs=batch))
    env.reset(seed=0)

    def run(n: int) -> int:
        steps = 0
        while steps < n:
            env.step(random_legal_actions(env.action_masks()))
            steps += batch
        return steps

    return run


def masked_loop(env_id: str, seed: int = 0) -> Callable[[int], int]:
    """``run(n)``: ``n`` steps of the plain loop a user writes over ``gym.make(env_id)``:
    a uniformly random legal action from ``env.unwrapped.action_masks()`` (an env without
    masks, CartPole, gets an all-true mask: the same loop), ``step``, ``reset`` at the end."""
    import gymnasium as gym

    env = gym.make(env_id)  # the ids are registered: importing this module imported shell_envs

    env.reset(seed=seed)
    rng = random.Random(seed)
    all_legal = np.ones(cast(gym.spaces.Discrete, env.action_space).n, np.bool_)
    masks = getattr(env.unwrapped, "action_masks", lambda: all_legal)

    def run(n: int) -> int:
        for _ in range(n):
            legal = np.flatnonzero(masks())
            _, _, terminated, truncated, _ = env.step(int(legal[rng.randrange(len(legal))]))
            if terminated or truncated:
                env.reset()
        return n

    return run


def _openspiel_connect_four() -> Callable[[int], int]:
    """Moves of OpenSpiel's ``connect_four`` with an observation tensor each move."""
    import pyspiel

    game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(0)
    state = game.new_initial_state()

    def run(n: int) -> int:
        nonlocal state
        for _ in range(n):
            if state.is_terminal():
                state = game.new_initial_state()
            np.asarray(state.observation_tensor(state.current_player()))
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        return n

    return run


def _pgx_connect_four() -> Callable[[int], int]:
    """Steps of pgx ``connect_four``, jit + vmap, batch 1024, autoreset, on the CPU."""
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make("connect_four")
    init = jax.vmap(env.init)
    step = jax.vmap(env.step)

    @jax.jit
    def advance(state, key):
        k1, k2 = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k1, logits, axis=-1)
        state = step(state, action)
        fresh = init(jax.random.split(k2, BATCH))
        done = state.terminated | state.truncated

        def pick(new, old):
            return jnp.where(done.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)

        return jax.tree_util.tree_map(pick, fresh, state)

    key = jax.random.PRNGKey(0)
    state = jax.jit(init)(jax.random.split(key, BATCH))

    def run(n: int) -> int:
        nonlocal state, key
        steps = 0
        while steps < n:
            key, sub = jax.random.split(key)
            state = advance(state, sub)
            steps += BATCH
        jax.block_until_ready(state.observation)
        return steps

    return run


def _wts_memory() -> float:
    """Bytes of state per What the Shell game (board, egg queue, meta)."""
    from shell_envs.what_the_shell import rules

    return float(sum(a.nbytes for a in rules.new_state()))


def _wts_batched_memory() -> float:
    """Bytes per game of the batched env: the state, the info row and the rules' scratch."""
    from shell_envs.what_the_shell import rules

    extra = rules.INFO_SIZE * 4 + int(np.prod(rules.WORK_SHAPE))
    return _wts_memory() + extra


def _scorpion_memory() -> float:
    """Bytes of state per Scorpion game (tableau, lengths, flips, reserve, meta, undo history)."""
    from shell_envs.scorpion import rules

    return float(sum(a.nbytes for a in rules.new_arrays()))


def _pgx_memory() -> float:
    """Bytes of pgx ``connect_four`` state per environment."""
    import jax
    import pgx

    env = pgx.make("connect_four")
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 8))
    leaves = jax.tree_util.tree_leaves(state)
    return float(sum(leaf.nbytes for leaf in leaves) / 8)


WORKLOADS = [
    Workload(
        "what_the_shell parallel_env", "joint steps", what_the_shell_env_steps, memory=_wts_memory
    ),
    Workload(
        "what_the_shell vector_env N=1024",
        "joint steps",
        what_the_shell_batched,
        batch=BATCH,
        memory=_wts_batched_memory,
    ),
    Workload(
        "what_the_shell vector_env N=1024 planes_uint8",
        "joint steps",
        lambda: what_the_shell_batched("planes_uint8"),
        batch=BATCH,
        memory=_wts_batched_memory,
    ),
    Workload(
        "scorpion gym.make",
        "steps",
        lambda: env_steps("shell_envs/Scorpion-v0"),
        memory=_scorpion_memory,
    ),
    Workload(
        "scorpion make_vec N=1024", "steps", scorpion_batched, batch=BATCH, memory=_scorpion_memory
    ),
    Workload("pettingzoo connect_four_v3", "moves", connect_four_moves),
    Workload("openspiel connect_four", "moves", _openspiel_connect_four, requires=("pyspiel",)),
    Workload(
        "pgx connect_four N=1024",
        "steps",
        _pgx_connect_four,
        requires=("pgx", "jax"),
        batch=BATCH,
        memory=_pgx_memory,
    ),
    Workload("gymnasium CartPole-v1", "steps", lambda: env_steps("CartPole-v1")),
    Workload(
        "scorpion gym.make, action_masks() loop",
        "steps",
        lambda: masked_loop("shell_envs/Scorpion-v0"),
    ),
    Workload("gymnasium CartPole-v1, the same loop", "steps", lambda: masked_loop("CartPole-v1")),
]

RATIOS = [
    ("what_the_shell parallel_env", "pettingzoo connect_four_v3", 5.0),
    ("what_the_shell vector_env N=1024", "pgx connect_four N=1024", 1.0),
    ("what_the_shell vector_env N=1024 planes_uint8", "pgx connect_four N=1024", 1.0),
    ("scorpion gym.make", "gymnasium CartPole-v1", 1.0),
    ("scorpion gym.make, action_masks() loop", "gymnasium CartPole-v1, the same loop", 1.2),
]
ABSOLUTE = [("scorpion make_vec N=1024", 1_000_000.0)]


def run_peers(seconds: float = 1.0, repeats: int = 5) -> tuple[dict[str, Rate], list[str], dict]:
    """Measure every available workload side by side; returns rates, skipped names, memory."""
    available = [w for w in WORKLOADS if all(importlib.util.find_spec(m) for m in w.requires)]
    skipped = [w.name for w in WORKLOADS if w not in available]
    rates = measure_side_by_side({w.name: (w.unit, w.make()) for w in available}, seconds, repeats)
    memory = {w.name: w.memory() for w in available if w.memory is not None}
    return rates, skipped, memory


def format_peers(rates: dict[str, Rate], skipped: list[str], memory: dict) -> str:
    """The results table (Markdown), the goal ratios and the skipped peers."""
    lines = [
        "| environment | per second (median) | unit | warm-up + compile (s) | state bytes/env |",
        "|---|---:|---|---:|---:|",
    ]
    for name, rate in rates.items():
        mem = f"{memory[name]:,.0f}" if name in memory else "-"
        lines.append(f"| {name} | {rate.median:,.0f} | {rate.unit} | {rate.warmup_s:.2f} | {mem} |")
    lines.append("")
    for top, bottom, goal in RATIOS:
        if top in rates and bottom in rates:
            ratio = rates[top].median / rates[bottom].median
            verdict = "met" if ratio >= goal else "NOT met"
            lines.append(f"- {top} / {bottom}: **{ratio:.2f}×** (goal ≥ {goal}×: {verdict})")
    for name, goal in ABSOLUTE:
        if name in rates:
            verdict = "met" if rates[name].median >= goal else "NOT met"
            lines.append(
                f"- {name}: **{rates[name].median:,.0f}**/s (goal ≥ {goal:,.0f}: {verdict})"
            )
    if skipped:
        lines.append(f"- skipped (not installed): {', '.join(skipped)}")
    return "\n".join(lines)
