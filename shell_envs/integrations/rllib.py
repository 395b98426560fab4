"""What the Shell under Ray RLlib's new API stack: a ``MultiAgentEnv`` with action masking.

[`WhatTheShellMultiAgentEnv`][] wraps the PettingZoo parallel env for RLlib: agent ids
``"black"`` and ``"white"``, per-agent ``observation_spaces``/``action_spaces``, the
``"__all__"`` done flags, and observations in the layout of RLlib's action-masking example
module (``ray/rllib/examples/rl_modules/classes/action_masking_rlm.py``):
``{"observations": <encoded board>, "action_mask": float32[81]}``.  With
``config["opponent"]`` (an agent name or object) one seat per game is played by that agent
inside the env and only the other seat is an RLlib agent.

[`MaskedPPOTorchRLModule`][] is that example module rebuilt on PPO's current default torch
module (the example's base class is deprecated): illegal cells get ``-inf`` logits in every
forward pass.  [`register`][] makes the env known to ``register_env``;
[`masked_ppo_config`][] is a ``PPOConfig`` with one shared policy or one per colour, each
masked; [`RLModuleAgent`][] plays a trained module as a [`shell_envs.agents`][] agent.
Needs the extra ``rllib``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.rllib.utils.typing import MultiAgentDict
from ray.tune.registry import register_env

from shell_envs.agents.base import Agent, choose_action
from shell_envs.agents.spec import make_agent
from shell_envs.agents.what_the_shell import GAME, WhatTheShellView
from shell_envs.what_the_shell import rules
from shell_envs.what_the_shell.encoders import FlatEncoder, PlanesEncoder
from shell_envs.what_the_shell.env import AGENTS, WhatTheShellEnv

ENV_NAME = "what_the_shell_v0"
OBS_KEY = "observations"
MASK_KEY = "action_mask"
POLICIES = ("shared", "two")


class WhatTheShellMultiAgentEnv(MultiAgentEnv):
    """What the Shell as an RLlib multi-agent env (both colours act every round).

    ``config`` holds [`WhatTheShellEnv`][]'s keywords
    (``obs_encoder`` defaults to ``"flat"``, which RLlib's default MLP encoder takes as it is)
    and optionally ``opponent``: an agent name (``"random"``, ``"greedy"``, ``"mcts"``) or agent
    object that plays a seat drawn at random each game, leaving one RLlib agent.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        options = {"obs_encoder": "flat", **dict(config or {})}
        opponent = options.pop("opponent", None)
        self.opponent: Agent | None = (
            make_agent(GAME, opponent) if isinstance(opponent, str) else opponent
        )
        self.game = WhatTheShellEnv(**options)
        space = gym.spaces.Dict(
            {
                MASK_KEY: gym.spaces.Box(0.0, 1.0, (rules.CELLS,), np.float32),
                OBS_KEY: self.game.encoder.space,
            }
        )
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: gym.spaces.Discrete(rules.CELLS) for agent in AGENTS}
        self._opponent_seat: str | None = None
        self._observations: dict[str, Any] = {}

    # RLlib's MultiAgentEnv overrides gymnasium's reset and step with dicts keyed by agent
    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        """New game; with an opponent, draw its seat and reseed it."""
        super().reset(seed=seed, options=options)
        self._observations, infos = self.game.reset(seed=seed, options=options)
        if self.opponent is not None:
            self._opponent_seat = AGENTS[int(self.np_random.integers(2))]
            self.opponent.reset(int(self.np_random.integers(2**31 - 1)))
        self.agents = [a for a in AGENTS if a != self._opponent_seat]
        return self._own(self._observations), {a: infos[a] for a in self._learners()}

    def step(  # type: ignore[override]
        self, action_dict: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        """Play one round: the RLlib agents' cells (and the opponent's) together."""
        learners = self._learners()
        actions = {agent: int(action_dict[agent]) for agent in learners}
        if self._opponent_seat is not None and self.opponent is not None:
            seat = self._opponent_seat
            seen = self._observations[seat]
            actions[seat] = choose_action(
                self.opponent,
                seen["observation"],
                seen["action_mask"],
                WhatTheShellView.from_env(self.game, seat),
            )
        self._observations, rewards, terminated, truncated, infos = self.game.step(actions)
        terminateds: MultiAgentDict = {a: bool(terminated[a]) for a in learners}
        truncateds: MultiAgentDict = {a: bool(truncated[a]) for a in learners}
        terminateds["__all__"] = all(terminateds.values())
        truncateds["__all__"] = all(truncateds.values())
        return (
            self._own(self._observations),
            {a: float(rewards[a]) for a in learners},
            terminateds,
            truncateds,
            {a: infos[a] for a in learners},
        )

    def render(self) -> Any:
        """The parallel env's rendering (set ``render_mode`` in the config)."""
        return self.game.render()

    def close(self) -> None:
        """Close the parallel env."""
        self.game.close()

    def _learners(self) -> list[str]:
        """The seats RLlib plays: both, or the one the opponent does not."""
        return [a for a in AGENTS if a != self._opponent_seat]

    def _own(self, observations: dict[str, Any]) -> MultiAgentDict:
        """The RLlib agents' observations in the masking module's layout."""
        return {
            agent: {
                OBS_KEY: observations[agent]["observation"],
                MASK_KEY: observations[agent]["action_mask"].astype(np.float32),
            }
            for agent in self._learners()
        }


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module over ``"observations"``, with ``"action_mask"`` applied.

    The networks are built for the ``"observations"`` space alone; every forward pass takes
    the mask out of the observation Dict and adds ``log(mask)`` (clamped) to the logits, so
    illegal cells are never sampled and get no gradient.
    """

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
            OBS_KEY,
            MASK_KEY,
        }:
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} "
                f"and {MASK_KEY!r}, got {observation_space!r}"
            )
        self._space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        """Build the default networks, then expose the space with the mask again."""
        super().setup()
        self.observation_space = self._space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = self._take_mask(batch)
        return self._apply_mask(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = self._take_mask(batch)
        return self._apply_mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """State values from the observations (the mask plays no part)."""
        self._take_mask(batch)
        return super().compute_values(batch, embeddings)

    @staticmethod
    def _take_mask(batch: dict[str, Any]) -> Any:
        """Split the observation Dict in place: ``obs`` keeps the board, the mask is kept aside.

        In place because the learner computes values and then trains on the same batch.
        """
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch[MASK_KEY] = obs[MASK_KEY]
            batch[Columns.OBS] = obs[OBS_KEY]
        return batch[MASK_KEY]

    @staticmethod
    def _apply_mask(outputs: dict[str, Any], mask: Any) -> dict[str, Any]:
        """Add ``log(mask)`` (clamped to a large negative number) to the action logits."""
        outputs[Columns.ACTION_DIST_INPUTS] = outputs[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask), min=FLOAT_MIN
        )
        return outputs


def register(name: str = ENV_NAME) -> str:
    """Register [`WhatTheShellMultiAgentEnv`][] with RLlib under ``name``; returns it."""
    register_env(name, lambda config: WhatTheShellMultiAgentEnv(config))
    return name


def policy_mapping(policies: str) -> Any:
    """``"shared"``: both colours play policy ``"shared"``; ``"two"``: one policy per colour."""
    if policies not in POLICIES:
        raise ValueError(f"policies must be 'shared' or 'two', got {policies!r}")
    if policies == "shared":
        return lambda agent_id, episode, **kwargs: "shared"
    return lambda agent_id, episode, **kwargs: agent_id


def masked_ppo_config(
    policies: str = "shared",
    env_config: dict[str, Any] | None = None,
    model_config: dict[str, Any] | None = None,
) -> PPOConfig:
    """PPO on the registered env with masked policies; add ``.env_runners``/``.training``."""
    mapping = policy_mapping(policies)
    module_ids = ["shared"] if policies == "shared" else list(AGENTS)
    model = {"fcnet_hiddens": [256, 256], "fcnet_activation": "relu", **(model_config or {})}
    return (
        PPOConfig()
        .environment(register(), env_config=dict(env_config or {}))
        .multi_agent(policies=set(module_ids), policy_mapping_fn=mapping)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    module_id: RLModuleSpec(
                        module_class=MaskedPPOTorchRLModule, model_config=dict(model)
                    )
                    for module_id in module_ids
                }
            )
        )
    )


class RLModuleAgent:
    """A trained RLlib module as a What the Shell agent (greedy over its masked logits).

    The module must have been trained on this adapter with ``obs_encoder`` (``"flat"`` or
    ``"planes"``); the agent encodes the position itself, so it plays in any env.
    """

    def __init__(self, module: RLModule, obs_encoder: str = "flat", name: str = "rllib") -> None:
        encoders: dict[str, type[FlatEncoder | PlanesEncoder]] = {
            "flat": FlatEncoder,
            "planes": PlanesEncoder,
        }
        if obs_encoder not in encoders:
            raise ValueError(f"obs_encoder must be 'flat' or 'planes', got {obs_encoder!r}")
        self.encode = encoders[obs_encoder].encode
        self.module = module
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the agent plays the module's most likely legal cell."""

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """The module's cell for the position decoded from an observation."""
        return self.act_with_state(WhatTheShellView.from_observation(observation), action_mask)

    def act_with_state(self, state: Any, action_mask: np.ndarray) -> int:
        """The module's most likely legal cell for a ``WhatTheShellView``."""
        observation = self.encode(state.board, state.eggs, state.meta, state.player)
        batch = {
            "obs": {
                OBS_KEY: torch.as_tensor(observation[None], dtype=torch.float32),
                MASK_KEY: torch.as_tensor(np.asarray(action_mask, np.float32)[None]),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0]
        return int(torch.argmax(logits))


def load_agent(
    checkpoint: str, name: str = "rllib", module: str | None = None, encoder: str = "flat"
) -> RLModuleAgent:
    """A saved RLlib module as a What the Shell agent (what the spec ``rllib:CHECKPOINT`` loads).

    ``checkpoint`` is a module saved with ``module.save_to_path(...)`` or an algorithm
    checkpoint (``algo.save(...)``); in the latter, ``module`` picks the policy (default: the
    only one, or ``"shared"``).  ``encoder`` is the one the module was trained on.
    """
    from pathlib import Path

    path = Path(checkpoint).expanduser()
    if not path.is_dir():
        raise ValueError(f"no RLlib checkpoint folder at {str(path)!r}")
    modules = path / "learner_group" / "learner" / "rl_module"
    if modules.is_dir():
        ids = sorted(p.name for p in modules.iterdir() if p.is_dir())
        if module is None:
            module = ids[0] if len(ids) == 1 else "shared" if "shared" in ids else None
        if module not in ids:
            raise ValueError(
                f"the checkpoint has the modules {', '.join(ids)}; pick one with ?module=ID"
            )
        path = modules / module
    elif module is not None:
        raise ValueError(f"{str(path)!r} is a single module's checkpoint; drop ?module=")
    return RLModuleAgent(RLModule.from_checkpoint(str(path.resolve())), encoder, name)
