"""The core package imports no training library: torch, Ray, TorchRL and Tianshou stay extras."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
import gymnasium as gym
import shell_envs
from shell_envs import what_the_shell_v0
from shell_envs.scorpion.vector import ScorpionVectorEnv
from shell_envs.agents.single_agent import WhatTheShellSingleEnv
import shell_envs.agents, shell_envs.cli, shell_envs.bench.evaluation
what_the_shell_v0.parallel_env().reset(seed=0)
gym.make("shell_envs/Scorpion-v0").reset(seed=0)
heavy = ("torch", "ray", "torchrl", "tensordict", "tianshou", "stable_baselines3", "sb3_contrib")
print(sorted(m for m in heavy if m in sys.modules))
"""


def test_the_core_package_imports_no_training_library():
    out = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300, check=True
    )
    assert out.stdout.strip() == "[]"
