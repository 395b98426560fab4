"""Inlining without numba's defensive IR copies (``shell_envs.core.jit``) compiles the same
rules: games played by code inlined either way are identical."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from numba.core import inline_closurecall

from shell_envs.core import jit, numba_patches

GAMES = """
import hashlib
import numpy as np
from numba.core import inline_closurecall
from shell_envs.core import jit, numba_patches
if {numba_own}:
    inline_closurecall.InlineWorker.inline_function = numba_patches.numba_inline_function
from shell_envs.what_the_shell import rules
rules.seed_numba(7)
digest = hashlib.sha256()
for _ in range(300):
    board, eggs, meta = rules.new_state()
    rounds = rules.random_playout(board, eggs, meta, 200)
    digest.update(bytes(board) + bytes(eggs) + meta.tobytes() + rounds.to_bytes(4, "little"))
print(digest.hexdigest())
"""


def play(cache: Path, numba_own: bool) -> str:
    """The digest of 300 random games, compiled afresh (empty ``cache``) in a new process."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run(
        [sys.executable, "-c", GAMES.format(numba_own=numba_own)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_fast_inliner_is_in_place_for_this_numba() -> None:
    assert jit.numba_patches is numba_patches  # importing jit applied the patches
    assert inline_closurecall.InlineWorker.inline_function is numba_patches.inline_fresh_ir


def test_rules_inlined_without_copies_play_the_same_games(tmp_path: Path) -> None:
    assert play(tmp_path / "fast", numba_own=False) == play(tmp_path / "numba", numba_own=True)
