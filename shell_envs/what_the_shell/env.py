"""PettingZoo parallel environment for What the Shell: a thin adapter over `rules`.

The env holds its game as one [`GameState`][shell_envs.what_the_shell.state.GameState] (read
as ``board``, ``eggs`` and ``meta``): `WhatTheShellEnv.get_state` copies it out,
`WhatTheShellEnv.set_state` checks one and continues from it, as Scorpion's env does.  The
refusals' words and the info schema are `shell_envs.what_the_shell.messages`'.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from shell_envs.core import background
from shell_envs.core.deprecation import moved_names, warn_deprecated
from shell_envs.core.errors import IllegalMove
from shell_envs.core.render import HumanWindow, RenderModes
from shell_envs.core.validation import choice, mapping, reset_needed
from shell_envs.core.validation import seed as seed_value
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import PlanesEncoder, encode_planes
from shell_envs.what_the_shell.messages import (
    LOSS,
    NO_REASONS,
    NO_REPORT,
    PLAYER_OUTCOMES,
    WIN,
    is_integer,
    player_infos,
    quiet_infos,
    refusal,
    refusal_code,
)
from shell_envs.what_the_shell.options import DEFAULT_MAX_ROUNDS, WhatTheShellOptions
from shell_envs.what_the_shell.position import arrays_to_position, cell_name, position_to_arrays
from shell_envs.what_the_shell.render import render_ansi, render_rgb
from shell_envs.what_the_shell.state import GameState, check_state

AGENTS = ("black", "white")
PLAYER = {"black": rules.BLACK, "white": rules.WHITE}
RESULT = {
    rules.BLACK_WINS: {"black": 1.0, "white": -1.0},
    rules.WHITE_WINS: {"black": -1.0, "white": 1.0},
    rules.DRAW: {"black": 0.0, "white": 0.0},
}
NO_REWARD = {"black": 0.0, "white": 0.0}
RESET_OPTIONS = ("position",)
# PettingZoo's API checkers (api_test, parallel_api_test) call reset(seed=0,
# options={"options": 1}) to see that reset takes the keyword: that one key is ignored
CHECKER_PROBE = ("options",)
FAST_INTS = frozenset({int, np.int64})  # checked by type first: the common, cheap case
# what step returns: observations, rewards, terminations, truncations and infos, by agent
StepResult = tuple[
    dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
]


class WhatTheShellEnv(RenderModes, ParallelEnv):
    """Two players choose an empty cell each round, simultaneously.

    The rules: ``docs/environments/what-the-shell.md``.

    Args:
        render_mode: ``"ansi"``, ``"rgb_array"``, ``"human"`` or None.
        obs_encoder: a registered encoder name (``"planes"``, ``"flat"``) or an encoder object.
        max_rounds: rounds after which the game is truncated (both rewards 0).
        illegal_action: ``"lose"`` (the offender loses, the board is unchanged) or ``"raise"``.

    ``options`` holds the checked keywords
    ([`WhatTheShellOptions`][shell_envs.what_the_shell.options.WhatTheShellOptions]).
    """

    metadata: dict[str, Any] = {
        "name": "what_the_shell_v0",
        "is_parallelizable": True,
        "render_modes": ["ansi", "rgb_array", "human"],
        "render_fps": 2,
    }
    window_title = "What the Shell"

    def __init__(
        self,
        render_mode: str | None = None,
        obs_encoder: Any = "planes",
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        illegal_action: str = "lose",
    ) -> None:
        if render_mode is not None:
            choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.options = options = WhatTheShellOptions(
            obs_encoder=obs_encoder, max_rounds=max_rounds, illegal_action=illegal_action
        )
        self.max_rounds = options.max_rounds
        self.illegal_action = options.illegal_action
        self.encoder = options.encoder
        if isinstance(obs_encoder, str):
            _compile_in_background(obs_encoder, self.encoder)
        self._encode_pair = getattr(self.encoder, "encode_pair", None)
        self._step_pair = getattr(self.encoder, "step_pair", None)
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces = {a: options.observation_space for a in AGENTS}
        self.action_spaces: dict[str, spaces.Space] = {a: options.action_space for a in AGENTS}
        self.state_space = PlanesEncoder().space
        self._window: HumanWindow | None = None
        self._info = np.zeros(rules.INFO_SIZE, dtype=np.int32)
        self.illegal_reasons: dict[str, str] = {}  # the last step's reasons, by offender
        self._game = GameState.new()  # the game; board, eggs and meta read it
        self._started = False  # a game was started (reset or set_state): step may be called

    def observation_space(self, agent: str) -> spaces.Dict:
        """The Dict observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(81)``: the cell index (``a1`` = 0 … ``i9`` = 80)."""
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start from the empty board, or from ``options["position"]``.

        The rules have no randomness; ``seed`` seeds the action spaces' ``sample``.
        """
        seed, state = self.check_reset(seed, options)
        if seed is not None:
            for i, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + i)
        self._game = state
        self._started = True
        self._info[:] = 0
        self.agents = list(AGENTS)
        self.illegal_reasons = {}
        infos = quiet_infos(self.meta)
        self._render_frame()
        return self._observations(), infos

    def check_reset(self, seed: Any, options: Any) -> tuple[int | None, GameState]:
        """Check ``reset``'s arguments without changing anything: ``(seed, state)``.

        A bad seed (not a non-negative integer), a bad position or an unknown option gets a
        ``ValueError`` (an unknown option named with the accepted one it resembles:
        ``'positon' (did you mean 'position'?)``), as Scorpion's reset does.  The one key
        ``"options"`` is ignored: PettingZoo's API checkers pass ``{"options": 1}`` to see
        that ``reset`` takes the keyword.
        """
        seed = seed_value("seed", seed)
        options = mapping("options", options, RESET_OPTIONS, "reset option", CHECKER_PROBE)
        if "position" in options:
            return seed, GameState(*position_to_arrays(options["position"]))
        return seed, GameState.new()

    def check_action(self, agent: str, action: Any) -> None:
        """Raise what ``step`` would raise for ``agent`` playing ``action``, changing nothing.

        A value that is not an integer always gets a ``ValueError``; with
        ``illegal_action="raise"`` an illegal cell gets an ``IllegalMove``.  With ``"lose"`` an
        illegal integer passes (the round will count it as a loss).
        """
        reason = refusal(self.board, action)
        if reason is None:
            return
        if not is_integer(action):
            raise ValueError(f"{agent}: {reason}")
        if self.illegal_action == "raise":
            raise IllegalMove(f"{agent}: {reason}")

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Any],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Play one round with both players' cells (before the first ``reset``, or
        `set_state`: ``ResetNeeded``; after the game ended: ``RuntimeError``)."""
        if not self.agents:
            if not self._started:
                raise reset_needed("step()")
            raise RuntimeError("the game is over; call reset() to start a new one")
        if (
            type(actions) is not dict
            or len(actions) != 2
            or "black" not in actions
            or ("white" not in actions)
        ):
            raise ValueError(
                "step() takes a dict with one action for each of 'black' and 'white', got "
                f"{actions!r}"
            )
        black, white = actions["black"], actions["white"]
        if (
            (type(black) in FAST_INTS or is_integer(black))
            and (type(white) in FAST_INTS or is_integer(white))
            and 0 <= black < rules.CELLS > white >= 0
        ):
            if self._step_pair is not None:
                outcome, *encoded = self._step_pair(*self._game, black, white, self._info)
            else:
                outcome = rules.try_step(*self._game, black, white, self._info)
                encoded = None
            if outcome != rules.ILLEGAL:
                return self._after_round(outcome, encoded)
        return self._illegal(black, white)

    def _illegal(self, black: Any, white: Any) -> StepResult:
        """React to an illegal action per ``illegal_action``, without touching the board."""
        reasons = {}
        for agent, action in (("black", black), ("white", white)):
            reason = refusal(self.board, action)
            if reason is not None:
                reasons[agent] = reason
                if not is_integer(action):
                    raise ValueError(f"{agent}: {reason}")
        if self.illegal_action == "raise":
            raise IllegalMove("; ".join(f"{agent}: {why}" for agent, why in reasons.items()))
        rewards = {a: (-1.0 if a in reasons else 1.0) for a in AGENTS}
        if len(reasons) == 2:
            rewards = {a: -1.0 for a in AGENTS}
        codes = (refusal_code(self.board, black), refusal_code(self.board, white))
        outcomes = (LOSS if codes[0] else WIN, LOSS if codes[1] else WIN)
        _, sudden_death, rounds, _ = self.meta.tolist()
        infos = player_infos(NO_REPORT, rounds, sudden_death, outcomes, codes)
        self.illegal_reasons = reasons
        self.agents = []
        return (
            self._observations(),
            rewards,
            {a: True for a in AGENTS},
            {a: False for a in AGENTS},
            infos,
        )

    def _after_round(self, outcome: int, encoded: list[np.ndarray] | None = None) -> StepResult:
        """Build rewards, flags and infos after a played round."""
        outcome = int(outcome)  # a numpy integer when the rules ran as plain Python
        _, sudden_death, rounds, _ = self.meta.tolist()
        terminated = outcome != rules.ONGOING
        truncated = not terminated and rounds >= self.max_rounds
        rewards = RESULT[outcome] if terminated else NO_REWARD
        outcomes = PLAYER_OUTCOMES[outcome]
        infos = player_infos(self._info.tolist(), rounds, sudden_death, outcomes, NO_REASONS)
        if terminated or truncated:
            self.agents = []
        if self.render_mode == "human":
            self._render_frame()
        return (
            self._observations(encoded),
            dict(rewards),
            {"black": terminated, "white": terminated},
            {"black": truncated, "white": truncated},
            infos,
        )

    def _observations(self, encoded: list[np.ndarray] | None = None) -> dict[str, Any]:
        """Both players' observations with the mask of empty cells (``encoded``: the fused
        step's ``[black, white, mask]``)."""
        if encoded is not None:
            black, white, mask = encoded
            return {
                "black": {"observation": black, "action_mask": mask},
                "white": {"observation": white, "action_mask": mask.copy()},
            }
        mask = self._empty_cells()
        if self._encode_pair is not None:
            black, white = self._encode_pair(*self._game)
        else:
            black = self.encoder.encode(*self._game, rules.BLACK)
            white = self.encoder.encode(*self._game, rules.WHITE)
        return {
            "black": {"observation": black, "action_mask": mask},
            "white": {"observation": white, "action_mask": mask.copy()},
        }

    def action_masks(self) -> np.ndarray:
        """``int8[81]``: 1 on the empty cells, the legal actions of both players.

        Before the first ``reset`` (or `set_state`) there is no game: ``ResetNeeded``.
        """
        if not self._started:
            raise reset_needed("action_masks()")
        return self._empty_cells()

    def _empty_cells(self) -> np.ndarray:
        """``int8[81]``: 1 on the empty cells."""
        return np.logical_not(self.board).view(np.int8)

    def action_mask(self) -> np.ndarray:
        """Deprecated name of [`action_masks`][], the name Scorpion and the vector env use."""
        warn_deprecated("WhatTheShellEnv.action_mask()", "action_masks()", "0.4.0")
        return self.action_masks()

    def get_state(self) -> GameState:
        """A copy of the game state (the arrays the compiled rules work on), e.g. for search."""
        return self._game.copy()

    def set_state(self, state: GameState) -> None:
        """Continue from a copy of ``state``: both players act next unless its game is decided.

        The state is checked first ([`check_state`][shell_envs.what_the_shell.state.check_state]):
        anything but a `GameState` of arrays a game can have gets a ``ValueError`` naming what is
        wrong, and the env is unchanged.
        """
        check_state(state)
        self._game = state.copy()
        self._started = True
        self._info[:] = 0
        self.illegal_reasons = {}
        self.agents = list(AGENTS) if self.meta[rules.OUTCOME] == rules.ONGOING else []
        self._render_frame()

    @property
    def board(self) -> np.ndarray:
        """The game's board, ``int8[81]`` (the env's own array, not a copy)."""
        return self._game.board

    @property
    def eggs(self) -> np.ndarray:
        """The game's egg queue, ``int8[81]``, oldest first (the env's own array)."""
        return self._game.eggs

    @property
    def meta(self) -> np.ndarray:
        """The game's ``int32[4]``: egg count, sudden death, rounds, outcome (the env's own)."""
        return self._game.meta

    def state(self) -> np.ndarray:
        """The whole board from a neutral view: black, white, eggs, egg order, sudden death."""
        return encode_planes(*self._game, rules.BLACK)

    def position(self) -> dict[str, Any]:
        """The current position as cell names, as ``reset(options={"position": ...})`` takes it."""
        return arrays_to_position(*self._game)

    def explain(self, action: Any) -> str | None:
        """Why ``action`` is illegal now, or None when it is legal."""
        return refusal(self.board, action)

    def _text(self) -> str:
        """The board as text (the ``ansi`` mode)."""
        return render_ansi(self._game)

    def _image(self) -> np.ndarray:
        """The board as an image (``rgb_array`` and ``human``)."""
        return render_rgb(self._game)

    def __repr__(self) -> str:
        return f"<WhatTheShellEnv round={int(self.meta[rules.ROUNDS])} agents={self.agents}>"


__all__ = ["DEFAULT_MAX_ROUNDS", "WhatTheShellEnv", "cell_name"]

# names that moved to the messages, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__,
    "0.5.0",
    {
        name: ("shell_envs.what_the_shell.messages", name)
        for name in ("ILLEGAL_REASONS", "INFO_KEYS", "OUTCOMES")
    },
)


_RULE_MODULES = ("shell_envs.what_the_shell.rules", "shell_envs.what_the_shell.encoders")


def _compile_in_background(obs_encoder: str, encoder: Any) -> None:
    """Compile the rules an env with encoder ``obs_encoder`` runs in a background process, if
    they are not cached; they run as plain Python until then
    ([`shell_envs.core.background`][])."""
    fused = [getattr(encoder, name, None) for name in ("step_pair", "encode_pair")]
    # rules.try_step is called from Python only without a fused step (otherwise it compiles
    # inside step_pair and never gets a cache entry of its own: asking for one would start a
    # background compile at every new env)
    stepping = (rules.try_step,) if fused[0] is None else ()
    background.start(
        "shell_envs.what_the_shell.env:_exercise",
        {"obs_encoder": obs_encoder},
        _RULE_MODULES,
        (*fused, encoder.encode, *stepping),
        "the What the Shell rules",
    )


def _exercise(options: dict[str, Any]) -> None:
    """Run every compiled path of an env with ``options`` once (in the background process)."""
    env = WhatTheShellEnv(**options)
    observations, _ = env.reset(seed=0)
    env.step({a: int(observations[a]["action_mask"].argmax()) for a in AGENTS})
    env.reset(seed=0)
    env.step({"black": 0, "white": 0})  # a collision
    env.reset(seed=0)
    env.step({"black": 0, "white": 81})  # an illegal cell
