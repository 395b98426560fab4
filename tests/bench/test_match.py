"""``shell-envs match``: pairs from one opening with seats swapped, the statistics against the
records, the sequential test's stop, resume, replay, Scorpion's paired deals, and bad input
refused in one line with no folder left behind."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shell_envs.agents.spec import object_spec
from shell_envs.bench import match, openings, patience, sequential
from shell_envs.bench.runner import game_seed
from shell_envs.cli import main

WTS, SCORPION = "what_the_shell", "scorpion"


def lines(folder: Path) -> list[str]:
    return (folder / "games.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in lines(folder)]


def a_points(record: dict) -> int:
    """A's half-points in a game, from the record alone."""
    black = {"black": 2, "draw": 1, "white": 0}[record["result"]]
    return black if record["match"]["a_seat"] == "black" else 2 - black


@pytest.fixture(scope="module")
def fixed(tmp_path_factory) -> tuple[Path, match.MatchResult]:
    """greedy against random, 5 pairs."""
    out = tmp_path_factory.mktemp("fixed") / "match"
    return out, match.run_match("greedy", "random", out=out, games=10, seed=3, progress=False)


def test_each_pair_plays_one_opening_with_the_seats_swapped(fixed) -> None:
    out, result = fixed
    book = openings.load()
    games = records(out)
    assert games == result.records and [r["index"] for r in games] == list(range(10))
    schedule = book.schedule(3, 5)
    for pair in range(5):
        first, second = games[2 * pair], games[2 * pair + 1]
        assert first["start"] == second["start"] == book[schedule[pair]]
        assert (first["black"], first["white"]) == ("greedy", "random")
        assert (second["black"], second["white"]) == ("random", "greedy")
        assert first["seed"] == second["seed"] == game_seed(3, pair)
        assert first["match"] == {"pair": pair, "opening": schedule[pair], "a_seat": "black"}
        assert second["match"] == {"pair": pair, "opening": schedule[pair], "a_seat": "white"}


def test_the_statistics_are_those_of_the_records(fixed) -> None:
    out, result = fixed
    games = records(out)
    r = result.data["result"]
    points = [a_points(g) for g in games]
    pairs = [points[i] + points[i + 1] for i in range(0, 10, 2)]
    assert r["pentanomial"] == np.bincount(pairs, minlength=5).tolist()
    assert (r["wins"], r["draws"], r["losses"]) == tuple(points.count(k) for k in (2, 1, 0))
    est = sequential.elo_from_pentanomial(r["pentanomial"])
    assert (r["score"], r["los"]) == (est.score, est.los)
    played = Counter(json.dumps([g["start"], g["actions"]]) for g in games)
    assert (r["distinct_games"], r["most_played"]) == (len(played), max(played.values()))
    assert r["status"] == "complete" and r["pairs"] == 5 and r["openings"] == 5
    saved = json.loads((out / "match.json").read_text(encoding="utf-8"))
    assert saved["result"] == json.loads(json.dumps(r))
    assert saved["settings"]["openings"] == openings.load().describe()
    assert (out / "match.md").read_text(encoding="utf-8") == result.markdown()
    assert "| 10 |" in result.markdown() and "Distinct games:" in result.markdown()


def test_a_match_record_replays(fixed) -> None:
    out, _ = fixed
    runner = CliRunner()
    listed = runner.invoke(main, ["replay", str(out / "games.jsonl"), "--list"])
    assert listed.exit_code == 0 and "random (black) vs greedy (white)" in listed.output
    shown = runner.invoke(main, ["replay", str(out / "games.jsonl"), "--game", "3"])
    assert shown.exit_code == 0, shown.output
    assert "the replay ends in the recorded final position" in shown.output


def test_the_sprt_stops_at_its_first_decision_whatever_the_workers(tmp_path) -> None:
    results = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        results[workers] = match.run_match(
            "greedy", "random", out=out, sprt=(0, 200), max_games=40, workers=workers,
            progress=False,
        )  # fmt: skip
    r = results[1].data["result"]
    assert r["status"] == "decided" and r["sprt"]["decision"] == "H1"
    assert r["games"] < 40 and len(lines(tmp_path / "w1")) == r["games"]
    assert results[2].data["run"]["games_finished"] == r["games"]  # none past the decision
    test = sequential.SPRT(0, 200)
    counts = np.array(r["pentanomial"])
    assert r["sprt"]["llr"] == test.llr(counts) >= test.bounds()[1]
    pairs = [a_points(g) for g in records(tmp_path / "w1")]
    before = sequential.pentanomial([pairs[i] + pairs[i + 1] for i in range(0, r["games"] - 2, 2)])
    assert test.decision(before) is None  # it did not play past the decision
    assert results[2].data["result"] == r and results[2].records == results[1].records
    assert lines(tmp_path / "w2") == lines(tmp_path / "w1")


def test_an_sprt_without_a_decision_stops_at_max_games(tmp_path) -> None:
    result = match.run_match(
        "greedy", "random", out=tmp_path / "m", sprt=(-10, 10), max_games=4, progress=False
    )
    r = result.data["result"]
    assert r["status"] == "complete" and r["games"] == 4 and r["sprt"]["decision"] is None
    assert "no decision yet" in result.markdown()


@pytest.mark.parametrize("sprt", [None, (0, 200)])
def test_resume_ends_as_an_uninterrupted_match(tmp_path, sprt) -> None:
    kwargs = {"out": tmp_path / "whole", "seed": 5, "progress": False}
    kwargs.update({"games": 12} if sprt is None else {"sprt": sprt, "max_games": 60})
    whole = match.run_match("greedy", "random", **kwargs)
    for k, cut in ((3, False), (6, True), (0, False)):
        part = tmp_path / f"part{k}{cut}"
        shutil.copytree(tmp_path / "whole", part)
        kept = lines(part)[:k]
        if cut:  # killed while writing the next record
            kept.append(lines(part)[k][:40])
        (part / "games.jsonl").write_text("".join(kept), encoding="utf-8")
        with pytest.warns(match.MatchWarning, match="cut short") if cut else nullcontext():
            resumed = match.run_match("greedy", "random", **{**kwargs, "out": part}, resume=True)
        assert resumed.data["result"] == whole.data["result"]
        assert resumed.records == whole.records
        assert lines(part) == lines(tmp_path / "whole")
        assert resumed.data["created"] == whole.data["created"]  # when it first started
        assert resumed.data["run"]["games_finished"] == whole.data["result"]["games"]


class Interrupting:
    """Plays the lowest legal cell; raises KeyboardInterrupt (Ctrl-C) on a chosen call."""

    name = "first"

    def __init__(self) -> None:
        self.calls = 0
        self.stop_at: int | None = None

    def reset(self, seed=None) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        self.calls += 1
        if self.calls == self.stop_at:
            raise KeyboardInterrupt
        return int(np.flatnonzero(action_mask)[0])


def test_ctrl_c_keeps_every_finished_game_and_resume_goes_on(tmp_path) -> None:
    agent = Interrupting()
    spec = object_spec(agent)
    whole = match.run_match(spec, "random", out=tmp_path / "whole", games=8, progress=False)
    agent.calls, agent.stop_at = 0, whole.records[0]["rounds"] + 2  # in the second game
    with pytest.raises(match.MatchInterrupted) as stop:
        match.run_match(spec, "random", out=tmp_path / "cut", games=8, progress=False)
    assert len(lines(tmp_path / "cut")) == 1 == stop.value.result.data["run"]["games_finished"]
    assert stop.value.result.data["result"]["status"] == "unfinished"
    agent.stop_at = None
    resumed = match.run_match(
        spec, "random", out=tmp_path / "cut", games=8, progress=False, resume=True
    )
    assert resumed.data["result"] == whole.data["result"]
    assert lines(tmp_path / "cut") == lines(tmp_path / "whole")


def test_scorpion_plays_both_agents_on_the_same_deals(tmp_path) -> None:
    result = match.run_match(
        "greedy", "random", game="scorpion", out=tmp_path / "s", games=6, seed=2, progress=False
    )
    games = records(tmp_path / "s")
    deals = patience.deal_numbers(3, "test")
    assert [(g["deal"], g["agent"]) for g in games] == [
        (d, agent) for d in deals for agent in ("greedy", "random")
    ]
    for g in games:
        assert g["agent_seed"] == game_seed(2, g["deal"]) and g["rules"] == "classic"
    r = result.data["result"]
    a, b = games[0::2], games[1::2]
    wins = sequential.paired_wins([g["won"] for g in a], [g["won"] for g in b])
    scores = sequential.score_difference([g["score"] for g in a], [g["score"] for g in b])
    assert r["win_rate_difference"]["ci"] == [wins.lower, wins.upper]
    assert r["score_difference"] == {"mean": scores.mean, "ci": [scores.lower, scores.upper]}
    assert r["a"]["mean_score"] == np.mean([g["score"] for g in a])
    shown = CliRunner().invoke(main, ["replay", str(tmp_path / "s" / "games.jsonl"), "--game", "1"])
    assert shown.exit_code == 0 and "recorded final position" in shown.output


@pytest.fixture(scope="module")
def held(tmp_path_factory) -> Path:
    """A folder holding a small finished match."""
    out = tmp_path_factory.mktemp("held") / "match"
    match.run_match("greedy", "random", out=out, games=2, progress=False)
    return out


def _bad_book(tmp_path: Path) -> Path:
    path = tmp_path / "book.json"
    path.write_text('{"format": "something else"}', encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["greedy", "greedy"], "A and B are the same agent (greedy)"),
        (["x=greedy", "greedy"], "A and B are the same agent (greedy)"),
        (["x=greedy", "x=random"], "both agents are labelled 'x'"),
        (["greedy", "nonsense"], "agent spec 'nonsense': not a built-in agent"),
        (["greedy", "lookahead"], "there is no what_the_shell agent"),
        (["greedy", "random", "--openings", "BOOK"], "not an opening book"),
        (["greedy", "random", "--openings", "MISSING"], "cannot read it"),
        (["greedy", "random", "--sprt", "10", "0"], "ELO0 (10) must be below ELO1 (0)"),
        (["greedy", "random", "--sprt", "0", "10", "--alpha", "0.7"], "alpha (0.7) must be"),
        (["greedy", "random", "--sprt", "0", "10", "--beta", "0"], "beta (0) must be above 0"),
        (["greedy", "random", "--sprt", "0", "nan"], "must be finite"),
        (["greedy", "random", "--games", "7"], "games must be even"),
        (["greedy", "random", "--games", "0"], "games must be an integer"),
        (["greedy", "random", "--max-games", "10"], "--max-games caps an --sprt match"),
        (["greedy", "random", "--sprt", "0", "5", "--games", "10"], "--games fixes"),
        (["greedy", "random", "--resume"], "holds no match to resume"),
        (["greedy", "random", "--resume", "--overwrite"], "exclude each other"),
    ],
)
def test_bad_input_is_one_line_and_leaves_no_folder(tmp_path, args, message) -> None:
    out = tmp_path / "new" / "match"
    args = [str(_bad_book(tmp_path)) if a == "BOOK" else a for a in args]
    args = [str(tmp_path / "missing.json") if a == "MISSING" else a for a in args]
    result = CliRunner().invoke(main, ["match", *args, "--out", str(out), "--no-progress"])
    assert result.exit_code != 0
    assert result.output.count("\n") == 1 and result.output.startswith("Error: "), result.output
    assert message in result.output
    assert not (tmp_path / "new").exists()


def test_a_folder_holding_a_match_is_kept_unless_resumed_with_its_settings(held) -> None:
    before = {p.name: p.read_bytes() for p in held.iterdir()}
    runner = CliRunner()
    for args, message in (
        ([], "already holds a match (match.json, match.md, games.jsonl): add --resume"),
        (["--resume", "--games", "2", "--seed", "1"], "with other settings (seed: 0 -> 1)"),
        (["--resume", "--games", "4"], "(games: 2 -> 4)"),
        (["--resume", "--games", "2", "--game", "scorpion"], 'game: "what_the_shell" ->'),
    ):
        result = runner.invoke(main, ["match", "greedy", "random", "--out", str(held), *args])
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert message in result.output
    assert {p.name: p.read_bytes() for p in held.iterdir()} == before


def test_the_command_writes_the_folder_and_prints_the_table(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["match", "greedy", "mcts:iterations=8", "--games", "2", "--workers", "1"]
    result = CliRunner().invoke(main, [*args, "--no-progress"])
    assert result.exit_code == 0, result.output
    out = Path("results/match-greedy-vs-mcts-8")
    assert "## What the Shell match: greedy (A) vs mcts-8 (B)" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["games.jsonl", "match.json", "match.md"]
    again = CliRunner().invoke(main, [*args, "--no-progress", "--overwrite"])
    assert again.exit_code == 0 and len(lines(out)) == 2
