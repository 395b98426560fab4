"""Distinct games (issue 50): how many different games each candidate–anchor pairing of the
bench played, and how often its most repeated game was, counted by the one function the
matches count with too (`report.variety`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from shell_envs.bench import report, scale
from shell_envs.cli import main

TABLE = scale.anchor_table()


def wts(
    actions: list[list[int]],
    anchor: str = "greedy",
    start: dict[str, Any] | None = None,
    candidate: str = "mine",
    index: int = 0,
) -> dict[str, Any]:
    """A What the Shell record as the bench writes it (the candidate black, won)."""
    record = {
        "game": "what_the_shell",
        "index": index,
        "seed": index,
        "black": candidate,
        "white": anchor,
        "pairing": {"candidate": candidate, "anchor": anchor, "candidate_seat": "black"},
        "actions": actions,
        "outcome": 1,
        "illegal": [],
        "errors": [],
    }
    if start is not None:
        record["start"] = start
    return record


def scorpion(deal: int, actions: list[int], rules: str = "classic", agent: str = "a") -> dict:
    """A Scorpion record, as far as what makes the game."""
    return {"game": "scorpion", "rules": rules, "deal": deal, "agent": agent, "actions": actions}


def test_records_with_repeats_give_the_distinct_games_and_the_most_played() -> None:
    a, b, c = [[0, 1], [2, 3]], [[0, 1], [2, 4]], [[5, 6]]
    records = [wts(m, index=k) for k, m in enumerate([a, b, a, c, a, c])]
    assert report.variety(records) == {"distinct_games": 3, "most_played": 3}
    assert report.variety(records[:2]) == {"distinct_games": 2, "most_played": 1}
    assert report.variety([]) == {"distinct_games": 0, "most_played": 0}
    assert report.variety(iter(records)) == report.variety(records)  # any iterable


def test_a_game_is_where_it_started_and_its_moves_not_who_played_it() -> None:
    moves = [[10, 20], [30, 40]]
    opening = {"black": ["a1"], "white": ["i9"], "eggs": [], "sudden_death": False}
    other = {**opening, "black": ["a2"]}
    same = [wts(moves, index=0), wts(moves, anchor="random", candidate="yours", index=7)]
    assert report.variety(same)["distinct_games"] == 1  # players, seeds and index aside
    starts = [wts(moves), wts(moves, start=opening), wts(moves, start=other)]
    assert report.variety(starts)["distinct_games"] == 3
    deals = [scorpion(5, [1, 2]), scorpion(5, [1, 2], agent="b")]
    assert report.variety(deals) == {"distinct_games": 1, "most_played": 2}
    apart = [scorpion(5, [1, 2]), scorpion(6, [1, 2]), scorpion(5, [1, 2], rules="relaxed")]
    assert report.variety(apart)["distinct_games"] == 3


def test_each_pairing_counts_its_own_games() -> None:
    repeated = [[[k % 2, 9]] for k in range(5)] + [[[0, 9]]]  # 2 distinct, one 4 times
    records = [wts(m, "greedy", index=k) for k, m in enumerate(repeated)]
    records += [wts([[k, 9]], "random", index=10 + k) for k in range(4)]  # all distinct
    records += [wts([[0, 9]], "random", candidate="other", index=20)]  # another candidate
    section = json.loads(json.dumps(scale.summarize(records, ["mine", "other"], {}, TABLE)))
    rows = {(p["a"], p["b"]): p for p in section["pairs"]}
    assert set(rows) == {("mine", "random"), ("mine", "greedy"), ("other", "random")}
    figures = {key: (p["games"], p["distinct_games"], p["most_played"]) for key, p in rows.items()}
    assert figures == {
        ("mine", "greedy"): (6, 2, 4),
        ("mine", "random"): (4, 4, 1),
        ("other", "random"): (1, 1, 1),
    }
    for p in rows.values():
        assert type(p["distinct_games"]) is int and type(p["most_played"]) is int


def test_the_markdown_table_has_a_distinct_games_column() -> None:
    records = [wts([[k % 2, 9]], "greedy", index=k) for k in range(5)]
    records += [wts([[k, 9]], "random", index=10 + k) for k in range(4)]
    settings = {"mode": "x", "seed": 0, "workers": 1, "what_the_shell": {"games_per_anchor": 5}}
    results = {
        "version": "x",
        "settings": settings,
        "run": {"wall_seconds": 0, "created": "t"},
        "what_the_shell": scale.summarize(records, ["mine"], {}, TABLE),
    }
    lines = report.markdown(results).splitlines()
    header = next(line for line in lines if line.startswith("| agent | anchor |"))
    assert header.endswith("| score | distinct games |")
    rows = {line.split(" | ")[1]: line for line in lines if line.startswith("| mine | ")}
    assert rows["greedy"].endswith(" | 2 (one 3×) |")
    assert rows["random"].endswith(" | 4 |")


def test_a_small_bench_reports_the_distinct_games_of_every_pairing(tmp_path: Path) -> None:
    out = tmp_path / "results"
    args = ["bench", "--game", "what-the-shell", "--games", "2", "--agents", "random,greedy"]
    done = CliRunner().invoke(main, [*args, "--workers", "1", "--no-progress", "--out", str(out)])
    assert done.exit_code == 0, done.output
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    lines = (out / "games.jsonl").read_text(encoding="utf-8").splitlines()
    played: dict[tuple[str, str], Counter] = {}
    for record in map(json.loads, lines):
        key = (record["pairing"]["candidate"], record["pairing"]["anchor"])
        moves = json.dumps([record.get("start"), record["actions"]])
        played.setdefault(key, Counter())[moves] += 1
    pairs = data["what_the_shell"]["pairs"]
    assert len(pairs) == 2 * len(TABLE.labels) == len(played)
    for p in pairs:
        counts = played[p["a"], p["b"]]
        assert type(p["distinct_games"]) is int and type(p["most_played"]) is int
        assert (p["distinct_games"], p["most_played"]) == (len(counts), max(counts.values()))
        assert p["games"] == 2 and p["distinct_games"] in (1, 2)
    table = (out / "results.md").read_text(encoding="utf-8")
    assert "| score | distinct games |" in table


def test_the_bench_plays_each_anchor_from_the_tables_openings_in_seat_swapped_pairs(
    tmp_path: Path,
) -> None:
    """As the anchors' own round robin did: game ``2k`` and ``2k + 1`` against an anchor
    start from one opening, the seats swapped, and every anchor gets the same openings."""
    out = tmp_path / "results"
    args = ["bench", "--game", "what-the-shell", "--games", "3", "--agent", "random"]
    done = CliRunner().invoke(main, [*args, "--workers", "1", "--no-progress", "--out", str(out)])
    assert done.exit_code == 0, done.output
    book = TABLE.book()
    assert book is not None
    starts = book.schedule(0, 2)  # the bench's seed; 3 games: one pair and one game
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["settings"]["what_the_shell"]["openings"] == book.describe() == TABLE.openings
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    for anchor in TABLE.labels:
        mine = [r for r in records if r["pairing"]["anchor"] == anchor]
        assert [r["pairing"]["opening"] for r in mine] == [starts[0], starts[0], starts[1]]
        assert [r["pairing"]["candidate_seat"] for r in mine] == ["black", "white", "black"]
        assert [r["start"] for r in mine] == [book[k] for k in (starts[0], starts[0], starts[1])]
    assert f"opening book v{book.version}" in (out / "results.md").read_text(encoding="utf-8")
