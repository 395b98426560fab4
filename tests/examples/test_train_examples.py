"""Smoke runs of the training examples (SB3, expert iteration): they train, save and evaluate.

Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch); skipped without it.
"""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("sb3_contrib", reason="the training examples need the train extra")

from click.testing import CliRunner

from shell_envs.agents import make_agent
from shell_envs.bench.evaluation import play_match
from shell_envs.bench.patience import play_deal
from shell_envs.cli import main
from shell_envs.integrations.sb3 import load_agent
from tests.examples.helpers import load_example

PROGRESS = re.compile(r"^\[PPO\]: [\d,]+ of [\d,]+ steps \([\d,]+/s\), about \d+\.\d min left$")


def progress_lines(output: str) -> list[str]:
    """The PPO progress lines of an example's output."""
    return [line for line in output.splitlines() if line.startswith("[PPO]")]


def test_train_scorpion_smoke(tmp_path, capsys):
    example = load_example("train_scorpion")
    results = example.main(["--smoke", "--out", str(tmp_path), "--progress-every", "0"])
    output = capsys.readouterr().out
    assert output.startswith("Scorpion (classic), MaskablePPO: 256 steps on 4 games")
    ticks = progress_lines(output)
    assert ticks and all(PROGRESS.match(line) for line in ticks)
    assert "[final] evaluation: 2 of 2 deals" in output
    assert results["timesteps"] >= 256
    assert (tmp_path / "model.zip").is_file() and (tmp_path / "learning_curve.png").is_file()
    saved = json.loads((tmp_path / "results.json").read_text())
    assert len(saved["curve"]) >= 2 and saved["curve"][-1]["train_games"] >= 0
    assert set(saved["final"]) == {"learned", "greedy"}
    for row in saved["final"].values():
        assert row["games"] == 2 and 0.0 <= row["win_rate"] <= 1.0 and row["mean_score"] >= 0
    # the weights it wrote load as the agent, and the agent plays a whole game with them
    agent = make_agent("scorpion", "learned", weights=str(tmp_path / "network.npz"))
    won, score, moves, end = play_deal(agent, 5000, "classic")
    assert moves > 0 and end != "illegal"


def test_train_what_the_shell_smoke(tmp_path, capsys):
    example = load_example("train_what_the_shell")
    results = example.main(["--smoke", "--out", str(tmp_path), "--progress-every", "0"])
    output = capsys.readouterr().out
    assert output.startswith("What the Shell, MaskablePPO: imitates greedy (4 games")
    ticks = progress_lines(output)
    assert ticks and all(PROGRESS.match(line) for line in ticks)
    assert "[imitation 0] greedy's games: 4 of 4 games" in output
    assert results["timesteps"] >= 256
    assert (tmp_path / "model.zip").is_file() and (tmp_path / "learning_curve.png").is_file()
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["imitation"] and saved["curve"]
    assert saved["snapshots"] and (tmp_path / "snapshots").is_dir()
    for opponent in ("random", "greedy"):
        row = saved["final"][opponent]
        assert row["games"] == 4 and row["wins"] + row["draws"] + row["losses"] == 4
    agent = load_agent(tmp_path / "model.zip")
    assert play_match(agent, "random", games=2).games == 2
    model = f"ppo:{tmp_path / 'model.zip'}"
    assert make_agent("what_the_shell", model, seed=0).act is not None
    played = CliRunner().invoke(
        main, ["play", "what-the-shell", "--opponent", model], input="e5\nzz\nq\n"
    )
    assert played.exit_code == 0, played.output
    assert "zz" in played.output


class Stub:
    """An agent that only needs resetting."""

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset."""


def test_the_pool_draws_built_in_agents_then_snapshots_too():
    example = load_example("train_what_the_shell")
    fixed, snapshots = [Stub(), Stub()], []
    pool = example.OpponentPool(fixed, snapshots, (0.5, 0.5, 1.0))

    def drawn() -> set[int]:
        seen = set()
        for seed in range(40):
            pool.reset(seed)
            seen.add(id(pool.current))
        return seen

    assert drawn() == {id(agent) for agent in fixed}
    snapshots.append(Stub())
    assert drawn() == {id(agent) for agent in (*fixed, *snapshots)}


def test_train_what_the_shell_alphazero_smoke(tmp_path):
    summary = load_example("train_what_the_shell_alphazero").main(
        ["--smoke", "--out", str(tmp_path)]
    )
    weights = tmp_path / "wts_network.npz"
    assert weights.is_file() and (tmp_path / "learning_curve.png").is_file()
    saved = json.loads((tmp_path / "curve.json").read_text())
    assert saved["curve"] and set(summary["curve"][-1]) >= {"learned", "mcts-learned"}
    for spec in (f"learned:weights={weights}", f"mcts-learned:weights={weights},iterations=20"):
        assert play_match(make_agent("what_the_shell", spec), "random", games=2).games == 2


@pytest.mark.parametrize("precision", [[], ["--bf16"]])
def test_train_what_the_shell_policy_smoke(tmp_path, precision):
    recipe = load_example("train_what_the_shell_policy")
    summary = recipe.main(["--smoke", "--out", str(tmp_path), *precision])
    weights = tmp_path / "wts_policy.npz"
    assert weights.is_file() and (tmp_path / "learning_curve.png").is_file()
    saved = json.loads((tmp_path / "curve.json").read_text())
    points = [(p["stage"], p["step"]) for p in saved["curve"]]  # --eval-every 2 of 5 steps
    assert points == [(stage, step) for stage in ("selfplay", "dagger") for step in (2, 4, 5)]
    seconds = [p["train_seconds"] for p in saved["curve"]]
    assert seconds == sorted(seconds) and seconds[0] > 0
    assert summary["curve"][-1]["positions"] > summary["curve"][0]["positions"]
    agent = make_agent("what_the_shell", f"learned:weights={weights}")
    assert play_match(agent, "random", games=2).games == 2
