"""Both games' batched envs as native TorchRL environments (``EnvBase``), on any torch device.

`ScorpionTorchEnv` and `WhatTheShellTorchEnv` wrap a batched env: the CPU one
(numpy results, turned into tensors by ``torch.from_numpy``, no copy) or a GPU one (results
already torch tensors on the device, used as they are).  Tensors go to ``device`` only when
the batched env is elsewhere (a CPU env feeding a GPU learner: one copy per step).  TorchRL
keeps every step's tensors (rollouts, collectors, the partial resets here), so a batched env
made with ``copy=False``, whose next step overwrites its results, is refused; `make_env`
makes the GPU env with ``copy=True`` (its kernels write each step's results into fresh
buffers: no copy, nothing written twice) and builds either env from a game name,
``num_envs`` and ``device``.

What the Shell is self-play: both seats of every game are agents, as the groups ``"black"`` and
``"white"`` (batch ``[N]`` each, kept apart so that neither seat's tensors are copied into a
stack); a trainer plays one policy in both seats.  ``done``/``terminated``/``truncated`` sit at
the root, since both seats' games end together.

Resets: the batched envs reset an ended game on their next step (Gymnasium's ``next_step``
autoreset: that step ignores the game's action and returns its new first observation, reward
0, not done).  TorchRL asks for the reset as soon as a game is done, before that step, so a
partial reset returns the game's last observation again with all actions allowed, and flags
the game in ``"autoreset"``: the transition out of it is the batched env's reset step, not a
move, and a trainer drops it (as with any ``next_step`` vector env).  A full reset (no
``"_reset"`` entry, or every game) resets the batched env.

`RatingHook` rates a torch policy on the bench's fixed scales while it trains, in a
background process, and logs the ratings to a TorchRL logger.
"""

from __future__ import annotations

import abc
import io
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from shell_envs.integrations.rating import BackgroundRater, Rating, check_picklable, seconds_left
from shell_envs.what_the_shell import rules as wts_rules

SEATS = ("black", "white")


def _tensor(value: Any, device: torch.device) -> torch.Tensor:
    """``value`` (numpy array or tensor) as a tensor on ``device``, copied only across devices."""
    if not isinstance(value, torch.Tensor):
        value = torch.from_numpy(np.asarray(value))
    return value.to(device, non_blocking=True)


def _as_bool(mask: torch.Tensor) -> torch.Tensor:
    """A 0/1 byte mask as ``bool`` without a copy (the same bytes), else compared with 0."""
    if mask.dtype == torch.bool:
        return mask
    if mask.dtype in (torch.int8, torch.uint8):
        return mask.view(torch.bool)
    return mask != 0


def _obs_spec(space: Any, shape: tuple[int, ...], device: torch.device) -> Bounded | Unbounded:
    """A TorchRL spec for a Gymnasium ``Box`` batched to ``shape``."""
    dtype = torch.from_numpy(np.zeros(0, space.dtype)).dtype
    if np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high)):
        low = torch.as_tensor(np.broadcast_to(space.low, shape).copy(), dtype=dtype)
        high = torch.as_tensor(np.broadcast_to(space.high, shape).copy(), dtype=dtype)
        return Bounded(low, high, shape, dtype=dtype, device=device)
    return Unbounded(shape, dtype=dtype, device=device)


class _BatchedTorchEnv(EnvBase):
    """The shared part: device moves, seeding, done specs, autoreset flags, partial resets."""

    batch_locked = True

    def __init__(self, env: Any, device: str | torch.device = "cpu") -> None:
        if getattr(env, "copy", True) is False:
            raise ValueError(
                f"{type(env).__name__} was made with copy=False: its next step overwrites the "
                "tensors TorchRL keeps from this one; make it with copy=True"
            )
        self.env = env
        n = env.num_envs
        super().__init__(device=device, batch_size=torch.Size([n]))
        self._seed: int | None = None
        self._last: TensorDictBase | None = None
        self._torch_actions = False  # whether the batched env takes tensors (a GPU env)
        flag = Binary(n=1, shape=(n, 1), dtype=torch.bool, device=self.device)
        self.done_spec = Composite(
            done=flag.clone(), terminated=flag.clone(), truncated=flag.clone(), shape=(n,)
        )
        self.reward_spec = self._reward_spec(n)

    @abc.abstractmethod
    def _reward_spec(self, n: int) -> Composite | Unbounded:
        """The reward spec for ``n`` games."""

    def _set_seed(self, seed: int | None) -> None:
        """Seed the next full reset of the batched env."""
        self._seed = seed

    def _env_actions(self, action: torch.Tensor) -> Any:
        """Actions for the batched env: tensors for a GPU env, numpy for the CPU env."""
        if self._torch_actions:
            return action
        return action.detach().cpu().numpy()

    def _flags(self, terminated: Any, truncated: Any) -> dict[str, torch.Tensor]:
        """``done``/``terminated``/``truncated`` as ``[N, 1]`` tensors."""
        term = _tensor(terminated, self.device).reshape(-1, 1)
        trunc = _tensor(truncated, self.device).reshape(-1, 1)
        return {"terminated": term, "truncated": trunc, "done": term | trunc}

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        which = None if tensordict is None else tensordict.get("_reset", None)
        if self._last is None or which is None or bool(which.all()):
            seed, self._seed = self._seed, None
            out, self._torch_actions = self._full_reset(seed)
        else:
            out = self._last.clone(recurse=False)
            out["autoreset"] = which.reshape(-1, 1).to(self.device) | out["autoreset"]
        self._last = out
        return out.copy()

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        out = self._play(tensordict)
        self._last = out.select(*self.observation_spec.keys(True, True))
        return out

    @abc.abstractmethod
    def _full_reset(self, seed: int | None) -> tuple[TensorDict, bool]:
        """Reset the batched env: the observations, and whether it speaks torch (a GPU env)."""

    @abc.abstractmethod
    def _play(self, tensordict: TensorDictBase) -> TensorDict:
        """Step the batched env with the actions of ``tensordict``: observations, rewards, flags."""


class ScorpionTorchEnv(_BatchedTorchEnv):
    """The batched Scorpion env (``make_vec``, ``next_step`` autoreset) as a TorchRL env.

    Keys: ``observation`` (the encoder's), ``action_mask`` (bool, the legal actions),
    ``autoreset`` (see the module docstring), ``score``; ``action`` ``[N]`` (a masked
    ``Categorical``), ``reward`` ``[N, 1]`` (the env's reward, the score change by default).
    """

    def __init__(self, env: Any, device: str | torch.device = "cpu") -> None:
        super().__init__(env, device)
        n, a = env.num_envs, env.single_action_space.n
        space = env.single_observation_space
        self.observation_spec = Composite(
            observation=_obs_spec(space, (n, *space.shape), self.device),
            action_mask=Binary(n=a, shape=(n, a), dtype=torch.bool, device=self.device),
            autoreset=Binary(n=1, shape=(n, 1), dtype=torch.bool, device=self.device),
            score=Unbounded((n,), dtype=torch.int32, device=self.device),
            shape=(n,),
        )  # fmt: skip
        self.action_spec = Categorical(a, shape=(n,), dtype=torch.int64, device=self.device)

    def _reward_spec(self, n: int) -> Unbounded:
        return Unbounded((n, 1), dtype=torch.float32, device=self.device)

    def _observe(self, obs: Any, infos: dict[str, Any], autoreset: torch.Tensor) -> TensorDict:
        mask = _as_bool(_tensor(self.env.action_masks(), self.device))
        self.action_spec.update_mask(mask)
        return TensorDict(
            observation=_tensor(obs, self.device),
            action_mask=mask,
            autoreset=autoreset,
            score=_tensor(infos["score"], self.device).to(torch.int32),
            batch_size=self.batch_size,
            device=self.device,
        )

    def _full_reset(self, seed: int | None) -> tuple[TensorDict, bool]:
        obs, infos = self.env.reset(seed=seed)
        n = self.env.num_envs
        out = self._observe(obs, infos, torch.zeros(n, 1, dtype=torch.bool, device=self.device))
        return out, isinstance(obs, torch.Tensor)

    def _play(self, tensordict: TensorDictBase) -> TensorDict:
        obs, reward, terminated, truncated, infos = self.env.step(
            self._env_actions(tensordict["action"])
        )
        autoreset = torch.zeros(self.env.num_envs, 1, dtype=torch.bool, device=self.device)
        out = self._observe(obs, infos, autoreset)
        out["reward"] = _tensor(reward, self.device).reshape(-1, 1).to(torch.float32)
        out.update(self._flags(terminated, truncated))
        return out


class WhatTheShellTorchEnv(_BatchedTorchEnv):
    """The batched What the Shell env as a two-agent (self-play) TorchRL env.

    Groups ``"black"`` and ``"white"``, each with ``observation`` (the encoder's),
    ``action_mask`` (bool), ``action`` ``[N]`` (a masked ``Categorical`` over the 81 cells) and
    ``reward`` ``[N, 1]`` (+1 win, -1 loss, 0 otherwise, at a game's end); ``autoreset`` and the
    done flags at the root.
    """

    def __init__(self, env: Any, device: str | torch.device = "cpu") -> None:
        super().__init__(env, device)
        n, cells = env.num_envs, wts_rules.CELLS
        space = env.single_observation_space["observation"]
        seat = Composite(
            observation=_obs_spec(space, (n, *space.shape), self.device),
            action_mask=Binary(n=cells, shape=(n, cells), dtype=torch.bool, device=self.device),
            shape=(n,),
        )
        self.observation_spec = Composite(
            black=seat.clone(),
            white=seat.clone(),
            autoreset=Binary(n=1, shape=(n, 1), dtype=torch.bool, device=self.device),
            shape=(n,),
        )
        act = Categorical(cells, shape=(n,), dtype=torch.int64, device=self.device)
        self.action_spec = Composite(
            black=Composite(action=act.clone(), shape=(n,)),
            white=Composite(action=act.clone(), shape=(n,)),
            shape=(n,),
        )

    def _reward_spec(self, n: int) -> Composite:
        reward = Unbounded((n, 1), dtype=torch.float32, device=self.device)
        return Composite(
            black=Composite(reward=reward.clone(), shape=(n,)),
            white=Composite(reward=reward.clone(), shape=(n,)),
            shape=(n,),
        )

    def _observe(self, obs: dict[str, Any], autoreset: torch.Tensor) -> TensorDict:
        out = TensorDict(autoreset=autoreset, batch_size=self.batch_size, device=self.device)
        for seat in SEATS:
            mask = _as_bool(_tensor(obs[seat]["action_mask"], self.device))
            self.action_spec[seat, "action"].update_mask(mask)
            out[seat] = TensorDict(
                observation=_tensor(obs[seat]["observation"], self.device),
                action_mask=mask,
                batch_size=self.batch_size,
                device=self.device,
            )
        return out

    def _full_reset(self, seed: int | None) -> tuple[TensorDict, bool]:
        obs, _ = self.env.reset(seed=seed)
        n = self.env.num_envs
        out = self._observe(obs, torch.zeros(n, 1, dtype=torch.bool, device=self.device))
        return out, isinstance(obs["black"]["observation"], torch.Tensor)

    def _play(self, tensordict: TensorDictBase) -> TensorDict:
        actions = {seat: self._env_actions(tensordict[seat, "action"]) for seat in SEATS}
        obs, rewards, terminated, truncated, _ = self.env.step(actions)
        n = self.env.num_envs
        out = self._observe(obs, torch.zeros(n, 1, dtype=torch.bool, device=self.device))
        for seat in SEATS:
            reward = _tensor(rewards[seat], self.device).reshape(-1, 1).to(torch.float32)
            out[seat, "reward"] = reward
        out.update(self._flags(terminated[SEATS[0]], truncated[SEATS[0]]))
        return out


def make_env(
    game: str,
    num_envs: int,
    device: str | torch.device = "cpu",
    env_device: str | torch.device | None = None,
    **kwargs: Any,
) -> ScorpionTorchEnv | WhatTheShellTorchEnv:
    """A TorchRL env of ``num_envs`` games of ``game`` (``"what_the_shell"`` or ``"scorpion"``).

    The batched env runs on ``env_device`` (default ``device``): on a CUDA device
    (``"cuda"``, ``"cuda:N"`` or a ``torch.device``) it is the GPU batched env (with
    ``copy=True``), on the CPU the CPU batched env; its results become tensors on ``device``.
    ``kwargs`` go to the batched env.
    """
    import gymnasium as gym

    from shell_envs import what_the_shell_v0

    where = device if env_device is None else env_device
    on_gpu = torch.device(where).type == "cuda"
    extra = {"device": str(where), "copy": kwargs.pop("copy", True)} if on_gpu else {}
    if game == "what_the_shell":
        return WhatTheShellTorchEnv(
            what_the_shell_v0.vector_env(num_envs, **extra, **kwargs), device
        )
    if game == "scorpion":
        mode = "vector_entry_point"
        batched = gym.make_vec(
            "shell_envs/Scorpion-v0", num_envs=num_envs, vectorization_mode=mode, **extra, **kwargs
        )
        return ScorpionTorchEnv(batched, device)
    raise ValueError(f"unknown game {game!r}; choose 'what_the_shell' or 'scorpion'")


def _agent_from_state(agent_factory: Callable[[dict[str, Any]], Any], state: bytes) -> Any:
    """The agent that ``agent_factory`` builds from a state dict saved by ``torch.save``."""
    return agent_factory(torch.load(io.BytesIO(state), map_location="cpu", weights_only=True))


class RatingHook:
    """Rate a torch policy every ``every_steps`` steps in a background process, and log it.

    Call ``hook(step, policy)`` in the training loop (``policy`` a ``torch.nn.Module``, e.g.
    after each batch): when a rating is due, the module's ``state_dict`` is copied to the CPU
    and rated in a worker process by the agent ``agent_factory(state_dict)`` builds there, so
    training goes on.  ``agent_factory`` is a picklable function (defined at the top of a
    module, or a ``functools.partial`` of one; checked here, ``TypeError``) returning an agent:
    an object with ``act(observation, action_mask)`` (and, if it likes, ``act_with_state``,
    which the bench calls first) or a policy function ``f(observation, action_mask)``.  The
    ratings are those of ``shell_envs.integrations.rating.BackgroundRater`` (keywords as
    there; at most one in flight, a due one waits for it): What the Shell on the fixed Elo
    scale, Scorpion as the win rate on fixed deals, each with its 95% interval.

    Each finished rating goes to ``logger`` (a TorchRL ``Logger``: ``CSVLogger``,
    ``TensorboardLogger``, …, or anything with ``log_scalar(name, value, step)``) at the step
    of the snapshot rated, under ``rating/`` (``prefix``): ``elo``, ``elo_lower``,
    ``elo_upper`` (a value the games leave open is not logged) or ``win_rate``,
    ``win_rate_lower``, ``win_rate_upper``, and ``games``, ``score``, ``seconds``.  The call
    returns the ratings that finished; ``hook.rater.results`` keeps them all.  Finish with
    ``hook.close(step, policy)``: it rates the final policy (unless that step was rated),
    waits for the ratings (up to ``timeout`` seconds) and ends the worker.
    """

    def __init__(
        self,
        game: str,
        agent_factory: Callable[[dict[str, Any]], Any],
        every_steps: int,
        logger: Any = None,
        prefix: str = "rating",
        **rater_options: Any,
    ) -> None:
        if logger is not None and not callable(getattr(logger, "log_scalar", None)):
            raise TypeError(
                "logger must be a TorchRL Logger (anything with log_scalar(name, value, step)) "
                f"or None, got {type(logger).__name__}"
            )
        if not callable(agent_factory):
            raise TypeError(f"agent_factory must be callable, got {type(agent_factory).__name__}")
        check_picklable(agent_factory, "agent_factory")
        self.rater = BackgroundRater(game, every_steps, **rater_options)
        self.agent_factory = agent_factory
        self.logger = logger
        self.prefix = prefix

    def __call__(self, step: int, policy: torch.nn.Module) -> list[Rating]:
        """Log the ratings finished by now and, when one is due, submit ``policy``'s."""
        finished = self._logged(self.rater.poll())
        if self.rater.due(step):
            self._submit(step, policy)
        return finished

    def close(
        self,
        step: int | None = None,
        policy: torch.nn.Module | None = None,
        timeout: float | None = None,
    ) -> list[Rating]:
        """Rate the final ``policy`` as ``step``'s (when given and not rated yet), wait up to
        ``timeout`` seconds for the ratings in flight, log them and end the worker."""
        deadline = None if timeout is None else time.monotonic() + timeout
        finished: list[Rating] = []
        try:
            if policy is not None and step is not None and self.rater.last_submitted != step:
                finished += self._logged(self.rater.wait(seconds_left(deadline)))
                if not self.rater.busy:
                    self._submit(step, policy)
            finished += self._logged(self.rater.wait(seconds_left(deadline)))
        finally:
            # stops a rating the timeout cut short; one that finished just now is logged
            finished += self._logged(self.rater.close(timeout=0))
        return finished

    def _logged(self, ratings: list[Rating]) -> list[Rating]:
        """Log ``ratings``; returns them."""
        for rating in ratings:
            self._log(rating)
        return ratings

    def _submit(self, step: int, policy: torch.nn.Module) -> None:
        """Copy the policy's weights and have them rated as ``step``'s."""
        buffer = io.BytesIO()
        torch.save({k: v.detach().cpu() for k, v in policy.state_dict().items()}, buffer)
        self.rater.submit(step, partial(_agent_from_state, self.agent_factory, buffer.getvalue()))

    def _log(self, rating: Rating) -> None:
        """Log a finished rating at the step of its snapshot."""
        if self.logger is None:
            return
        for key, value in rating.scalars().items():
            self.logger.log_scalar(f"{self.prefix}/{key}", float(value), step=rating.step)
