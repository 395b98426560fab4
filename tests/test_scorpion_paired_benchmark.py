"""benchmarks/scorpion_learned.py: two Scorpion agents compared on the same deals."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "scorpion_learned.py"
spec = importlib.util.spec_from_file_location("scorpion_learned_bench", SCRIPT)
paired = importlib.util.module_from_spec(spec)
spec.loader.exec_module(paired)


def test_the_paired_report_counts_the_deals_only_one_agent_won(tmp_path: Path) -> None:
    # deals 0-5 under Classic: a wins 0, 1, 2 and 4; b wins 2 and 3; deal 9 only a played
    won = {"a": {0, 1, 2, 4}, "b": {2, 3}}
    games = [
        {"rules": "classic", "agent": agent, "deal": deal, "won": deal in won[agent],
         "score": 500 if deal in won[agent] else 10 * deal}
        for agent in ("a", "b")
        for deal in range(6)
    ]  # fmt: skip
    games.append({"rules": "classic", "agent": "a", "deal": 9, "won": True, "score": 500})
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in games), encoding="utf-8")
    text = paired.main(["--games", str(path), "--agent", "a", "--against", "b"])
    assert "### classic: `a` against `b`, 6 deals (0–5)" in text
    assert "| a | 4 | 66.7%" in text and "| b | 2 | 33.3%" in text
    # exact McNemar: 3 deals won by a only, 1 by b only, p = P(|X - 2| >= 1) for Bin(4, 1/2)
    assert "deals won by a only: 3; by b only: 1 (exact McNemar p = 0.62)" in text
    assert "relaxed" not in text  # no Relaxed games, no Relaxed section
    command = f"--games {path} --agent a --against b`"
    assert command in text
    assert (tmp_path / "games_paired.md").read_text(encoding="utf-8") == text
