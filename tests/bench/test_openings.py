"""What the Shell's opening book: the shipped file loads, its openings are distinct, legal,
not over and balanced between the seats, and a damaged book is refused with a clear error."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from shell_envs import what_the_shell_v0
from shell_envs.agents.spec import parse_spec
from shell_envs.bench import games, openings
from shell_envs.bench.runner import MAX_ROUNDS, game_seed
from shell_envs.what_the_shell.position import position_to_arrays

SAMPLE = 12  # openings whose balance is re-checked here (the build checks them all)


@pytest.fixture(scope="module")
def book() -> openings.OpeningBook:
    return openings.load()


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(Path(openings.default_path()).read_text(encoding="utf-8"))


def test_the_shipped_book_loads_with_its_version_and_how_it_was_built(book, raw) -> None:
    assert resources.files("shell_envs.data").joinpath(openings.FILE).is_file()
    assert book.version == raw["version"] == openings.VERSION == 1
    assert 300 <= len(book) == len(raw["positions"])
    assert book.build["command"].startswith("python benchmarks/wts_openings.py")
    assert "--seed" in book.build["command"] and book.build["seed"] == 0
    assert book.balance["reference"] == "mcts:iterations=50"
    assert openings.load() is book  # the shipped book is read once per process


def test_the_checksum_matches_the_positions(book, raw) -> None:
    assert raw["checksum"] == book.checksum == openings.checksum(raw["positions"])
    assert book.checksum.startswith("sha256:") and len(book.checksum) == 7 + 64


def test_every_opening_is_distinct_up_to_symmetry_legal_and_not_over(book) -> None:
    keys = {openings.canonical(p) for p in book}
    assert len(keys) == len(book)
    env = what_the_shell_v0.parallel_env()
    for position in book:
        position_to_arrays(position)  # raises for a malformed or decided position
        observations, _ = env.reset(options={"position": position})
        assert env.agents == ["black", "white"]
        assert env.position() == position
        assert observations["black"]["action_mask"].any()
        stones = len(position["black"]) + len(position["white"]) + len(position["eggs"])
        assert stones in range(1, 9)  # 2 to 4 rounds of two moves each, some captured
    env.close()


def test_the_symmetries_and_the_colour_swap_give_one_key() -> None:
    position = {"black": ["a1", "c2"], "white": ["e5"], "eggs": ["b7", "h3"]}
    key = openings.canonical(position)
    variants = [openings.transformed(position, s, swap) for s in range(8) for swap in (0, 1)]
    assert len({json.dumps(v, sort_keys=True) for v in variants}) == 16
    assert all(openings.canonical(v) == key for v in variants)
    reordered = {**position, "eggs": ["h3", "b7"]}  # the eggs' age is part of the position
    assert openings.canonical(reordered) != key


def test_the_schedule_is_the_book_shuffled_by_the_seed_and_cycled(book) -> None:
    n = len(book)
    first = book.schedule(7, n + 5)
    assert sorted(first[:n]) == list(range(n))
    assert first[n:] == first[:5]
    assert book.schedule(7, 10) == first[:10]
    assert book.schedule(8, 10) != first[:10]


def test_a_sample_is_balanced_between_the_seats_for_the_reference_agent(book) -> None:
    """The build's check, fast: the reference agent against itself from a sample of openings,
    every game with seeds of its own; black's score stays near one half."""
    reference = book.balance["reference"]
    black, white = parse_spec(f"ref={reference}"), parse_spec(f"ref-2={reference}")
    rng = np.random.default_rng(0)
    points = []
    for i in rng.choice(len(book), SAMPLE, replace=False):
        for g, pair in enumerate(((black, white), (white, black))):
            seed = game_seed(1, "test", int(i), g)
            record, _ = games.play_what_the_shell(*pair, seed, MAX_ROUNDS, True, 0, book[i])
            points.append((record["outcome"] + 1) / 2)
    assert 0.25 <= np.mean(points) <= 0.75, points
    check = book.balance["check"]
    low, high = check["black_score_ci95"]
    assert check["games"] >= len(book) and low <= 0.5 <= high


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _rechecked(data: dict) -> dict:
    return {**data, "checksum": openings.checksum(data["positions"])}


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: {**d, "positions": d["positions"][:-1]}, "checksum does not match"),
        (lambda d: _rechecked({**d, "positions": [*d["positions"][:3], {"black": ["z9"]}]}),
         "opening 3 is not a playable position: position['black']: unknown cell name 'z9'"),
        (lambda d: _rechecked({**d, "positions": [
            {"black": ["a1", "b1", "c1", "d1", "e1"], "white": [], "eggs": []}]}),
         "opening 0 is not a playable position: the position's game is already decided"),
        (lambda d: _rechecked({**d, "positions": [
            d["positions"][0], openings.transformed(d["positions"][0], 3, True)]}),
         "opening 1 repeats opening 0"),
        (lambda d: {**d, "version": 2}, "version 2; this version of shell-envs reads version 1"),
        (lambda d: {**d, "game": "scorpion"}, "a book for 'scorpion'"),
        (lambda d: {k: v for k, v in d.items() if k != "format"}, "not an opening book"),
        (lambda d: _rechecked({**d, "positions": []}), "must be a non-empty list"),
    ],
)  # fmt: skip
def test_a_damaged_book_is_refused_naming_the_problem(tmp_path, raw, damage, message) -> None:
    path = _write(tmp_path / "book.json", damage(raw))
    with pytest.raises(ValueError, match="opening book .*book.json: ") as caught:
        openings.load(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_or_unreadable_book_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"opening book .*nowhere.json: cannot read it \(No such"):
        openings.load(tmp_path / "nowhere.json")
    (tmp_path / "cut.json").write_text('{"format": "shell-envs opening bo', encoding="utf-8")
    with pytest.raises(ValueError, match=r"cut.json: not JSON"):
        openings.load(tmp_path / "cut.json")
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match=r"binary.json: not a text file"):
        openings.load(tmp_path / "binary.json")
