"""The traditional rule set (issue 52): Classic's moves, but nothing is ever removed.

A complete run (13 face-up cards of one suit, king lowest, each card directly on the next
higher one, ace on top) stays in the tableau as ordinary cards, wherever it stands; the game is
won when all four runs stand.  Scores: +5 for a same-suit placement and for a flip, as Classic,
no +100.  One test per rule and resolved case, then the same games in every engine: the single
env, the batched env, ``gym.make``/``make_vec``, the plain-Python rules (``NUMBA_DISABLE_JIT``)
and, in ``tests/gpu/scorpion_sim.py`` (``lockstep_traditional``), the GPU env.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shell_envs  # noqa: F401  (registers the ids)
from shell_envs.scorpion import rules, search
from shell_envs.scorpion.cards import card_code, parse_card
from shell_envs.scorpion.render import render_ansi
from shell_envs.scorpion.state import ScorpionState, check_state
from shell_envs.scorpion.vector import ScorpionVectorEnv
from tests.scorpion.helpers import action, make, position, run_position, start

ROOT = Path(__file__).resolve().parents[2]
RANKS = "KQJT98765432A"  # a run's order, bottom (king) to top (ace)


def run(suit: str, top: str = "A", bottom: str = "K") -> str:
    """The cards of ``suit`` from ``bottom`` up to ``top`` in run order (a whole run by
    default): ``run("S", top="Q")`` is ``"KS QS"``."""
    ranks = RANKS[RANKS.index(bottom) : RANKS.index(top) + 1]
    return " ".join(rank + suit for rank in ranks)


def near_win(rng: np.random.Generator, reserve: bool = False, face_down: bool = False) -> dict:
    """A position close to a traditional win: each suit's run whole or cut in two, the pieces
    spread over random columns (stacked, on other pieces, some columns empty); with
    ``reserve`` three cards taken out into the undealt reserve, with ``face_down`` some cards
    of columns 1–4 face down.  Random play wins many of them within a few dozen moves; some
    cannot be won (a king face down under its own queen, a reserve card dealt onto an ace)."""
    pieces: list[list[int]] = []
    for suit in range(4):
        cards = [suit * 13 + 12 - i for i in range(13)]
        cut = int(rng.integers(1, 13)) if rng.random() < 0.6 else 13
        pieces += [cards[:cut], cards[cut:]] if cut < 13 else [cards]
    order = rng.permutation(len(pieces))
    cols: list[list[int]] = [[] for _ in range(7)]
    for i in order:
        cols[int(rng.integers(7))] += pieces[i]
    res: list[int] = []
    while reserve and len(res) < 3:
        c = int(rng.integers(7))
        if cols[c]:
            res.append(cols[c].pop(int(rng.integers(len(cols[c])))))
    fd = [
        int(rng.integers(0, min(3, max(len(col) - 1, 0)) + 1)) if face_down and i < 4 else 0
        for i, col in enumerate(cols)
    ]
    return {
        "columns": [[card_code(c) for c in col] for col in cols],
        "face_down": fd,
        "reserve": [card_code(c) for c in res],
        "removed": 0,
    }


def plain_runs(state: ScorpionState) -> int:
    """Complete runs in ``state``, counted in plain Python apart from the rules: windows of
    13 face-up cards from a king down to its ace (two runs cannot overlap)."""
    count = 0
    for c in range(7):
        up = state.column(c)[int(state.fd[c]) :]
        for i in range(len(up) - 12):
            king = up[i]
            count += king % 13 == 12 and up[i : i + 13] == list(range(king, king - 13, -1))
    return count


def trad(pos: dict, **kwargs) -> tuple[gym.Env, dict]:
    """``start`` under the traditional rules."""
    return start(pos, rules="traditional", **kwargs)


def state_of(env: gym.Env) -> ScorpionState:
    return env.unwrapped.get_state()


# AS onto column 1 completes the spades run
COMPLETE_SPADES = position({1: run("S", top="2"), 2: "5H AS"})
# AC onto column 4 completes the fourth run: the game is won (columns 6 and 7 are empty)
WIN_IN_ONE = position({1: run("S"), 2: run("H"), 3: run("D"), 4: run("C", top="2"), 5: "AC"})
FOUR_RUNS = position({1: run("S"), 2: run("H") + " " + run("D"), 3: "", 4: run("C")})


# --- no removal ------------------------------------------------------------------------------


def test_a_completed_run_stays_in_the_tableau_and_earns_no_bonus() -> None:
    env, info = trad(COMPLETE_SPADES)
    assert state_of(env).runs == 0 and info["removed"] == 0
    _, reward, terminated, _, info = env.step(action("AS", 1))
    pos = env.unwrapped.position()
    assert pos["columns"][0] == run("S").split()  # all 13 cards stay, in order
    assert pos["columns"][1] == ["5H"] and pos["removed"] == 0
    state = state_of(env)
    assert state.runs == 1 and state.removed == 0 and list(state.slots) == []
    assert [int(s) for s in state.meta[rules.M_SLOTS : rules.M_SLOTS + 4]] == [-1] * 4
    assert reward == 5.0 and info["score"] == 5  # the same-suit placement alone, no +100
    assert info["removed"] == 0 and not info["won"] and not terminated
    # the same move under Classic removes the sequence to a slot for +100
    classic, _ = start(COMPLETE_SPADES)
    _, reward, _, _, info = classic.step(action("AS", 1))
    assert (
        reward == 105.0
        and info["removed"] == 1
        and classic.unwrapped.position()["columns"][0] == []
    )


def test_the_reserve_deal_completing_a_run_leaves_it_standing_for_no_points() -> None:
    # 5D covers the spades run, AH completes the hearts run: both count
    pos = position({1: run("S"), 2: run("H", top="2")}, reserve="5D AH 6C")
    env, _ = trad(pos)
    assert state_of(env).runs == 1
    _, reward, _, _, info = env.step(rules.RESERVE_ACTION)
    state = state_of(env)
    assert state.runs == 2 and reward == 0.0 and info["removed"] == 0
    assert state.column(0)[-1] == parse_card("5D") and len(state.column(1)) == 13
    classic, _ = start(pos)
    _, reward, _, _, info = classic.step(rules.RESERVE_ACTION)
    assert reward == 100.0 and info["removed"] == 1  # Classic removes the hearts


def test_a_position_with_removed_suits_is_refused() -> None:
    pos = position({1: run("S")}, removed="H")
    with pytest.raises(ValueError, match="traditional rules nothing is removed"):
        ScorpionState.from_position(pos, "traditional")
    with pytest.raises(ValueError, match="traditional rules nothing is removed"):
        make(rules="traditional").reset(options={"position": pos})
    assert ScorpionState.from_position(pos, "classic").removed == 1


# --- runs count anywhere ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "face_down", "runs"),
    [
        ({1: run("S")}, {}, 1),  # a whole column
        ({1: "5H 9D " + run("S")}, {}, 1),  # on other cards
        ({2: run("H") + " " + run("D")}, {}, 2),  # two runs stacked in one column
        ({3: run("C") + " 4H"}, {}, 1),  # covered by another card
        ({1: "5D " + run("S") + " 9D", 2: run("H") + " " + run("C")}, {1: 1}, 3),
        ({1: run("S")}, {1: 1}, 0),  # its king face down
        ({1: run("S", top="2") + " 5H AS"}, {}, 0),  # a card between its 2 and ace
        ({1: run("S", top="2"), 2: "AS"}, {}, 0),  # its ace in another column
        ({1: run("S", bottom="Q") + " KS"}, {}, 0),  # its king on top, not at the bottom
    ],
)
def test_complete_runs_count_anywhere_in_the_tableau(columns, face_down, runs) -> None:
    pos = position(columns, face_down)
    state = ScorpionState.from_position(pos, "traditional")
    assert state.runs == runs == plain_runs(state)
    check_state(state)
    env, info = trad(pos)
    assert state_of(env).runs == runs and not info["won"] and info["removed"] == 0
    for other in ("classic", "relaxed"):  # the other rule sets count none
        assert ScorpionState.from_position(pos, other).runs == 0


def test_the_render_shows_the_runs_standing() -> None:
    text = render_ansi(ScorpionState.from_position(FOUR_RUNS, "traditional"))
    assert text.startswith("Scorpion (Traditional)") and "runs 4/4" in text
    assert "removed" not in text.splitlines()[0]


# --- the win ---------------------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["score", "win"])
def test_four_complete_runs_win_and_end_the_game(reward: str) -> None:
    env, info = trad(WIN_IN_ONE, allow_undo=True, reward=reward)
    assert state_of(env).runs == 3 and not info["won"]
    _, gained, terminated, truncated, info = env.step(action("AC", 4))
    assert terminated and not truncated and info["won"] and not info["illegal"]
    assert gained == (5.0 if reward == "score" else 1.0)
    assert info["score"] == 5 and info["removed"] == 0
    state = state_of(env)
    assert state.won and state.runs == 4 and state.removed == 0
    assert not info["action_mask"].any()  # no legal action after the win, undo neither
    before = env.unwrapped.position()
    for a in (rules.UNDO_ACTION, rules.RESERVE_ACTION, action("KS", 6), action("AC", 5)):
        _, gained, terminated, _, info = env.step(a)
        assert info["illegal"] and info["code"] == rules.E_GAME_OVER and info["won"]
        assert terminated and gained == 0.0
    assert env.unwrapped.position() == before


def test_a_position_of_four_runs_is_won_from_the_start() -> None:
    env, info = trad(FOUR_RUNS, allow_undo=True)
    assert info["won"] and not info["action_mask"].any() and info["removed"] == 0
    _, _, terminated, _, info = env.step(action("KS", 3))
    assert terminated and info["code"] == rules.E_GAME_OVER
    assert env.unwrapped.explain(action("KS", 3)) is not None
    assert ScorpionState.from_position(FOUR_RUNS, "traditional").won
    assert not ScorpionState.from_position(FOUR_RUNS, "classic").won  # Classic: removed ones


def test_the_reserve_deal_can_win() -> None:
    pos = position(
        {1: run("S", top="2"), 2: run("H", top="2"), 3: run("D", top="2"), 4: run("C")},
        reserve="AS AH AD",
    )
    env, _ = trad(pos)
    _, reward, terminated, _, info = env.step(rules.RESERVE_ACTION)
    assert terminated and info["won"] and reward == 0.0 and info["removed"] == 0
    assert state_of(env).runs == 4
    won, _ = trad(pos, reward="win")
    assert won.step(rules.RESERVE_ACTION)[1] == 1.0


# --- a complete run is ordinary cards --------------------------------------------------------


def test_a_runs_king_moves_with_the_whole_run_to_an_empty_column() -> None:
    env, info = trad(position({1: "5H " + run("S"), 6: ""}, face_down={1: 1}), allow_undo=True)
    assert info["action_mask"][action("KS", 6)]
    _, reward, _, _, info = env.step(action("KS", 6))
    state = state_of(env)
    assert not info["illegal"] and state.runs == 1 and info["removed"] == 0
    assert env.unwrapped.position()["columns"][5] == run("S").split()
    assert env.unwrapped.position()["columns"][0] == ["5H"] and state.fd[0] == 0
    assert reward == 5.0  # the flip of 5H alone: a king to an empty column earns nothing
    # the whole-column run moved on to another empty column: legal, but only relabels the
    # columns under Traditional (Classic's move would remove it)
    a = action("KS", 2)
    assert info["action_mask"][a]
    assert search.is_pointless(state.tab, state.lens, state.fd, state.meta, a)
    classic = ScorpionState.from_position(env.unwrapped.position(), "classic")
    assert not search.is_pointless(classic.tab, classic.lens, classic.fd, classic.meta, a)
    _, reward, _, _, info = env.step(a)
    assert reward == 0.0 and state_of(env).runs == 1 and info["removed"] == 0


def test_nothing_goes_onto_a_runs_ace() -> None:
    env, info = trad(position({1: run("S"), 2: "2H", 3: "2C 5D", 4: ""}))
    state = state_of(env)
    for card in range(rules.N_CARDS):
        c, d = rules.find_card(state.tab, state.lens, card)
        if c in (0, -1) or d < state.fd[c]:
            continue
        a = card * 7
        assert not info["action_mask"][a]
        assert rules.check_action(state.arrays, a, False) == rules.E_ON_ACE, card_code(card)
        assert env.unwrapped.explain(a) is not None


def test_a_complete_run_cannot_be_broken_by_a_move() -> None:
    """Under one-suit building a run's cards can only go onto cards of the same run (its own
    column) and its king only with everything above it: no move lowers the count."""
    rng = np.random.default_rng(52)
    moves = np.empty(rules.N_ACTIONS, np.int64)
    tried = 0
    for _ in range(30):
        state = ScorpionState.from_position(
            near_win(rng, reserve=bool(rng.integers(2))), "traditional"
        )
        k = rules.legal_moves(state.arrays, moves)
        for a in moves[:k]:
            after = state.copy()
            rules.apply_action(after.arrays, int(a))
            assert after.runs >= state.runs and after.runs == plain_runs(after)
            tried += state.runs > 0
    assert tried > 50


# --- undo ------------------------------------------------------------------------------------


def test_undo_of_a_move_completing_a_run_takes_back_the_count_and_the_score() -> None:
    env, _ = trad(COMPLETE_SPADES, allow_undo=True)
    start_pos = env.unwrapped.position()
    env.step(action("AS", 1))
    assert state_of(env).runs == 1
    _, reward, _, _, info = env.step(rules.UNDO_ACTION)
    assert reward == -5.0 and info["score"] == 0 and not info["illegal"]
    assert state_of(env).runs == 0 and env.unwrapped.position() == start_pos
    # the reserve deal completing two runs, taken back
    pos = position({1: run("S", top="2"), 2: run("H", top="2")}, reserve="AS AH 6C")
    env, _ = trad(pos, allow_undo=True)
    env.step(rules.RESERVE_ACTION)
    assert state_of(env).runs == 2
    _, reward, _, _, _ = env.step(rules.UNDO_ACTION)
    assert (
        reward == 0.0
        and state_of(env).runs == 0
        and env.unwrapped.position()
        == pos
        | {
            "score": 0,
            "moves": 0,
        }
    )
    check_state(state_of(env))


# --- the same game as Classic until a run completes ------------------------------------------


def test_traditional_plays_classics_game_until_a_run_completes() -> None:
    """Random play on the same deals and run-rich positions: observations, rewards, flags,
    infos and masks agree move by move until a complete run forms, which Classic removes
    (+100) and Traditional keeps."""
    rng = np.random.default_rng(7)
    diverged = 0
    for game in range(24):
        classic = make(allow_undo=True, max_moves=None)
        traditional = make(rules="traditional", allow_undo=True, max_moves=None)
        options = {"position": run_position(rng, bool(game % 2))} if game % 3 else None
        out_c = classic.reset(seed=game, options=options)
        out_t = traditional.reset(seed=game, options=options)
        for _ in range(300):
            if state_of(traditional).runs:
                break
            np.testing.assert_array_equal(out_c[0], out_t[0])
            info_c, info_t = out_c[-1], out_t[-1]
            assert info_c.keys() == info_t.keys()
            for key in info_c:
                np.testing.assert_array_equal(info_c[key], info_t[key], err_msg=key)
            assert out_c[1:-1] == out_t[1:-1]
            legal = np.flatnonzero(info_c["action_mask"])
            if legal.size == 0:
                break
            a = int(rng.choice(legal))
            out_c = classic.step(a)
            out_t = traditional.step(a)
        else:
            continue
        runs = state_of(traditional).runs
        if runs and len(out_c) == 5:  # a run formed by a move: Classic removed it unless
            removed = out_c[-1]["removed"]  # cards came to lie on it in the same move
            assert 0 <= removed <= runs and out_t[-1]["removed"] == 0
            assert out_c[1] >= out_t[1] + 100 * removed
            diverged += removed > 0
    assert diverged >= 5


# --- every engine plays the same games -------------------------------------------------------


def load(batch: ScorpionVectorEnv, states: list[ScorpionState]) -> None:
    """Put ``states`` into the batched env's games with their masks, as a step leaves them."""
    for i, state in enumerate(states):
        for rows, array in zip(batch.arrays, state.arrays, strict=True):
            rows[i] = array
        game = tuple(rows[i] for rows in batch.arrays)
        rules.legal_mask(game, batch.allow_undo, batch.masks[i])


@pytest.mark.parametrize(
    "options",
    [{"allow_undo": True}, {"reward": "win", "obs_encoder": "cards", "mask_in_obs": True}],
)
@pytest.mark.parametrize("vec", ["make_vec", "class"])
def test_batched_envs_play_the_single_envs_games(options: dict, vec: str) -> None:
    """Positions near a win loaded into ``gym.make_vec`` (or the class) and into single
    ``gym.make`` envs: the same random actions give the same results until each game ends;
    runs form and games are won on the way."""
    rng = np.random.default_rng(11)
    n = 6
    if vec == "make_vec":
        batch = gym.make_vec("shell_envs/Scorpion-v0", num_envs=n, rules="traditional", **options)
    else:
        batch = ScorpionVectorEnv(n, rules="traditional", **options)
    assert batch.unwrapped.rules == "traditional"
    wins = 0
    for _ in range(3):
        batch.reset(seed=0)
        positions = [near_win(rng, reserve=i % 2 == 1, face_down=i >= 3) for i in range(n)]
        load(batch.unwrapped, [ScorpionState.from_position(p, "traditional") for p in positions])
        singles = [make(rules="traditional", **options) for _ in range(n)]
        for env, pos in zip(singles, positions, strict=True):
            env.reset(options={"position": pos})
        live = np.ones(n, bool)
        for _ in range(40):
            masks = batch.unwrapped.action_masks()
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)
            b_obs, b_rew, b_term, b_trunc, b_info = batch.step(acts)
            for i in np.flatnonzero(live):
                obs, rew, term, trunc, info = singles[i].step(int(acts[i]))
                if isinstance(obs, dict):
                    np.testing.assert_array_equal(b_obs["observation"][i], obs["observation"])
                    # an ended game's mask is all True in the batch: its next action is ignored
                    ended = np.ones_like(obs["action_mask"]) if term or trunc else None
                    expected = obs["action_mask"] if ended is None else ended
                    np.testing.assert_array_equal(b_obs["action_mask"][i], expected)
                else:
                    np.testing.assert_array_equal(b_obs[i], obs)
                assert (b_rew[i], b_term[i], b_trunc[i]) == (rew, term, trunc)
                for key in ("score", "removed", "moves", "won", "illegal", "code"):
                    assert b_info[key][i] == info[key], key
                state = ScorpionState(tuple(x[i].copy() for x in batch.unwrapped.arrays))
                if not (term or trunc):
                    assert state.runs == state_of(singles[i]).runs == plain_runs(state)
                    np.testing.assert_array_equal(
                        batch.unwrapped.action_masks()[i], singles[i].unwrapped.action_masks()
                    )
                wins += info["won"]
                live[i] = not (term or trunc)
            if not live.any():
                break
    assert wins > 0


def test_gym_make_takes_the_traditional_rules() -> None:
    env = gym.make("shell_envs/Scorpion-v0", rules="traditional")
    env.reset(seed=3)
    assert env.unwrapped.rules == "traditional" and state_of(env).traditional
    assert state_of(env).rules == "traditional" and not state_of(env).relaxed
    with pytest.raises(ValueError, match="'classic', 'relaxed', 'traditional'"):
        gym.make("shell_envs/Scorpion-v0", rules="scorpion")
    with pytest.raises(ValueError, match="rules do not match"):
        make().unwrapped.set_state(state_of(env))
    classic = make(rules="classic")
    classic.reset(seed=3)
    np.testing.assert_array_equal(state_of(classic).tab, state_of(env).tab)  # the same deal
    assert state_of(classic).meta[rules.M_RULES] == rules.CLASSIC
    assert state_of(env).meta[rules.M_RULES] == rules.TRADITIONAL


PLAIN_SCRIPT = """
import json, numpy as np, gymnasium as gym, shell_envs
from shell_envs.scorpion import ScorpionState, rules
from tests.scorpion.test_traditional import near_win
rng = np.random.default_rng(0)
env = gym.make("shell_envs/Scorpion-v0", rules="traditional", allow_undo=True,
               obs_encoder="cards", max_moves=None)
games = []
for k in range(5):
    options = {"position": near_win(rng, k % 2 == 1, k >= 2)} if k < 4 else None
    obs, info = env.reset(seed=k, options=options)
    trail = []
    for _ in range(40):
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        trail.append([a, r, term, info["won"], env.unwrapped.get_state().runs])
        if term or trunc:
            break
    games.append({"trail": trail, "pos": env.unwrapped.position(), "obs": obs.tolist()})
state = ScorpionState()
played = rules.random_playout(state.arrays, 5, 300, 100, rules.TRADITIONAL)
vec = gym.make_vec("shell_envs/Scorpion-v0", num_envs=3, rules="traditional")
vec_obs, _ = vec.reset(seed=5)
vec_rewards = []
for _ in range(30):
    vec_obs, r, *_ = vec.step(vec.action_masks().argmax(axis=1))
    vec_rewards += r.tolist()
print(json.dumps({"games": games, "played": int(played), "playout": state.position(),
                  "rule": int(state.meta[rules.M_RULES]), "vec_obs": vec_obs.tolist(),
                  "vec_rewards": vec_rewards, "jit": type(rules.move).__name__}))
"""


def test_plain_python_rules_play_the_same_traditional_games() -> None:
    def play(disable: bool) -> dict:
        env = dict(os.environ, NUMBA_DISABLE_JIT="1" if disable else "0")
        out = subprocess.run(
            [sys.executable, "-c", PLAIN_SCRIPT], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    plain, compiled = play(True), play(False)
    assert plain.pop("jit") == "function" and compiled.pop("jit") == "CPUDispatcher"
    assert plain == compiled
    assert plain["rule"] == rules.TRADITIONAL and plain["playout"]["removed"] == 0
    trails = [step for game in plain["games"] for step in game["trail"]]
    assert any(won for *_, won, _ in trails) and any(runs for *_, runs in trails)


# --- check_state -----------------------------------------------------------------------------


def test_check_state_accepts_traditional_states_and_refuses_wrong_counts() -> None:
    state = ScorpionState.from_position(position({1: "5H " + run("S")}), "traditional")
    check_state(state)
    wrong = state.copy()
    wrong.meta[rules.M_RUNS] = 2
    with pytest.raises(ValueError, match="runs count is 2 but the tableau has 1"):
        check_state(wrong)
    wrong.meta[rules.M_RUNS] = 0
    with pytest.raises(ValueError, match="runs count is 0 but the tableau has 1"):
        check_state(wrong)
    counted = ScorpionState.from_position(position({1: run("S")}), "classic")
    counted.meta[rules.M_RUNS] = 1  # only Traditional keeps the count
    with pytest.raises(ValueError, match="runs count is 1 but the tableau has 0"):
        check_state(counted)
    removed = ScorpionState.from_position(position({1: "5H"}, removed="S"), "classic")
    check_state(removed)
    removed.meta[rules.M_RULES] = rules.TRADITIONAL
    with pytest.raises(ValueError, match="removed count is 1, but traditional removes nothing"):
        check_state(removed)
    bad = state.copy()
    bad.meta[rules.M_RULES] = len(rules.RULE_SETS)
    with pytest.raises(ValueError, match="rule-set code must be 0–2"):
        check_state(bad)
    env, _ = trad(COMPLETE_SPADES)
    env.unwrapped.set_state(state)
    assert state_of(env).runs == 1


# --- a property over random play -------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), start_kind=st.sampled_from(["deal", "runs", "near win"]))
def test_random_play_counts_runs_scores_fives_and_removes_nothing(seed, start_kind) -> None:
    """Random play with undo: the kept count is an independent count of the complete runs,
    the score is the sum of the +5 events (same-suit placements and flips) still played,
    nothing is ever removed and every card stays; only an undo lowers the count."""
    rng = np.random.default_rng(seed)
    if start_kind == "deal":
        state = ScorpionState.from_number(seed, "traditional")
    elif start_kind == "runs":
        state = ScorpionState.from_position(run_position(rng, bool(rng.integers(2))), "traditional")
    else:
        pos = near_win(rng, bool(rng.integers(2)), bool(rng.integers(2)))
        state = ScorpionState.from_position(pos, "traditional")
    mask = np.zeros(rules.N_ACTIONS_UNDO, np.bool_)
    scores = [0]  # the score after each move still played
    for step in range(150):
        assert state.runs == plain_runs(state)
        assert state.removed == 0 and list(state.slots) == []
        on_table = sorted(
            [c for col in range(7) for c in state.column(col)]
            + [int(c) for c in state.reserve if c >= 0]
        )
        assert on_table == list(range(rules.N_CARDS))
        assert state.score == scores[-1] and state.won == (state.runs == 4)
        if step % 25 == 0:
            check_state(state)
        if rules.legal_mask(state.arrays, True, mask) == 0:
            break
        a = int(rng.choice(np.flatnonzero(mask)))
        before = state.runs
        if a == rules.UNDO_ACTION:
            scores.pop()
        else:
            points = 0
            if a < rules.RESERVE_ACTION:
                card, dest = divmod(a, 7)
                n = int(state.lens[dest])
                points += 5 * (n > 0 and int(state.tab[dest, n - 1]) // 13 == card // 13)
            down = int(state.fd.sum())
            scores.append(scores[-1] + points)
        rules.apply_action(state.arrays, a)
        if a != rules.UNDO_ACTION:
            scores[-1] += 5 * (down - int(state.fd.sum()))  # a flip
            assert state.runs >= before
