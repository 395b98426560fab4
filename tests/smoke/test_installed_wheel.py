"""The package as installed: its data files load, both games play, the batched envs step.

CI runs this one file against the wheel (``.ci/run``): copied into a folder outside the
checkout, in a fresh environment with the wheel and pytest only, with
``SHELL_ENVS_WHEEL_CHECK=1``; the package must then be imported from site-packages, not from
the checkout, and its files must be the wheel's alone.  In the normal suite the same checks
run on the editable install, and only that first assertion skips.  The file stands alone
(no ``tests`` helpers, no conftest), so the copy runs as it is.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
import sysconfig
from importlib import resources
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import shell_envs
from shell_envs import what_the_shell_v0
from shell_envs.bench import openings, scale
from shell_envs.core.sampling import random_legal_actions
from shell_envs.scorpion import network as scorpion_network
from shell_envs.scorpion import winnable
from shell_envs.scorpion.rules import RULE_SETS
from shell_envs.what_the_shell import network as wts_network
from shell_envs.what_the_shell import policy_network

WHEEL_CHECK = os.environ.get("SHELL_ENVS_WHEEL_CHECK") == "1"
NETWORKS = (wts_network.FORMAT, policy_network.FORMAT, scorpion_network.FORMAT)


def test_the_package_is_the_installed_wheel() -> None:
    if not WHEEL_CHECK:
        pytest.skip("SHELL_ENVS_WHEEL_CHECK=1 only: .ci/run's check of the installed wheel")
    package = Path(shell_envs.__file__).resolve().parent
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert package == site / "shell_envs", f"shell_envs imported from {package}, not {site}"
    dist = importlib.metadata.distribution("shell-envs")
    assert dist.version == shell_envs.__version__
    assert not dist.read_text("direct_url.json") or "editable" not in dist.read_text(
        "direct_url.json"
    )
    # the wheel holds the package, its metadata and the console script, and nothing else
    tops = {Path(f).parts[0] for f in dist.files or ()}
    assert tops == {"shell_envs", f"shell_envs-{dist.version}.dist-info", ".."}, tops
    scripts = [f for f in dist.files or () if f.parts[0] == ".."]
    assert [f.name for f in scripts] == ["shell-envs"], scripts
    # the metadata names the Pythons it supports, this one among them, and ships its hints
    classifiers = dist.metadata.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and dist.metadata["Requires-Python"] == ">=3.10"
    running = f"Programming Language :: Python :: {sys.version_info[0]}.{sys.version_info[1]}"
    assert running in classifiers, f"CI runs a Python the metadata does not list: {running}"


def test_every_shipped_data_file_is_read_by_the_package() -> None:
    """Each file in ``shell_envs/data`` loads through the code that reads it, and no file the
    code reads is missing: the check of what the wheel ships."""
    read = {scale.ANCHORS_FILE, openings.FILE, *(f.shipped_file for f in NETWORKS)}
    for rules in RULE_SETS:
        read |= {f"scorpion_winnable_{rules}.txt", f"scorpion_verdicts_{rules}.tsv"}
        seeds = winnable.winnable_seeds(rules)
        verdicts = winnable.deal_verdicts(rules)
        assert seeds and set(seeds) <= {s for s, v in verdicts.items() if v.verdict == "won"}
        assert winnable.stored_solution(rules, seeds[0]), rules  # a stored winning line
    assert len(openings.load()) > 0  # checked as it loads: checksum, positions, no repeats
    table = scale.anchor_table()
    assert table["random"].rating == 0 and len(table.anchors) >= 2
    for fmt in NETWORKS:
        arrays = fmt.shipped()
        assert arrays and all(np.isfinite(a).all() for a in arrays), fmt.shipped_file
    shipped = {p.name for p in resources.files("shell_envs.data").iterdir()}
    assert shipped == read, f"shipped, not read: {shipped - read}; missing: {read - shipped}"
    assert resources.files("shell_envs").joinpath("py.typed").is_file()


def test_what_the_shell_plays_games_to_their_end() -> None:
    env = what_the_shell_v0.parallel_env()
    for game in range(3):
        observations, _ = env.reset(seed=game)
        rng = np.random.default_rng(game)
        while env.agents:
            actions = {
                a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"])))
                for a in env.agents
            }
            observations, rewards, terminations, truncations, infos = env.step(actions)
        assert all(terminations.values()) or all(truncations.values())
        assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
    single = gym.make("shell_envs/WhatTheShell-v0")
    obs, _ = single.reset(seed=0)
    obs, reward, terminated, truncated, _ = single.step(40)  # the centre cell, empty at start
    assert obs is not None and not truncated


def test_scorpion_plays_games_to_their_end() -> None:
    env = gym.make("shell_envs/Scorpion-v0", rules="classic", max_moves=200)
    for deal in range(3):
        _, info = env.reset(seed=deal)
        rng = np.random.default_rng(deal)
        ended = False
        while not ended:
            legal = np.flatnonzero(env.unwrapped.action_masks())
            _, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
            ended = terminated or truncated
        assert info["deal"] == deal


def test_the_batched_envs_step() -> None:
    envs = gym.make_vec("shell_envs/Scorpion-v0", num_envs=4)
    obs, infos = envs.reset(seed=0)
    # a game that ended (some deals have dead ends a few random moves in) is dealt anew at the
    # next step; every other game still plays the deal its seed gave it
    ended = dealt_anew = np.zeros(4, np.bool_)
    for _ in range(5):
        dealt_anew = dealt_anew | ended
        obs, rewards, terminated, truncated, infos = envs.step(
            random_legal_actions(envs.action_masks())
        )
        ended = terminated | truncated
    assert obs.shape[0] == 4
    assert (infos["deal"] == np.arange(4))[~dealt_anew].all()
    envs.close()
    games = what_the_shell_v0.vector_env(num_envs=4)
    obs, infos = games.reset(seed=0)
    for _ in range(5):
        actions = {p: random_legal_actions(obs[p]["action_mask"]) for p in ("black", "white")}
        obs, rewards, terminations, truncations, infos = games.step(actions)
    assert obs["black"]["observation"].shape[0] == 4 and list(infos["round"]) == [5] * 4
