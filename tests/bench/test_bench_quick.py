"""``shell-envs bench --quick`` end to end, shrunk: valid JSON, Markdown and PNG, any workers."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from shell_envs.bench.runner import run_bench
from shell_envs.cli import main
from shell_envs.scorpion.winnable import deal_verdicts


def test_bench_quick_writes_json_markdown_and_png(tmp_path: Path) -> None:
    out = tmp_path / "results"
    args = ["bench", "--quick", "--games", "2", "--deals", "2", "--workers", "1"]
    result = CliRunner().invoke(main, [*args, "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "## What the Shell" in result.output and "## Scorpion" in result.output

    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["meta"]["mode"] == "quick"
    assert data["meta"]["games_per_pair"] == 2 and data["meta"]["deals"] == 2
    wts = data["what_the_shell"]
    assert wts["agents"] == ["random", "greedy", "mcts"]
    assert len(wts["pairs"]) == 3 and all(p["games"] == 2 for p in wts["pairs"])
    assert {r["agent"]: r["elo"] for r in wts["ratings"]}["random"] == 0.0
    for p in wts["pairs"]:
        assert p["wins"] + p["draws"] + p["losses"] == 2
        assert 0.0 <= p["win_ci"][0] <= p["win_rate"] <= p["win_ci"][1] <= 1.0
    scorpion = data["scorpion"]["rules"]
    assert set(scorpion) == {"classic", "relaxed"}
    for rows in scorpion.values():
        assert [r["agent"] for r in rows] == ["random", "greedy", "lookahead"]
        for r in rows:
            assert r["deals"] == 2 and 0 <= r["wins"] <= 2
            assert r["win_ci"][0] <= r["win_rate"] <= r["win_ci"][1]
            assert r["mean_score"] >= 0 and r["mean_moves"] > 0
            assert 0 <= r["winnable_won"] <= r["winnable_deals"] <= r["known_deals"] == 2
    for rules, ceiling in data["scorpion"]["ceiling"].items():
        verdicts = deal_verdicts(rules)
        won = sum(verdicts[d].verdict == "won" for d in (0, 1))
        assert ceiling == {"known_deals": 2, "winnable_deals": won, "winnable_share": won / 2}
        assert all(r["winnable_deals"] == won for r in scorpion[rules])

    markdown = (out / "results.md").read_text(encoding="utf-8")
    assert markdown.startswith("# shell-envs bench")
    assert "| rank | agent | rating | 95% CI |" in markdown
    assert (
        "| rules | agent | deals | wins | win rate (95% CI) | winnable deals won "
        "| mean score | mean moves |" in markdown
    )
    assert (
        "Thoughtful ceiling (classic): 1 of the 2 deals with a shipped solver verdict" in markdown
    )
    assert markdown.count("| classic |") == 3 and markdown.count("| relaxed |") == 3

    with Image.open(out / "results.png") as image:
        assert image.format == "PNG"
        assert image.width > 800 and image.height > 300


def test_results_do_not_depend_on_the_number_of_workers(tmp_path: Path) -> None:
    one, _ = run_bench(True, 1, tmp_path / "one", games_per_pair=2, deals=1, progress=False)
    two, _ = run_bench(True, 2, tmp_path / "two", games_per_pair=2, deals=1, progress=False)
    assert one["what_the_shell"] == two["what_the_shell"]
    assert one["scorpion"] == two["scorpion"]
