"""The results folder is never overwritten by surprise, and what it holds reads well:
the refusal to overwrite, ``replay --list``, the GIF captions, the Markdown and the plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shell_envs.bench import report, runner
from shell_envs.cli import main

TINY = ["--game", "scorpion", "--rules", "relaxed", "--deals", "1", "--agents", "random"]
QUIET = ["--workers", "1", "--no-progress"]


def files(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of ``folder`` (hidden ones too): its bytes and modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def test_bench_refuses_a_folder_holding_results_and_leaves_them_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "results"
    first = CliRunner().invoke(main, ["bench", *TINY, *QUIET, "--out", str(out)])
    assert first.exit_code == 0, first.output
    before = files(out)
    assert set(before) == set(report.RESULT_NAMES)

    def no_games(*args, **kwargs):
        raise AssertionError("a game started although the results would be lost")

    monkeypatch.setattr(runner, "run", no_games)
    again = CliRunner().invoke(main, ["bench", *TINY, *QUIET, "--seed", "1", "--out", str(out)])
    assert again.exit_code == 1
    message = again.output.strip()
    assert "\n" not in message and message.startswith("Error: ") and "--overwrite" in message
    assert str(out) in message and "results.json" in message and "games.jsonl" in message
    assert files(out) == before  # the same files, bytes and times: nothing written
    monkeypatch.undo()

    replaced = CliRunner().invoke(
        main, ["bench", *TINY, *QUIET, "--seed", "1", "--out", str(out), "--overwrite"]
    )
    assert replaced.exit_code == 0, replaced.output
    assert json.loads((out / "results.json").read_text())["settings"]["seed"] == 1


def test_any_one_results_file_is_enough_to_refuse(tmp_path: Path) -> None:
    for name in report.RESULT_NAMES:
        folder = tmp_path / name.replace(".", "_")
        folder.mkdir()
        (folder / name).write_text("an earlier run's\n")
        (folder / "notes.txt").write_text("mine\n")
        with pytest.raises(report.ResultsExist) as refused:
            report.check_writable(folder)
        assert refused.value.names == [name] and "overwrite=True" in str(refused.value)
        assert report.check_writable(folder, overwrite=True) == folder
        assert (folder / name).read_text() == "an earlier run's\n"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine\n")
    assert report.check_writable(tmp_path / "other") == tmp_path / "other"  # no results in it


def test_the_python_api_refuses_too(tmp_path: Path) -> None:
    result, paths = runner.run_bench(
        tmp_path, game="scorpion", rules="relaxed", deals=1, agents=["random"], workers=1,
        progress=False,
    )  # fmt: skip
    before = files(tmp_path)
    with pytest.raises(report.ResultsExist):
        runner.run_bench(tmp_path, game="scorpion", deals=1, agents=["random"], progress=False)
    with pytest.raises(report.ResultsExist):
        result.write(tmp_path)
    assert files(tmp_path) == before
    assert result.write(tmp_path, overwrite=True) == paths


USER_FILE = Path(__file__).with_name("user_agents.py")


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """A small bench of both games, an always-illegal agent among the players."""
    out = tmp_path_factory.mktemp("bench") / "results"
    args = ["--games", "1", "--deals", "2", "--rules", "classic", "--agents", "random,greedy"]
    chosen = [*args, "--agent", f"cheat={USER_FILE}:illegal", *QUIET, "--out", str(out)]
    done = CliRunner().invoke(main, ["bench", *chosen])
    assert done.exit_code == 1, done.output  # cheat failed every game: the results stand
    assert done.stderr.startswith("Error: agent 'cheat' failed every game it played")
    lines = (out / "games.jsonl").read_text(encoding="utf-8").splitlines()
    return out / "games.jsonl", [json.loads(line) for line in lines]


def test_replay_list_shows_every_game_with_its_index_agents_and_result(games) -> None:
    path, records = games
    shown = CliRunner().invoke(main, ["replay", str(path), "--list"])
    assert shown.exit_code == 0, shown.output
    header, *rows = shown.output.splitlines()
    assert header.split() == ["index", "game", "agents", "result"]
    assert len(rows) == len(records)
    for row, record in zip(rows, records, strict=True):
        assert row.split()[0] == str(record["index"])
        if record["game"] == "what_the_shell":
            assert "What the Shell" in row
            assert f"{record['black']} (black) vs {record['white']} (white)" in row
            if record["result"] == "draw":
                assert "a draw after" in row
            else:
                assert f"{record[record['result']]} ({record['result']}) won after" in row
            assert f"after {record['rounds']} rounds" in row
        else:
            assert "Scorpion" in row and f"{record['agent']}, deal {record['deal']}, classic" in row
            assert ("won, score" if record["won"] else "not won (") in row
            assert f"score {record['score']} in {record['moves']} moves" in row
    cheated = [r for r in rows if "cheat (black)" in r or "cheat (white)" in r]
    assert cheated and all("(an illegal action by cheat)" in r for r in cheated)
    stuck = next(r for r in records if r["game"] == "scorpion" and r["end"] == "no move")
    assert "not won (no legal move left)" in rows[stuck["index"]]


def test_replay_list_names_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "games.jsonl"
    for text, says in (
        ('{"game": "scorpion", "index": 0}\n', "game 0 has no 'rules'"),
        ("\nnot json\n", "line 2 is not a JSON record"),
        ("[1, 2]\n", "line 1 is not a game record"),
    ):
        broken.write_text(text)
        shown = CliRunner().invoke(main, ["replay", str(broken), "--list"])
        assert shown.exit_code == 2 and says in shown.output, shown.output


def band(frame, rows: int) -> bytes:
    """The caption band's pixels: the first ``rows`` rows of a GIF frame."""
    return frame.convert("RGB").crop((0, 0, frame.width, rows)).tobytes()


@pytest.mark.parametrize("game", ["what_the_shell", "scorpion"])
def test_the_gif_names_the_players_or_the_deal_and_ends_with_the_result(
    games, tmp_path: Path, game: str
) -> None:
    from PIL import Image, ImageDraw

    from shell_envs.bench import replay
    from shell_envs.core.render import font

    path, records = games
    record = next(r for r in records if r["game"] == game and len(r["actions"]) >= 2)
    gif = tmp_path / "game.gif"
    assert replay.write_gif(record, gif, fps=4) == len(record["actions"]) + 1
    heading = replay.title(record)
    if game == "what_the_shell":
        assert heading == f"{record['black']} (black) vs {record['white']} (white)"
    else:
        assert heading.startswith(f"{record['agent']}, deal {record['deal']}, Classic rules")
    # the band as it must look: the heading, the step, and the result on the last frame
    with Image.open(gif) as image:
        n, size = image.n_frames, image.size
        image.seek(0)
        first, first_duration = image.copy(), image.info["duration"]
        image.seek(n - 1)
        last, last_duration = image.copy(), image.info["duration"]
    width = size[0]
    lines = replay._wrap(heading, 18, width)
    ending = replay._wrap(f"Result: {replay.result(record)}", 18, width)
    rows = replay.GIF_PAD + replay.GIF_LINE * (len(lines) + 1 + len(ending))
    for frame, step, result_lines in ((first, "start", []), (last, None, ending)):
        expected = Image.new("RGB", (width, rows), replay.GIF_BAND)
        draw = ImageDraw.Draw(expected)
        step = step or replay.text_steps(record)[-1][0].removeprefix(f"{heading}: ")
        texts = [(t, replay.GIF_TEXT) for t in [*lines, step]]
        texts += [(t, replay.GIF_RESULT) for t in result_lines]
        for k, (text, colour) in enumerate(texts):
            draw.text((replay.GIF_PAD, replay.GIF_PAD // 2 + k * replay.GIF_LINE), text, colour,
                      font(18))  # fmt: skip
        got = Image.frombytes("RGB", (width, rows), band(frame, rows))
        # the GIF palette may shift colours a little; the text must sit where it is drawn
        diff = np.abs(np.asarray(got, int) - np.asarray(expected, int)).max(axis=2)
        assert (diff > 60).mean() < 0.01
    assert band(first, rows) != band(last, rows)
    assert last_duration > first_duration == 250


def test_winnable_deals_won_is_a_dash_when_no_deal_was_winnable(games) -> None:
    path, _ = games
    data = json.loads(path.with_name("results.json").read_text(encoding="utf-8"))
    rows = data["scorpion"]["classic"]["agents"]
    none, some = rows["random"], rows["greedy"]
    none.update(winnable_deals=0, winnable_won=0, winnable_share=0.0)
    some.update(winnable_deals=3, winnable_won=2, winnable_share=2 / 3)
    lines = {line.split(" | ")[1]: line for line in report.markdown(data).splitlines()
             if line.startswith("| classic | ")}  # fmt: skip
    assert " | – | " in lines["random"] and "0/0" not in lines["random"]
    assert " | 2/3 (66.7%) | " in lines["greedy"]


def drawn(results: dict):
    """The report's figure, laid out and drawn (so that text has its place); its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = report.figure(results)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return fig, canvas.get_renderer()


def panels(fig) -> list:
    """The figure's panels (its axes less the colour bar)."""
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def overlaps(texts, renderer) -> list[tuple[str, str]]:
    """The pairs of (non-empty) texts whose boxes overlap on the drawn figure."""
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts if t.get_text()]
    return [
        (a, b)
        for k, (a, box_a) in enumerate(boxes)
        for b, box_b in boxes[k + 1 :]
        if box_a.overlaps(box_b)
    ]


def test_the_plot_has_a_panel_per_thing_measured_and_none_empty(games) -> None:
    path, _ = games
    data = json.loads(path.with_name("results.json").read_text(encoding="utf-8"))
    wts_only = {k: v for k, v in data.items() if k != "scorpion"}
    scorpion_only = {k: v for k, v in data.items() if k != "what_the_shell"}
    for results, titles in (
        (data, ["ratings", "against each anchor", "Scorpion Classic"]),
        (wts_only, ["ratings", "against each anchor"]),
        (scorpion_only, ["Scorpion Classic"]),
    ):
        fig, _ = drawn(results)
        shown = panels(fig)
        assert len(shown) == len(titles)
        for ax, title in zip(shown, titles, strict=True):
            assert title in ax.get_title() and ax.has_data() and ax.axison


def test_anchor_labels_percentages_and_ceiling_labels_never_collide(games) -> None:
    path, _ = games
    data = json.loads(path.with_name("results.json").read_text(encoding="utf-8"))
    anchors = data["what_the_shell"]["scale"]["anchors"]
    assert abs(anchors["mcts-100"]["rating"] - anchors["learned"]["rating"]) < 50  # close
    section = data["scorpion"]["classic"]
    section["ceiling"]["winnable_share"] = 0.104  # the ceiling at a percentage's height
    section["agents"]["greedy"].update(win_rate=0.06, ci=[0.04, 0.084])
    fig, renderer = drawn(data)
    ratings, _, scorpion = panels(fig)
    labels = ratings.get_yticklabels()
    assert {"mcts-100", "learned", "mcts-1600", "mcts-learned"} <= {t.get_text() for t in labels}
    assert overlaps(labels, renderer) == []
    texts = [t for t in scorpion.texts if t.get_text()]
    assert "6.0%" in [t.get_text() for t in texts] and any("ceiling" in t.get_text() for t in texts)
    assert overlaps(texts, renderer) == []
    assert overlaps(ratings.texts, renderer) == []


def test_open_intervals_are_drawn_as_arrows_to_the_edge(games) -> None:
    path, _ = games
    data = json.loads(path.with_name("results.json").read_text(encoding="utf-8"))
    ratings = data["what_the_shell"]["ratings"]
    ratings["random"].update(rating=None, ci=[None, 540.0])  # an upper bound only
    ratings["greedy"].update(rating=float("nan"), ci=[1650.0, float("nan")])  # a lower one
    ratings["cheat"].update(rating=-300.0, ci=[-420.0, -180.0])
    fig, renderer = drawn(data)
    ax = panels(fig)[0]
    left, right = ax.get_xlim()
    assert left < -420 and right > 1650
    heads = {line.get_marker(): line.get_xdata()[0] for line in ax.lines if line.get_marker()
             in ("<", ">")}  # fmt: skip
    assert heads == {"<": left, ">": right}
    values = {t.get_text() for t in ax.texts}
    assert {"< +540", "> +1650", "-300"} <= values
    assert overlaps(ax.texts, renderer) == []
