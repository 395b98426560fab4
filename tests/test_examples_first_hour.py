"""The examples as a newcomer first runs them: each writes to a folder of its own (apart from
the bench's ``results/``), says what it does before its slow part, and reports progress."""

from __future__ import annotations

import importlib.util
import io
import re
from contextlib import redirect_stdout
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.examples.helpers import EXAMPLES, load_example

# each example with an --out, the library it needs, and its options parser
WRITERS = {
    "train_what_the_shell": ("sb3_contrib", "parse_args"),
    "train_scorpion": ("sb3_contrib", "parse_args"),
    "train_what_the_shell_alphazero": ("torch", "parse_args"),
    "train_what_the_shell_policy": ("torch", "parse_args"),
    "train_torchrl_ppo": ("torchrl", "parse"),
    "rllib_what_the_shell": ("ray", "parse_args"),
    "train_with_ratings": ("sb3_contrib", "parse_args"),
}
PROGRESS = re.compile(r"^\[PPO\]: [\d,]+ of [\d,]+ steps \([\d,]+/s\), about \d+\.\d min left$")


class Slow(Exception):
    """Raised where an example's slow part starts."""


def test_every_example_that_writes_has_an_out_option() -> None:
    writers = {p.stem for p in EXAMPLES.glob("*.py") if '"--out"' in p.read_text("utf-8")}
    assert writers == set(WRITERS)


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_each_example_writes_to_a_folder_of_its_own(name: str) -> None:
    library, parser = WRITERS[name]
    if importlib.util.find_spec(library) is None:
        pytest.skip(f"the example needs {library}")
    args = getattr(load_example(name), parser)([])
    assert Path(args.out) == Path("runs") / name  # not under the bench's results/


def first_lines(
    module, monkeypatch: pytest.MonkeyPatch, slow: str, argv: list[str], main=None
) -> str:
    """What ``main(argv)`` (default: ``module.main``) prints before ``module.<slow>`` is first
    called."""

    def stop(*args, **kwargs):
        raise Slow

    monkeypatch.setattr(module, slow, stop)
    printed = io.StringIO()
    with redirect_stdout(printed), pytest.raises(Slow):
        (main or module.main)(argv)
    return printed.getvalue()


def test_train_scorpion_says_what_it_does_before_building_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sb3_contrib")
    example = load_example("train_scorpion")
    said = first_lines(example, monkeypatch, "ScorpionVecEnv", ["--out", str(tmp_path)])
    assert said == (
        "Scorpion (classic), MaskablePPO: 2,000,000 steps on 32 games side by side, evaluated "
        f"on 1,000 dev deals first and every 100,000 steps; results in {tmp_path}\n"
    )


def test_train_what_the_shell_says_what_it_does_before_building_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sb3_contrib")
    example = load_example("train_what_the_shell")
    said = first_lines(example, monkeypatch, "DummyVecEnv", ["--out", str(tmp_path)])
    assert said == (
        "What the Shell, MaskablePPO: imitates greedy (600 games, 3 DAgger rounds), then "
        f"200,000 PPO steps against a pool of opponents; results in {tmp_path}\n"
    )


def test_the_rllib_example_says_what_it_does_before_starting_ray(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ray")
    example = load_example("rllib_what_the_shell")
    monkeypatch.setattr(example.ray, "is_initialized", lambda: False)
    said = first_lines(example.ray, monkeypatch, "init", ["--out", str(tmp_path)], example.main)
    assert said == (
        "What the Shell, RLlib PPO (shared policies, opponent: self): 30 iterations of 4,000 "
        f"env steps, a line each; starting Ray; results in {tmp_path}\n"
    )


def test_the_progress_lines_report_the_rate_since_they_started_and_the_time_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("sb3_contrib")
    from shell_envs.integrations import sb3

    for name in ("train_scorpion", "train_what_the_shell"):  # the examples' lines are these
        example = load_example(name)
        assert example.ProgressLines is sb3.ProgressLines
        assert example.ProgressCallback is sb3.ProgressCallback
    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(sb3.time, "perf_counter", lambda: clock.now)
    ticker = sb3.ProgressLines("[PPO]", 10_000, "steps", 10.0, first=500)
    printed = io.StringIO()
    with redirect_stdout(printed):
        clock.now = 105.0
        ticker(1_000)  # not due yet
        clock.now = 110.0
        ticker(2_500)  # 2,000 steps in 10 s since it started: 200/s, 7,500 steps left
        clock.now = 115.0
        ticker(3_000)  # due again only at 120 s
        clock.now = 120.0
        ticker(4_500)
    assert printed.getvalue().splitlines() == [
        "[PPO]: 2,500 of 10,000 steps (200/s), about 0.6 min left",
        "[PPO]: 4,500 of 10,000 steps (200/s), about 0.5 min left",
    ]
    assert all(PROGRESS.match(line) for line in printed.getvalue().splitlines())


def test_the_rllib_progress_line_shows_each_seats_return() -> None:
    """A shared policy's return over both seats of a self-play game is 0 by construction (the
    "+0.00" the line showed); each seat's return is what moves."""
    pytest.importorskip("ray")
    example = load_example("rllib_what_the_shell")
    result = {
        "training_iteration": 3,
        "num_env_steps_sampled_lifetime": 12_000,
        "env_runners": {
            "num_episodes_lifetime": 410,
            "episode_len_mean": 14.25,
            "agent_episode_returns_mean": {"white": -0.25, "black": 0.25},
            "module_episode_returns_mean": {"shared": 0.0},
        },
    }
    point = example.history_point(result, 42.4)
    assert point["seat_returns"] == {"black": 0.25, "white": -0.25}
    assert example.describe(point) == (
        "iter   3: 12,000 env steps, 410 games, mean length 14.2 rounds, mean return black "
        "+0.25, white -0.25 (42 s)"
    )
