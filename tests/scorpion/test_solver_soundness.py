"""The solver against the plain reference search: no pruning may lose a win.

The reference (:mod:`shell_envs.scorpion.reference`) searches every legal move over exact
states, with no symmetry, safe move or dead-position test.  A win it finds is a win; a search
it exhausts is a loss.  On every position below, the solver (all prunings, and each pruning
switched off in turn) must agree with every verdict the reference reaches, and each line the
solver calls won must replay to a win in ``Scorpion-v0`` and in the reference.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import shell_envs  # noqa: F401  (registers the env)
from shell_envs.scorpion import reference
from shell_envs.scorpion.cards import card_code
from shell_envs.scorpion.rules import RULE_SETS
from shell_envs.scorpion.solver import LOST, PRUNINGS, UNKNOWN, WON, kernel, solve
from shell_envs.scorpion.state import ScorpionState
from tests.scorpion.helpers import endgame_position, position

RULES = ("classic", "relaxed", "traditional")
REMOVING = ("classic", "relaxed")  # the rule sets that remove sequences
VARIANTS = [(), *((name,) for name in PRUNINGS)]
# the traditional rules' end games: all four suits (nothing is removed), often complete
TRADITIONAL_ENDGAME = {"suits": 4, "complete": 0.5}
SOLVER_NODES = 200_000
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def as_position(state: reference.State) -> dict:
    """A ``position()``-style dict of a reference state."""
    columns, face_down, reserve, removed = state
    return {
        "columns": [[card_code(c) for c in col] for col in columns],
        "face_down": list(face_down),
        "reserve": [card_code(c) for c in reserve],
        "removed": removed,
    }


def env_replays(pos: dict, rules: str, moves: list[int]) -> bool:
    """Whether ``moves`` are legal in ``Scorpion-v0`` from ``pos`` and end the game won."""
    env = gym.make("shell_envs/Scorpion-v0", rules=rules, max_moves=None)
    env.reset(options={"position": pos})
    won = not moves and env.unwrapped.get_state().won
    for action in moves:
        _, _, _, _, info = env.step(action)
        if info["illegal"]:
            return False
        won = bool(info["won"])
    return won


def solver_verdicts(pos: dict, rules: str, nodes: int = SOLVER_NODES) -> dict[tuple, str]:
    """The solver's verdict with every pruning and with each switched off; won lines replay."""
    state = ScorpionState.from_position(pos, rules)
    out = {}
    for disable in VARIANTS:
        result = solve(state, rules=rules, max_nodes=nodes, disable=disable)
        if result.verdict == WON:
            assert env_replays(pos, rules, result.moves), (disable, pos)
            assert reference.replay(reference.from_position(pos), rules, result.moves)
        out[disable] = result.verdict
    return out


def assert_agree(
    pos: dict, rules: str, ref_nodes: int, expected: str | None = None, nodes: int = SOLVER_NODES
) -> str:
    """Every decided verdict (reference, solver, solver less one pruning) is the same one."""
    ref = reference.search(reference.from_position(pos), rules, ref_nodes)
    verdicts = solver_verdicts(pos, rules, nodes)
    decided = {v for v in verdicts.values() if v != UNKNOWN}
    if ref.verdict != UNKNOWN:
        decided.add(ref.verdict)
    if expected is not None:
        decided.add(expected)
    assert len(decided) <= 1, (rules, ref.verdict, verdicts, pos)
    return decided.pop() if decided else UNKNOWN


def line_positions(pos: dict, rules: str, line: list[int]) -> list[dict]:
    """Every position along ``line`` from ``pos`` (the start included, the won end excluded)."""
    state = reference.from_position(pos)
    out = []
    for action in line:
        out.append(as_position(state))
        state, _ = reference.play(state, action, rules)
    assert reference.won(state, rules)
    return out


@pytest.mark.parametrize("seed", [0, 14, 16, 26, 30, 33, 71, 112, 128, 153, 174, 216])
def test_every_position_on_a_reference_win_is_won_classic(seed: int) -> None:
    pos = ScorpionState.from_number(seed).position()
    found = reference.search(reference.from_position(pos), "classic", 5_000)
    assert found.verdict == WON
    for step in line_positions(pos, "classic", found.line):
        assert set(solver_verdicts(step, "classic").values()) == {WON}, step


@pytest.mark.parametrize("seed", [0, 14, 16, 26, 30, 33, 71, 101])
def test_every_position_on_a_reference_win_is_won_traditional(seed: int) -> None:
    pos = ScorpionState.from_number(seed, "traditional").position()
    found = reference.search(reference.from_position(pos), "traditional", 5_000)
    assert found.verdict == WON
    for step in line_positions(pos, "traditional", found.line):
        assert set(solver_verdicts(step, "traditional").values()) == {WON}, step


@pytest.mark.parametrize("seed", [0, 3, 9])
def test_every_position_on_a_relaxed_win_is_won(seed: int) -> None:
    # the reference wanders in Relaxed deals, so the line comes from the solver; the reference
    # replays it, and near its end finds wins of its own that the solver must share
    pos = ScorpionState.from_number(seed, "relaxed").position()
    line = solve(seed, rules="relaxed", max_nodes=300_000).moves
    steps = line_positions(pos, "relaxed", line)
    for step in steps:
        assert set(solver_verdicts(step, "relaxed").values()) == {WON}, step
    for step in steps[-12:]:
        assert assert_agree(step, "relaxed", 3_000) == WON


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(RULES), reserve=st.booleans())
def test_constructed_end_games_agree_with_the_reference(seed: int, rules: str, reserve: bool):
    rng = np.random.default_rng(seed)
    # the traditional rules remove nothing, so their end games hold all four suits
    pos = endgame_position(rng, reserve, **TRADITIONAL_ENDGAME if rules == "traditional" else {})
    if rng.random() < 0.6:
        pos["face_down"] = [0] * 7
    assert_agree(pos, rules, 4_000)


@settings(SETTINGS, max_examples=20)
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(RULES), steps=st.integers(20, 200))
def test_random_play_positions_agree_with_the_reference(seed: int, rules: str, steps: int):
    rng = np.random.default_rng(seed)
    state = reference.from_position(ScorpionState.from_number(seed, rules).position())
    for _ in range(steps):
        legal = reference.legal_actions(state, rules)
        if not legal:
            break
        state, _ = reference.play(state, int(rng.choice(legal)), rules)
    assert_agree(as_position(state), rules, 4_000, nodes=30_000)


def standing(suit: str, under: str = "") -> str:
    """A complete sequence of ``suit``, king (bottom) to ace (top), on the cards ``under``."""
    return f"{under} " + " ".join(f"{r}{suit}" for r in "KQJT98765432A")


@pytest.mark.parametrize("rules", REMOVING)
@pytest.mark.parametrize(
    ("columns", "face_down", "reserve", "removed"),
    [
        # a complete sequence standing at the bottom of a column: only moving its king to an
        # empty column removes it (the pruning that took this for a relabelling lost it)
        ({1: standing("S")}, {}, "", "HDC"),
        ({5: standing("S")}, {}, "", "HDC"),
        ({2: standing("S"), 3: standing("H")}, {}, "", "DC"),
        # the same before the reserve deal: the reserve cards complete the other suit
        (
            {4: standing("S"), 1: "KH QH JH TH 9H 8H 7H 6H 5H 4H", 2: "", 3: ""},
            {},
            "3H 2H AH",
            "DC",
        ),
        # a complete sequence standing on a face-down king of another suit
        ({1: standing("S", "KH"), 2: "QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H AH"}, {1: 1}, "", "DC"),
        # a sequence standing on a king whose own suit waits above another column's king
        ({1: standing("S", "KH"), 2: "KD QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H AH"}, {}, "", "C"),
    ],
)
def test_standing_sequences_are_won(columns, face_down, reserve, removed, rules: str) -> None:
    filler = next(c for c in range(7, 0, -1) if c not in columns)
    pos = position(columns, face_down, reserve, removed, filler=filler)
    assert assert_agree(pos, rules, 20_000, expected=WON) == WON


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(RULES))
def test_won_lines_replay_in_the_env(seed: int, rules: str) -> None:
    rng = np.random.default_rng(seed)
    suits = 4 if rules == "traditional" else int(rng.integers(2, 4))
    pos = endgame_position(rng, reserve=bool(rng.integers(2)), suits=suits)
    result = solve(ScorpionState.from_position(pos, rules), rules=rules)
    if result.verdict == WON:
        assert env_replays(pos, rules, result.moves)


def test_unknown_pruning_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown pruning 'safe'"):
        solve(0, disable=["safe"])


def solver_row(pos: dict, rules: str) -> np.ndarray:
    """The solver's compact row of a position."""
    state = ScorpionState.from_position(pos, rules)
    row = np.zeros(kernel.ROW, np.int8)
    kernel.load_row(row, state.tab, state.lens, state.fd, state.reserve, state.meta)
    return row


def row_position(row: np.ndarray, rules: str) -> reference.State:
    """The reference state a compact row stands for (its count of completed sequences checked
    against the reference: removed ones, or the runs standing under the traditional rules)."""
    lens = [int(n) for n in row[kernel.O_LENS : kernel.O_LENS + 7]]
    columns = tuple(tuple(int(x) for x in row[c * 52 : c * 52 + lens[c]]) for c in range(7))
    face_down = tuple(int(n) for n in row[kernel.O_FD : kernel.O_FD + 7])
    dealt = row[kernel.O_DEALT] != 0
    reserve = () if dealt else tuple(int(x) for x in row[kernel.O_RES : kernel.O_RES + 3])
    if rules != "traditional":
        return columns, face_down, reserve, int(row[kernel.O_REMOVED])
    state = (columns, face_down, reserve, 0)
    assert int(row[kernel.O_REMOVED]) == reference.standing_runs(state)
    return state


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(RULES), steps=st.integers(0, 150))
def test_unpruned_solver_moves_are_the_reference_moves(seed: int, rules: str, steps: int):
    # with every pruning off, the solver's own move generator and move are the rules: the
    # same legal actions as the reference, each giving the same position
    rng = np.random.default_rng(seed)
    rule = RULE_SETS.index(rules)
    if rng.random() < 0.5:
        endgame = TRADITIONAL_ENDGAME if rules == "traditional" else {}
        state = reference.from_position(endgame_position(rng, bool(rng.integers(2)), **endgame))
    else:
        state = reference.from_position(ScorpionState.from_number(seed, rules).position())
    out = np.empty(kernel.MAX_BRANCH, np.int64)
    scores = np.empty(kernel.MAX_BRANCH, np.int64)
    for _ in range(steps + 1):
        row = solver_row(as_position(state), rules)
        k = kernel.gen_moves(row, rule, 0, out, scores)
        legal = reference.legal_actions(state, rules)
        assert sorted(int(m) & 511 for m in out[:k]) == sorted(legal)
        for m in out[:k]:
            child = row.copy()
            kernel.apply_packed(child, m, rule)
            assert row_position(child, rules) == reference.play(state, int(m) & 511, rules)[0]
        if not legal:
            break
        state, _ = reference.play(state, int(rng.choice(legal)), rules)


def run_cards(suit: str, ranks: str = "KQJT98765432A") -> str:
    """Cards of ``suit`` in the given ranks, as a column lists them (bottom → top)."""
    return " ".join(f"{r}{suit}" for r in ranks)


@pytest.mark.parametrize(
    ("columns", "face_down", "reserve"),
    [
        # four runs standing, one on another's ace: won before any move
        ({1: standing("S", run_cards("C")), 2: standing("H"), 3: standing("D")}, {}, ""),
        # the reserve deal covers a standing run with KH (the hearts are then built on it)
        # and puts AD, AC onto the hearts and the diamonds
        (
            {
                1: standing("S"),
                2: run_cards("H", "QJT98765432A"),
                3: run_cards("D", "KQJT98765432"),
                4: run_cards("C", "KQJT98765432"),
            },
            {},
            "KH AD AC",
        ),
        # the reserve deal covers a standing run with 5D, which must move off it again
        (
            {
                1: standing("S"),
                2: run_cards("H", "KQJT98765432"),
                3: run_cards("D", "KQJT9876"),
                4: run_cards("C", "KQJT98765432"),
                5: run_cards("D", "432A"),
            },
            {},
            "5D AH AC",
        ),
        # a run standing on other cards, carried by the card under its king (3C onto 4C),
        # then its king moved into an empty column to free 2C for AC
        (
            {1: standing("S", "3C 2C"), 2: run_cards("C", "KQJT987654"), 3: standing("H")}
            | {4: standing("D", "") + " AC"},
            {},
            "",
        ),
        # a run standing on a face-down card: its king goes to an empty column to turn QC
        (
            {1: standing("S", "QC"), 2: "KC", 3: run_cards("C", "JT98765432A")}
            | {4: standing("H"), 5: standing("D")},
            {1: 1},
            "",
        ),
    ],
)
def test_traditional_standing_runs_agree_with_the_reference(columns, face_down, reserve) -> None:
    pos = position(columns, face_down, reserve, filler=7)
    assert sum(len(col) for col in pos["columns"]) + len(pos["reserve"]) == 52
    assert assert_agree(pos, "traditional", 20_000, expected=WON) == WON


def test_traditional_win_detection_agrees_with_the_reference() -> None:
    # runs are counted wherever they stand (on cards, on a face-down card, on an ace, under
    # cards); a face-down card or a missing card breaks a run
    cases = [
        ({1: standing("S"), 2: standing("H"), 3: standing("D"), 4: standing("C")}, {}, 4),
        ({1: standing("S", standing("H")), 2: standing("D", standing("C"))}, {}, 4),
        ({1: standing("S", "QC") + " " + run_cards("C", "JT98765432A")}, {1: 1}, 1),
        ({1: standing("S"), 2: standing("H")}, {1: 1}, 1),  # KS face down: no spade run
        ({1: standing("S").replace(" 7S", "") + " 7S"}, {}, 0),
        ({1: "2C " + standing("S") + " QH", 2: standing("D", "AC")}, {}, 2),
    ]
    for columns, face_down, runs in cases:
        pos = position(columns, face_down, filler=7)
        state = ScorpionState.from_position(pos, "traditional")
        ref = reference.from_position(pos)
        assert state.runs == reference.standing_runs(ref) == runs, columns
        assert state.won == reference.won(ref, "traditional") == (runs == 4)


# deal 715 after 20 moves of its Classic win: Classic later removes the clubs when 9C, carrying
# 8C … AC, lands on TC, and so empties the column its win needs; the traditional rules leave
# the clubs standing there, and the reference search proves this position lost under them
CLASSIC_ONLY_WIN = position(
    {
        1: "8S JS 9D 3C QD",
        2: "JD 3S TS 9S 7H",
        3: "6H 4D 6C 5C 7D 2C AC QS 2S 4H 3H 2H AH",
        4: "AS TD 8H 2D 3D 9C 8C",
        5: "KS",
        6: "KC QC JC TC AD 6D 5D 7S 6S 5S 4S",
        7: "KH QH JH TH 9H KD 4C",
    },
    face_down={1: 3, 2: 2, 3: 2, 4: 3},
    reserve="8D 7C 5H",
)


def test_a_classic_win_can_be_a_traditional_loss() -> None:
    assert assert_agree(CLASSIC_ONLY_WIN, "classic", 20_000, expected=WON) == WON
    assert assert_agree(CLASSIC_ONLY_WIN, "traditional", 20_000, expected=LOST) == LOST
