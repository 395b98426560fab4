"""The tutorials' lines for each training library, run word for word against the real libraries.

Each ``<!-- runs: NAME -->`` code block of the training tutorials (``docs/tutorials/``) is
executed here and its results checked; every code cell of the table on the training overview
page must appear in those blocks, so the table shows only lines that run.  Needs the extras
``test`` and ``clients``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# the tutorials whose blocks this file runs, and the module each needs (train, clients extras)
LIBRARIES = {"sb3": "sb3_contrib", "torchrl": "torchrl", "tianshou": "tianshou"}

TUTORIALS = Path(__file__).resolve().parents[2] / "docs" / "tutorials"
OVERVIEW = (TUTORIALS / "index.md").read_text(encoding="utf-8")
PAGES = {lib: (TUTORIALS / f"{lib}.md").read_text(encoding="utf-8") for lib in LIBRARIES}
BLOCKS = {
    name: code
    for page in PAGES.values()
    for name, code in re.findall(r"<!-- runs: ([\w-]+) -->\n```python\n(.*?)```", page, re.S)
}


def run_block(name: str) -> dict[str, Any]:
    """Execute tutorial block ``name`` in a fresh namespace and return that namespace; skip
    the test where its library is not installed."""
    pytest.importorskip(LIBRARIES[name.split("-")[0]])
    namespace: dict[str, Any] = {"__name__": f"docs_{name.replace('-', '_')}"}
    exec(compile(BLOCKS[name], f"docs/tutorials:{name}", "exec"), namespace)
    return namespace


def test_every_table_cell_is_a_line_that_runs():
    table = "| library |" + OVERVIEW.split("| library |")[1].split("\n\n")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    cells = [
        code for row in rows[1:] if "RLlib" not in row for code in re.findall(r"`([^`]+)`", row)
    ]
    assert len(cells) >= 8
    runs = re.sub(r"\s+", "", "\n".join(BLOCKS.values()))  # the blocks are ruff-formatted
    for code in cells:
        if code != "action_masks()" and code != "obs.mask":
            assert re.sub(r"\s+", "", code) in runs, f"table cell {code!r} is in no block that runs"
    assert set(BLOCKS) == {
        f"{lib}-{game}" for lib in LIBRARIES for game in ("what-the-shell", "scorpion")
    }


def test_sb3_self_play_on_what_the_shell():
    ns = run_block("sb3-what-the-shell")
    model = ns["model"]
    assert model.num_timesteps >= 512 and model.get_env().num_envs == 8


def test_sb3_on_batched_scorpion():
    ns = run_block("sb3-scorpion")
    assert ns["model"].num_timesteps >= 256


def test_torchrl_on_what_the_shell():
    ns = run_block("torchrl-what-the-shell")
    rollout = ns["rollout"]
    assert rollout.batch_size == (300,)
    for seat in ("black", "white"):
        info = rollout["next", seat, "info"]
        assert not info["illegal"].any()  # the random actions respect the masks
        mask = rollout[seat, "action_mask"]
        action = rollout[seat, "action"]
        assert mask.gather(-1, action.unsqueeze(-1)).all()
    assert rollout["next", "black", "done"].sum() >= 2  # games ended and were reset
    outcomes = set(rollout["next", "black", "info", "outcome"].unique().tolist())
    assert outcomes & {1.0, 2.0, 3.0}
    single = ns["single_rollout"]
    assert single.batch_size == (2, 100) and single["next", "done"].any()


def test_torchrl_on_scorpion():
    ns = run_block("torchrl-scorpion")
    rollout = ns["rollout"]
    assert rollout.batch_size == (2, 200)
    assert rollout["next", "done"].sum() >= 2
    assert ("next", "score") in rollout.keys(True) and rollout["next", "score"].max() > 0
    batched = ns["batched_rollout"]  # max_moves=10: every game ended and restarted
    assert batched.batch_size == (4, 50) and batched["next", "done"].sum() >= 16
    done = batched["next", "done"].squeeze(-1)
    after = batched["observation"][:, 1:][done[:, :-1]]  # the root observation after an end
    assert (after[:, 364] == 3).all()  # a fresh deal: the reserve is back to 3 cards


def test_tianshou_on_what_the_shell_aec():
    ns = run_block("tianshou-what-the-shell")
    buffer = ns["collector"].buffer
    assert ns["result"].train_step >= 300 and len(buffer) >= 300
    assert not np.asarray(buffer.info.illegal).any()  # the masked policies play legal cells
    assert np.asarray(buffer.done).sum() >= 1 and ns["result"].update_step > 0


def test_tianshou_on_scorpion():
    ns = run_block("tianshou-scorpion")
    buffer = ns["collector"].buffer
    assert ns["result"].train_step >= 300 and ns["result"].update_step > 0
    assert not np.asarray(buffer.info.illegal).any()
    assert np.asarray(buffer.done).sum() >= 1


@pytest.mark.parametrize("env_id", ["shell_envs/Scorpion-v0", "shell_envs/WhatTheShell-v0"])
def test_ids_work_in_a_fresh_process_without_importing_the_package(env_id):
    code = textwrap.dedent(
        f"""
        import sys
        import gymnasium as gym
        env = gym.make("shell_envs:{env_id}")
        obs, info = env.reset(seed=0)
        env.step(int(env.unwrapped.action_masks().argmax()))
        if "Scorpion" in "{env_id}":
            vec = gym.make_vec("shell_envs:{env_id}", num_envs=2)
            vec.reset(seed=0)
        print(type(env.unwrapped).__name__)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    assert out.stdout.strip() in ("ScorpionEnv", "WhatTheShellSingleEnv")
