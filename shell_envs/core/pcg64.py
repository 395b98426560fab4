"""numpy's PCG64 and SeedSequence, exact on the device: one generator for the CPU and the GPU.

`pcg64_next64` is numpy's PCG64 step and output written over 16-bit limbs, so that it is
exact both as plain Python and compiled, for the CPU and for CUDA (tested against numpy);
`pcg64_below` is numpy's bounded ``integers(k)``.  `generator_columns` seeds generators as
numpy's ``PCG64(SeedSequence(seed))`` seeds them.  A batched env draws each game's random
numbers from its own generator inside its compiled loop, with no Python call per game.

A generator is ``GEN_ROWS`` int64 (`generator_columns` seeds them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shell_envs.core.jit import jit, jit_inline

__all__ = [
    "BELOW_LIMIT",
    "GEN_ROWS",
    "G_HAS32",
    "G_INC",
    "G_UINT32",
    "generator_columns",
    "pcg64_below",
    "pcg64_next64",
]

BELOW_LIMIT = 2**31  # pcg64_below draws below k < 2**31 (numpy's 32-bit bounded draw)

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
def pcg64_next64(gen: np.ndarray) -> tuple[int, int]:
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
def pcg64_below(gen: np.ndarray, k: int) -> int:
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
        carry: np.ndarray | int = 0
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
