"""``shell_envs/Scorpion-v0``: a thin Gymnasium adapter over the compiled Scorpion rules."""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from shell_envs.core import background
from shell_envs.core.deprecation import RENAMED, moved_names
from shell_envs.core.errors import IllegalMove
from shell_envs.core.render import HumanWindow, RenderModes
from shell_envs.core.validation import (
    action_index,
    choice,
    flag,
    integer,
    mapping,
    reset_needed,
)
from shell_envs.core.validation import seed as seed_value
from shell_envs.scorpion import rules as engine
from shell_envs.scorpion.messages import refusal, refusal_text
from shell_envs.scorpion.options import DEFAULT_MAX_MOVES, ScorpionOptions
from shell_envs.scorpion.render import render_ansi, render_rgb
from shell_envs.scorpion.state import MAX_DEAL_NUMBER, ScorpionState, check_state
from shell_envs.scorpion.winnable import pick_winnable_seed

_OPTIONS = ("deal", "position", "winnable_only")


class ScorpionEnv(RenderModes, gym.Env):
    """Scorpion solitaire with the exact rules and scoring of the original app.

    Actions ([`shell_envs.scorpion.actions`][]): ``encode_move(card_index, column)``, that is
    ``card_index * 7 + column`` (card index = suit * 13 + rank - 1, suits S, H, D, C; column
    0–6), moves that card and everything above it; 364 deals the reserve; with
    ``allow_undo=True``, 365 undoes the last move.  Use [`action_masks`][] (or
    ``info["action_mask"]``) to see which actions are legal.  ``options`` holds the checked
    keywords ([`ScorpionOptions`][shell_envs.scorpion.options.ScorpionOptions]).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}
    window_title = "Scorpion"

    def __init__(
        self,
        rules: str = "classic",
        obs_encoder: Any = "tableau",
        illegal_action: str = "reject",
        allow_undo: bool = False,
        lang: str = "en",
        max_moves: int | None = DEFAULT_MAX_MOVES,
        reward: str = "score",
        mask_in_obs: bool = False,
        render_mode: str | None = None,
        winnable_only: bool = False,
    ) -> None:
        self.options = options = ScorpionOptions(
            rules=rules,
            obs_encoder=obs_encoder,
            illegal_action=illegal_action,
            allow_undo=allow_undo,
            lang=lang,
            max_moves=max_moves,
            reward=reward,
            mask_in_obs=mask_in_obs,
            winnable_only=winnable_only,
        )
        if render_mode is not None:
            choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.rules = options.rules
        self.illegal_action = options.illegal_action
        self.allow_undo = options.allow_undo
        self.lang = options.lang
        self.reward_mode = options.reward
        self.mask_in_obs = options.mask_in_obs
        self.winnable_only = options.winnable_only
        self.max_moves = options.max_moves
        self.encoder = options.encoder
        if isinstance(obs_encoder, str):
            _compile_in_background(
                {"rules": self.rules, "obs_encoder": obs_encoder, "allow_undo": self.allow_undo},
                self.encoder,
            )
        self._fused_step = getattr(self.encoder, "step", None)
        self._raise = self.illegal_action == "raise"
        self._win_reward = self.reward_mode == "win"
        self.n_actions = options.n_actions
        self.action_space = options.action_space
        self.observation_space = options.observation_space
        self._state = ScorpionState.from_number(0, self.rules)
        self._mask = np.zeros(self.n_actions, np.bool_)
        self._n_legal = 0
        self._steps = 0
        self._deal: int | None = None
        self.message = ""  # the last step's refusal message ("" when it was accepted)
        self._window: HumanWindow | None = None
        self._started = False  # a game was dealt (reset or set_state): step may be called
        self._refresh_mask()

    # --- Gymnasium API -------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start a game: deal number ``seed``, or ``options["deal"]`` / ``options["position"]``.

        With ``winnable_only`` (keyword, or ``options["winnable_only"]``) and no explicit deal
        or position, ``seed`` instead draws the deal from the numbers the solver proved winnable.
        """
        seed = seed_value("seed", seed, MAX_DEAL_NUMBER)
        options = mapping("options", options, _OPTIONS, "reset option")
        if "deal" in options and "position" in options:
            raise ValueError("pass either options['deal'] or options['position'], not both")
        winnable = flag(
            "options['winnable_only']", options.get("winnable_only", self.winnable_only)
        )
        # everything is checked before anything changes: a refused reset leaves the env as it was
        deal_number: int | None = None
        state = None
        if "position" in options:
            state = ScorpionState.from_position(options["position"], self.rules)
        elif "deal" in options and not isinstance(options["deal"], (int, np.integer)):
            state = ScorpionState.from_deal(options["deal"], self.rules)
        elif "deal" in options:
            deal_number = integer("options['deal']", options["deal"], 0, MAX_DEAL_NUMBER)
        super().reset(seed=seed)
        if state is None:
            number = deal_number if deal_number is not None else seed
            if winnable and "deal" not in options:
                number = pick_winnable_seed(self.np_random, self.rules)
            elif number is None:
                number = int(self.np_random.integers(0, 2**62))
            state = ScorpionState.from_number(number, self.rules)
            deal_number = int(number)
        self._deal = deal_number
        self._state = state
        self._started = True
        self._steps = 0
        self._refresh_mask()
        self.message = ""
        return self._observe(), self._info(engine.OK)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play one action; an illegal one leaves the game unchanged (or raises, if asked).

        Before the first ``reset`` (or `set_state`) no game is dealt: ``ResetNeeded``.
        """
        if not self._started:
            raise reset_needed("step()")
        a = action if type(action) is int else action_index(action, self.n_actions)
        s = self._state
        obs = None
        if not 0 <= a < self.n_actions:
            code, points = engine.E_OUT_OF_RANGE, 0
        elif self._n_legal == 0:
            code, points = (engine.E_GAME_OVER if s.won else engine.E_NO_MOVES), 0
        elif self._fused_step is not None:
            code, points, self._n_legal, obs = self._fused_step(s, a, self.allow_undo, self._mask)
        else:
            code, points, self._n_legal = engine.step(s.arrays, a, self.allow_undo, self._mask)
        text = ""
        if code:
            text = refusal_text(code, s.arrays, action, a, self.lang, self.n_actions)
            if self._raise:
                raise IllegalMove(text)
        self.message = text
        self._steps += 1
        info = self._info(code)
        won = info["won"]
        if self._win_reward:
            reward = 1.0 if won and not code and a != engine.UNDO_ACTION else 0.0
        else:
            reward = float(points)
        terminated = bool(won or self._n_legal == 0)
        truncated = not terminated and self.max_moves is not None and self._steps >= self.max_moves
        if self.render_mode == "human":
            self.render()
        return self._observe(obs), reward, terminated, truncated, info

    def _text(self) -> str:
        """The tableau as text (the ``ansi`` mode)."""
        return render_ansi(self._state)

    def _image(self) -> np.ndarray:
        """The tableau as an image (``rgb_array`` and ``human``)."""
        return render_rgb(self._state)

    # --- masks, explanations, positions ---------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """Bool array over the action space: True where the engine accepts the action (before
        the first ``reset`` or `set_state`: ``ResetNeeded``)."""
        if not self._started:
            raise reset_needed("action_masks()")
        return self._mask.copy()

    def explain(self, action: Any) -> str | None:
        """None when ``action`` is legal now, else the message a rejection would give."""
        a = action_index(action, self.n_actions)
        arrays = self._state.arrays
        return refusal(arrays, action, a, self.n_actions, self.allow_undo, self._n_legal, self.lang)

    def position(self) -> dict[str, Any]:
        """The full position: columns (bottom → top), face_down, reserve, removed, score, moves."""
        return self._state.position()

    def get_state(self) -> ScorpionState:
        """A copy of the game state (the arrays the compiled rules work on), e.g. for search."""
        return self._state.copy()

    def set_state(self, state: ScorpionState) -> None:
        """Continue from a copy of ``state`` (whose rule flag must match this env's ``rules``).

        The state is checked first (`check_state`): arrays
        no game can have get a ``ValueError`` naming what is wrong, and the env is unchanged.
        """
        if not isinstance(state, ScorpionState):
            raise ValueError(f"set_state needs a ScorpionState; got {type(state).__name__}")
        check_state(state)
        if state.rules != self.rules:
            raise ValueError(f"the state's rules do not match this env's rules={self.rules!r}")
        self._state = state.copy()
        self._started = True
        self._refresh_mask()

    @property
    def deal_number(self) -> int | None:
        """The deal number of the current game, or None for an explicit deal or position."""
        return self._deal

    # --- internals -------------------------------------------------------------------------

    def _refresh_mask(self) -> None:
        """Recompute the legal-action mask after the state was replaced."""
        self._n_legal = engine.legal_mask(self._state.arrays, self.allow_undo, self._mask)

    def _observe(self, obs: np.ndarray | None = None) -> Any:
        """The observation (``obs`` if already encoded), with the mask when ``mask_in_obs``."""
        if obs is None:
            obs = self.encoder.encode(self._state)
        if self.mask_in_obs:
            return {"observation": obs, "action_mask": self._mask.astype(np.int8)}
        return obs

    def _info(self, code: int) -> dict[str, Any]:
        """The step's info dict: the same keys and types at reset and at every step."""
        removed, score, moves = self._state.meta[:3].tolist()
        return {
            "action_mask": self._mask.copy(),
            "score": score,
            "removed": removed,
            "moves": moves,
            "won": bool(engine.is_won(self._state.meta)),
            "illegal": code != engine.OK,
            "code": int(code),
            "deal": -1 if self._deal is None else self._deal,
        }


_RULE_MODULES = ("shell_envs.scorpion.rules", "shell_envs.scorpion.encoders")


def _compile_in_background(options: dict[str, Any], encoder: Any) -> None:
    """Compile the rules an env with these ``options`` (and their ``encoder``) runs in a
    background process, if they are not cached; they run as plain Python until then
    ([`shell_envs.core.background`][])."""
    background.start(
        "shell_envs.scorpion.env:_exercise",
        options,
        _RULE_MODULES,
        (getattr(encoder, "fused_step", None), engine.legal_mask, engine.deal),
        "the Scorpion rules",
    )


def _exercise(options: dict[str, Any]) -> None:
    """Run every compiled path of an env with ``options`` once (in the background process)."""
    env = ScorpionEnv(**options)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    env.step(int(np.flatnonzero(~env.action_masks())[0]))  # an illegal one
    env.explain(0)


# RULES, the old name of RULE_SETS, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__, "0.5.0", {"RULES": ("shell_envs.scorpion.rules", "RULE_SETS")}, RENAMED
)
