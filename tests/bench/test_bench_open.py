"""The open bench end to end: any agent through the command line, results files, records.

Small plans (a couple of games per anchor, a few deals) keep these fast; the figures they
check are the schema, the counts and the invariants, which do not depend on the plan size.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from shell_envs.bench import evaluate, replay, runner, scale
from shell_envs.cli import main
from shell_envs.scorpion.winnable import deal_verdicts
from tests.bench.test_agent_specs import MISSING_MODEL

USER_FILE = Path(__file__).with_name("user_agents.py")
SMALL = ["--games", "2", "--deals", "2", "--workers", "1", "--no-progress"]
N_ANCHORS = len(scale.ANCHOR_SPECS)


def bench(tmp_path: Path, *args: str) -> tuple[object, Path]:
    """Run ``shell-envs bench`` in-process; the click result and the results folder."""
    out = tmp_path / "results"
    result = CliRunner().invoke(main, ["bench", *SMALL, "--out", str(out), *args])
    return result, out


def read(out: Path) -> tuple[dict, list[dict]]:
    """results.json and the records of games.jsonl."""
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    lines = (out / "games.jsonl").read_text(encoding="utf-8").splitlines()
    return data, [json.loads(line) for line in lines]


def test_a_plain_function_and_a_factory_join_both_games(tmp_path: Path) -> None:
    result, out = bench(
        tmp_path,
        "--agent",
        f"policy={USER_FILE}:first_legal",
        "--agent",
        "tests.bench.user_agents:make_seeded",
    )
    assert result.exit_code == 0, result.output
    data, records = read(out)
    assert data["version"] and data["settings"]["agents"] == {
        "policy": f"{USER_FILE}:first_legal",
        "make_seeded": "tests.bench.user_agents:make_seeded",
    }
    wts = data["what_the_shell"]
    assert set(wts["ratings"]) == {"policy", "make_seeded"}
    for r in wts["ratings"].values():
        assert set(r) >= {"rating", "ci", "games", "move_seconds"}
        low, high = (x if x is not None else s * 1e9 for x, s in zip(r["ci"], (-1, 1), strict=True))
        assert r["rating"] is None or low <= r["rating"] <= high
        assert low < high and r["games"] == 2 * N_ANCHORS
        assert r["move_seconds"] > 0
    assert len(wts["pairs"]) == 2 * N_ANCHORS
    for p in wts["pairs"]:
        assert set(p) >= {"a", "b", "wins_a", "draws", "wins_b", "win_rate_a", "ci"}
        assert p["wins_a"] + p["draws"] + p["wins_b"] == p["games"] == 2
        assert p["ci"][0] <= p["win_rate_a"] <= p["ci"][1]
    assert set(wts["scale"]["anchors"]) == set(scale.anchor_table().labels)
    for rules in ("classic", "relaxed"):
        section = data["scorpion"][rules]
        assert section["first_deal"] == 5000 and section["deals"] == 2  # the test set
        for row in section["agents"].values():
            assert set(row) >= {
                "win_rate",
                "ci",
                "winnable_won",
                "mean_score",
                "mean_moves",
                "move_seconds",
            }
        verdicts = deal_verdicts(rules)
        winnable = sum(verdicts[d].verdict == "won" for d in (5000, 5001))
        assert section["ceiling"]["winnable_deals"] == winnable
    n_wts, n_scorpion = 2 * 2 * N_ANCHORS, 2 * 2 * 2
    assert len(records) == n_wts + n_scorpion
    assert [r["index"] for r in records] == list(range(len(records)))
    assert sum(r["game"] == "scorpion" for r in records) == n_scorpion
    markdown = (out / "results.md").read_text(encoding="utf-8")
    assert "| rank | agent | rating | 95% CI | games | score | ms / move |" in markdown
    assert "Thoughtful ceiling (classic, deals 5000–5001)" in markdown
    with Image.open(out / "results.png") as image:
        assert image.format == "PNG" and image.width > 800


def test_the_default_bench_plays_the_built_in_agents_in_their_games(tmp_path: Path) -> None:
    result, out = bench(tmp_path, "--game", "scorpion", "--rules", "relaxed", "--set", "dev")
    assert result.exit_code == 0, result.output
    data, records = read(out)
    assert "what_the_shell" not in data and set(data["scorpion"]) >= {"relaxed", "set"}
    assert "classic" not in data["scorpion"] and data["scorpion"]["set"] == "dev"
    assert list(data["scorpion"]["relaxed"]["agents"]) == ["random", "greedy", "lookahead"]
    assert {r["deal"] for r in records} == {0, 1}


def test_the_traditional_rules_are_benched_against_their_own_ceiling(tmp_path: Path) -> None:
    result, out = bench(tmp_path, "--game", "scorpion", "--rules", "traditional")
    assert result.exit_code == 0, result.output
    data, records = read(out)
    assert set(data["scorpion"]) - {"set", "confidence"} == {"traditional"}
    verdicts = deal_verdicts("traditional")
    ceiling = data["scorpion"]["traditional"]["ceiling"]
    winnable = sum(verdicts[d].verdict == "won" for d in (5000, 5001))
    assert ceiling["known_deals"] == 2 and ceiling["winnable_deals"] == winnable
    assert {r["rules"] for r in records} == {"traditional"}
    markdown = (out / "results.md").read_text(encoding="utf-8")
    assert "| traditional | greedy |" in markdown and "Thoughtful ceiling (traditional" in markdown


def test_all_plays_the_three_rule_sets_and_both_the_two_defaults(tmp_path: Path) -> None:
    result, out = bench(tmp_path, "--game", "scorpion", "--rules", "all", "--agents", "random")
    assert result.exit_code == 0, result.output
    data, _ = read(out)
    assert set(data["scorpion"]) >= {"classic", "relaxed", "traditional"}
    result, out = bench(tmp_path / "b", "--game", "scorpion", "--agents", "random")
    assert result.exit_code == 0, result.output
    data, _ = read(out)
    assert "traditional" not in data["scorpion"] and {"classic", "relaxed"} <= set(data["scorpion"])


def test_illegal_actions_and_errors_are_reported_and_the_bench_finishes(tmp_path: Path) -> None:
    result, out = bench(
        tmp_path,
        "--agent",
        f"cheat={USER_FILE}:illegal",
        "--agent",
        f"words={USER_FILE}:not_an_action",
        "--agent",
        f"boom={USER_FILE}:Raising",
    )
    assert result.exit_code == 1, result.output  # each of them failed every game it played
    failed = [line.split("'")[1] for line in result.stderr.splitlines()]
    assert failed == ["cheat", "words", "boom"]
    data, records = read(out)
    wts = data["what_the_shell"]
    for name in ("cheat", "words", "boom"):
        assert wts["ratings"][name]["score"] == 0.0  # every game forfeited
    assert wts["illegal"]["counts"] == {"cheat": 2 * N_ANCHORS, "words": 2 * N_ANCHORS}
    assert wts["errors"]["counts"] == {"boom": 2 * N_ANCHORS}
    first = wts["illegal"]["first"][0]
    assert first["agent"] == "cheat" and first["position"]["black"] is not None
    assert "RuntimeError: the third move is beyond me" in wts["errors"]["first"][0]["error"]
    for rules in ("classic", "relaxed"):
        agents = data["scorpion"][rules]["agents"]
        assert agents["cheat"]["ends"] == {"illegal": 2} and agents["boom"]["ends"] == {"error": 2}
        assert agents["words"]["ends"] == {"illegal": 2}
    ends = {r["end"] for r in records if r["game"] == "what_the_shell"}
    assert ends == {"illegal", "error"}
    markdown = (out / "results.md").read_text(encoding="utf-8")
    illegal = f"cheat {2 * N_ANCHORS}, words {2 * N_ANCHORS}"
    assert f"**Illegal actions (What the Shell)**: {illegal}" in markdown
    assert "**Errors (Scorpion classic)**: boom 2" in markdown
    reasons = {c["reason"] for r in records for c in r["illegal"] if c["agent"] == "words"}
    assert reasons == {
        "returned 'left', not a cell index 0-80",
        "returned 'left', not an action index 0-364",
    }


@pytest.mark.parametrize(
    ("game", "says"),
    [("scorpion", "raised on Scorpion deal"), ("what-the-shell", "raised in What the Shell game")],
)
def test_fail_fast_stops_at_the_first_error(tmp_path: Path, game: str, says: str) -> None:
    result, out = bench(
        tmp_path, "--game", game, "--fail-fast", "--agent", f"boom={USER_FILE}:Raising"
    )
    assert result.exit_code == 1
    assert f"agent 'boom' {says}" in result.output
    assert "the third move is beyond me" in result.output


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("x=/nowhere/agents.py:f", "no file"),
        MISSING_MODEL,
        ("mcts:iterations=-3", "iterations"),
        ("tests.bench.user_agents:no_such", "has no 'no_such'"),
    ],
)
def test_a_spec_that_cannot_load_fails_before_any_game(tmp_path: Path, spec, says) -> None:
    result, out = bench(tmp_path, "--agent", spec)
    assert result.exit_code == 2
    assert says in result.output and "agent spec" in result.output
    assert not out.exists()  # nor the folder the bench would have written


def test_two_agents_with_one_name_must_be_named_apart(tmp_path: Path) -> None:
    result, _ = bench(tmp_path, "--agent", "greedy", "--agents", "greedy,random")
    assert result.exit_code == 2 and "two agents are named greedy" in result.output


def _figures(data: dict) -> dict:
    """results.json without what depends on the machine: timing and the run's details."""
    data = json.loads(json.dumps(data))
    data.pop("run")
    data["settings"].pop("workers")
    for r in data.get("what_the_shell", {}).get("ratings", {}).values():
        r.pop("move_seconds")
    for section in data.get("scorpion", {}).values():
        if isinstance(section, dict) and "agents" in section:
            for row in section["agents"].values():
                row.pop("move_seconds")
    return data


def test_results_do_not_depend_on_the_number_of_workers(tmp_path: Path) -> None:
    kwargs = dict(agents=["greedy", "mcts:iterations=20", "lookahead:samples=2"], progress=False)
    one, _ = runner.run_bench(tmp_path / "one", games_per_anchor=2, deals=2, workers=1, **kwargs)
    two, _ = runner.run_bench(tmp_path / "two", games_per_anchor=2, deals=2, workers=2, **kwargs)
    assert _figures(one.to_dict()) == _figures(two.to_dict())
    assert one.records == two.records
    assert (tmp_path / "one" / "games.jsonl").read_bytes() == (
        tmp_path / "two" / "games.jsonl"
    ).read_bytes()


def test_evaluate_gives_the_command_lines_figures(tmp_path: Path) -> None:
    report = evaluate("greedy", game="what_the_shell", games_per_anchor=2, deals=2)
    result, out = bench(tmp_path, "--game", "what-the-shell", "--agent", "greedy")
    assert result.exit_code == 0, result.output
    data, _ = read(out)
    assert _figures(report.to_dict()) == _figures(data)
    assert report.markdown().startswith("# shell-envs bench")
    report.plot(tmp_path / "plot.png")
    assert (tmp_path / "plot.png").stat().st_size > 10_000
    paths = report.write(tmp_path / "written")
    assert set(paths) == {"json", "markdown", "png", "games"}


def test_evaluate_takes_agent_objects_and_functions() -> None:
    from shell_envs.agents import make_agent

    agent = make_agent("scorpion", "greedy", seed=0)
    report = evaluate(agent, game="scorpion", rules="classic", deals=3)
    assert list(report.to_dict()["scorpion"]["classic"]["agents"]) == ["greedy"]
    report = evaluate(
        lambda obs, mask: int(mask.nonzero()[0][0]),
        game="what_the_shell",
        games_per_anchor=2,
        name="first",
    )
    assert report.to_dict()["what_the_shell"]["ratings"]["first"]["games"] == 2 * N_ANCHORS
    with pytest.raises(ValueError, match="plays one game"):
        evaluate(agent)


def test_replays_reproduce_the_recorded_final_positions(tmp_path: Path) -> None:
    result, out = bench(tmp_path, "--agents", "greedy,mcts:iterations=20,lookahead:samples=2")
    assert result.exit_code == 0, result.output
    _, records = read(out)
    for record in records:
        steps = list(replay.positions(record, "ansi"))
        moves = len(record["actions"])
        assert len(steps) == moves + 1
    tampered = dict(records[0], final={"black": [], "white": [], "eggs": []})
    with pytest.raises(replay.ReplayMismatch):
        list(replay.positions(tampered, "ansi"))
    games = out / "games.jsonl"
    shown = CliRunner().invoke(main, ["replay", str(games), "--game", "1"], input="")
    assert shown.exit_code == 0, shown.output
    assert "round 1:" in shown.output and "recorded final position" in shown.output
    scorpion = next(r["index"] for r in records if r["game"] == "scorpion")
    gif = tmp_path / "deal.gif"
    made = CliRunner().invoke(
        main, ["replay", str(games), "--game", str(scorpion), "--gif", str(gif)]
    )
    assert made.exit_code == 0, made.output
    with Image.open(gif) as image:
        assert image.format == "GIF" and image.n_frames == len(records[scorpion]["actions"]) + 1
    missing = CliRunner().invoke(main, ["replay", str(games), "--game", "9999"])
    assert missing.exit_code == 2 and "has no game 9999" in missing.output


def test_a_what_the_shell_game_can_start_from_a_position() -> None:
    """``play_what_the_shell(position=...)`` starts there, records it, and replays from it."""
    from shell_envs import what_the_shell_v0
    from shell_envs.agents.spec import parse_spec
    from shell_envs.bench.games import play_what_the_shell

    env = what_the_shell_v0.parallel_env()
    env.reset()
    for black, white in ((40, 41), (30, 50), (31, 31)):  # the last one collides: an egg
        env.step({"black": black, "white": white})
    start = env.position()
    greedy = parse_spec("greedy")
    record, _ = play_what_the_shell(greedy, greedy, 0, 200, position=start)
    assert record["start"] == start
    steps = list(replay.positions(record, "ansi"))  # checks the recorded final position
    assert len(steps) == len(record["actions"]) + 1
    shown = what_the_shell_v0.parallel_env(render_mode="ansi")
    shown.reset(options={"position": start})
    assert steps[0][1] == shown.render()
    plain, _ = play_what_the_shell(greedy, greedy, 0, 200)
    assert "start" not in plain and plain["actions"] != record["actions"]


def test_progress_ticks_once_per_finished_game(monkeypatch) -> None:
    ticks: list[int] = []

    class Bar:
        def __init__(self, total, **kwargs):
            self.total = total

        def update(self, n):
            ticks.append(n)

        def close(self):
            pass

    monkeypatch.setattr(runner, "tqdm", Bar)
    settings = runner.make_settings(["greedy"], game="scorpion", deals=3)
    plan = runner.tasks(settings)
    records, _, interrupted = runner.play_tasks(plan, workers=2, progress=True)
    assert not interrupted and len(records) == len(plan) == 6 and ticks == [1] * 6


def test_the_bench_announces_what_it_compiles(monkeypatch) -> None:
    from shell_envs.core import jit
    from shell_envs.scorpion import search as scorpion_search
    from shell_envs.what_the_shell import search

    calls: list[tuple] = []
    monkeypatch.setattr(jit, "compile_notice", lambda *fns, **kw: calls.append((fns, kw)))
    runner.warm_up(["what_the_shell", "scorpion"], ["classic"], [], notice=True)
    ((functions, kwargs),) = calls
    assert search.run_search in functions and scorpion_search.rollout_values in functions
    runner.warm_up(["scorpion"], ["classic"], [], notice=False)
    assert len(calls) == 1
