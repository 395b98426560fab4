"""Stable-Baselines3 adapters: batched Scorpion, What the Shell self-play, models as agents.

``ScorpionVecEnv(num_envs)`` runs [`ScorpionVectorEnv`][] (one
compiled loop over all games) behind SB3's ``VecEnv`` API, so MaskablePPO trains on it as on a
``DummyVecEnv`` of single envs, without a Python env object per game::

    from sb3_contrib import MaskablePPO
    from shell_envs.integrations.sb3 import ScorpionVecEnv

    model = MaskablePPO("MlpPolicy", ScorpionVecEnv(16), n_steps=128)
    model.learn(100_000)

Masks reach MaskablePPO through ``env_method("action_masks")`` (one row per game, what
``sb3_contrib.common.maskable.utils.get_action_masks`` stacks); ``action_masks()`` returns
them as one ``bool[N, A]`` array.

``WhatTheShellSelfPlayVecEnv(num_games)`` runs What the Shell games (PettingZoo parallel envs)
with both seats of every game as rows of one ``VecEnv`` (or one learner seat against an
agent), so MaskablePPO self-plays with the masks of every row and no SuperSuit::

    from shell_envs.integrations.sb3 import WhatTheShellSelfPlayVecEnv

    model = MaskablePPO("MlpPolicy", WhatTheShellSelfPlayVecEnv(8, obs_encoder="flat"))

[`load_agent`][] turns a saved model into an agent for
``play``, ``bench`` and the evaluations; [`RatingCallback`][] rates the model on the bench's
fixed scales while it trains, in a background process, and logs the ratings.  Needs the
extra ``train`` (stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from shell_envs.agents.base import Agent, PolicyAgent, choose_action
from shell_envs.agents.spec import make_agent
from shell_envs.agents.what_the_shell import GAME, WhatTheShellView
from shell_envs.bench.evaluation import ScorpionResult
from shell_envs.integrations.rating import BackgroundRater, Rating, seconds_left
from shell_envs.registry import GAMES
from shell_envs.scorpion.vector import ScorpionVectorEnv
from shell_envs.what_the_shell.env import AGENTS, WhatTheShellEnv

_INFO_KEYS = ("score", "removed", "moves", "won", "illegal", "code", "deal")


class ScorpionVecEnv(VecEnv):
    """``num_envs`` Scorpion games as one SB3 ``VecEnv`` (keywords as for ``Scorpion-v0``).

    Ended games restart at once (Gymnasium's ``same_step`` autoreset); their last observation
    is in ``infos[i]["terminal_observation"]`` and ``infos[i]["TimeLimit.truncated"]`` marks a
    move-limit cut, as SB3 expects.  Each game's info also has ``score``, ``removed``,
    ``moves``, ``won``, ``illegal``, ``code`` and ``deal`` (of the game that just ended, when one
    did).  ``seed(s)`` before ``reset()`` plays deals ``s``, ``s + 1``, ... as the batched env
    does, ``set_options([{"deal": d} for d in deals])`` the given deals; wrap in ``VecMonitor``
    for episode statistics.
    """

    def __init__(self, num_envs: int, **env_kwargs: Any) -> None:
        if "autoreset_mode" in env_kwargs:
            raise ValueError("ScorpionVecEnv always resets ended games at once (same_step)")
        self.venv = ScorpionVectorEnv(num_envs, autoreset_mode="same_step", **env_kwargs)
        self._actions = np.zeros(self.venv.num_envs, np.int64)
        self._per_game: dict[str, Callable[..., Any]] = {
            "action_masks": self._game_mask,
            "explain": self.venv.explain,
        }
        super().__init__(
            self.venv.num_envs, self.venv.single_observation_space, self.venv.single_action_space
        )

    def reset(self) -> Any:
        """Deal a new game in every env: the deals set by ``seed()`` or ``set_options()``."""
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        observations, infos = self.venv.reset(seed=seeds, options=self._deal_options())
        self.reset_infos = _split(infos, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        """Store the actions of the next step (one per game)."""
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> VecEnvStepReturn:
        """Step every game; ended games are reset and report their last observation."""
        observations, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        per_game = _split(infos, self.num_envs)
        if "_final_obs" in infos:
            finals = _split(infos["final_info"], self.num_envs)
            for i in np.flatnonzero(infos["_final_obs"]):
                per_game[i] = finals[i]
                per_game[i]["terminal_observation"] = infos["final_obs"][i]
                per_game[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return observations, rewards.astype(np.float32), terminated | truncated, per_game

    def action_masks(self) -> np.ndarray:
        """``bool[N, A]``: each game's legal actions."""
        return self.venv.action_masks()

    def close(self) -> None:
        """Release the batched env."""
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The batched env's attribute, once per index (the games share one env object)."""
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the batched env (shared by all games, so ``indices`` is moot)."""
        setattr(self.venv, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Per-game methods: ``action_masks()`` (a game's mask) and ``explain(action)``."""
        method = self._per_game.get(method_name)
        if method is None:
            raise AttributeError(
                f"ScorpionVecEnv has no per-game method {method_name!r}; "
                f"available: {', '.join(sorted(self._per_game))}"
            )
        return [method(i, *method_args, **method_kwargs) for i in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """No game is wrapped: they are rows of one batched env."""
        return [False for _ in self._get_indices(indices)]

    def _deal_options(self) -> dict[str, Any] | None:
        """The batched env's reset options from SB3's per-game ones (``{"deal": number}``)."""
        if not any(self._options):
            return None
        if not all(set(o) == {"deal"} for o in self._options):
            raise ValueError(
                "ScorpionVecEnv's only reset option is {'deal': number}, given for every game; "
                f"got {self._options}"
            )
        return {"deals": [int(o["deal"]) for o in self._options]}

    def _game_mask(self, index: int) -> np.ndarray:
        """Game ``index``'s legal actions."""
        return self.venv.masks[index].copy()


class WhatTheShellSelfPlayVecEnv(VecEnv):
    """What the Shell self-play for SB3: every learning seat of ``num_games`` games is a row.

    ``learner="both"`` (default): rows ``2g`` and ``2g + 1`` are black and white of game ``g``,
    so one policy plays both sides of every game (``num_envs = 2 * num_games``).
    ``learner="black"`` or ``"white"``: one row per game, the other seat played by
    ``opponent`` (an agent name such as ``"greedy"`` or an agent object).  A step plays one
    round in every game with the rows' cells; rewards are each row's own (+1/−1/0 at the end).
    Ended games restart at once; each of their rows reports ``terminal_observation`` and
    ``TimeLimit.truncated`` (a ``max_rounds`` cut).  Observations are the rows' own encoded
    boards (``obs_encoder``, from that seat's side); masks reach MaskablePPO through
    ``env_method("action_masks")``, and [`action_masks`][] gives them as ``bool[rows, 81]``.
    Infos are the parallel env's per-seat infos plus ``"seat"`` (0 black, 1 white).
    ``env_kwargs`` go to [`WhatTheShellEnv`][].
    """

    def __init__(
        self,
        num_games: int,
        learner: str = "both",
        opponent: str | Agent | None = None,
        **env_kwargs: Any,
    ) -> None:
        if learner not in ("both", *AGENTS):
            raise ValueError(f"learner must be 'both', 'black' or 'white', got {learner!r}")
        if (learner == "both") != (opponent is None):
            raise ValueError(
                "learner='both' takes no opponent; learner='black'/'white' needs one "
                f"(got learner={learner!r}, opponent={opponent!r})"
            )
        if not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        self.games = [WhatTheShellEnv(**env_kwargs) for _ in range(num_games)]
        self.learner = learner
        self.seats = list(AGENTS) if learner == "both" else [learner]
        self.opponent: Agent | None = (
            make_agent(GAME, opponent) if isinstance(opponent, str) else opponent
        )
        self._other = None if learner == "both" else AGENTS[1 - AGENTS.index(learner)]
        # row r is seat self._rows[r][1] of game self._rows[r][0]
        self._rows = [(g, seat) for g in range(num_games) for seat in self.seats]
        self._observations: list[dict[str, Any]] = [{} for _ in range(num_games)]
        self._actions = np.zeros(len(self._rows), np.int64)
        space = self.games[0].observation_space("black")
        super().__init__(len(self._rows), space["observation"], self.games[0].action_space("black"))

    def reset(self) -> np.ndarray:
        """Start every game; ``seed(s)`` before seeds the games' samplers and the opponent."""
        infos = []
        for g, game in enumerate(self.games):
            seed = self._seeds[g * len(self.seats)]
            self._observations[g], game_infos = game.reset(
                seed=seed, options=self._options[g * len(self.seats)] or None
            )
            if self.opponent is not None and g == 0:
                self.opponent.reset(seed)
            infos.append(game_infos)
        self.reset_infos = [
            {**infos[g][seat], "seat": AGENTS.index(seat)} for g, seat in self._rows
        ]
        self._reset_seeds()
        self._reset_options()
        return self._stack()

    def step_async(self, actions: np.ndarray) -> None:
        """Store the rows' cells for the next round."""
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> VecEnvStepReturn:
        """One round in every game; ended games restart and report their last observations."""
        per_seat = len(self.seats)
        rewards = np.zeros(self.num_envs, np.float32)
        dones = np.zeros(self.num_envs, np.bool_)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for g, game in enumerate(self.games):
            actions = {
                seat: int(self._actions[g * per_seat + k]) for k, seat in enumerate(self.seats)
            }
            if self._other is not None and self.opponent is not None:
                seen = self._observations[g][self._other]
                actions[self._other] = choose_action(
                    self.opponent,
                    seen["observation"],
                    seen["action_mask"],
                    WhatTheShellView.from_env(game, self._other),
                )
            observations, reward, terminated, truncated, game_infos = game.step(actions)
            ended = not game.agents
            for k, seat in enumerate(self.seats):
                row = g * per_seat + k
                rewards[row] = reward[seat]
                dones[row] = ended
                infos[row] = {**game_infos[seat], "seat": AGENTS.index(seat)}
                if ended:
                    infos[row]["terminal_observation"] = observations[seat]["observation"]
                    infos[row]["TimeLimit.truncated"] = bool(
                        truncated[seat] and not terminated[seat]
                    )
            if ended:
                observations, _ = game.reset()
            self._observations[g] = observations
        return self._stack(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``bool[rows, 81]``: each row's legal cells (the empty ones of its game)."""
        return np.stack([self._row_mask(r) for r in range(self.num_envs)])

    def close(self) -> None:
        """Close every game."""
        for game in self.games:
            game.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """An attribute of each row's game (``action_masks``: the row's mask function)."""
        if attr_name == "action_masks":
            return [lambda r=r: self._row_mask(r) for r in self._get_indices(indices)]
        return [
            getattr(self.games[self._rows[r][0]], attr_name) for r in self._get_indices(indices)
        ]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of each row's game."""
        for r in self._get_indices(indices):
            setattr(self.games[self._rows[r][0]], attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks()`` per row; any other method is called on each row's game."""
        if method_name == "action_masks":
            return [self._row_mask(r) for r in self._get_indices(indices)]
        return [
            getattr(self.games[self._rows[r][0]], method_name)(*method_args, **method_kwargs)
            for r in self._get_indices(indices)
        ]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """No game is wrapped."""
        return [False for _ in self._get_indices(indices)]

    def _row_mask(self, row: int) -> np.ndarray:
        """Row ``row``'s legal cells as ``bool[81]``."""
        return self.games[self._rows[row][0]].board == 0

    def _stack(self) -> np.ndarray:
        """The rows' observations as one array."""
        return np.stack([self._observations[g][seat]["observation"] for g, seat in self._rows])


def _split(infos: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The batched env's dict of arrays as one info dict per game (plain Python values)."""
    return [{key: infos[key][i].item() for key in _INFO_KEYS} for i in range(n)]


def evaluate_scorpion_model(
    model: Any,
    deals: Sequence[int],
    deterministic: bool = False,
    name: str = "ppo",
    **env_kwargs: Any,
) -> ScorpionResult:
    """Play each deal in ``deals`` once with a masked SB3 model on the batched env.

    ``env_kwargs`` must match the model's training env (encoder, rules, ``mask_in_obs``).
    All deals run side by side; a game's first ending is its result.  The policy samples by
    default: its most likely move has no memory of the game and can cycle (a king between two
    empty columns) until the move limit, which sampling escapes.
    """
    deals = [int(d) for d in deals]
    env = ScorpionVecEnv(len(deals), **env_kwargs)
    env.set_options([{"deal": d} for d in deals])
    observations = env.reset()
    won = np.zeros(len(deals), np.bool_)
    scores = np.zeros(len(deals), np.float64)
    pending = np.ones(len(deals), np.bool_)
    while pending.any():
        actions, _ = model.predict(
            observations, action_masks=env.action_masks(), deterministic=deterministic
        )
        observations, _, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones & pending):
            won[i] = infos[i]["won"]
            scores[i] = infos[i]["score"]
            pending[i] = False
    return ScorpionResult(name, won, scores)


class WhatTheShellModelAgent:
    """A trained What the Shell model (MaskablePPO) as an agent, whatever env it plays in.

    The agent encodes the position itself with the encoder the model was trained on
    (``"planes"`` or ``"flat"``, read off the model's observation space), so it plays from
    ``act_with_state`` in any env, and decodes ``"planes"``/``"flat"`` observations in ``act``.
    """

    def __init__(self, model: Any, name: str = "ppo", deterministic: bool = True) -> None:
        from shell_envs.what_the_shell.encoders import FlatEncoder, PlanesEncoder

        space = model.observation_space
        self._dict_obs = isinstance(space, gym.spaces.Dict)
        shape = space["observation"].shape if self._dict_obs else space.shape
        encoders: dict[object, tuple[str, type[PlanesEncoder | FlatEncoder]]] = {
            PlanesEncoder.space.shape: ("planes", PlanesEncoder),
            FlatEncoder.space.shape: ("flat", FlatEncoder),
        }
        if shape not in encoders:
            raise ValueError(
                f"the model's observations have shape {shape}; a What the Shell model is "
                "trained on the 'planes' (5, 9, 9) or 'flat' (325,) encoder"
            )
        self.encoder_name, encoder = encoders[shape]
        self.encode = encoder.encode
        self.model = model
        self.name = name
        self.deterministic = deterministic

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset; a sampling agent draws from torch's global generator."""

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """The model's cell for the position decoded from a ``planes``/``flat`` observation."""
        from shell_envs.agents.what_the_shell import WhatTheShellView

        return self.act_with_state(WhatTheShellView.from_observation(observation), action_mask)

    def act_with_state(self, state: Any, action_mask: np.ndarray) -> int:
        """The model's cell for a [`WhatTheShellView`][]."""
        encoded = self.encode(state.board, state.eggs, state.meta, state.player)
        mask = np.asarray(action_mask).astype(bool)
        observation: np.ndarray | dict[str, np.ndarray] = encoded
        if self._dict_obs:
            observation = {"observation": encoded, "action_mask": mask.astype(np.int8)}
        action, _ = self.model.predict(
            observation, action_masks=mask, deterministic=self.deterministic
        )
        return int(np.asarray(action).item())


def load_model(path: str | Path) -> Any:
    """Load a MaskablePPO model saved with ``model.save(path)`` onto the CPU."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(str(path), device="cpu")


class ScorpionModelAgent:
    """A trained Scorpion model (MaskablePPO) as an agent.

    ``obs_encoder`` and ``mask_in_obs`` say which observations the model was trained on (read
    off its observation space: the ``tableau`` encoder has 366 values, ``cards`` 217, a
    ``Dict`` space carries the mask); whoever runs the game makes its env with them, as
    ``shell-envs bench`` does.
    """

    def __init__(
        self,
        model: Any,
        name: str = "ppo",
        deterministic: bool = True,
        encoder: str | None = None,
    ) -> None:
        from shell_envs.scorpion.encoders import ENCODERS

        space = model.observation_space
        self.mask_in_obs = isinstance(space, gym.spaces.Dict)
        shape = space["observation"].shape if self.mask_in_obs else space.shape
        by_shape = {ENCODERS.create(n).space.shape: n for n in ("tableau", "cards")}
        if encoder is None:
            if shape not in by_shape:
                raise ValueError(
                    f"the model's observations have shape {shape}, not the 'tableau' (366,) or "
                    "'cards' (217,) encoder's; name it: ppo:PATH?encoder=NAME"
                )
            encoder = by_shape[shape]
        elif ENCODERS.create(encoder).space.shape != shape:
            raise ValueError(
                f"encoder {encoder!r} does not give the model's observation shape {shape}"
            )
        self.obs_encoder = encoder
        self.policy = PolicyAgent(model, name=name, deterministic=deterministic)
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset; a sampling agent draws from torch's global generator."""
        self.policy.reset(seed)

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """The model's action for an observation of its own encoder."""
        return self.policy.act(observation, action_mask)


def load_agent(
    path: str | Path,
    game: str = "what_the_shell",
    name: str | None = None,
    deterministic: bool = True,
    seed: int | None = None,
    encoder: str | None = None,
) -> Any:
    """A saved MaskablePPO model as an agent of ``game`` (what the spec ``ppo:PATH`` loads).

    What the Shell models play in any env ([`WhatTheShellModelAgent`][]); Scorpion models
    ([`ScorpionModelAgent`][]) name the encoder their env must use.  ``encoder`` checks
    (or, for Scorpion, picks) the training encoder when the observation shape is ambiguous.
    """
    if game not in GAMES:
        names = " or ".join(repr(g) for g in GAMES)
        raise ValueError(f"game must be {names}, got {game!r}")
    if not Path(path).is_file():
        raise ValueError(f"no saved model at {str(path)!r}")
    model = load_model(path)
    label = name or f"ppo:{Path(path).name}"
    if game == "what_the_shell":
        agent: Any = WhatTheShellModelAgent(model, name=label, deterministic=deterministic)
        if encoder is not None and agent.encoder_name != encoder:
            raise ValueError(
                f"the model was trained on the {agent.encoder_name!r} encoder, not {encoder!r}"
            )
    else:
        agent = ScorpionModelAgent(model, label, deterministic, encoder)
    agent.reset(seed)
    return agent


class ProgressLines:
    """Says how far a long loop has come, in one printed line at most every ``seconds`` (a
    log keeps each line, where a progress bar's redraws run together): the count done of the
    total, the speed since ``first`` (the count when it starts) and the time left."""

    def __init__(self, what: str, total: int, unit: str, seconds: float, first: int = 0) -> None:
        self.what, self.total, self.unit, self.seconds = what, total, unit, seconds
        self.first = first
        self.start = time.perf_counter()
        self.next = self.start + seconds

    def __call__(self, done: int) -> None:
        """Print the line if it is due."""
        now = time.perf_counter()
        if now < self.next or done <= self.first:
            return
        self.next = now + self.seconds
        rate = (done - self.first) / (now - self.start)
        left = (self.total - done) / rate
        print(
            f"{self.what}: {done:,} of {self.total:,} {self.unit} ({rate:,.0f}/s), "
            f"about {left / 60:.1f} min left",
            flush=True,
        )


class ProgressCallback(BaseCallback):
    """`ProgressLines` over an SB3 algorithm's steps (``[PPO]: 20,480 of 2,000,000 steps
    ...``), its clock started at the first step, after what the callbacks before it in a
    ``CallbackList`` did then (such as a first evaluation)."""

    def __init__(self, total: int, seconds: float, what: str = "[PPO]") -> None:
        super().__init__()
        self.total, self.seconds, self.what = total, seconds, what
        self.lines: ProgressLines | None = None

    def _on_step(self) -> bool:
        """Start the clock at the first step, then print a line when one is due."""
        if self.lines is None:
            self.lines = ProgressLines(
                self.what, self.total, "steps", self.seconds, self.num_timesteps
            )
        self.lines(self.num_timesteps)
        return True


class RatingCallback(BaseCallback):
    """Rate the model every ``every_steps`` env steps in a background process, and log it.

    What the Shell: the Elo rating on the bench's fixed scale with its 95% interval, from
    ``games_per_anchor`` games against each anchor; Scorpion: the win rate on ``deals`` deals
    of ``deal_set`` under ``rules`` (the model's training rules), with its Wilson interval.
    Each snapshot is the model saved to a scratch file, loaded and rated in a worker process
    (``shell_envs.integrations.rating.BackgroundRater``, which also says what happens when a
    rating falls due while the previous one runs), so training goes on.  A
    finished rating is written at once to the outputs of the model's logger (stdout, CSV,
    TensorBoard, as configured), at the step of the snapshot rated, under ``rating/``
    (``prefix``): ``elo``, ``elo_lower``, ``elo_upper`` (What the Shell; a value the games
    leave open is not written) or ``win_rate``, ``win_rate_lower``, ``win_rate_upper``
    (Scorpion), and ``games``, ``score``, ``step`` and ``seconds``; the values the algorithm
    has recorded and not yet written stay as they are.  ``callback.rater.results`` keeps the
    ratings (``write_json``, ``write_csv``, ``plot``).

    ``rate_at_start`` rates the untrained model at the first step; ``rate_at_end`` rates the
    final model when training ends, and training's end waits for the ratings in flight (up
    to ``timeout`` seconds, ``None``: as long as they take) and ends the worker.
    ``deterministic``: the rated model plays its most likely move (as ``ppo:PATH`` does by
    default).  The model must be sb3-contrib's ``MaskablePPO`` with observations of
    ``game`` (checked when training starts).
    """

    def __init__(
        self,
        game: str = "what_the_shell",
        every_steps: int = 10_000,
        games_per_anchor: int = 10,
        deals: int = 50,
        deal_set: str = "test",
        rules: str = "classic",
        workers: int = 1,
        seed: int = 0,
        deterministic: bool = True,
        rate_at_start: bool = True,
        rate_at_end: bool = True,
        timeout: float | None = None,
        prefix: str = "rating",
        verbose: int = 0,
    ) -> None:
        super().__init__(verbose)
        if not isinstance(deterministic, bool):
            raise ValueError(f"deterministic must be True or False, got {deterministic!r}")
        if timeout is not None and not timeout >= 0:
            raise ValueError(f"timeout must be None or a number of seconds >= 0, got {timeout!r}")
        self.rater = BackgroundRater(
            game, every_steps, games_per_anchor, deals, deal_set, rules, workers, seed,
            at_start=rate_at_start,
        )  # fmt: skip
        self.deterministic = deterministic
        self.rate_at_end = rate_at_end
        self.timeout = timeout
        self.prefix = prefix

    def _init_callback(self) -> None:
        """Check that the rater can load and play the model, before any step."""
        from sb3_contrib import MaskablePPO

        if not isinstance(self.model, MaskablePPO):
            raise TypeError(
                "RatingCallback rates sb3-contrib MaskablePPO models (what ppo:PATH loads), "
                f"not {type(self.model).__name__}"
            )
        if self.rater.game == "what_the_shell":
            WhatTheShellModelAgent(self.model)
        else:
            ScorpionModelAgent(self.model)

    def _on_training_start(self) -> None:
        self._rate_if_due()

    def _on_step(self) -> bool:
        for rating in self.rater.poll():
            self._write(rating)
        self._rate_if_due()
        return True

    def _on_training_end(self) -> None:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        try:
            if self.rate_at_end and self.rater.last_submitted != self.num_timesteps:
                for rating in self.rater.wait(seconds_left(deadline)):
                    self._write(rating)
                if not self.rater.busy:
                    self._submit()
            for rating in self.rater.wait(seconds_left(deadline)):
                self._write(rating)
        finally:
            # stops a rating the timeout cut short; one that finished just now is written
            for rating in self.rater.close(timeout=0):
                self._write(rating)

    def _rate_if_due(self) -> None:
        """Snapshot and submit the model when a rating is due."""
        if self.rater.due(self.num_timesteps):
            self._submit()

    def _submit(self) -> None:
        """Save the model to a scratch file and have it rated as the current step's."""
        step = self.num_timesteps
        path = self.rater.snapshot_path(step)
        self.model.save(path)
        spec = f"ppo:{path}?deterministic={str(self.deterministic).lower()}"
        self.rater.submit(step, spec, files=[path])

    def _write(self, rating: Rating) -> None:
        """Write a finished rating to the logger's outputs at the step of its snapshot,
        through a logger of its own (what the algorithm recorded is left for its dump)."""
        out = Logger(self.logger.dir, self.logger.output_formats)
        out.set_level(self.logger.level)
        for key, value in {**rating.scalars(), "step": rating.step}.items():
            out.record(f"{self.prefix}/{key}", value)
        out.dump(rating.step)
        if self.verbose:
            print(f"rating of step {rating.step}: {rating.describe()}")
