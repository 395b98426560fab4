"""Compiling in the background: plain Python until then, the same games, one compile at a time.

Each case runs in a fresh interpreter, where no rule function has machine code loaded yet, so
that a call from Python really takes the compile-on-first-call path the background compile
hooks.  A stand-in for the background process keeps the compile "running" for as long as a
test wants, and the games played meanwhile must be exactly those of compiled code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shell_envs.core import background

REPO = Path(__file__).resolve().parents[1]

# Plays GAME's steps, the first ``plain`` of them while a stand-in compile is "running", and
# prints one line per step (observation digest, reward, flags, info with value types).
SWITCH = """
import hashlib, sys
import numpy as np
from shell_envs.core import background

plain_steps = int(sys.argv[1])


class Running:
    finished = plain_steps == 0

    def poll(self):
        return 0 if self.finished else None


stand_in = Running()
background._tasks["test"] = background._Task(frozenset(MODULES), stand_in, None)
background._refresh()


def dispatchers():
    import importlib

    found = []
    for name in MODULES:
        found += [v for v in vars(importlib.import_module(name)).values() if hasattr(v, "py_func")]
    return found


def line(obs, reward, done, info):
    digest = hashlib.sha1(repr(obs).encode()).hexdigest()[:12]
    typed = sorted((k, type(v).__name__, v if k != "action_mask" else v.tobytes().hex())
                   for k, v in info.items())
    print(digest, reward, done, typed)


rng = np.random.default_rng(5)
steps = 0
for step in play():
    steps += 1
    if steps == plain_steps:
        loaded = [d.py_func.__name__ for d in dispatchers() if d.signatures]
        assert not loaded, f"compiled code ran while the compile was pending: {loaded}"
        assert background.pending()
        # a rule function of another game is not covered: it compiles (or loads) as usual
        from shell_envs.what_the_shell import rules as other
        other.count_empty(np.zeros(81, np.int8))
        assert other.count_empty.signatures or "what_the_shell" in MODULES[0]
        stand_in.finished = True
assert any(d.signatures for d in dispatchers()), "compiled code never ran"
print(steps, "steps")
"""

SCORPION = """
MODULES = ["shell_envs.scorpion.rules", "shell_envs.scorpion.encoders"]


def play():
    from shell_envs.scorpion.env import ScorpionEnv

    for rules_name, encoder in (("classic", "tableau"), ("relaxed", "cards")):
        env = ScorpionEnv(rules=rules_name, obs_encoder=encoder, allow_undo=True, max_moves=60)
        obs, info = env.reset(seed=3)
        line(obs, 0.0, False, info)
        for _ in range(150):
            mask = env.action_masks()
            if rng.random() < 0.1:  # an illegal action, or undo
                action = int(rng.integers(env.n_actions))
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = env.step(action)
            line(obs, reward, (terminated, truncated), info)
            yield
            if terminated or truncated:
                obs, info = env.reset()
                line(obs, 0.0, False, info)
"""

WHAT_THE_SHELL = """
MODULES = ["shell_envs.what_the_shell.rules", "shell_envs.what_the_shell.encoders"]


def play():
    from shell_envs.what_the_shell.env import WhatTheShellEnv

    for encoder in ("planes", "flat"):
        env = WhatTheShellEnv(obs_encoder=encoder, max_rounds=40)
        obs, infos = env.reset(seed=0)
        line(obs, 0.0, False, infos["black"])
        for _ in range(120):
            empty = np.flatnonzero(obs["black"]["action_mask"])
            black, white = (int(c) for c in rng.choice(empty, 2))
            if rng.random() < 0.15:
                white = black  # a collision
            obs, rewards, terminated, truncated, infos = env.step({"black": black, "white": white})
            for a in ("black", "white"):
                line(obs[a], rewards[a], (terminated[a], truncated[a]), infos[a])
            yield
            if not env.agents:
                obs, infos = env.reset()
                line(obs, 0.0, False, infos["black"])
"""


SCORPION_VECTOR = """
from shell_envs.scorpion.vector import _BATCH_MODULES as MODULES  # what the env compiles


def play():
    from shell_envs.scorpion.vector import ScorpionVectorEnv

    for rules_name, encoder, mode in (
        ("classic", "tableau", "next_step"),
        ("relaxed", "cards", "same_step"),
    ):
        env = ScorpionVectorEnv(4, rules=rules_name, obs_encoder=encoder, allow_undo=True,
                                max_moves=30, autoreset_mode=mode)
        obs, info = env.reset(seed=3)
        line(obs.tobytes(), 0.0, False, info)
        for _ in range(60):
            masks = env.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            odd = rng.random(4) < 0.1  # an illegal action, or undo
            actions[odd] = rng.integers(env.n_actions, size=int(odd.sum()))
            explained = [env.explain(i, int(a)) for i, a in enumerate(actions)]
            obs, rewards, terminated, truncated, info = env.step(actions)
            final = [None if o is None else o.tobytes() for o in info.pop("final_obs", [])]
            info.pop("final_info", None)
            seen = (obs.tobytes(), masks.tobytes(), final, explained)
            line(seen, rewards.tolist(), (terminated.tolist(), truncated.tolist()), info)
            yield
"""

WHAT_THE_SHELL_VECTOR = """
from shell_envs.what_the_shell.vector import _BATCH_MODULES as MODULES  # what the env compiles


def play():
    from shell_envs.what_the_shell.vector import WhatTheShellVectorEnv

    for encoder in ("planes", "flat"):
        env = WhatTheShellVectorEnv(4, obs_encoder=encoder, max_rounds=30)
        obs, info = env.reset(seed=0)
        line(obs["black"]["observation"].tobytes(), 0.0, False, info)
        for _ in range(50):
            empty = obs["black"]["action_mask"]
            black, white = (np.array([rng.choice(np.flatnonzero(m)) for m in empty])
                            for _ in range(2))
            collide = rng.random(4) < 0.15
            white[collide] = black[collide]
            black[rng.random(4) < 0.03] = rng.integers(81)  # now and then an occupied cell
            obs, rewards, terminated, truncated, info = env.step({"black": black, "white": white})
            seen = [obs[a][k].tobytes() for a in ("black", "white")
                    for k in ("observation", "action_mask")]
            flags = [x[a].tolist() for x in (terminated, truncated) for a in ("black", "white")]
            line(seen, [rewards[a].tolist() for a in ("black", "white")], flags, info)
            yield
"""


def run(game: str, plain_steps: int) -> list[str]:
    """Play ``game`` in a fresh interpreter, plain Python for its first ``plain_steps``."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(game) + textwrap.dedent(SWITCH), str(plain_steps)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.parametrize(
    ("game", "steps", "switch"),
    [
        (SCORPION, 300, 170),
        (WHAT_THE_SHELL, 240, 170),
        (SCORPION_VECTOR, 120, 90),
        (WHAT_THE_SHELL_VECTOR, 100, 70),
    ],
    ids=["scorpion", "what_the_shell", "scorpion_vector", "what_the_shell_vector"],
)
def test_plain_python_until_compiled_plays_the_games_compiled_code_plays(
    game: str, steps: int, switch: int
) -> None:
    compiled = run(game, 0)
    switched = run(game, switch)  # into the second env, then compiled to the end
    assert switched == compiled
    assert compiled[-1] == f"{steps} steps"


COLD_START = """
import subprocess, sys, time
import gymnasium as gym
import numpy as np
import shell_envs
from shell_envs.core import background
from shell_envs.scorpion import encoders

env = gym.make("shell_envs/Scorpion-v0")
env.reset(seed=0)
env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
print("pending after the first step:", background.pending())
print("compiled then:", bool(encoders.step_and_encode.signatures))
second = subprocess.run(
    [sys.executable, "-c", "import gymnasium as gym, shell_envs\\n"
     "from shell_envs.core import background\\n"
     "gym.make('shell_envs/Scorpion-v0')\\n"
     "print([t.process is None for t in background._tasks.values()], background.pending())"],
    capture_output=True, text=True,
)
print("second process:", second.stdout.strip())
print("done:", background.wait(timeout=500))
env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
print("compiled after:", bool(encoders.step_and_encode.signatures))
"""


def run_in_fresh_cache(
    script: str, tmp_path: Path, background_compile: str
) -> subprocess.CompletedProcess:
    """Run ``script`` in a new interpreter with an empty compile cache under ``tmp_path``;
    it must succeed."""
    cache = tmp_path / "cache"
    environ = dict(
        os.environ, NUMBA_CACHE_DIR=str(cache), **{background.ENV_VAR: background_compile}
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environ,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_a_cold_start_compiles_in_one_background_process_and_then_runs_compiled(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    done = run_in_fresh_cache(COLD_START, tmp_path, background_compile="1")
    assert done.stdout.splitlines() == [
        "pending after the first step: True",
        "compiled then: False",
        "second process: [True] True",  # it waits for the first one's compile, starts none
        "done: True",
        "compiled after: True",
    ]
    notice = [line for line in done.stderr.splitlines() if "Compiling" in line]
    assert len(notice) == 1 and "in the background" in notice[0] and str(cache) in notice[0]
    assert list(cache.rglob("encoders.step_and_encode-*.nbi")), (
        "the background process filled the cache"
    )


def test_switched_off_nothing_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    from shell_envs.scorpion import encoders

    monkeypatch.setenv(background.ENV_VAR, "0")
    assert not background.enabled()
    assert not background.start("no.such.module:entry", {}, ["x"], [encoders.step_and_encode], "x")
    assert not background.pending() and background.wait(timeout=0)


def test_the_command_line_compiles_in_the_foreground(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from shell_envs.cli import main

    monkeypatch.setenv(background.ENV_VAR, "1")
    assert CliRunner().invoke(main, ["bench", "--help"]).exit_code == 0
    assert os.environ[background.ENV_VAR] == "0"


def test_a_forked_worker_watches_the_lock_instead_of_a_process_that_is_not_its_child(
    tmp_path: Path,
) -> None:
    import multiprocessing

    class Running:
        def poll(self) -> None:
            return None

    task = background._Task(frozenset({"no.such.module"}), Running(), tmp_path / "x.lock")
    background._tasks["fork test"] = task
    try:
        context = multiprocessing.get_context("fork")
        seen = context.Queue()
        worker = context.Process(target=lambda: seen.put(background._tasks["fork test"].process))
        worker.start()
        assert seen.get(timeout=60) is None  # the worker's copy watches the lock file
        worker.join(60)
        assert task.process is not None and task.pending()  # this process still has its child
    finally:
        del background._tasks["fork test"]
        background._refresh()


# In a fresh cache: what each env with a built-in encoder asks the cache for, once its
# background process's work (_exercise, run here in the foreground) is done.
ASKED_AFTER_COMPILE = """
import importlib
from shell_envs.core import background
from shell_envs.core.jit import is_cached

asked = []
background.start = lambda entry, payload, _m, points, _w: asked.append((payload, points))
for game, cls in (("what_the_shell", "WhatTheShellEnv"), ("scorpion", "ScorpionEnv")):
    module = importlib.import_module(f"shell_envs.{game}.env")
    for name in importlib.import_module(f"shell_envs.{game}.encoders").ENCODERS.names():
        del asked[:]
        getattr(module, cls)(obs_encoder=name)
        (payload, points), = asked
        module._exercise(payload)
        print(game, name, is_cached(*points))
for game, cls in (("what_the_shell", "WhatTheShellVectorEnv"), ("scorpion", "ScorpionVectorEnv")):
    module = importlib.import_module(f"shell_envs.{game}.vector")
    for name in importlib.import_module(f"shell_envs.{game}.encoders").ENCODERS.names():
        del asked[:]
        getattr(module, cls)(2, obs_encoder=name)
        (payload, points), = asked
        module._exercise(payload)
        print(game, "batched", name, is_cached(*points))
"""


def test_once_compiled_a_new_env_starts_no_background_compile(tmp_path: Path) -> None:
    # an env asks the cache for exactly what its background compile fills: a function that
    # only ever compiles inside another (never called from Python) gets no cache entry of its
    # own, and every new env would start the background compile again
    done = run_in_fresh_cache(ASKED_AFTER_COMPILE, tmp_path, background_compile="0")
    lines = done.stdout.splitlines()
    assert len(lines) >= 8 and all(line.endswith(" True") for line in lines), lines


# The compiled functions an env calls from Python on its hot paths, each once, and what the
# disk cache did for each: "name hits misses".
HOT_PATHS = """
import numpy as np
from shell_envs.scorpion import encoders, rules
from shell_envs.scorpion.env import ScorpionEnv
from shell_envs.what_the_shell import encoders as wts_encoders
from shell_envs.what_the_shell.env import WhatTheShellEnv

for name in ("tableau", "cards"):
    env = ScorpionEnv(obs_encoder=name)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
env = WhatTheShellEnv(obs_encoder="planes")
env.reset(seed=0)
env.step({"black": 0, "white": 80})
for f in (encoders.step_and_encode, encoders.encode, rules.legal_mask, rules.deal,
          wts_encoders.step_planes):
    stats = f.stats
    print(f.py_func.__qualname__, sum(stats.cache_hits.values()),
          sum(stats.cache_misses.values()))
"""


def test_a_second_process_loads_every_hot_path_from_the_cache(tmp_path: Path) -> None:
    # numba keys a compiled closure by its closure variables, which differ in every process
    # (a dispatcher pickles with a per-process id): one would compile again in every process
    first = run_in_fresh_cache(HOT_PATHS, tmp_path, background_compile="0").stdout.split("\n")
    second = run_in_fresh_cache(HOT_PATHS, tmp_path, background_compile="0").stdout.split("\n")
    first, second = ([line.split() for line in lines if line] for lines in (first, second))
    assert [name for name, _, _ in second] == [
        "step_and_encode",
        "encode",
        "legal_mask",
        "deal",
        "step_planes",
    ]
    assert all(int(misses) > 0 for _, _, misses in first), first  # the cache started empty
    assert all(int(hits) > 0 and misses == "0" for _, hits, misses in second), second
