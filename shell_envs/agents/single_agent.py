"""Single-agent What the Shell: one seat learns, the other is played by an agent.

``gym.make("shell_envs/WhatTheShell-v0", opponent="greedy", seat="random")`` gives a plain
Gymnasium environment over [`WhatTheShellEnv`][]; with
[`WhatTheShellSingleEnv.action_masks`][] it trains with MaskablePPO as it is.  It lives with
the agents, not in the rules package, because it builds its opponent from them
(``shell_envs.what_the_shell.single_agent`` is its old, deprecated name).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from shell_envs.agents.base import Agent, agent_names, choose_action
from shell_envs.agents.spec import make_agent
from shell_envs.agents.what_the_shell import GAME
from shell_envs.core.validation import choice, flag, reset_needed
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.env import AGENTS, WhatTheShellEnv
from shell_envs.what_the_shell.options import DEFAULT_MAX_ROUNDS
from shell_envs.what_the_shell.view import WhatTheShellView

SEATS = ("black", "white", "random")


class WhatTheShellSingleEnv(gym.Env):
    """What the Shell against a fixed opponent; rewards from the learner's seat.

    Args:
        opponent: an agent name (``"random"``, ``"greedy"``, ``"mcts"``) or an agent object
            (see `shell_envs.agents.base`); search agents get the full position.
        seat: the learner's colour, ``"black"``, ``"white"`` or ``"random"`` (drawn again at
            every reset from the environment's seeded generator).
        obs_encoder: as for [`WhatTheShellEnv`][] (``"planes"``, ``"flat"`` or an object).
        max_rounds: rounds after which the game is truncated (reward 0).
        illegal_action: ``"lose"`` (an illegal move loses at once) or ``"raise"``.
        render_mode: ``"ansi"``, ``"rgb_array"``, ``"human"`` or None.
        mask_in_obs: observations are ``{"observation", "action_mask"}`` Dicts when True.
        opponent_kwargs: keyword arguments for a named opponent (e.g. ``{"iterations": 200}``).

    ``info`` holds the learner's round info from the parallel env (numbers only, the same keys
    at reset and every step), plus ``"seat"`` (0 black, 1 white) and ``"opponent_action"`` (the
    cell the opponent chose that round; -1 after a reset).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        opponent: str | Agent = "random",
        seat: str = "random",
        obs_encoder: Any = "planes",
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        mask_in_obs: bool = False,
        opponent_kwargs: dict[str, Any] | None = None,
    ) -> None:
        choice("seat", seat, SEATS)
        flag("mask_in_obs", mask_in_obs)
        if opponent_kwargs is not None and not isinstance(opponent_kwargs, dict):
            raise ValueError(f"opponent_kwargs must be a dict, got {opponent_kwargs!r}")
        self.opponent = _make_opponent(opponent, opponent_kwargs)
        self.game = WhatTheShellEnv(
            render_mode=render_mode,
            obs_encoder=obs_encoder,
            max_rounds=max_rounds,
            illegal_action=illegal_action,
        )
        self.render_mode = render_mode
        self.seat_option = seat
        self.mask_in_obs = bool(mask_in_obs)
        self.seat = "black" if seat == "random" else seat
        self.action_space = spaces.Discrete(rules.CELLS)
        self.observation_space = (
            self.game.observation_space("black") if mask_in_obs else self.game.encoder.space
        )
        self._observations: dict[str, Any] = {}

    @property
    def opponent_seat(self) -> str:
        """The opponent's colour this game."""
        return "white" if self.seat == "black" else "black"

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """New game: draw the seat (when ``"random"``), reseed the opponent, reset the board.

        ``options`` are those of [`WhatTheShellEnv.reset`][] (e.g. ``{"position": ...}``).
        """
        # checked first: a refused reset changes nothing (seat, generators, opponent, board)
        seed, _ = self.game.check_reset(seed, options)
        super().reset(seed=seed)
        if self.seat_option == "random":
            self.seat = AGENTS[int(self.np_random.integers(2))]
        self.opponent.reset(int(self.np_random.integers(2**31 - 1)))
        self._observations, infos = self.game.reset(seed=seed, options=options)
        info = {**infos[self.seat], "seat": AGENTS.index(self.seat), "opponent_action": -1}
        return self._own_observation(), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play a round: the learner's ``action`` and the opponent's choice on the same position
        (before the first ``reset``: ``ResetNeeded``)."""
        if not self._observations:
            raise reset_needed("step()")
        if not self.game.agents:
            raise RuntimeError("the game is over; call reset() to start a new one")
        if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
            action = int(action.reshape(()))
        # a refused action must not have moved the opponent (nor its generator): check it first
        self.game.check_action(self.seat, action)
        opponent_seat = self.opponent_seat
        seen = self._observations[opponent_seat]
        opponent_action = choose_action(
            self.opponent,
            seen["observation"],
            seen["action_mask"],
            WhatTheShellView.from_env(self.game, opponent_seat),
        )
        observations, rewards, terminated, truncated, infos = self.game.step(
            {self.seat: action, opponent_seat: opponent_action}
        )
        self._observations = observations
        info = {
            **infos[self.seat],
            "seat": AGENTS.index(self.seat),
            "opponent_action": int(opponent_action),
        }
        return (
            self._own_observation(),
            float(rewards[self.seat]),
            bool(terminated[self.seat]),
            bool(truncated[self.seat]),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """``bool[81]``: the learner's legal cells (the empty ones), as MaskablePPO expects
        (before the first ``reset``: ``ResetNeeded``)."""
        return self.game.action_masks() != 0

    # Gymnasium types render with a free type variable, which no concrete return can match
    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """Render the board per ``render_mode``."""
        return self.game.render()

    def close(self) -> None:
        """Close the window, if any."""
        self.game.close()

    def _own_observation(self) -> Any:
        """The learner's observation in ``observation_space``."""
        seen = self._observations[self.seat]
        if self.mask_in_obs:
            return {"observation": seen["observation"], "action_mask": seen["action_mask"]}
        return seen["observation"]


def _make_opponent(opponent: Any, kwargs: dict[str, Any] | None) -> Agent:
    """Build a named opponent or check that an object follows the agent protocol."""
    if isinstance(opponent, str):
        names = agent_names(GAME)
        if opponent not in names:
            raise ValueError(
                f"unknown opponent {opponent!r}; accepted: {', '.join(map(repr, names))} "
                "or an agent object with reset() and act()"
            )
        return make_agent(GAME, opponent, **(kwargs or {}))
    if kwargs:
        raise ValueError("opponent_kwargs only apply to an opponent given by name")
    if not (
        callable(getattr(opponent, "act", None)) and callable(getattr(opponent, "reset", None))
    ):
        raise ValueError(
            "opponent must be an agent name or an object with reset(seed) and "
            f"act(observation, action_mask), got {opponent!r}"
        )
    return opponent
