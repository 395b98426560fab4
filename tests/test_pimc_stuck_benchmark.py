"""benchmarks/scorpion_pimc_stuck.py: where a pimc game's pool stops winning, and the real
verdict there."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium as gym

import shell_envs  # noqa: F401  (registers the envs)
from shell_envs.scorpion import solver

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "scorpion_pimc_stuck.py"
spec = importlib.util.spec_from_file_location("scorpion_pimc_stuck", SCRIPT)
stuck = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stuck)

AGENT = "pimc:samples=4,won_target=4,max_samples=4,max_nodes=5000"


def test_the_real_verdict_is_taken_where_the_pool_stops_winning(tmp_path: Path) -> None:
    # with these budgets, Relaxed deal 5015 is lost (its pool stops winning late, the real deal
    # already lost), deal 3 is won though its pool wins nothing at first, and on deal 5026 some
    # determinization stays won throughout; each verdict is checked by replaying the moves in
    # the env and solving its state
    out = tmp_path / "stuck"
    args = ["--agent", AGENT, "--only", "5015", "3", "5026", "--full-nodes", "200000"]
    results = stuck.main([*args, "--out", str(out)])
    rows = {row["deal"]: row for row in results["deals"]}
    assert [rows[d]["real"] for d in (5015, 3, 5026)] == [solver.LOST, solver.WON, "never"]
    assert results["summary"]["real"] == {"lost": 1, "never": 1, "won": 1}
    assert out.with_suffix(".json").is_file()
    for deal in (5015, 3):
        row = rows[deal]
        env = gym.make("shell_envs/Scorpion-v0", rules="relaxed")
        env.reset(seed=deal)
        for action in row["actions"][: row["move"]]:
            env.step(action)
        state = env.unwrapped.get_state()
        assert solver.solve(state, rules="relaxed", max_nodes=200_000).verdict == row["real"]
        assert sum(row["pool"].values()) and solver.WON not in row["pool"]
        for action in row["actions"][row["move"] :]:
            _, _, _, _, info = env.step(action)
        assert info["won"] == row["won"]
