"""N Scorpion games on a CUDA device, one GPU thread per game, from the same rule code.

``gym.make_vec("shell_envs/Scorpion-v0", num_envs=N, vectorization_mode="vector_entry_point",
device="cuda")``.  The step kernel runs `shell_envs.scorpion.vector.step_game` for each
game, the very function the CPU batch loop runs (it calls `rules.step`, the deal and the
encoders), compiled for the GPU by numba-cuda through `shell_envs.core.cuda`.  One launch
per step plays every game's action, refreshes its mask, encodes its observation and deals a
new game where the last one ended (Gymnasium's ``NEXT_STEP`` autoreset), shuffling the deck on
the device with the same generator as the CPU (`rules.shuffled_deck`).

Deal numbers are drawn on the device too, from each env's own generator, exactly as the CPU
env draws them from a numpy ``Generator`` (PCG64) per env: `pcg64_next64` is numpy's
PCG64 step and output, written over 16-bit limbs so that it is exact both as plain Python
and compiled (tested against numpy).  So for the same seeds and actions the GPU env plays
the CPU env's games, autoresets included.

State lives on the device as struct-of-arrays by default (game index last: ``tab[c, d, i]``,
so neighbouring threads read neighbouring bytes); ``layout="game_major"`` keeps the CPU env's
``(N, ...)`` rows instead, for comparison (``benchmarks/gpu.py`` measures both).  Results
come out ``(N, ...)`` as torch tensors on the device that view the env's buffers (with the
struct-of-arrays layout, observations and masks are transposed views, not contiguous): valid
until the next ``step``, ``reset`` or ``redeal`` (``copy=True`` clones them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from shell_envs.core import cuda
from shell_envs.core.errors import IllegalMove
from shell_envs.core.jit import jit, jit_inline
from shell_envs.core.sampling import random_legal
from shell_envs.core.validation import choice, flag, integer
from shell_envs.scorpion import rules as engine
from shell_envs.scorpion import vector
from shell_envs.scorpion.env import DEFAULT_MAX_MOVES

__all__ = ["LAYOUTS", "ScorpionGpuVectorEnv", "kernel_signatures"]

LAYOUTS = ("soa", "game_major")
DRAW_AHEAD = vector.DRAW_AHEAD

# numpy's PCG64: a 128-bit LCG (multiplier below) with the XSL-RR output; the state and the
# increment are kept as 8 limbs of 16 bits each, least significant first, so that every
# product and sum stays below 2**36: exact in int64 and in Python integers alike.
_MULT_HI = 0x2360ED051FC65DA4
_MULT_LO = 0x4385DF649FCCF645
_LIMBS = 8
G_INC = 8  # rows of a generator column: 0-7 state limbs, 8-15 increment limbs,
G_HAS32 = 16  # whether a buffered 32-bit half is waiting (numpy's has_uint32)
G_UINT32 = 17  # the buffered half (numpy's uinteger)
GEN_ROWS = 18
_M32 = 0xFFFFFFFF


@jit_inline
def _mult_limb(b):
    """Limb ``b`` (16 bits, 0 = least significant) of the PCG64 multiplier."""
    word = _MULT_HI if b >= 4 else _MULT_LO
    return (word >> (16 * (b % 4))) & 0xFFFF


@jit
def pcg64_next64(gen):
    """Advance numpy's PCG64 held in ``gen`` (one generator's `GEN_ROWS` int64) and
    return its next 64 random bits as ``(high 32 bits, low 32 bits)``."""
    for k in range(_LIMBS - 1, -1, -1):  # column sums of state * multiplier, top down in place
        total = 0
        for a in range(k + 1):
            total += int(gen[a]) * _mult_limb(k - a)
        gen[k] = total
    carry = 0
    for k in range(_LIMBS):  # + increment, carries propagated: the new state
        v = int(gen[k]) + int(gen[G_INC + k]) + carry
        gen[k] = v & 0xFFFF
        carry = v >> 16
    xl = (int(gen[0]) ^ int(gen[4])) | ((int(gen[1]) ^ int(gen[5])) << 16)
    xh = (int(gen[2]) ^ int(gen[6])) | ((int(gen[3]) ^ int(gen[7])) << 16)
    rot = int(gen[7]) >> 10  # the state's top 6 bits
    if rot >= 32:
        xl, xh = xh, xl
        rot -= 32
    if rot == 0:
        return xh, xl
    lo = (xl >> rot) | ((xh << (32 - rot)) & _M32)
    hi = (xh >> rot) | ((xl << (32 - rot)) & _M32)
    return hi, lo


@jit
def pcg64_deal_number(gen):
    """The next deal number, as the CPU env's ``rng.integers(0, 2**62)`` draws it (the top 62
    of 64 random bits: numpy's bounded draw takes ``(bits * 2**62) >> 64``)."""
    hi, lo = pcg64_next64(gen)
    return (hi << 30) | (lo >> 2)


@jit
def _pcg64_next32(gen):
    """numpy's ``next_uint32`` of PCG64: the low half of a fresh 64 bits, the high half kept."""
    if gen[G_HAS32] != 0:
        gen[G_HAS32] = 0
        return int(gen[G_UINT32])
    hi, lo = pcg64_next64(gen)
    gen[G_HAS32] = 1
    gen[G_UINT32] = hi
    return lo


@jit
def pcg64_below(gen, k):
    """numpy's ``rng.integers(k)`` for ``1 <= k < 2**31`` (Lemire's method on 32 bits)."""
    if k <= 1:
        return 0
    m = _pcg64_next32(gen) * k
    leftover = m & _M32
    if leftover < k:
        threshold = (_M32 - (k - 1)) % k
        while leftover < threshold:
            m = _pcg64_next32(gen) * k
            leftover = m & _M32
    return m >> 32


@jit
def _next_deal(gen, ahead, drawn, i, pool, use_pool):
    """Game ``i``'s next deal number, as `ScorpionVectorEnv._draw_deals` draws it: from
    the pool if ``use_pool``, else the next of the numbers drawn `DRAW_AHEAD` at a time
    into ``ahead`` (``gen`` and ``ahead`` are game ``i``'s columns)."""
    if use_pool:
        return pool[pcg64_below(gen, pool.shape[0])]
    if drawn[i] == DRAW_AHEAD:
        for k in range(DRAW_AHEAD):
            ahead[k] = pcg64_deal_number(gen)
        drawn[i] = 0
    number = ahead[drawn[i]]
    drawn[i] += 1
    return number


def _draw(i, which, gen, ahead, drawn, pool, use_pool, deals):
    """``deals[i]``: the next deal number of every game ``i`` with ``which[i]`` set."""
    if which[i]:
        deals[i] = _next_deal(gen[:, i], ahead[:, i], drawn, i, pool, use_pool)


def _reseed(i, seeded, fresh, gen, drawn):
    """Game ``i``'s generator set to ``fresh[:, i]`` where ``seeded[i]`` (nothing drawn ahead)."""
    if seeded[i]:
        for r in range(GEN_ROWS):
            gen[r, i] = fresh[r, i]
        drawn[i] = DRAW_AHEAD


def _step_soa(i, tab, lens, fd, reserve, meta, hist, masks, obs, cards, actions, allow_undo,
              steps, max_moves, win_reward, relaxed, autoreset, deals, kind, codes, rewards,
              terminated, truncated, gen, ahead, drawn, pool, use_pool):  # fmt: skip
    """Game ``i`` of a step, state as struct-of-arrays (``tab[column, depth, game]`` ...)."""
    if autoreset[i]:
        deals[i] = _next_deal(gen[:, i], ahead[:, i], drawn, i, pool, use_pool)
    vector.step_game(i, tab[:, :, i], lens[:, i], fd[:, i], reserve[:, i], meta[:, i],
                     hist[:, :, i], masks[:, i], obs[:, i], cards[:, i], actions, allow_undo,
                     steps, max_moves, win_reward, relaxed, autoreset, deals, kind, True, codes,
                     rewards, terminated, truncated)  # fmt: skip


def _step_game_major(i, tab, lens, fd, reserve, meta, hist, masks, obs, cards, actions,
                     allow_undo, steps, max_moves, win_reward, relaxed, autoreset, deals, kind,
                     codes, rewards, terminated, truncated, gen, ahead, drawn, pool,
                     use_pool):  # fmt: skip
    """Game ``i`` of a step, state in game-major rows (``tab[game, column, depth]`` ...)."""
    if autoreset[i]:
        deals[i] = _next_deal(gen[:, i], ahead[:, i], drawn, i, pool, use_pool)
    vector.step_game(i, tab[i], lens[i], fd[i], reserve[i], meta[i], hist[i], masks[i], obs[i],
                     cards[i], actions, allow_undo, steps, max_moves, win_reward, relaxed,
                     autoreset, deals, kind, True, codes, rewards, terminated,
                     truncated)  # fmt: skip


def _reset_soa(i, tab, lens, fd, reserve, meta, hist, masks, obs, cards, which, deals, relaxed,
               allow_undo, kind, steps, autoreset):  # fmt: skip
    """Deal ``deals[i]`` in game ``i`` if ``which[i]`` (struct-of-arrays)."""
    if which[i]:
        vector.reset_game(tab[:, :, i], lens[:, i], fd[:, i], reserve[:, i], meta[:, i],
                          hist[:, :, i], masks[:, i], obs[:, i], cards[:, i], deals[i], relaxed,
                          allow_undo, kind)  # fmt: skip
        steps[i] = 0
        autoreset[i] = False


def _reset_game_major(i, tab, lens, fd, reserve, meta, hist, masks, obs, cards, which, deals,
                      relaxed, allow_undo, kind, steps, autoreset):  # fmt: skip
    """Deal ``deals[i]`` in game ``i`` if ``which[i]`` (game-major rows)."""
    if which[i]:
        vector.reset_game(tab[i], lens[i], fd[i], reserve[i], meta[i], hist[i], masks[i], obs[i],
                          cards[i], deals[i], relaxed, allow_undo, kind)  # fmt: skip
        steps[i] = 0
        autoreset[i] = False


def _check_soa(i, tab, lens, fd, reserve, meta, hist, actions, allow_undo, skip, codes):
    """``codes[i]``: the check code of game ``i``'s action (struct-of-arrays)."""
    vector.check_game(i, tab[:, :, i], lens[:, i], fd[:, i], reserve[:, i], meta[:, i],
                      hist[:, :, i], actions, allow_undo, skip, codes)  # fmt: skip


def _check_game_major(i, tab, lens, fd, reserve, meta, hist, actions, allow_undo, skip, codes):
    """``codes[i]``: the check code of game ``i``'s action (game-major rows)."""
    vector.check_game(i, tab[i], lens[i], fd[i], reserve[i], meta[i], hist[i], actions,
                      allow_undo, skip, codes)  # fmt: skip


def _sample_soa(i, masks, states, out):
    """A uniformly random legal action of game ``i`` (masks ``[action, game]``)."""
    out[i] = random_legal(masks[:, i], states, i)


def _sample_game_major(i, masks, states, out):
    """A uniformly random legal action of game ``i`` (masks ``[game, action]``)."""
    out[i] = random_legal(masks[i], states, i)


STEP_KERNELS = {"soa": cuda.Kernel(_step_soa), "game_major": cuda.Kernel(_step_game_major)}
RESET_KERNELS = {"soa": cuda.Kernel(_reset_soa), "game_major": cuda.Kernel(_reset_game_major)}
CHECK_KERNELS = {"soa": cuda.Kernel(_check_soa), "game_major": cuda.Kernel(_check_game_major)}
SAMPLE_KERNELS = {"soa": cuda.Kernel(_sample_soa), "game_major": cuda.Kernel(_sample_game_major)}
DRAW_KERNEL = cuda.Kernel(_draw)
RESEED_KERNEL = cuda.Kernel(_reseed)

_PER_GAME = {  # name: (shape of one game, dtype)
    "tab": ((engine.N_COLUMNS, engine.MAX_DEPTH), np.int8),
    "lens": ((engine.N_COLUMNS,), np.int8),
    "fd": ((engine.N_COLUMNS,), np.int8),
    "reserve": ((3,), np.int8),
    "meta": ((engine.META_SIZE,), np.int32),
    "hist": ((engine.HISTORY, engine.HIST_WIDTH), np.int32),
}
STATE = tuple(_PER_GAME)


def _shape(n: int, per_game: tuple[int, ...], layout: str) -> tuple[int, ...]:
    """The shape of an array of ``n`` games' ``per_game`` rows in ``layout``."""
    return (*per_game, n) if layout == "soa" else (n, *per_game)


def kernel_signatures() -> list[tuple[cuda.Kernel, tuple]]:
    """Every kernel of this module with the numba argument types it is launched with (after
    ``n``), in both layouts: what a PTX compile test must cover (the ``kind`` of encoder and
    the flags are runtime values, so one signature covers all of them)."""
    from numba import types
    from numba.np.numpy_support import from_dtype

    def array(dtype: Any, ndim: int) -> Any:
        return types.Array(from_dtype(np.dtype(dtype)), ndim, "C")

    i64, b1 = array(np.int64, 1), array(np.bool_, 1)
    gen = (array(np.int64, 2), array(np.int64, 2), array(np.int32, 1), i64, types.boolean)
    out: list[tuple[cuda.Kernel, tuple]] = []
    for layout in LAYOUTS:
        state = tuple(array(dtype, len(shape) + 1) for shape, dtype in _PER_GAME.values())
        rows = (array(np.bool_, 2), array(np.int8, 2), array(np.int8, 2))  # masks, obs, cards
        step = (*state, *rows, i64, types.boolean, array(np.int32, 1), types.int64, types.boolean,
                types.boolean, b1, i64, types.int64, i64, array(np.float32, 1), b1, b1,
                *gen)  # fmt: skip
        reset = (*state, *rows, b1, i64, types.boolean, types.boolean, types.int64,
                 array(np.int32, 1), b1)  # fmt: skip
        check = (*state, i64, types.boolean, b1, i64)
        sample = (array(np.bool_, 2), array(np.uint64, 1), i64)
        out += [
            (STEP_KERNELS[layout], step),
            (RESET_KERNELS[layout], reset),
            (CHECK_KERNELS[layout], check),
            (SAMPLE_KERNELS[layout], sample),
        ]
    out.append((DRAW_KERNEL, (b1, *gen, i64)))
    out.append((RESEED_KERNEL, (b1, array(np.int64, 2), array(np.int64, 2), array(np.int32, 1))))
    return out


# numpy's SeedSequence constants (hash and mix of 32-bit words)
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def _seed_sequence_words(seeds: np.ndarray) -> list[np.ndarray]:
    """``SeedSequence(seed).generate_state(4, np.uint64)`` of every seed (non-negative, below
    2**64) as 8 little-endian 32-bit words: numpy's algorithm over arrays of seeds.

    A seed's entropy is its 32-bit words, and numpy hashes 0 for each missing word of its pool
    of 4, so every seed counts as 4 words, the missing ones 0.
    """
    hash_const = _INIT_A

    def hashmix(value: np.ndarray) -> np.ndarray:
        nonlocal hash_const
        value = value ^ np.uint32(hash_const)
        hash_const = (hash_const * _MULT_A) & _M32
        value = value * np.uint32(hash_const)
        return value ^ (value >> np.uint32(16))

    def mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        result = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
        return result ^ (result >> np.uint32(16))

    seeds = seeds.astype(np.uint64)
    zero = np.zeros(seeds.shape, np.uint32)
    entropy = [(seeds & np.uint64(_M32)).astype(np.uint32), (seeds >> np.uint64(32)).astype(
        np.uint32), zero, zero]  # fmt: skip
    pool = [hashmix(word) for word in entropy]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hashmix(pool[i_src]))
    hash_const = _INIT_B
    words = []
    for i_dst in range(8):
        value = pool[i_dst % 4] ^ np.uint32(hash_const)
        hash_const = (hash_const * _MULT_B) & _M32
        value = value * np.uint32(hash_const)
        words.append(value ^ (value >> np.uint32(16)))
    return words


@jit
def _step_columns(gen):
    """One PCG64 step of every generator column of ``gen`` (the last step of its seeding)."""
    for j in range(gen.shape[1]):
        pcg64_next64(gen[:, j])


def generator_columns(seeds: Sequence[int | None]) -> np.ndarray:
    """``int64[GEN_ROWS, len(seeds)]``: for each seed, the PCG64 state of
    ``seeding.np_random(seed)`` (numpy's ``PCG64(SeedSequence(seed))``), as the CPU env seeds
    each env's generator; None gives a fresh random state."""
    n = len(seeds)
    out = np.zeros((GEN_ROWS, n), np.int64)
    known = np.array([s is not None for s in seeds], np.bool_)
    fresh = np.random.default_rng().integers(0, 2**16, size=(2 * _LIMBS, int((~known).sum())))
    fresh[G_INC] |= 1  # a PCG increment is odd
    out[: 2 * _LIMBS, ~known] = fresh
    if known.any():
        w = [x.astype(np.int64) for x in _seed_sequence_words(
            np.array([s for s in seeds if s is not None], np.uint64))]  # fmt: skip
        # PCG64(seed = (w1:w0, w3:w2), inc = (w5:w4, w7:w6)) as numpy seeds it: increment
        # (inc << 1) | 1, state = increment + seed, then one step
        seq = [w[6], w[7], w[4], w[5]]  # 32-bit words of the increment seed, low to high
        start = [w[2], w[3], w[0], w[1]]  # of the state seed
        inc = [((seq[k] << 1) | (seq[k - 1] >> 31 if k else 1)) & _M32 for k in range(4)]
        carry = 0
        for k in range(4):
            total = inc[k] + start[k] + carry
            carry = total >> 32
            for half in range(2):
                out[2 * k + half, known] = (total >> (16 * half)) & 0xFFFF
                out[G_INC + 2 * k + half, known] = (inc[k] >> (16 * half)) & 0xFFFF
        stepped = np.ascontiguousarray(out[:, known])
        _step_columns(stepped)
        out[:, known] = stepped
    return out


class ScorpionGpuVectorEnv(VectorEnv):
    """``num_envs`` Scorpion games on a CUDA device; the API of
    [`ScorpionVectorEnv`][shell_envs.scorpion.vector.ScorpionVectorEnv] with torch tensors.

    The same options, spaces, rewards, flags, infos and autoreset (``NEXT_STEP``; ``same_step``
    is refused: its per-game ``final_obs`` objects would stop the GPU every step) as the CPU
    batched env, and for the same seeds and actions the same games.  ``step`` takes actions
    as any CUDA array (torch, CuPy, JAX; through ``__cuda_array_interface__`` or DLPack) or a
    host array; it returns torch tensors on the device that view the env's buffers, valid
    until the next ``step``/``reset``/``redeal`` (``copy=True``: fresh clones).  The built-in
    encoders ``tableau`` and ``cards`` run on the device; other encoders are refused.
    `sample_actions` draws random legal actions on the device.  ``illegal_action=
    "raise"`` checks the actions first and waits for the GPU (one small copy per step); the
    default ``"reject"`` never waits.
    """

    def __init__(
        self,
        num_envs: int,
        rules: str = "classic",
        obs_encoder: Any = "tableau",
        illegal_action: str = "reject",
        allow_undo: bool = False,
        lang: str = "en",
        max_moves: int | None = DEFAULT_MAX_MOVES,
        reward: str = "score",
        mask_in_obs: bool = False,
        autoreset_mode: str | AutoresetMode = "next_step",
        render_mode: str | None = None,
        copy: bool = False,
        layout: str = "soa",
    ) -> None:
        autoreset_mode = vector.configure(self, num_envs, rules, obs_encoder, illegal_action,
                                          allow_undo, lang, max_moves, reward, mask_in_obs,
                                          autoreset_mode, render_mode)  # fmt: skip
        if autoreset_mode != "next_step":
            raise ValueError(
                "on the GPU, autoreset_mode must be 'next_step' (same_step's final_obs holds "
                "one host object per ended game, which would stop the GPU every step)"
            )
        if self._kind < 0:
            raise ValueError(
                "on the GPU, obs_encoder must be one of the built-in encoders 'tableau' or "
                f"'cards' (they run on the device), got {obs_encoder!r}"
            )
        self.copy = flag("copy", copy)
        self.layout = choice("layout", layout, LAYOUTS)
        cuda.require()
        torch = cuda._torch()
        self.device = torch.device("cpu" if cuda.simulated() else "cuda")
        n = self.num_envs
        obs_space = self.encoder.space
        layout = self.layout
        self.state = {name: cuda.device_array(_fresh_state(name, n, layout)) for name in _PER_GAME}
        self._masks = cuda.device_array(np.zeros(_shape(n, (self.n_actions,), layout), np.bool_))
        self._obs = cuda.device_array(np.zeros(_shape(n, obs_space.shape, layout), obs_space.dtype))
        self._cards = cuda.empty(_shape(n, (engine.N_CARDS,), layout), np.int8)
        self._steps = cuda.device_array(np.zeros(n, np.int32))
        self._deals = cuda.device_array(np.zeros(n, np.int64))
        self._autoreset = cuda.device_array(np.zeros(n, np.bool_))
        self._codes = cuda.device_array(np.zeros(n, np.int64))
        self._rewards = cuda.device_array(np.zeros(n, np.float32))
        self._terminated = cuda.device_array(np.zeros(n, np.bool_))
        self._truncated = cuda.device_array(np.zeros(n, np.bool_))
        self._gen = cuda.device_array(generator_columns([None] * n))
        self._ahead = cuda.device_array(np.zeros((DRAW_AHEAD, n), np.int64))
        self._drawn = cuda.device_array(np.full(n, DRAW_AHEAD, np.int32))
        self._pool = cuda.device_array(np.zeros(1, np.int64))
        self._use_pool = False
        self._rng = cuda.random_states(n, None)
        self._picks = cuda.empty(n, np.int64)
        self._tensors = self._views()

    def _views(self) -> dict[str, Any]:
        """The torch tensors viewing the env's buffers, ``(N, ...)``, made once."""
        obs = cuda.as_torch(self._obs)
        masks = cuda.as_torch(self._masks)
        meta = cuda.as_torch(self.state["meta"])
        if self.layout == "soa":  # the built-in encodings are 1-D: (size, N) viewed as (N, size)
            obs, masks, meta = obs.T, masks.T, meta.T
        return {
            "obs": obs,
            "masks": masks,
            "meta": meta,
            "rewards": cuda.as_torch(self._rewards),
            "terminated": cuda.as_torch(self._terminated),
            "truncated": cuda.as_torch(self._truncated),
            "codes": cuda.as_torch(self._codes),
            "deals": cuda.as_torch(self._deals),
            "picks": cuda.as_torch(self._picks),
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
        seeds, numbers = vector.reset_request(seed, options, n)
        seeded = np.array([s is not None for s in seeds], np.bool_)
        if seeded.any():
            RESEED_KERNEL(n, cuda.device_array(seeded), cuda.device_array(generator_columns(
                seeds)), self._gen, self._drawn)  # fmt: skip
            first = next(s for s in seeds if s is not None)
            self._rng = cuda.random_states(n, first)
        torch = cuda._torch()
        deals = self._tensors["deals"]
        if numbers is not None:
            deals.copy_(torch.as_tensor(np.array(numbers, np.int64)))
        else:
            deals.copy_(torch.as_tensor(np.array([s or 0 for s in seeds], np.int64)))
            self._launch_draw(~seeded)
        self._launch_reset(np.ones(n, np.bool_))
        self._tensors["codes"].zero_()
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Play one action in every game (``int[N]``: any CUDA array or host array)."""
        n = self.num_envs
        acts = cuda.integer_array(actions, (n,), "actions")
        if self.illegal_action == "raise":
            CHECK_KERNELS[self.layout](n, *self._state(), acts, self.allow_undo, self._autoreset,
                                       self._codes)  # fmt: skip
            codes = cuda.from_device(self._codes)
            bad = np.flatnonzero(codes)
            if bad.size:
                i = int(bad[0])
                action = int(cuda.from_device(acts)[i])
                raise IllegalMove(f"env {i}: {self.explain(i, action)}")
        STEP_KERNELS[self.layout](n, *self._state(), self._masks, self._obs, self._cards, acts,
                                  self.allow_undo, self._steps, self.max_moves,
                                  self.reward_mode == "win", self._relaxed, self._autoreset,
                                  self._deals, self._kind, self._codes, self._rewards,
                                  self._terminated, self._truncated, self._gen, self._ahead,
                                  self._drawn, self._pool, self._use_pool)  # fmt: skip
        t = self._tensors
        return (
            self._observations(),
            self._out(t["rewards"]),
            self._out(t["terminated"]),
            self._out(t["truncated"]),
            self._infos(),
        )

    def action_masks(self) -> Any:
        """``bool[N, A]`` tensor: for each game, True where the engine accepts the action."""
        return self._out(self._tensors["masks"])

    def sample_actions(self) -> Any:
        """A uniformly random legal action per game (``int64[N]`` tensor on the device, from
        the current masks), drawn on the device; valid until the next call."""
        SAMPLE_KERNELS[self.layout](self.num_envs, self._masks, self._rng, self._picks)
        return self._out(self._tensors["picks"])

    def explain(self, index: int, action: int) -> str | None:
        """Why ``action`` is illegal in game ``index`` now (None when legal), in ``lang``
        (copies the game to the host)."""
        index = integer("index", index, 0, self.num_envs - 1)
        arrays = tuple(a[index] for a in self.host_arrays())
        return vector.explain_action(arrays, action, self.n_actions, self.allow_undo, self.lang)

    def host_arrays(self) -> tuple[np.ndarray, ...]:
        """Host copies of the state arrays ``(tab, lens, fd, reserve, meta, hist)`` in the CPU
        env's ``(N, ...)`` layout (waits for the GPU)."""
        out = []
        for name in STATE:
            host = cuda.from_device(self.state[name])
            if self.layout == "soa":
                host = np.ascontiguousarray(np.moveaxis(host, -1, 0))
            out.append(host)
        return tuple(out)

    def set_deal_pool(self, numbers: Sequence[int] | None) -> None:
        """Draw every later deal from ``numbers``, uniformly (None: from all deal numbers again),
        each env with its own generator, as
        the CPU env's
        [`set_deal_pool`][shell_envs.scorpion.vector.ScorpionVectorEnv.set_deal_pool]."""
        if numbers is None:
            self._use_pool = False
            return
        pool = vector.deal_pool(numbers)
        if len(pool) >= 2**31:
            raise ValueError("the deal pool holds at most 2**31 - 1 deal numbers")
        self._pool = cuda.device_array(pool)
        self._use_pool = True

    def redeal(self, envs: Sequence[int] | np.ndarray) -> None:
        """End the games of ``envs`` now and deal each its next game, as an autoreset does (see
        [`ScorpionVectorEnv.redeal`][shell_envs.scorpion.vector.ScorpionVectorEnv.redeal])."""
        which = np.zeros(self.num_envs, np.bool_)
        for i in envs:
            which[integer("env index", i, 0, self.num_envs - 1)] = True
        if not which.any():
            return
        self._launch_draw(which)
        self._launch_reset(which)

    def close(self, **kwargs: Any) -> None:
        """Nothing to release (device memory goes with the env)."""

    def _state(self) -> tuple[Any, ...]:
        """The device state arrays, in the rule functions' order."""
        return tuple(self.state[name] for name in STATE)

    def _launch_draw(self, which: np.ndarray) -> None:
        """Draw the next deal number of the games flagged in ``which`` (host bools)."""
        if which.any():
            DRAW_KERNEL(self.num_envs, cuda.device_array(which), self._gen, self._ahead,
                        self._drawn, self._pool, self._use_pool, self._deals)  # fmt: skip

    def _launch_reset(self, which: np.ndarray) -> None:
        """Deal ``deals[i]`` in the games flagged in ``which`` (host bools) and encode them."""
        RESET_KERNELS[self.layout](self.num_envs, *self._state(), self._masks, self._obs,
                                   self._cards, cuda.device_array(which), self._deals,
                                   self._relaxed, self.allow_undo, self._kind, self._steps,
                                   self._autoreset)  # fmt: skip

    def _out(self, tensor: Any) -> Any:
        """``tensor``, or a clone of it with ``copy=True``."""
        return tensor.clone() if self.copy else tensor

    def _observations(self) -> Any:
        """Batched observations, with the masks (as ``int8``) when ``mask_in_obs``."""
        t = self._tensors
        obs = self._out(t["obs"])
        if self.mask_in_obs:
            torch = cuda._torch()
            return {"observation": obs, "action_mask": self._out(t["masks"]).view(torch.int8)}
        return obs

    def _infos(self) -> dict[str, Any]:
        """Per-game infos as tensors: the CPU env's keys and dtypes."""
        t = self._tensors
        meta = t["meta"]
        removed = self._out(meta[:, engine.M_REMOVED])
        codes = self._out(t["codes"])
        return {
            "score": self._out(meta[:, engine.M_SCORE]),
            "removed": removed,
            "moves": self._out(meta[:, engine.M_MOVES]),
            "won": removed == 4,
            "illegal": codes != engine.OK,
            "code": codes,
            "deal": self._out(t["deals"]),
        }


def _fresh_state(name: str, n: int, layout: str) -> np.ndarray:
    """Host array of ``n`` empty games' ``name`` state (as `rules.new_arrays`)."""
    one = dict(zip(STATE, engine.new_arrays(), strict=True))[name]
    rows = np.repeat(one[None], n, axis=0)
    return np.ascontiguousarray(np.moveaxis(rows, 0, -1)) if layout == "soa" else rows
