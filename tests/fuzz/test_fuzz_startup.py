"""Starting up in bad conditions, and plain-Python mode, each in a fresh interpreter.

A damaged compile-cache file, or a user without a usable home directory, must not stop the
package from starting: one warning, then compiled code as usual.  ``NUMBA_DISABLE_JIT=1``
must play exactly the games the compiled code plays.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.fuzz.helpers import run_python

SMALL = """
import numpy as np
from shell_envs.what_the_shell import rules
print(rules.count_empty(np.zeros(81, np.int8)))
"""


COUNTED = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import numpy as np
    from shell_envs.what_the_shell import rules
    answer = rules.count_empty(np.zeros(81, np.int8))
print(answer, sum("damaged file in the compile cache" in str(w.message) for w in caught))
"""


def test_a_damaged_cache_file_is_removed_warned_once_and_recompiled(tmp_path: Path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    assert run_python(COUNTED, env).split() == ["81", "0"]
    files = sorted(tmp_path.rglob("*.nb[ic]"))
    assert any(f.suffix == ".nbi" for f in files) and any(f.suffix == ".nbc" for f in files)
    for f in files:  # an interrupted write: every file cut short
        f.write_bytes(f.read_bytes()[:20])
    assert run_python(COUNTED, env).split() == ["81", "1"]
    # the next start finds a healthy cache again: no warning
    assert run_python(COUNTED, env).split() == ["81", "0"]
    for f in tmp_path.rglob("*.nbc"):  # a data file with garbage in it
        f.write_bytes(b"garbage, not a pickle")
    assert run_python(COUNTED, env).split() == ["81", "1"]


def test_no_usable_home_directory_falls_back_to_a_temporary_cache(tmp_path: Path):
    out = run_python(
        textwrap.dedent(
            """
            import warnings
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                from shell_envs.core import jit
            print(jit.numba.config.CACHE_DIR)
            print(sum("no writable cache under the home" in str(w.message) for w in caught))
            """
        )
        + SMALL,
        {
            "HOME": "/dev/null/nohome",
            "XDG_CACHE_HOME": "",
            "NUMBA_CACHE_DIR": "",
            "TMPDIR": str(tmp_path),
        },  # fmt: skip
    )
    cache, warned, answer = out.split()
    assert cache.startswith(str(tmp_path)) and warned == "1" and answer == "81"


GAMES = """
import gymnasium as gym, numpy as np, warnings
warnings.simplefilter("ignore")
import shell_envs
from shell_envs.agents import choose_action, make_agent
from shell_envs.agents.scorpion import ScorpionView
from shell_envs.core.sampling import random_legal_actions, seed_compiled
from shell_envs.what_the_shell import rules
for opponent, kwargs in [("greedy", None), ("mcts", {"iterations": 30}),
                         ("mcts", {"iterations": 30, "selection": "regret_matching"})]:
    env = gym.make("shell_envs/WhatTheShell-v0", opponent=opponent, seat="random",
                   opponent_kwargs=kwargs)
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    moves = [info["seat"]]
    for _ in range(6):
        a = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        _, _, terminated, truncated, info = env.step(a)
        moves.append(info["opponent_action"])
        if terminated or truncated:
            break
    print(opponent, moves)
TINY = {"lookahead": {"samples": 2},
        "pimc": {"samples": 2, "won_target": 1, "max_samples": 2, "max_nodes": 60}}
for name in ("greedy", "lookahead", "pimc"):
    agent = make_agent("scorpion", name, seed=1, **TINY.get(name, {}))
    env = gym.make("shell_envs/Scorpion-v0")
    obs, info = env.reset(seed=5)
    moves = []
    for _ in range(6):
        a = choose_action(agent, obs, info["action_mask"], ScorpionView.from_env(env))
        obs, _, terminated, truncated, info = env.step(a)
        moves.append(a)
        if terminated or truncated:
            break
    print(name, moves)
seed_compiled(1)
print(random_legal_actions(np.ones((4, 81), np.int8)).tolist(), rules.random_games(2, 40, 7))
"""


def test_plain_python_mode_plays_the_same_games_as_compiled_code():
    compiled = run_python(GAMES)
    plain = run_python(GAMES, {"NUMBA_DISABLE_JIT": "1"})
    assert plain == compiled
    assert compiled.count("\n") == 7
