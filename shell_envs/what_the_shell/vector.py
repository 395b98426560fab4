"""N simultaneous What the Shell games stepped by one compiled, parallel loop.

The batch kernel calls `shell_envs.what_the_shell.rules.step` on each game's rows of
the ``(N, ...)`` state arrays, the very function the single environment calls, so there is
one implementation of the rules.  Autoreset follows Gymnasium 1.x's ``NEXT_STEP`` mode: the
step after a game ends resets that game (its actions are ignored) and returns the fresh
observation with reward 0 and both flags False.  The host side it shares with the GPU env
(keywords, spaces, ``reset`` and ``step`` checks, infos) is `shell_envs.what_the_shell.batch`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shell_envs.core import background
from shell_envs.core.buffers import BufferSets
from shell_envs.core.cuda import fresh_batch
from shell_envs.core.deprecation import moved_names
from shell_envs.core.jit import compile_notice, jit_parallel, prange
from shell_envs.core.rows import row
from shell_envs.core.validation import integer_vector, reset_needed
from shell_envs.what_the_shell import encoders, rules
from shell_envs.what_the_shell.batch import (
    FLAG_FIELDS,
    REPORT_FIELDS,
    BatchedWhatTheShellEnv,
    infos_of,
    raise_if_illegal,
)
from shell_envs.what_the_shell.encoders import (
    N_PLANES,
    PlanesEncoder,
    PlanesUint8Encoder,
)
from shell_envs.what_the_shell.kernels import OTHER, PLANES, PLANES_UINT8, STATE, step_game
from shell_envs.what_the_shell.state import GameState


@jit_parallel
def batch_step(
    board: np.ndarray,
    eggs: np.ndarray,
    meta: np.ndarray,
    info: np.ndarray,
    work: np.ndarray,
    black: np.ndarray,
    white: np.ndarray,
    autoreset: np.ndarray,
    max_rounds: int,
    kind: int,
    obs_b: np.ndarray,
    obs_w: np.ndarray,
    masks: np.ndarray,
    rewards: np.ndarray,
    flags: np.ndarray,
    report: np.ndarray,
) -> None:
    """Step every game and observe it, in one parallel loop (`step_game` per game).

    A game flagged in ``autoreset`` is reset instead (its actions are ignored).  Otherwise both
    actions are checked (an illegal one is not played and its player loses) and the round is
    played with `rules.play_round`.  Fills, per game ``i``: ``masks[0|1, i]`` (black,
    white), ``rewards[0|1, i]``, ``flags[:, i]`` (`FLAG_FIELDS`: terminated black, white,
    truncated black, white, collision, sudden death), the observations of the built-in
    encoder ``kind`` and the ``report[:, i]`` rows named by `REPORT_FIELDS` (illegal: bit 1
    black, bit 2 white); on return
    ``autoreset`` flags the games that ended, whose masks are all ones (masked samplers need a
    legal action; the next step ignores it).  ``work`` holds each game's scratch, so the loop
    allocates nothing.
    """
    for i in prange(board.shape[0]):
        s = (row(board, i), row(eggs, i), row(meta, i), row(info, i), row(work, i))
        out = (row(obs_b, i), row(obs_w, i), row(row(masks, 0), i), row(row(masks, 1), i))
        step_game(i, s, black, white, autoreset, max_rounds, kind, out, rewards, flags, report)


class WhatTheShellVectorEnv(BatchedWhatTheShellEnv):
    """``num_envs`` games at once; every array is shaped ``(num_envs, ...)``.

    ``reset`` and ``step`` use dicts keyed by agent (``"black"``, ``"white"``) like the
    parallel env, with batched values: observations ``{"observation": (N, ...),
    "action_mask": (N, 81) int8}``, rewards ``float32[N]``, flags ``bool[N]``, and infos a dict
    of arrays (`REPORT_FIELDS`: the rules' info rows, ``round``, ``sudden_death`` and
    ``illegal``).
    ``illegal_action="lose"`` ends only the offending games; ``"raise"`` raises before any game
    moves.  Autoreset is Gymnasium's ``NEXT_STEP`` (`autoreset_mode`); the masks returned
    with a game's last observation are all ones, since the next step ignores that game's
    actions.  With ``copy=False`` the observations are buffers that the next ``step``
    overwrites (as Gymnasium's vector envs do with ``copy=False``), which saves a copy per
    step.  With
    ``copy=True`` (default) every step returns arrays that no later step overwrites; their
    memory is recycled only once nothing outside the env refers to them any more (not even a
    view), which spares the page faults of fresh multi-megabyte arrays on every step.
    ``options`` holds the checked keywords the parallel env shares
    ([`WhatTheShellOptions`][shell_envs.what_the_shell.options.WhatTheShellOptions]).
    """

    def _allocate(self) -> None:
        """The state arrays, observation buffers and recycled result sets."""
        self._kind = {PlanesEncoder: PLANES, PlanesUint8Encoder: PLANES_UINT8}.get(
            type(self.encoder), OTHER
        )
        # a user's encoder object compiles in the foreground
        obs_encoder = self.options.obs_encoder
        if not (isinstance(obs_encoder, str) and _compile_in_background(obs_encoder, self)):
            compile_notice(batch_step, what="the batched What the Shell rules")
        n = self.num_envs
        self.board, self.eggs, self.meta, self.info, self._work = (
            fresh_batch(spec, n) for spec in STATE
        )
        self._autoreset = np.zeros(n, dtype=np.bool_)
        self._placeholder = np.zeros((n, N_PLANES, 0), np.float32)
        shape, dtype = (n, *self.encoder.space.shape), self.encoder.space.dtype
        self._obs_black = np.zeros(shape, dtype)
        self._obs_white = np.zeros(shape, dtype)
        # a step's results (observations too with copy=True), recycled once released and
        # taken in one call: fresh megabytes every step cost page faults and unmapping, and
        # every call after the kernel is serial time, which caps the scaling with cores
        results = [
            ((2, n, rules.CELLS), np.int8),
            ((2, n), np.float32),
            ((len(FLAG_FIELDS), n), np.bool_),
            ((len(REPORT_FIELDS), n), np.int32),
        ]
        self._results = BufferSets(results + [(shape, dtype)] * 2 * self.copy)

    def reset(
        self, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every game to the empty board; ``seed`` (int or one per game) seeds sampling."""
        self._seeds(seed, options)
        self.board[:] = rules.EMPTY
        self.eggs[:] = -1
        self.meta[:] = 0
        self.info[:] = 0
        self._autoreset[:] = False
        self._started = True
        obs_b, obs_w = self._obs_buffers(self._results.take())
        masks = np.ones((2, self.num_envs, rules.CELLS), np.int8)
        if self._kind != OTHER:
            fill = self.encoder.fill_batch
            fill(self.board, self.eggs, self.meta, obs_b, obs_w)
        observations = self._observations(obs_b, obs_w, masks)
        nothing = np.zeros((len(REPORT_FIELDS), self.num_envs), np.int32)
        return observations, infos_of(nothing, np.zeros((len(FLAG_FIELDS), self.num_envs), bool))

    def _play(
        self, black: np.ndarray, white: np.ndarray
    ) -> tuple[
        dict[str, Any],
        dict[str, np.ndarray],
        dict[str, np.ndarray],
        dict[str, np.ndarray],
        dict[str, Any],
    ]:
        """One round in every game with checked actions (`step`): the batch loop, in place."""
        results = self._results.take()
        masks, rewards, flags, report = results[:4]
        obs_b, obs_w = self._obs_buffers(results)
        batch_step(self.board, self.eggs, self.meta, self.info, self._work, black, white,
                   self._autoreset, self.max_rounds, self._kind,
                   *self._planes_views(obs_b, obs_w), masks, rewards, flags,
                   report)  # fmt: skip
        return (
            self._observations(obs_b, obs_w, masks),
            {"black": rewards[0], "white": rewards[1]},
            {"black": flags[0], "white": flags[1]},
            {"black": flags[2], "white": flags[3]},
            infos_of(report, flags),
        )

    def action_masks(self) -> np.ndarray:
        """``int8[N, 81]``: 1 on the empty cells of each game (both players' legal actions);
        before the first ``reset``, ``ResetNeeded``."""
        if not self._started:
            raise reset_needed("action_masks()")
        return np.logical_not(self.board).view(np.int8)

    def _as_actions(self, values: Any, agent: str) -> np.ndarray:
        """The actions of one agent as ``int64[N]``, or a clear error."""
        return integer_vector(f"{agent} actions", values, self.num_envs, "integer cell indices")

    def _raise_if_illegal(self, black: np.ndarray, white: np.ndarray) -> None:
        """``illegal_action="raise"``: name the first illegal action, before any game moves."""
        raise_if_illegal(self.board, self._autoreset, black, white)

    def _planes_views(self, black: np.ndarray, white: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The observation buffers as ``(N, 5, 81)`` for the kernel (placeholders otherwise)."""
        if self._kind == OTHER:
            return self._placeholder, self._placeholder
        shape = (self.num_envs, N_PLANES, rules.CELLS)
        return black.reshape(shape), white.reshape(shape)

    def _obs_buffers(self, results: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Where this step's observations go: the fixed pair (``copy=False``), else the pair of
        this step's set of ``results`` (see `shell_envs.core.buffers`)."""
        if not self.copy:
            return self._obs_black, self._obs_white
        return results[4], results[5]

    def _observations(
        self, black: np.ndarray, white: np.ndarray, masks: np.ndarray
    ) -> dict[str, Any]:
        """Both players' batched observations; encoders without a compiled kind fill them here."""
        if self._kind == OTHER:
            fill = getattr(self.encoder, "fill_batch", None)
            if fill is not None:
                fill(self.board, self.eggs, self.meta, black, white)
            else:
                for i in range(self.num_envs):
                    black[i] = self.encoder.encode(*self._game(i), rules.BLACK)
                    white[i] = self.encoder.encode(*self._game(i), rules.WHITE)
        return {
            "black": {"observation": black, "action_mask": masks[0]},
            "white": {"observation": white, "action_mask": masks[1]},
        }

    def _game(self, i: int) -> GameState:
        """The state of game ``i`` (views of the batch's rows, not a copy)."""
        return GameState(self.board[i], self.eggs[i], self.meta[i])

    def close(self) -> None:
        """Nothing to release; present for API symmetry."""


_BATCH_MODULES = (
    "shell_envs.what_the_shell.vector",
    "shell_envs.what_the_shell.kernels",
    "shell_envs.what_the_shell.encoders",
)


def _compile_in_background(obs_encoder: str, env: WhatTheShellVectorEnv) -> bool:
    """Compile the batch loop and the batch encoder of ``env`` (whose encoder is named
    ``obs_encoder``) in a background process if they are not cached; they run as plain Python
    until then ([`shell_envs.core.background`][]).  Returns whether a compile runs in the
    background."""
    fill = (
        encoders.fill_planes_batch
        if env._kind != OTHER
        else getattr(env.encoder, "fill_batch", None)
    )
    return background.start(
        "shell_envs.what_the_shell.vector:_exercise",
        {"obs_encoder": obs_encoder},
        _BATCH_MODULES,
        (batch_step, fill),
        "the batched What the Shell rules",
    )


def _exercise(options: dict[str, Any]) -> None:
    """Run the batch loop and encoder once (in the background process): a reset and a round."""
    env = WhatTheShellVectorEnv(2, **options)
    env.reset(seed=0)
    env.step({"black": np.array([40, 40]), "white": np.array([41, 41])})


# INFO_FIELDS, now the messages' BATCH_INFO_FIELDS, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__,
    "0.5.0",
    {"INFO_FIELDS": ("shell_envs.what_the_shell.messages", "BATCH_INFO_FIELDS")},
)
