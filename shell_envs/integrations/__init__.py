"""Adapters to training libraries; each module imports its library, the package never does.

- [`shell_envs.integrations.sb3`][]: the batched Scorpion env and What the Shell self-play
  (both seats of every game as rows) as Stable-Baselines3 ``VecEnv`` adapters (masks for
  sb3-contrib's MaskablePPO) and trained models as agents (extra ``train``).
- [`shell_envs.integrations.rllib`][]: What the Shell as an RLlib ``MultiAgentEnv`` with
  action masking on RLlib's new API stack (extra ``rllib``).
- [`shell_envs.integrations.torchrl`][]: both games' batched envs (CPU or GPU) as native
  TorchRL ``EnvBase`` envs, What the Shell as two-seat self-play (extra ``clients``).
- `shell_envs.integrations.evaluation`: a deprecated alias of
  [`shell_envs.bench.evaluation`][] (head-to-head matches with Wilson intervals, used to
  evaluate trained agents).
"""
