"""What the CPU and GPU batched What the Shell envs share, on the host: their keywords, spaces,
``reset`` and ``step`` checks, the illegal-move refusal and the infos of a step's rows.

`BatchedWhatTheShellEnv` is the base of both
[`WhatTheShellVectorEnv`][shell_envs.what_the_shell.vector.WhatTheShellVectorEnv] and
``WhatTheShellGpuVectorEnv`` (`shell_envs.what_the_shell.gpu`), so each of them holds only
what its target does differently; the per-game step both run is
`shell_envs.what_the_shell.kernels.step_game`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from shell_envs.core.errors import IllegalMove
from shell_envs.core.validation import flag, mapping, positive_int, reset_needed
from shell_envs.core.validation import seed as seed_value
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.env import AGENTS
from shell_envs.what_the_shell.messages import BATCH_FLAGS, BATCH_INFO_FIELDS, refusal
from shell_envs.what_the_shell.options import DEFAULT_MAX_ROUNDS, WhatTheShellOptions

__all__ = [
    "FLAG_FIELDS",
    "REPORT_FIELDS",
    "BatchedWhatTheShellEnv",
    "batch_spaces",
    "infos_of",
    "raise_if_illegal",
    "reset_seeds",
]

# rows of the per-step report the kernel writes: the rules' info array (named by the info
# schema, `shell_envs.what_the_shell.messages`), then these three
REPORT_FIELDS = (*BATCH_INFO_FIELDS, "round", "sudden_death", "illegal")
# rows of the per-step flags the kernel writes: termination and truncation of each player,
# then the infos that are booleans (their report rows hold the same as 0 or 1)
FLAG_FIELDS = (
    "terminated_black",
    "terminated_white",
    "truncated_black",
    "truncated_white",
    *BATCH_FLAGS,
)
_FLAG_INFOS = tuple((name, FLAG_FIELDS.index(name)) for name in BATCH_FLAGS)


def infos_of(report: Any, flags: Any) -> dict[str, Any]:
    """The infos dict of a step's ``report`` and ``flags`` rows (numpy arrays or tensors,
    viewed, not copied): `REPORT_FIELDS`, with collision and sudden death as booleans."""
    infos = dict(zip(REPORT_FIELDS, report, strict=True))
    for name, index in _FLAG_INFOS:
        infos[name] = flags[index]
    return infos


def batch_spaces(options: WhatTheShellOptions, n: int) -> tuple[spaces.Space, ...]:
    """``(single_observation_space, single_action_space, observation_space, action_space)``
    of ``n`` batched games with ``options``."""
    space = options.encoder.space
    batched = spaces.Dict(
        {
            "observation": spaces.Box(
                np.broadcast_to(space.low, (n, *space.shape)),
                np.broadcast_to(space.high, (n, *space.shape)),
                dtype=space.dtype,
            ),
            "action_mask": spaces.Box(0, 1, (n, rules.CELLS), np.int8),
        }
    )
    return (
        options.observation_space,
        options.action_space,
        batched,
        spaces.MultiDiscrete(np.full(n, rules.CELLS)),
    )


def reset_seeds(seed: Any, n: int) -> list[int]:
    """The per-game seeds of ``reset(seed=...)``: an int gives ``seed, seed + 1, ...``, a list
    gives one per game; anything else raises ``ValueError``."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        first = seed_value("seed", seed)
        return [first + i for i in range(n)]
    if isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__"):
        raise ValueError(f"seed must be an integer, None or a list of {n}; got {seed!r}")
    if len(seed) != n:
        raise ValueError(f"reset() got {len(seed)} seeds for {n} games")
    return [seed_value(f"seed[{i}]", s) for i, s in enumerate(seed)]


def raise_if_illegal(
    board: np.ndarray, autoreset: np.ndarray, black: np.ndarray, white: np.ndarray
) -> None:
    """``illegal_action="raise"``: raise `IllegalMove` naming the first illegal action
    of the games not about to reset (host arrays: ``board`` ``(N, 81)``, the rest ``(N,)``)."""
    live = ~autoreset
    for agent, acts in (("black", black), ("white", white)):
        in_range = (acts >= 0) & (acts < rules.CELLS)
        cells = np.where(in_range, acts, 0)
        empty = board[np.arange(len(board)), cells] == rules.EMPTY
        bad = np.flatnonzero(live & ~(in_range & empty))
        if bad.size:
            i = int(bad[0])
            why = refusal(board[i], int(acts[i]))  # the single env's words
            raise IllegalMove(f"game {i}, {agent}: {why} ({bad.size} illegal in all)")


class BatchedWhatTheShellEnv(ABC):
    """The host side both batched What the Shell envs share: the checked keywords (``options``,
    `WhatTheShellOptions`, and ``copy``), the spaces, ``reset``'s seeds and options, and
    ``step``'s checks before the target's own `_play`.

    A subclass allocates its state and buffers once the keywords are checked (`_allocate`),
    converts one agent's actions (`_as_actions`), refuses illegal ones (`_raise_if_illegal`,
    with ``illegal_action="raise"``) and plays a round (`_play`).
    """

    metadata = {"name": "what_the_shell_v0_vector", "autoreset_mode": AutoresetMode.NEXT_STEP}
    autoreset_mode = AutoresetMode.NEXT_STEP  # as Gymnasium's vector envs expose it
    seeds: list[int] | None  # the last reset's per-game seeds

    def __init__(
        self,
        num_envs: int,
        obs_encoder: Any = "planes",
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        illegal_action: str = "lose",
        copy: bool = True,
    ) -> None:
        self.num_envs = positive_int("num_envs", num_envs)
        self.options = options = WhatTheShellOptions(
            obs_encoder=obs_encoder, max_rounds=max_rounds, illegal_action=illegal_action
        )
        self.copy = flag("copy", copy)
        self.max_rounds = options.max_rounds
        self.illegal_action = options.illegal_action
        self.encoder = options.encoder
        self.possible_agents = list(AGENTS)
        (self.single_observation_space, self.single_action_space, self.observation_space,
         self.action_space) = batch_spaces(options, self.num_envs)  # fmt: skip
        self._started = False  # step and action_masks need a reset first
        self._allocate()

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """One round in every game: ``actions = {"black": int[N], "white": int[N]}``
        (observations, rewards, terminations, truncations and infos, each keyed by agent but
        the infos); before the first ``reset``, ``ResetNeeded``."""
        if not self._started:
            raise reset_needed("step()")
        if not isinstance(actions, dict) or set(actions) != set(AGENTS):
            raise ValueError(
                "step() takes a dict with an array of N actions for each of 'black' and "
                f"'white', got {actions!r}"
            )
        black = self._as_actions(actions["black"], "black")
        white = self._as_actions(actions["white"], "white")
        if self.illegal_action == "raise":
            self._raise_if_illegal(black, white)
        return self._play(black, white)

    def _seeds(self, seed: Any, options: Any) -> list[int] | None:
        """``reset``'s checks (no options: anything but None or an empty dict gets the single
        env's ``ValueError``), then the per-game seeds of ``seed`` (None: none), which seed
        ``action_space`` and are kept as ``seeds``; a refused reset changes nothing."""
        mapping("options", options, (), "reset option")
        if seed is None:
            return None
        seeds = reset_seeds(seed, self.num_envs)
        self.seeds = seeds
        self.action_space.seed(seeds[0])
        return seeds

    @abstractmethod
    def _allocate(self) -> None:
        """The target's state and result buffers, once the shared keywords are checked."""

    @abstractmethod
    def _as_actions(self, values: Any, agent: str) -> Any:
        """One agent's actions as the target's ``int64[N]`` array, or a ``ValueError``."""

    @abstractmethod
    def _raise_if_illegal(self, black: Any, white: Any) -> None:
        """``illegal_action="raise"``: `raise_if_illegal` on the target's arrays."""

    @abstractmethod
    def _play(
        self, black: Any, white: Any
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """One round in every game with checked actions: ``step``'s results."""
