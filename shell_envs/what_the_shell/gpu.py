"""N What the Shell games on a CUDA device, one GPU thread per game, from the same rule code.

The step kernel runs `shell_envs.what_the_shell.vector.step_game` for each game, the
function the CPU batch loop runs, which calls `rules.play_round` and the encoders'
``_fill``: the rules are written once and compiled for both targets by numba-cuda (all of it
through `shell_envs.core.cuda`).  One launch per step plays the round, resets finished
games (Gymnasium's ``NEXT_STEP`` autoreset) and writes both players' observations and masks.

State lives on the device as struct-of-arrays by default (game index last: neighbouring
threads read neighbouring bytes); ``layout="game_major"`` keeps the CPU env's ``(N, ...)``
rows instead, for comparison (``benchmarks/gpu.py`` measures both).  Observations, masks,
rewards, flags and infos come out ``(N, ...)`` as torch tensors on the device that view the
env's buffers: valid until the next ``step`` or ``reset`` (``copy=True`` clones them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shell_envs.core import cuda
from shell_envs.core.sampling import random_legal
from shell_envs.core.validation import choice
from shell_envs.what_the_shell import rules, vector
from shell_envs.what_the_shell.encoders import (
    N_PLANES,
    FlatEncoder,
    PlanesEncoder,
    PlanesUint8Encoder,
    fill_flat_pair,
)
from shell_envs.what_the_shell.env import AGENTS, DEFAULT_MAX_ROUNDS

LAYOUTS = ("soa", "game_major")
FLAT = 2  # the encoder kind the GPU kernel adds to vector's PLANES and PLANES_UINT8
_KINDS = {PlanesEncoder: vector.PLANES, PlanesUint8Encoder: vector.PLANES_UINT8, FlatEncoder: FLAT}
_WORK_ROWS, _WORK_WIDTH = rules.WORK_SHAPE


def _step_soa(i, board, eggs, meta, info, work, black, white, autoreset, max_rounds, kind, obs_b,
              obs_w, masks, rewards, flags, report, flat_b, flat_w):  # fmt: skip
    """Game ``i`` of a step, state as struct-of-arrays (``board[cell, game]`` ...)."""
    vector.step_game(i, board[:, i], eggs[:, i], meta[:, i], info[:, i], work[:, :, i], black,
                     white, autoreset, max_rounds, kind, obs_b[i], obs_w[i], masks[0, i],
                     masks[1, i], rewards, flags, report)  # fmt: skip
    if kind == FLAT:  # obs_b is scratch planes then
        fill_flat_pair(board[:, i], eggs[:, i], meta[:, i], obs_b[i], flat_b[i], flat_w[i])


def _step_game_major(i, board, eggs, meta, info, work, black, white, autoreset, max_rounds, kind,
                     obs_b, obs_w, masks, rewards, flags, report, flat_b, flat_w):  # fmt: skip
    """Game ``i`` of a step, state in game-major rows (``board[game, cell]`` ...)."""
    vector.step_game(i, board[i], eggs[i], meta[i], info[i], work[i], black, white, autoreset,
                     max_rounds, kind, obs_b[i], obs_w[i], masks[0, i], masks[1, i], rewards,
                     flags, report)  # fmt: skip
    if kind == FLAT:  # obs_b is scratch planes then
        fill_flat_pair(board[i], eggs[i], meta[i], obs_b[i], flat_b[i], flat_w[i])


def _sample(i, masks, states, black, white):
    """A random legal action for each player of game ``i`` from its masks."""
    black[i] = random_legal(masks[0, i], states, i)
    white[i] = random_legal(masks[1, i], states, i)


STEP_KERNELS = {"soa": cuda.Kernel(_step_soa), "game_major": cuda.Kernel(_step_game_major)}
SAMPLE_KERNEL = cuda.Kernel(_sample)


def _state_shapes(n: int, layout: str) -> dict[str, tuple[int, ...]]:
    """The shapes of the state arrays of ``n`` games in ``layout``."""
    per_game = {
        "board": (rules.CELLS,),
        "eggs": (rules.CELLS,),
        "meta": (rules.META_SIZE,),
        "info": (rules.INFO_SIZE,),
        "work": (_WORK_ROWS, _WORK_WIDTH),
    }
    if layout == "soa":
        return {name: (*shape, n) for name, shape in per_game.items()}
    return {name: (n, *shape) for name, shape in per_game.items()}


_STATE_DTYPES = {
    "board": np.int8,
    "eggs": np.int8,
    "meta": np.int32,
    "info": np.int32,
    "work": np.int8,
}


def kernel_signatures() -> list[tuple[cuda.Kernel, tuple[Any, ...]]]:
    """Every kernel of this module with the numba argument types it is launched with (after
    ``n``), once per layout and encoder kind: what a PTX compile test must cover."""
    from numba import types
    from numba.np.numpy_support import from_dtype

    def array(dtype: Any, ndim: int) -> Any:
        return types.Array(from_dtype(np.dtype(dtype)), ndim, "C")

    out = []
    ndims = {"board": 1, "eggs": 1, "meta": 1, "info": 1, "work": 2}
    for kernel in STEP_KERNELS.values():
        state = tuple(array(_STATE_DTYPES[k], ndims[k] + 1) for k in ndims)
        for obs_dtype in (np.float32, np.uint8):
            args = (
                *state,
                array(np.int64, 1),  # black
                array(np.int64, 1),  # white
                array(np.bool_, 1),  # autoreset
                types.int64,  # max_rounds
                types.int64,  # kind
                array(obs_dtype, 3),  # obs_b (N, 5, 81)
                array(obs_dtype, 3),  # obs_w
                array(np.int8, 3),  # masks (2, N, 81)
                array(np.float32, 2),  # rewards (2, N)
                array(np.bool_, 2),  # flags (4, N)
                array(np.int32, 2),  # report
                array(np.float32, 2),  # flat_b (N, 325)
                array(np.float32, 2),  # flat_w
            )
            out.append((kernel, args))
    out.append(
        (
            SAMPLE_KERNEL,
            (array(np.int8, 3), array(np.uint64, 1), array(np.int64, 1), array(np.int64, 1)),
        )  # fmt: skip
    )
    return out


class WhatTheShellGpuVectorEnv:
    """``num_envs`` What the Shell games on a CUDA device; the API of
    [`WhatTheShellVectorEnv`][shell_envs.what_the_shell.vector.WhatTheShellVectorEnv] with torch
    tensors.

    The same options, spaces, rewards, flags, infos and autoreset (``NEXT_STEP``) as the CPU
    batched env, and for the same actions the same games.  ``step`` takes each agent's
    actions as any CUDA array (torch, CuPy, JAX; through ``__cuda_array_interface__`` or
    DLPack) or a host array; it returns torch tensors on the device that view the env's
    buffers, valid until the next ``step`` or ``reset`` (``copy=True``: fresh clones).  The
    built-in encoders ``planes``, ``planes_uint8`` and ``flat`` run on the device; other
    encoders are refused.  `sample_actions` draws random legal actions on the device.
    ``illegal_action="raise"`` checks the actions on the host first (one copy per step);
    ``"lose"`` (default) never waits for the GPU.
    """

    metadata = vector.WhatTheShellVectorEnv.metadata
    autoreset_mode = vector.WhatTheShellVectorEnv.autoreset_mode

    def __init__(
        self,
        num_envs: int,
        obs_encoder: Any = "planes",
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        illegal_action: str = "lose",
        copy: bool = False,
        layout: str = "soa",
    ) -> None:
        vector.configure(self, num_envs, obs_encoder, max_rounds, illegal_action, copy)
        self.layout = choice("layout", layout, LAYOUTS)
        if type(self.encoder) not in _KINDS:
            raise ValueError(
                "on the GPU, obs_encoder must be one of the built-in encoders 'planes', "
                f"'planes_uint8' or 'flat' (they run on the device), got {obs_encoder!r}"
            )
        self._kind = _KINDS[type(self.encoder)]
        cuda.require()
        torch = cuda._torch()
        self.device = torch.device("cpu" if cuda.simulated() else "cuda")
        n = self.num_envs
        shapes = _state_shapes(n, self.layout)
        self.state = {name: cuda.empty(shapes[name], _STATE_DTYPES[name]) for name in shapes}
        self._work_zeros()
        self._autoreset = cuda.device_array(np.ones(n, np.bool_))  # the first step resets
        self._no_actions = cuda.device_array(np.zeros(n, np.int64))
        planes_dtype = np.float32 if self._kind == FLAT else self.encoder.space.dtype
        planes = [cuda.empty((n, N_PLANES, rules.CELLS), planes_dtype) for _ in range(2)]
        if self._kind == FLAT:  # one scratch for both players' planes
            planes[1] = planes[0]
        self._planes = tuple(planes)
        flat_width = self.encoder.space.shape[0] if self._kind == FLAT else 1
        self._flat = (
            cuda.empty((n, flat_width), np.float32),
            cuda.empty((n, flat_width), np.float32),
        )
        self._masks = cuda.empty((2, n, rules.CELLS), np.int8)
        self._rewards = cuda.empty((2, n), np.float32)
        self._flags = cuda.empty((len(vector.FLAG_FIELDS), n), np.bool_)
        self._report = cuda.empty((len(vector.REPORT_FIELDS), n), np.int32)
        self._rng = cuda.random_states(n, None)
        self._picks = (cuda.empty(n, np.int64), cuda.empty(n, np.int64))
        self._pick_tensors = tuple(cuda.as_torch(a) for a in self._picks)
        self._tensors = self._views()
        self.seeds: list[int] | None = None

    def _work_zeros(self) -> None:
        """Zero the rules' scratch (they keep it zeroed where they must)."""
        shape = _state_shapes(self.num_envs, self.layout)["work"]
        self.state["work"] = cuda.device_array(np.zeros(shape, np.int8))

    def _views(self) -> dict[str, Any]:
        """The torch tensors viewing the output buffers, each result's view made once (indexing
        a tensor costs microseconds of host time; a step should cost little more than its
        launches)."""
        n = self.num_envs
        shape = (n, *self.encoder.space.shape)
        source = self._flat if self._kind == FLAT else self._planes
        obs_b, obs_w = (cuda.as_torch(a).reshape(shape) for a in source)
        masks = cuda.as_torch(self._masks)
        rewards = cuda.as_torch(self._rewards)
        flags = cuda.as_torch(self._flags)
        report = cuda.as_torch(self._report)
        infos = vector.infos_of(report, flags)
        return {
            "black": {"observation": obs_b, "action_mask": masks[0]},
            "white": {"observation": obs_w, "action_mask": masks[1]},
            "rewards": {"black": rewards[0], "white": rewards[1]},
            "terminations": {"black": flags[0], "white": flags[1]},
            "truncations": {"black": flags[2], "white": flags[3]},
            "infos": infos,
        }

    def reset(
        self, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every game to the empty board; ``seed`` (int or one per game) seeds sampling
        (`sample_actions` and ``action_space``)."""
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; the batched env takes none")
        if seed is not None:
            seeds = vector.reset_seeds(seed, self.num_envs)
            self.seeds = seeds
            self.action_space.seed(seeds[0])
            self._rng = cuda.random_states(self.num_envs, seeds[0])
        self._autoreset = cuda.device_array(np.ones(self.num_envs, np.bool_))
        self._launch_step(self._no_actions, self._no_actions)
        observations, _, _, _, infos = self._results()
        return observations, infos

    def step(self, actions: dict[str, Any]):
        """One round in every game: ``actions = {"black": int[N], "white": int[N]}`` (any CUDA
        array, DLPack producer or host array of integers)."""
        if not isinstance(actions, dict) or set(actions) != set(AGENTS):
            raise ValueError(
                "step() takes a dict with an array of N actions for each of 'black' and "
                f"'white', got {actions!r}"
            )
        black, white = (self._device_actions(actions[agent], agent) for agent in AGENTS)
        if self.illegal_action == "raise":
            self._raise_if_illegal(black, white)
        self._launch_step(black, white)
        return self._results()

    def _device_actions(self, values: Any, agent: str) -> Any:
        """One agent's actions as an ``int64`` device array (the sampler's own, as they are)."""
        for picks, tensor in zip(self._picks, self._pick_tensors, strict=True):
            if values is tensor:
                return picks
        return cuda.integer_array(values, (self.num_envs,), f"{agent} actions")

    def sample_actions(self) -> dict[str, Any]:
        """A uniformly random legal action per game and player (``int64`` tensors on the
        device, from the last step's masks), drawn on the device; valid until the next call."""
        SAMPLE_KERNEL(self.num_envs, self._masks, self._rng, *self._picks)
        black, white = self._pick_tensors
        return {"black": black, "white": white}

    def action_masks(self) -> Any:
        """``int8[N, 81]`` tensor: 1 on the empty cells of each game (both players' legal
        actions)."""
        board = cuda.as_torch(self.state["board"])
        if self.layout == "soa":
            board = board.T
        return (board == rules.EMPTY).to(cuda._torch().int8)

    def _launch_step(self, black: Any, white: Any) -> None:
        """One launch: every game stepped (or reset) and observed."""
        s = self.state
        STEP_KERNELS[self.layout](self.num_envs, s["board"], s["eggs"], s["meta"], s["info"],
                                  s["work"], black, white, self._autoreset, self.max_rounds,
                                  self._kind, *self._planes, self._masks, self._rewards,
                                  self._flags, self._report, *self._flat)  # fmt: skip

    def _results(self) -> tuple[dict[str, Any], ...]:
        """This step's results in the CPU env's form: the views (fresh clones with
        ``copy=True``), in fresh dicts."""
        t = self._tensors

        def fresh(views: dict[str, Any]) -> dict[str, Any]:
            return {k: v.clone() if self.copy else v for k, v in views.items()}

        return (
            {agent: fresh(t[agent]) for agent in AGENTS},
            fresh(t["rewards"]),
            fresh(t["terminations"]),
            fresh(t["truncations"]),
            fresh(t["infos"]),
        )

    def _raise_if_illegal(self, black: Any, white: Any) -> None:
        """``illegal_action="raise"``: the CPU env's check, on host copies (waits for the GPU)."""
        board = cuda.from_device(self.state["board"])
        if self.layout == "soa":
            board = np.ascontiguousarray(board.T)
        vector.raise_if_illegal(
            board,
            cuda.from_device(self._autoreset),
            cuda.from_device(black),
            cuda.from_device(white),
        )

    def close(self) -> None:
        """Nothing to release (device memory goes with the env); present for API symmetry."""
