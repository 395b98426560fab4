"""N What the Shell games on a CUDA device, one GPU thread per game, from the same rule code.

The step kernel runs `shell_envs.what_the_shell.kernels.step_game` for each game, the
function the CPU batch loop runs, which calls `rules.play_round` and the encoders'
``fill_planes``: the rules are written once and compiled for both targets by numba-cuda (all of it
through `shell_envs.core.cuda`).  One launch per step plays the round, resets finished
games (Gymnasium's ``NEXT_STEP`` autoreset) and writes both players' observations and masks;
`WhatTheShellGpuVectorEnv.sample_actions` is the only other launch of a random-play loop.
Both are prepared once (`shell_envs.core.cuda.Launch`): a step costs the host microseconds.
The host side shared with the CPU env (keywords, spaces, ``reset`` and ``step`` checks, infos)
is `shell_envs.what_the_shell.batch`'s.

``layout="soa"`` (default) keeps the game index last in everything the kernel writes, state
and results alike: observations ``(5, 81, N)``, masks ``(2, 81, N)``, so neighbouring threads
write neighbouring bytes (coalesced stores, checked from the PTX by
``benchmarks/gpu_kernels.py``); users get batch-first views of them, ``(N, 5, 9, 9)`` and
``(N, 81)``, which are not contiguous (``.contiguous()`` makes a copy that is).
``layout="game_major"`` keeps the CPU env's ``(N, ...)`` rows for comparison
(``benchmarks/gpu.py`` measures both).  With ``copy=False`` (default) the results are views of
the env's buffers that the next ``step`` or ``reset`` writes again; with ``copy=True`` every
step's kernel writes into fresh buffers (no copy made), so nothing returned is written again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shell_envs.core import cuda
from shell_envs.core.sampling import random_legal
from shell_envs.core.validation import reset_needed
from shell_envs.what_the_shell import batch, kernels, rules
from shell_envs.what_the_shell.encoders import (
    N_PLANES,
    FlatEncoder,
    PlanesEncoder,
    PlanesUint8Encoder,
    fill_flat_pair,
)
from shell_envs.what_the_shell.env import AGENTS
from shell_envs.what_the_shell.kernels import FLAT, PLANES, PLANES_UINT8

LAYOUTS = cuda.LAYOUTS
_KINDS = {PlanesEncoder: PLANES, PlanesUint8Encoder: PLANES_UINT8, FlatEncoder: FLAT}


def _step_body(part):
    """The step kernel's body for a layout whose game parts ``part`` gives (`cuda.game_rows`):
    game ``i`` of a step (`kernels.step_game`), and its flat observations with ``FLAT``;
    ``masks`` is ``(player, ...)`` in both layouts."""

    def step(i, board, eggs, meta, info, work, black, white, autoreset, max_rounds, kind, obs_b,
             obs_w, masks, rewards, flags, report, flat_b, flat_w):  # fmt: skip
        s = (part(board, i), part(eggs, i), part(meta, i), part(info, i), part(work, i))
        out = (part(obs_b, i), part(obs_w, i), part(masks[0], i), part(masks[1], i))
        kernels.step_game(
            i, s, black, white, autoreset, max_rounds, kind, out, rewards, flags, report
        )
        if kind == FLAT:  # obs_b is scratch planes then
            g_board, g_eggs, g_meta, _, _ = s
            g_obs_b, _, _, _ = out
            fill_flat_pair(g_board, g_eggs, g_meta, g_obs_b, part(flat_b, i), part(flat_w, i))

    return step


def _sample_body(part):
    """The sampler's body for a layout (``part``, as `_step_body`): a random legal action for
    each player of game ``i``."""

    def sample(i, masks, states, black, white):
        black[i] = random_legal(part(masks[0], i), states, i)
        white[i] = random_legal(part(masks[1], i), states, i)

    return sample


STEP_KERNELS = cuda.layout_kernels(_step_body, "step")
SAMPLE_KERNELS = cuda.layout_kernels(_sample_body, "sample")
# the step kernel's arguments after n, by name: what `Launch.bind` and the tests index
STEP_ARGS = ("board", "eggs", "meta", "info", "work", "black", "white", "autoreset",
             "max_rounds", "kind", "obs_b", "obs_w", "masks", "rewards", "flags", "report",
             "flat_b", "flat_w")  # fmt: skip
OUTPUTS = ("obs_b", "obs_w", "masks", "rewards", "flags", "report", "flat_b", "flat_w")


def output_shapes(n: int, layout: str, flat_width: int) -> dict[str, tuple[int, ...]]:
    """The shapes of the step kernel's outputs for ``n`` games in ``layout``: observations and
    masks game index last in ``"soa"``, first in ``"game_major"``; the per-game vectors
    (rewards, flags, report) are ``(rows, N)`` in both."""
    return {
        "obs_b": cuda.batch_shape(n, (N_PLANES, rules.CELLS), layout),
        "obs_w": cuda.batch_shape(n, (N_PLANES, rules.CELLS), layout),
        "masks": (2, *cuda.batch_shape(n, (rules.CELLS,), layout)),
        "rewards": (2, n),
        "flags": (len(batch.FLAG_FIELDS), n),
        "report": (len(batch.REPORT_FIELDS), n),
        "flat_b": cuda.batch_shape(n, (flat_width,), layout),
        "flat_w": cuda.batch_shape(n, (flat_width,), layout),
    }


def kernel_signatures() -> list[tuple[cuda.Kernel, tuple[Any, ...]]]:
    """Every kernel of this module with the numba argument types it is launched with (after
    ``n``), once per layout and observation dtype: what a PTX compile test must cover."""
    from numba import types
    from numba.np.numpy_support import from_dtype

    def array(dtype: Any, ndim: int) -> Any:
        return types.Array(from_dtype(np.dtype(dtype)), ndim, "C")

    out = []
    for layout, kernel in STEP_KERNELS.items():
        state = tuple(array(spec.dtype, len(spec.shape) + 1) for spec in kernels.STATE)
        for obs_dtype in (np.float32, np.uint8):
            args = (
                *state,
                array(np.int64, 1),  # black
                array(np.int64, 1),  # white
                array(np.bool_, 1),  # autoreset
                types.int64,  # max_rounds
                types.int64,  # kind
                array(obs_dtype, 3),  # obs_b
                array(obs_dtype, 3),  # obs_w
                array(np.int8, 3),  # masks
                array(np.float32, 2),  # rewards (2, N)
                array(np.bool_, 2),  # flags (6, N)
                array(np.int32, 2),  # report
                array(np.float32, 2),  # flat_b
                array(np.float32, 2),  # flat_w
            )
            out.append((kernel, args))
        masks = (array(np.int8, 3), array(np.uint64, 1), array(np.int64, 1), array(np.int64, 1))
        out.append((SAMPLE_KERNELS[layout], masks))
    return out


class WhatTheShellGpuVectorEnv(cuda.DeviceKeywords, batch.BatchedWhatTheShellEnv):
    """``num_envs`` What the Shell games on a CUDA device; the API of
    [`WhatTheShellVectorEnv`][shell_envs.what_the_shell.vector.WhatTheShellVectorEnv] with torch
    tensors.

    The same options, spaces, rewards, flags, infos and autoreset (``NEXT_STEP``) as the CPU
    batched env, and for the same actions the same games.  ``step`` takes each agent's
    actions as any CUDA array (torch, CuPy, JAX; through ``__cuda_array_interface__`` or
    DLPack) or a host array; it returns torch tensors on ``device`` (``"cuda"``,
    ``"cuda:N"`` or a ``torch.device``; see `shell_envs.core.cuda.torch_device`).  With
    ``copy=False`` they view the env's buffers, which the next ``step`` or ``reset`` writes
    again; ``copy=True`` gives each step fresh buffers that the kernel writes directly.  The
    built-in encoders ``planes``, ``planes_uint8`` and ``flat`` run on the device; other
    encoders are refused.  `sample_actions` draws random legal actions on the device.
    ``illegal_action="raise"`` checks the actions on the host first (one copy per step);
    ``"lose"`` (default) never waits for the GPU.
    """

    def _allocate(self) -> None:
        """The device state, result buffers, generators and prepared launches."""
        if type(self.encoder) not in _KINDS:
            raise ValueError(
                "on the GPU, obs_encoder must be one of the built-in encoders 'planes', "
                f"'planes_uint8' or 'flat' (they run on the device), got "
                f"{self.options.obs_encoder!r}"
            )
        self._kind = _KINDS[type(self.encoder)]
        self.check_device_keywords()
        n, layout = self.num_envs, self.layout
        self.state = {
            spec.name: cuda.device_array(cuda.fresh_batch(spec, n, layout))
            for spec in kernels.STATE
        }
        self._autoreset = cuda.device_array(np.ones(n, np.bool_))  # the first step resets
        self._no_actions = cuda.device_array(np.zeros(n, np.int64))
        self._flat_width = self.encoder.space.shape[0] if self._kind == FLAT else 1
        obs_dtype = np.float32 if self._kind == FLAT else self.encoder.space.dtype
        dtypes = (obs_dtype, obs_dtype, np.int8, np.float32, np.bool_, np.int32, np.float32,
                  np.float32)  # fmt: skip
        self._dtypes = dict(zip(OUTPUTS, dtypes, strict=True))
        self._shapes = output_shapes(n, layout, self._flat_width)
        unused = ("obs_b", "obs_w") if self._kind == FLAT else ("flat_b", "flat_w")
        self._returned = tuple(name for name in OUTPUTS if name not in unused)  # the rest: scratch
        self._rng = cuda.random_states(n, None)
        self._picks = (cuda.empty(n, np.int64), cuda.empty(n, np.int64))
        self._pick_tensors = tuple(cuda.as_torch(a) for a in self._picks)
        buffers = self._fresh_outputs()
        if self._kind == FLAT:  # one scratch for both players' planes, never returned
            buffers["obs_w"] = buffers["obs_b"]
        s = self.state
        self._step = STEP_KERNELS[layout].prepare(
            n, s["board"], s["eggs"], s["meta"], s["info"], s["work"], self._no_actions,
            self._no_actions, self._autoreset, self.max_rounds, self._kind,
            *(buffers[name][0] for name in OUTPUTS),
        )  # fmt: skip
        self._sample = SAMPLE_KERNELS[layout].prepare(n, buffers["masks"][0], self._rng,
                                                      *self._picks)  # fmt: skip
        self._tensors = self._views({name: tensor for name, (_, tensor) in buffers.items()})
        self.seeds = None  # until a reset with a seed

    def _fresh_outputs(self, names: tuple[str, ...] = OUTPUTS) -> dict[str, tuple[Any, Any]]:
        """A fresh buffer for each output ``names`` the kernel writes: ``name: (argument,
        tensor)``."""
        return {name: cuda.output(self._shapes[name], self._dtypes[name]) for name in names}

    def _views(self, tensors: dict[str, Any]) -> dict[str, Any]:
        """The results as batch-first torch tensors viewing the output ``tensors`` (made once
        per set of buffers: indexing a tensor costs microseconds of host time)."""
        obs_b, obs_w = (tensors[k] for k in (("flat_b", "flat_w") if self._kind == FLAT
                                              else ("obs_b", "obs_w")))  # fmt: skip
        masks = tensors["masks"]
        if self.layout == "soa":  # the game index last, viewed first
            obs_b, obs_w, masks = obs_b.movedim(-1, 0), obs_w.movedim(-1, 0), masks.movedim(-1, 1)
        shape = self.encoder.space.shape
        if len(shape) == 3:  # planes: (N, 5, 81) viewed as (N, 5, 9, 9)
            obs_b, obs_w = obs_b.unflatten(2, shape[1:]), obs_w.unflatten(2, shape[1:])
        rewards, flags = tensors["rewards"], tensors["flags"]
        return {
            "black": {"observation": obs_b, "action_mask": masks[0]},
            "white": {"observation": obs_w, "action_mask": masks[1]},
            "rewards": {"black": rewards[0], "white": rewards[1]},
            "terminations": {"black": flags[0], "white": flags[1]},
            "truncations": {"black": flags[2], "white": flags[3]},
            "infos": batch.infos_of(tensors["report"], flags),
        }

    def reset(
        self, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every game to the empty board; ``seed`` (int or one per game) seeds sampling
        (`sample_actions` and ``action_space``)."""
        seeds = self._seeds(seed, options)
        if seeds is not None:
            self._rng.copy_to_device(cuda.random_states(self.num_envs, seeds[0]))
        self._autoreset.copy_to_device(np.ones(self.num_envs, np.bool_))
        observations, _, _, _, infos = self._play(self._no_actions, self._no_actions)
        self._started = True
        return observations, infos

    def _as_actions(self, values: Any, agent: str) -> Any:
        """One agent's actions as an ``int64`` array on the device (the sampler's own, as
        they are)."""
        for picks, tensor in zip(self._picks, self._pick_tensors, strict=True):
            if values is tensor:
                return picks
        return cuda.integer_array(values, (self.num_envs,), f"{agent} actions")

    def sample_actions(self) -> dict[str, Any]:
        """A uniformly random legal action per game and player (``int64`` tensors on the
        device, from the last step's masks), drawn on the device; valid until the next call
        (before the first ``reset``: ``ResetNeeded``)."""
        if not self._started:
            raise reset_needed("sample_actions()")
        self._sample()
        black, white = self._pick_tensors
        return {"black": black, "white": white}

    def action_masks(self) -> Any:
        """``int8[N, 81]`` tensor: 1 on the empty cells of each game (both players' legal
        actions); before the first ``reset``, ``ResetNeeded``."""
        if not self._started:
            raise reset_needed("action_masks()")
        board = cuda.as_torch(self.state["board"])
        if self.layout == "soa":
            board = board.T
        return (board == rules.EMPTY).to(cuda.torch().int8)

    def _play(
        self, black: Any, white: Any
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """One launch: every game stepped (or reset) and observed, into fresh buffers with
        ``copy=True``; its results (`_results`)."""
        step = self._step
        step.bind(STEP_ARGS.index("black"), black)
        step.bind(STEP_ARGS.index("white"), white)
        if self.copy:  # the returned results only; the flat encoder's planes are scratch
            buffers = self._fresh_outputs(self._returned)
            for name, (argument, _) in buffers.items():
                step.bind(STEP_ARGS.index(name), argument)
            self._sample.bind(0, buffers["masks"][0])
            self._tensors = self._views({name: tensor for name, (_, tensor) in buffers.items()})
        step()
        return self._results()

    def _results(
        self,
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """This step's results in the CPU env's form: the views, in fresh dicts."""
        t = self._tensors
        return (
            {agent: dict(t[agent]) for agent in AGENTS},
            dict(t["rewards"]),
            dict(t["terminations"]),
            dict(t["truncations"]),
            dict(t["infos"]),
        )

    def _raise_if_illegal(self, black: Any, white: Any) -> None:
        """``illegal_action="raise"``: the CPU env's check, on host copies (waits for the GPU)."""
        batch.raise_if_illegal(
            cuda.game_major_copy(self.state["board"], self.layout),
            cuda.from_device(self._autoreset),
            cuda.from_device(black),
            cuda.from_device(white),
        )

    def close(self) -> None:
        """Nothing to release (device memory goes with the env); present for API symmetry."""
