"""``gym.make_vec("shell_envs/Scorpion-v0", num_envs=N)``: N games in one compiled, parallel loop.

Each game's rows of the ``(N, ...)`` state arrays go through the same compiled rule functions
as the single environment (`shell_envs.scorpion.rules.step`, ``deal``, ``legal_mask``)
and the same encoders, so batch and single trajectories are identical for the same seeds and
actions (tested).  Autoreset follows Gymnasium 1.x: ``autoreset_mode="next_step"`` (default,
the step after an episode ends resets that game and ignores its action) or ``"same_step"``
(the game is reset at once and its last observation is kept in ``infos["final_obs"]``, as
Stable-Baselines3 expects).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from shell_envs.core import background
from shell_envs.core.buffers import BufferPool, BufferSets
from shell_envs.core.cuda import fresh_batch
from shell_envs.core.errors import IllegalMove
from shell_envs.core.jit import compile_notice, jit_inline, jit_parallel, prange
from shell_envs.core.pcg64 import generator_columns
from shell_envs.core.rows import row
from shell_envs.core.validation import integer_vector, reset_needed
from shell_envs.scorpion import rules as engine
from shell_envs.scorpion.batch import BatchedScorpionEnv
from shell_envs.scorpion.deals import draw_deals
from shell_envs.scorpion.kernels import (
    INFO_ARRAYS,
    STATE,
    as_infos,
    check_game,
    fill_infos,
    info_arrays,
    reset_game,
    step_game,
)
from shell_envs.scorpion.state import ScorpionState


@jit_inline
def game_rows(arrays: engine.StateArrays, i: int) -> engine.StateArrays:
    """Game ``i``'s state arrays: its rows of the batched state ``arrays``, as uncounted views.

    Counted views (``tab[i]``) would make every game step bump one reference counter shared by
    all games, atomically, from both cores; see `shell_envs.core.rows`.
    """
    tab, lens, fd, reserve, meta, hist = arrays
    return row(tab, i), row(lens, i), row(fd, i), row(reserve, i), row(meta, i), row(hist, i)


@jit_parallel
def batch_reset(
    arrays: engine.StateArrays,
    numbers: np.ndarray,
    which: np.ndarray,
    rule: int,
    allow_undo: bool,
    masks: np.ndarray,
    kind: int,
    obs: np.ndarray,
    cards: np.ndarray,
) -> None:
    """Deal ``numbers[i]`` in every game ``i`` with ``which[i]`` set and encode it."""
    for i in prange(which.shape[0]):
        if which[i]:
            rows = (row(masks, i), row(obs, i), row(cards, i))
            reset_game(game_rows(arrays, i), rows, numbers[i], rule, allow_undo, kind)


@jit_parallel
def batch_infos(
    meta: np.ndarray,
    codes: np.ndarray,
    numbers: np.ndarray,
    counts: np.ndarray,
    flags: np.ndarray,
    code: np.ndarray,
    deal: np.ndarray,
) -> None:
    """Every game's infos (`fill_infos`)."""
    for i in prange(meta.shape[0]):
        fill_infos(i, row(meta, i), codes, numbers, counts, flags, code, deal)


@jit_parallel
def batch_step(
    arrays: engine.StateArrays,
    actions: np.ndarray,
    settings: tuple[int, bool, int, bool, int, bool],
    masks: np.ndarray,
    obs: np.ndarray,
    cards: np.ndarray,
    gen: np.ndarray,
    pool: np.ndarray,
    use_pool: bool,
    steps: np.ndarray,
    autoreset: np.ndarray,
    numbers: np.ndarray,
    codes: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    counts: np.ndarray,
    flags: np.ndarray,
    code: np.ndarray,
    deal: np.ndarray,
) -> None:
    """Step every game (`step_game`, with ``settings`` as it takes them) and write its infos
    (`fill_infos`).

    Each game's rows of ``masks``, ``obs``, ``cards`` and ``gen`` go to `step_game` as its
    tuples; the vectors come one by one (see `step_game`).  The rule functions of an ordinary
    step (a card move, the new mask, the encoding) are inlined into this loop; rare ones (the
    reserve deal, undo, checks of illegal actions, new deals) are calls.
    """
    for i in prange(actions.shape[0]):
        s = game_rows(arrays, i)
        rows = (row(masks, i), row(obs, i), row(cards, i))
        draw = (row(gen, i), pool, use_pool)
        codes[i], rewards[i], terminated[i], truncated[i] = step_game(
            i, s, rows, actions[i], settings, draw, steps, autoreset, numbers
        )
        _, _, _, _, meta, _ = s
        fill_infos(i, meta, codes, numbers, counts, flags, code, deal)


@jit_parallel
def batch_check(
    arrays: engine.StateArrays,
    actions: np.ndarray,
    allow_undo: bool,
    skip: np.ndarray,
    codes: np.ndarray,
) -> None:
    """The check code of every game's action (`check_game`)."""
    for i in prange(actions.shape[0]):
        check_game(i, game_rows(arrays, i), actions, allow_undo, skip, codes)


class ScorpionVectorEnv(BatchedScorpionEnv):
    """``num_envs`` Scorpion games; the keywords of ``Scorpion-v0`` plus ``autoreset_mode``.

    Observations ``(N, ...)`` from the chosen encoder (with ``mask_in_obs``, a Dict with
    ``"action_mask"`` ``(N, A)``); [`action_masks`][] returns ``bool[N, A]``.  Infos hold
    arrays ``score``, ``removed``, ``moves``, ``won``, ``illegal``, ``code`` (0 legal, else the
    rules' check code; [`explain`][shell_envs.scorpion.vector.ScorpionVectorEnv.explain] gives
    the message) and ``deal``: the same keys and dtypes at reset and at every step;
    ``autoreset_mode="same_step"`` adds Gymnasium's ``final_obs`` (an object array: each ended
    game's last observation, None elsewhere), ``final_info``, ``_final_obs`` and
    ``_final_info`` to the steps where a game ended.  With
    ``"next_step"``, the masks returned with a game's last observation are all True: the next
    step resets that game and ignores its action.  ``options`` holds the checked keywords the
    single env shares ([`ScorpionOptions`][shell_envs.scorpion.options.ScorpionOptions]).
    """

    def _allocate(self) -> None:
        """The state arrays, masks, observation and result buffers, and the deal generators."""
        self._same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        # a user's encoder object (its own observation type) compiles in the foreground
        if not (isinstance(self.options.obs_encoder, str) and _compile_in_background()):
            compile_notice(batch_reset, batch_step, what="the batched Scorpion rules")
        n = self.num_envs
        obs_space = self.encoder.space
        self.tab, self.lens, self.fd, self.reserve, self.meta, self.hist = (
            fresh_batch(spec, n) for spec in STATE
        )
        self.masks = np.zeros((n, self.n_actions), np.bool_)
        self.steps = np.zeros(n, np.int64)
        self.deals = np.zeros(n, np.int64)
        self._autoreset = np.zeros(n, np.bool_)
        self._codes = np.zeros(n, np.int64)
        self._obs = np.zeros((n, *obs_space.shape), obs_space.dtype)
        self._cards = np.zeros((n, engine.N_CARDS), np.int8)  # scratch for shuffled decks
        # returned arrays come from pools: no fresh megabytes (page faults) every step
        self._obs_pool = BufferPool(self._obs.shape, self._obs.dtype)
        self._mask_pool = BufferPool(self.masks.shape, self.masks.dtype)
        # a step's rewards, flags and infos, recycled once released and taken in one call
        results = [((n,), np.float32), ((n,), np.bool_), ((n,), np.bool_)]
        self._results = BufferSets(results + [((*rows, n), d) for rows, d in INFO_ARRAYS])
        # each env's generator of deal numbers (fresh entropy until seeded) and the deal pool
        # (see shell_envs.scorpion.deals)
        self._gen = _generator_rows([None] * n)
        self._pool = np.zeros(1, np.int64)

    @property
    def arrays(self) -> engine.StateArrays:
        """The batched state arrays ``(tab, lens, fd, reserve, meta, hist)``."""
        return self.tab, self.lens, self.fd, self.reserve, self.meta, self.hist

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a game in every env: env ``i`` plays deal ``seed + i`` (or ``seed[i]``).

        Like the single env, a seed is also the deal number, and later autoresets draw deal
        numbers from each env's generator seeded with it.  ``options={"deals": [numbers]}``
        plays the given deal numbers.
        """
        seeds, seeded, numbers = self._reset_request(seed, options)
        if seeded.any():
            self._gen[seeded] = _generator_rows([s for s in seeds if s is not None])
        if numbers is not None:
            self.deals[:] = numbers
        else:
            self.deals[seeded] = [s for s in seeds if s is not None]
            self._draw_deals(~seeded)
        self._deal(np.ones(self.num_envs, np.bool_), partial=False)
        self.steps[:] = 0
        self._autoreset[:] = False
        self._codes[:] = 0
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play one action in every game (``int[N]``); before the first ``reset``,
        ``ResetNeeded``."""
        if not self._started:
            raise reset_needed("step()")
        acts = self._as_actions(actions)
        if self.illegal_action == "raise":
            batch_check(self.arrays, acts, self.allow_undo, self._autoreset, self._codes)
            bad = np.flatnonzero(self._codes)
            if bad.size:
                i = int(bad[0])
                raise IllegalMove(f"env {i}: {self.explain(i, int(acts[i]))}")
        rewards, terminated, truncated, *outputs = self._results.take()
        settings = (
            self._rule,
            self.allow_undo,
            self.max_moves,
            self.reward_mode == "win",
            self._kind,
            not self._same_step,
        )
        batch_step(
            self.arrays,
            acts,
            settings,
            self.masks,
            self._obs_target(partial=False),
            self._cards,
            self._gen,
            self._pool,
            self._use_pool,
            self.steps,
            self._autoreset,
            self.deals,
            self._codes,
            rewards,
            terminated,
            truncated,
            *outputs,
        )
        infos = as_infos(*outputs)
        observations = self._observations()
        if self._same_step and self._autoreset.any():
            ended = self._autoreset.copy()
            # as Gymnasium's vector envs give it: one observation per env, None where none ended
            final_obs = np.full(self.num_envs, None, dtype=object)
            for e in np.flatnonzero(ended):
                final_obs[e] = _row(observations, int(e))
            final_info = infos
            self._redeal(ended)
            observations = self._observations()
            infos = self._infos()
            infos.update(final_obs=final_obs, _final_obs=ended, final_info=final_info)
            infos["_final_info"] = ended
        return observations, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """``bool[N, A]``: for each game, True where the engine accepts the action (before the
        first ``reset``: ``ResetNeeded``)."""
        if not self._started:
            raise reset_needed("action_masks()")
        return self._mask_pool.copy_of(self.masks)

    def _as_actions(self, actions: Any) -> np.ndarray:
        """The actions as ``int64[N]``, or a ``ValueError`` saying what was wrong."""
        return integer_vector("actions", actions, self.num_envs)

    def _game_arrays(self, index: int) -> engine.StateArrays:
        """Game ``index``'s rows of the state arrays."""
        return tuple(x[index] for x in self.arrays)

    def _redeal(self, which: np.ndarray) -> None:
        """Deal the next game in the envs flagged in ``which`` (`redeal`, a same-step autoreset)."""
        self._draw_deals(which)
        self._deal(which, partial=True)
        self.steps[which] = 0
        self._autoreset[which] = False

    def _deal(self, which: np.ndarray, partial: bool) -> None:
        """Deal ``deals[i]`` in the envs flagged in ``which`` and encode them (`batch_reset`;
        ``partial``: not every env, see `_obs_target`)."""
        obs = self._obs_target(partial)
        batch_reset(
            self.arrays,
            self.deals,
            which,
            self._rule,
            self.allow_undo,
            self.masks,
            self._kind,
            obs,
            self._cards,
        )

    def _draw_deals(self, which: np.ndarray) -> None:
        """Set ``deals[i]`` to the next deal number of each env ``i`` with ``which[i]`` set
        (`deals.draw_deals`; an autoreset in ``step`` draws inside the batch loop)."""
        draw_deals(which, self._gen, self._pool, self._use_pool, self.deals)

    def _obs_target(self, partial: bool) -> np.ndarray:
        """The array for the next kernel to encode into; it becomes the current observations.

        Returned observations are never written again (Gymnasium's copy semantics), and copying
        them out of one fixed array cost a pass over every observation per step.  Instead each
        kernel encodes into a pooled array that nothing outside refers to, which is returned as
        it is.  With ``partial`` the kernel encodes only some games, so the array starts as a
        copy of the current observations.  Custom encoders encode outside the kernels.
        """
        if self._kind < 0:
            return self._obs
        out = self._obs_pool.take()
        if partial:
            np.copyto(out, self._obs)
        self._obs = out
        return out

    def _encoded(self) -> np.ndarray:
        """The current observations (custom encoders are called game by game)."""
        if self._kind >= 0:
            return self._obs
        return np.stack(
            [
                self.encoder.encode(ScorpionState(tuple(x[i].copy() for x in self.arrays)))
                for i in range(self.num_envs)
            ]
        )

    def _observations(self) -> Any:
        """Batched observations, with the masks when ``mask_in_obs``."""
        obs = self._encoded()
        if self.mask_in_obs:
            return {"observation": obs, "action_mask": self.masks.astype(np.int8)}
        return obs

    def _infos(self) -> dict[str, Any]:
        """Per-game infos as fresh arrays (`batch_infos`)."""
        outputs = info_arrays(self.num_envs)
        batch_infos(self.meta, self._codes, self.deals, *outputs)
        return as_infos(*outputs)


def _generator_rows(seeds: Sequence[int | None]) -> np.ndarray:
    """One deal-number generator row per seed (`pcg64.generator_columns`, transposed)."""
    return np.ascontiguousarray(generator_columns(seeds).T)


def _row(observations: Any, index: int) -> Any:
    """Game ``index``'s observation out of a batched (possibly Dict) observation."""
    if isinstance(observations, dict):
        return {key: value[index] for key, value in observations.items()}
    return observations[index]


_BATCH_MODULES = (
    "shell_envs.scorpion.vector",
    "shell_envs.scorpion.kernels",
    "shell_envs.scorpion.rules",
    "shell_envs.scorpion.deals",
    "shell_envs.core.pcg64",
)


def _compile_in_background() -> bool:
    """Compile the batch loops (built-in encoders) in a background process if they are not
    cached; they run as plain Python until then ([`shell_envs.core.background`][]).  Returns
    whether a compile runs in the background."""
    return background.start(
        "shell_envs.scorpion.vector:_exercise",
        {},
        _BATCH_MODULES,
        (batch_reset, batch_step, batch_infos, batch_check, draw_deals, engine.check_action),
        "the batched Scorpion rules",
    )


def _exercise(options: dict[str, Any]) -> None:
    """Run every batch loop once (in the background process): reset, a checked step, explain."""
    env = ScorpionVectorEnv(2, illegal_action="raise", **options)
    env.reset(seed=0)
    env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
    env.explain(0, 0)
