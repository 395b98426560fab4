"""N Scorpion games on a CUDA device, one GPU thread per game, from the same rule code.

``gym.make_vec("shell_envs/Scorpion-v0", num_envs=N, vectorization_mode="vector_entry_point",
device="cuda")``.  The step kernel runs `shell_envs.scorpion.kernels.step_game` for each
game, the very function the CPU batch loop runs (it calls `rules.step`, the deal and the
encoders), compiled for the GPU by numba-cuda through `shell_envs.core.cuda`.  One launch
per step plays every game's action, refreshes its mask, encodes its observation and deals a
new game where the last one ended (Gymnasium's ``NEXT_STEP`` autoreset), shuffling the deck on
the device with the same generator as the CPU (`rules.shuffled_deck`).

Deal numbers are drawn on the device too, from each env's own generator, by the function the
CPU batch loop runs (`shell_envs.scorpion.deals.next_deal`: numpy's PCG64, compiled).  So
for the same seeds and actions the GPU env plays the CPU env's games, autoresets included.

State lives on the device as struct-of-arrays by default (game index last: ``tab[c, d, i]``,
so neighbouring threads read neighbouring bytes), and so do the results the kernels write
(observations ``(size, N)``, masks ``(A, N)``, rewards, flags and infos ``(N,)`` rows), which
users get as batch-first views (not contiguous); ``layout="game_major"`` keeps the CPU env's
``(N, ...)`` rows instead, for comparison (``benchmarks/gpu.py`` measures both).  The step
launch and the sampler's are prepared once (`shell_envs.core.cuda.Launch`), and the kernels
write the infos too, so a random-play step is two launches.  With ``copy=False`` (default)
results view the env's buffers, written again by the next ``step``, ``reset`` or ``redeal``;
with ``copy=True`` each step's kernel writes fresh buffers (the masks, which the rules also
read as state, are copied).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from shell_envs.core import cuda
from shell_envs.core.errors import IllegalMove
from shell_envs.core.pcg64 import GEN_ROWS, generator_columns
from shell_envs.core.sampling import random_legal
from shell_envs.core.validation import reset_needed
from shell_envs.scorpion import kernels
from shell_envs.scorpion import rules as engine
from shell_envs.scorpion.batch import BatchedScorpionEnv
from shell_envs.scorpion.deals import next_deal

__all__ = ["LAYOUTS", "ScorpionGpuVectorEnv", "kernel_signatures"]

LAYOUTS = cuda.LAYOUTS


def _draw(i, which, gen, pool, use_pool, deals):
    """``deals[i]``: the next deal number of every game ``i`` with ``which[i]`` set."""
    if which[i]:
        deals[i] = next_deal(gen[:, i], pool, use_pool)


def _reseed(i, seeded, fresh, gen):
    """Game ``i``'s generator set to ``fresh[:, i]`` where ``seeded[i]``."""
    if seeded[i]:
        for r in range(GEN_ROWS):
            gen[r, i] = fresh[r, i]


def _step_body(part):
    """The step kernel's body for a layout whose game parts ``part`` gives (`cuda.game_rows`):
    game ``i`` of a step (`kernels.step_game`) and its infos; generators are columns in both
    layouts."""

    def step(i, tab, lens, fd, reserve, meta, hist, masks, obs, cards, actions, allow_undo, steps,
             max_moves, win_reward, rule, autoreset, deals, kind, codes, rewards, terminated,
             truncated, gen, pool, use_pool, counts, flags, code, deal):  # fmt: skip
        g_meta = part(meta, i)
        s = (part(tab, i), part(lens, i), part(fd, i), part(reserve, i), g_meta, part(hist, i))
        rows = (part(masks, i), part(obs, i), part(cards, i))
        settings = (rule, allow_undo, max_moves, win_reward, kind, True)
        draw = (gen[:, i], pool, use_pool)
        codes[i], rewards[i], terminated[i], truncated[i] = kernels.step_game(
            i, s, rows, actions[i], settings, draw, steps, autoreset, deals
        )
        kernels.fill_infos(i, g_meta, codes, deals, counts, flags, code, deal)

    return step


def _reset_body(part):
    """The reset kernel's body for a layout (``part``, as `_step_body`): deal ``deals[i]`` in
    game ``i`` if ``which[i]``, with its infos."""

    def reset(i, tab, lens, fd, reserve, meta, hist, masks, obs, cards, which, deals, rule,
              allow_undo, kind, steps, autoreset, codes, counts, flags, code, deal):  # fmt: skip
        if which[i]:
            g_meta = part(meta, i)
            s = (part(tab, i), part(lens, i), part(fd, i), part(reserve, i), g_meta, part(hist, i))
            rows = (part(masks, i), part(obs, i), part(cards, i))
            kernels.reset_game(s, rows, deals[i], rule, allow_undo, kind)
            steps[i] = 0
            autoreset[i] = False
            codes[i] = engine.OK
            kernels.fill_infos(i, g_meta, codes, deals, counts, flags, code, deal)

    return reset


def _check_body(part):
    """The check kernel's body for a layout (``part``, as `_step_body`): ``codes[i]``, the
    check code of game ``i``'s action."""

    def check(i, tab, lens, fd, reserve, meta, hist, actions, allow_undo, skip, codes):
        g_meta = part(meta, i)
        s = (part(tab, i), part(lens, i), part(fd, i), part(reserve, i), g_meta, part(hist, i))
        kernels.check_game(i, s, actions, allow_undo, skip, codes)

    return check


def _sample_body(part):
    """The sampler's body for a layout (``part``, as `_step_body`): a uniformly random legal
    action of game ``i``."""

    def sample(i, masks, states, out):
        out[i] = random_legal(part(masks, i), states, i)

    return sample


STEP_KERNELS = cuda.layout_kernels(_step_body, "step")
RESET_KERNELS = cuda.layout_kernels(_reset_body, "reset")
CHECK_KERNELS = cuda.layout_kernels(_check_body, "check")
SAMPLE_KERNELS = cuda.layout_kernels(_sample_body, "sample")
DRAW_KERNEL = cuda.Kernel(_draw)
RESEED_KERNEL = cuda.Kernel(_reseed)


def kernel_signatures() -> list[tuple[cuda.Kernel, tuple]]:
    """Every kernel of this module with the numba argument types it is launched with (after
    ``n``), in both layouts: what a PTX compile test must cover (the ``kind`` of encoder and
    the flags are runtime values, so one signature covers all of them)."""
    from numba import types
    from numba.np.numpy_support import from_dtype

    def array(dtype: Any, ndim: int) -> Any:
        return types.Array(from_dtype(np.dtype(dtype)), ndim, "C")

    i64, b1 = array(np.int64, 1), array(np.bool_, 1)
    gen = (array(np.int64, 2), i64, types.boolean)  # generators, pool, use_pool
    infos = (array(np.int32, 2), array(np.bool_, 2), i64, i64)  # counts, flags, code, deal
    out: list[tuple[cuda.Kernel, tuple]] = []
    for layout in LAYOUTS:
        state = tuple(array(spec.dtype, len(spec.shape) + 1) for spec in kernels.STATE)
        rows = (array(np.bool_, 2), array(np.int8, 2), array(np.int8, 2))  # masks, obs, cards
        step = (*state, *rows, i64, types.boolean, array(np.int32, 1), types.int64, types.boolean,
                types.int64, b1, i64, types.int64, i64, array(np.float32, 1), b1, b1, *gen,
                *infos)  # fmt: skip
        reset = (*state, *rows, b1, i64, types.int64, types.boolean, types.int64,
                 array(np.int32, 1), b1, i64, *infos)  # fmt: skip
        check = (*state, i64, types.boolean, b1, i64)
        sample = (array(np.bool_, 2), array(np.uint64, 1), i64)
        out += [
            (STEP_KERNELS[layout], step),
            (RESET_KERNELS[layout], reset),
            (CHECK_KERNELS[layout], check),
            (SAMPLE_KERNELS[layout], sample),
        ]
    out.append((DRAW_KERNEL, (b1, *gen, i64)))
    out.append((RESEED_KERNEL, (b1, array(np.int64, 2), array(np.int64, 2))))
    return out


STEP_ARGS = ("tab", "lens", "fd", "reserve", "meta", "hist", "masks", "obs", "cards", "actions",
             "allow_undo", "steps", "max_moves", "win_reward", "rule", "autoreset", "deals",
             "kind", "codes", "rewards", "terminated", "truncated", "gen", "pool", "use_pool",
             "counts", "flags", "code", "deal")  # fmt: skip
OUTPUTS = ("obs", "rewards", "terminated", "truncated", "counts", "flags", "code", "deal")


class ScorpionGpuVectorEnv(cuda.DeviceKeywords, BatchedScorpionEnv):
    """``num_envs`` Scorpion games on a CUDA device; the API of
    [`ScorpionVectorEnv`][shell_envs.scorpion.vector.ScorpionVectorEnv] with torch tensors.

    The same options, spaces, rewards, flags, infos and autoreset (``NEXT_STEP``; ``same_step``
    is refused: its per-game ``final_obs`` objects would stop the GPU every step) as the CPU
    batched env, and for the same seeds and actions the same games.  ``step`` takes actions
    as any CUDA array (torch, CuPy, JAX; through ``__cuda_array_interface__`` or DLPack) or a
    host array; it returns torch tensors on ``device`` (``"cuda"``, ``"cuda:N"`` or a
    ``torch.device``; see `shell_envs.core.cuda.torch_device`).  With ``copy=False`` they view
    the env's buffers, written again by the next ``step``/``reset``/``redeal``; with
    ``copy=True`` each step's kernel writes fresh ones.  The built-in encoders ``tableau`` and
    ``cards`` run on the device; other encoders are refused.  `sample_actions` draws random
    legal actions on the device.  ``illegal_action="raise"`` checks the actions first and
    waits for the GPU (one small copy per step); the default ``"reject"`` never waits.
    """

    def _allocate(self) -> None:
        """The device state, result buffers, generators and prepared launches."""
        if self.autoreset_mode != AutoresetMode.NEXT_STEP:
            raise ValueError(
                "on the GPU, autoreset_mode must be 'next_step' (same_step's final_obs holds "
                "one host object per ended game, which would stop the GPU every step)"
            )
        if self._kind < 0:
            raise ValueError(
                "on the GPU, obs_encoder must be one of the built-in encoders 'tableau' or "
                f"'cards' (they run on the device), got {self.options.obs_encoder!r}"
            )
        self.check_device_keywords()
        n, layout = self.num_envs, self.layout
        obs_space = self.encoder.space
        self.state = {
            spec.name: cuda.device_array(cuda.fresh_batch(spec, n, layout))
            for spec in kernels.STATE
        }
        self._masks = cuda.device_array(
            np.zeros(cuda.batch_shape(n, (self.n_actions,), layout), np.bool_)
        )
        self._cards = cuda.empty(cuda.batch_shape(n, (engine.N_CARDS,), layout), np.int8)
        self._steps = cuda.device_array(np.zeros(n, np.int32))
        self._deals = cuda.device_array(np.zeros(n, np.int64))
        self._autoreset = cuda.device_array(np.zeros(n, np.bool_))
        self._codes = cuda.device_array(np.zeros(n, np.int64))
        self._no_actions = cuda.device_array(np.zeros(n, np.int64))
        self._gen = cuda.device_array(generator_columns([None] * n))
        self._pool = cuda.device_array(np.zeros(1, np.int64))
        self._rng = cuda.random_states(n, None)
        self._picks = cuda.empty(n, np.int64)
        self._shapes = {"obs": cuda.batch_shape(n, obs_space.shape, layout), "rewards": (n,),
                        "terminated": (n,), "truncated": (n,)}  # fmt: skip
        self._dtypes = {"obs": obs_space.dtype, "rewards": np.float32, "terminated": np.bool_,
                        "truncated": np.bool_}  # fmt: skip
        for name, (rows, dtype) in zip(OUTPUTS[4:], kernels.INFO_ARRAYS, strict=True):
            self._shapes[name], self._dtypes[name] = (*rows, n), dtype
        self._outputs = self._fresh_outputs()
        self._scratch: dict[str, tuple[Any, Any]] | None = None  # what redeal writes (copy)
        masks = cuda.as_torch(self._masks)
        self._masks_view = masks.T if layout == "soa" else masks
        self._picks_view = cuda.as_torch(self._picks)
        self._step = self._prepare_step()
        self._sample = SAMPLE_KERNELS[layout].prepare(n, self._masks, self._rng, self._picks)
        self._tensors = self._views(self._outputs)

    def _fresh_outputs(self) -> dict[str, tuple[Any, Any]]:
        """A fresh buffer for each result the kernels write: ``name: (argument, tensor)``."""
        return {name: cuda.output(self._shapes[name], self._dtypes[name]) for name in OUTPUTS}

    def _prepare_step(self) -> cuda.Launch:
        """The step launch over the current buffers, deal pool and options."""
        outputs = {name: argument for name, (argument, _) in self._outputs.items()}
        return STEP_KERNELS[self.layout].prepare(
            self.num_envs, *self._state(), self._masks, outputs["obs"], self._cards,
            self._no_actions, self.allow_undo, self._steps, self.max_moves,
            self.reward_mode == "win", self._rule, self._autoreset, self._deals, self._kind,
            self._codes, *(outputs[k] for k in ("rewards", "terminated", "truncated")),
            self._gen, self._pool, self._use_pool,
            *(outputs[k] for k in ("counts", "flags", "code", "deal")),
        )  # fmt: skip

    def _views(self, outputs: dict[str, tuple[Any, Any]]) -> dict[str, Any]:
        """The results as batch-first tensors viewing ``outputs`` (made once per buffer set)."""
        t = {name: tensor for name, (_, tensor) in outputs.items()}
        obs = t["obs"].T if self.layout == "soa" else t["obs"]
        return {
            "obs": obs,
            "rewards": t["rewards"],
            "terminated": t["terminated"],
            "truncated": t["truncated"],
            "infos": kernels.as_infos(t["counts"], t["flags"], t["code"], t["deal"]),
        }

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a game in every env: env ``i`` plays deal ``seed + i`` (or ``seed[i]``).

        As on the CPU: a seed is also the deal number, later autoresets draw deal numbers from
        each env's generator seeded with it, ``options={"deals": [numbers]}`` plays the given
        deal numbers; a seed also seeds `sample_actions`.
        """
        n = self.num_envs
        seeds, seeded, numbers = self._reset_request(seed, options)
        if seeded.any():
            RESEED_KERNEL(n, cuda.device_array(seeded), cuda.device_array(generator_columns(
                seeds)), self._gen)  # fmt: skip
            first = next(s for s in seeds if s is not None)
            self._rng.copy_to_device(cuda.random_states(n, first))
        if numbers is not None:
            self._deals.copy_to_device(np.array(numbers, np.int64))
        else:
            self._deals.copy_to_device(np.array([s or 0 for s in seeds], np.int64))
            self._launch_draw(~seeded)
        self._use_fresh_outputs()
        self._launch_reset(np.ones(n, np.bool_), self._outputs)
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Play one action in every game (``int[N]``: any CUDA array or host array); before the
        first ``reset``, ``ResetNeeded``."""
        if not self._started:
            raise reset_needed("step()")
        n = self.num_envs
        acts = self._picks if actions is self._picks_view else cuda.integer_array(
            actions, (n,), "actions")  # fmt: skip
        if self.illegal_action == "raise":
            CHECK_KERNELS[self.layout](n, *self._state(), acts, self.allow_undo, self._autoreset,
                                       self._codes)  # fmt: skip
            codes = cuda.from_device(self._codes)
            bad = np.flatnonzero(codes)
            if bad.size:
                i = int(bad[0])
                action = int(cuda.from_device(acts)[i])
                raise IllegalMove(f"env {i}: {self.explain(i, action)}")
        self._use_fresh_outputs()
        self._step.bind(STEP_ARGS.index("actions"), acts)
        self._step()
        t = self._tensors
        return self._observations(), t["rewards"], t["terminated"], t["truncated"], self._infos()

    def action_masks(self) -> Any:
        """``bool[N, A]`` tensor: for each game, True where the engine accepts the action (before
        the first ``reset``: ``ResetNeeded``)."""
        if not self._started:
            raise reset_needed("action_masks()")
        return self._masks_view.clone() if self.copy else self._masks_view

    def sample_actions(self) -> Any:
        """A uniformly random legal action per game (``int64[N]`` tensor on the device, from
        the current masks), drawn on the device; valid until the next call (before the first
        ``reset``: ``ResetNeeded``)."""
        if not self._started:
            raise reset_needed("sample_actions()")
        self._sample()
        return self._picks_view

    def host_arrays(self) -> tuple[np.ndarray, ...]:
        """Host copies of the state arrays ``(tab, lens, fd, reserve, meta, hist)`` in the CPU
        env's ``(N, ...)`` layout (waits for the GPU)."""
        return tuple(cuda.game_major_copy(array, self.layout) for array in self._state())

    def _game_arrays(self, index: int) -> engine.StateArrays:
        """Game ``index``'s state arrays, copied to the host."""
        return tuple(a[index] for a in self.host_arrays())

    def _pool_array(self, pool: np.ndarray) -> Any:
        """The deal pool on the device."""
        return cuda.device_array(pool)

    def _deal_pool_changed(self) -> None:
        """The step launch reads the new pool and its flag."""
        self._step = self._prepare_step()

    def _redeal(self, which: np.ndarray) -> None:
        """Deal the next game in every env flagged in ``which`` (see `redeal`); with ``copy``,
        into scratch buffers, so results already returned stay as they were."""
        outputs = self._outputs
        if self.copy:
            if self._scratch is None:
                self._scratch = self._fresh_outputs()
            outputs = self._scratch
        self._launch_draw(which)
        self._launch_reset(which, outputs)

    def close(self, **kwargs: Any) -> None:
        """Nothing to release (device memory goes with the env)."""

    def _state(self) -> tuple[Any, ...]:
        """The device state arrays, in the rule functions' order."""
        return tuple(self.state[spec.name] for spec in kernels.STATE)

    def _use_fresh_outputs(self) -> None:
        """With ``copy=True``: the next kernel writes fresh result buffers."""
        if not self.copy:
            return
        self._outputs = self._fresh_outputs()
        for name, (argument, _) in self._outputs.items():
            self._step.bind(STEP_ARGS.index(name), argument)
        self._tensors = self._views(self._outputs)

    def _launch_draw(self, which: np.ndarray) -> None:
        """Draw the next deal number of the games flagged in ``which`` (host bools)."""
        if which.any():
            DRAW_KERNEL(self.num_envs, cuda.device_array(which), self._gen, self._pool,
                        self._use_pool, self._deals)  # fmt: skip

    def _launch_reset(self, which: np.ndarray, outputs: dict[str, tuple[Any, Any]]) -> None:
        """Deal ``deals[i]`` in the games flagged in ``which`` (host bools), their observations
        and infos into ``outputs``."""
        out = {name: argument for name, (argument, _) in outputs.items()}
        RESET_KERNELS[self.layout](self.num_envs, *self._state(), self._masks, out["obs"],
                                   self._cards, cuda.device_array(which), self._deals,
                                   self._rule, self.allow_undo, self._kind, self._steps,
                                   self._autoreset, self._codes, out["counts"], out["flags"],
                                   out["code"], out["deal"])  # fmt: skip

    def _observations(self) -> Any:
        """Batched observations, with the masks (as ``int8``) when ``mask_in_obs``."""
        obs = self._tensors["obs"]
        if self.mask_in_obs:
            return {"observation": obs, "action_mask": self.action_masks().view(_torch_int8())}
        return obs

    def _infos(self) -> dict[str, Any]:
        """Per-game infos as tensors the kernels wrote: the CPU env's keys and dtypes."""
        return dict(self._tensors["infos"])


def _torch_int8() -> Any:
    """``torch.int8`` (torch imported on first use)."""
    return cuda.torch().int8
