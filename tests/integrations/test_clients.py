"""The tutorials' lines for each training library, run word for word against the real libraries.

Each ``<!-- runs: NAME -->`` code block of the training tutorials (``docs/tutorials/``) is
run here as a reader runs it, saved as a file and run by a fresh ``python`` (worker processes
then import that file again, as they do for a reader), and its results are checked in that
process; every code cell of the table on the training overview page must appear in those
blocks, so the table shows only lines that run.  Needs the extras ``test`` and ``clients``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
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


Check = Callable[[dict[str, Any]], None]  # checks a block's results, given its globals
CHECKS: dict[str, Check] = {}  # block name -> its checks
ROOT = TUTORIALS.parents[1]
# run the block as ``python block.py`` does (runpy is what runs a script), then, with the
# tests importable, check its module's globals
DRIVER = """
import runpy, sys
namespace = runpy.run_path(sys.argv[1], run_name="__main__")
sys.path.insert(0, sys.argv[3])  # before site-packages: pgx installs a "tests" too
from tests.integrations.test_clients import CHECKS
CHECKS[sys.argv[2]](namespace)
"""


def checks(name: str) -> Callable[[Check], Check]:
    """Register the checks of block ``name``: run on its globals, in the block's process."""

    def register(check: Check) -> Check:
        CHECKS[name] = check
        return check

    return register


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_the_block_runs_as_a_script(name: str, tmp_path: Path) -> None:
    """Block ``name``, saved as a file in a scratch folder, runs and does what it says."""
    pytest.importorskip(LIBRARIES[name.split("-")[0]])
    script = tmp_path / f"{name.replace('-', '_')}.py"
    script.write_text(BLOCKS[name], encoding="utf-8")
    command = [sys.executable, "-c", DRIVER, script.name, name, str(ROOT)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]


def code_only(code: str) -> str:
    """``code`` without what ruff's formatting adds: spaces, line breaks, trailing commas."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


def test_every_table_cell_is_a_line_that_runs():
    table = "| library |" + OVERVIEW.split("| library |")[1].split("\n\n")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    cells = [
        code for row in rows[1:] if "RLlib" not in row for code in re.findall(r"`([^`]+)`", row)
    ]
    assert len(cells) >= 8
    runs = code_only("\n".join(BLOCKS.values()))
    for code in cells:
        if code != "action_masks()" and code != "obs.mask":
            assert code_only(code) in runs, f"table cell {code!r} is in no block that runs"
    assert set(BLOCKS) == {
        f"{lib}-{game}" for lib in LIBRARIES for game in ("what-the-shell", "scorpion")
    }
    assert set(CHECKS) == set(BLOCKS)  # each block's results are checked


@checks("sb3-what-the-shell")
def sb3_self_play_on_what_the_shell(ns: dict[str, Any]) -> None:
    model = ns["model"]
    assert model.num_timesteps >= 512 and model.get_env().num_envs == 8


@checks("sb3-scorpion")
def sb3_on_batched_scorpion(ns: dict[str, Any]) -> None:
    assert ns["model"].num_timesteps >= 256


@checks("torchrl-what-the-shell")
def torchrl_on_what_the_shell(ns: dict[str, Any]) -> None:
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
    native = ns["native_rollout"]
    assert native.batch_size == (64, 100) and native["next", "done"].any()
    assert native["black", "action_mask"].gather(-1, native["black", "action"][..., None]).all()


@checks("torchrl-scorpion")
def torchrl_on_scorpion(ns: dict[str, Any]) -> None:
    rollout = ns["rollout"]
    assert rollout.batch_size == (2, 200)
    assert rollout["next", "done"].sum() >= 2
    assert ("next", "score") in rollout.keys(True) and rollout["next", "score"].max() > 0
    batched = ns["batched_rollout"]  # max_moves=10: every game ended and restarted
    assert batched.batch_size == (4, 50) and batched["next", "done"].sum() >= 16
    done = batched["next", "done"].squeeze(-1)
    after = batched["observation"][:, 1:][done[:, :-1]]  # the root observation after an end
    assert (after[:, 364] == 3).all()  # a fresh deal: the reserve is back to 3 cards
    native = ns["native_rollout"]  # max_moves=30: games end, and come back as new deals
    assert native.batch_size == (64, 100) and native["next", "done"].sum() >= 64
    assert (native["next", "observation"][native["autoreset"].squeeze(-1)][:, 364] == 3).all()


@checks("tianshou-what-the-shell")
def tianshou_on_what_the_shell_aec(ns: dict[str, Any]) -> None:
    buffer = ns["collector"].buffer
    assert ns["result"].train_step >= 300 and len(buffer) >= 300
    assert not np.asarray(buffer.info.illegal).any()  # the masked policies play legal cells
    assert np.asarray(buffer.done).sum() >= 1 and ns["result"].update_step > 0


@checks("tianshou-scorpion")
def tianshou_on_scorpion(ns: dict[str, Any]) -> None:
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
