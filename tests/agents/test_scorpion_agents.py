"""The Scorpion agents: legal actions only, a fair view that hides cards, and their preferences."""

from __future__ import annotations

import numpy as np
import pytest

from shell_envs.agents import agent_names, choose_action, make_agent
from shell_envs.agents.scorpion import (
    HIDDEN,
    UNSOLVED,
    LookaheadAgent,
    PimcAgent,
    ScorpionView,
)
from shell_envs.agents.scorpion.search import Sample as _Sample
from shell_envs.agents.scorpion.search import looks_like as _looks_like
from shell_envs.bench.patience import play_deal
from shell_envs.scorpion import rules, search, solver
from shell_envs.scorpion.encoders import CardsEncoder, TableauEncoder
from shell_envs.scorpion.state import ScorpionState
from tests.scorpion.helpers import action, position, run_position, start

GAME = "scorpion"
TINY = {"samples": 2, "depth": 6}
TINY_PIMC = {"samples": 3, "won_target": 3, "max_samples": 6, "max_nodes": 300}


def agents(seed: int = 0) -> list:
    """One of each built-in Scorpion agent, the searching ones with tiny budgets."""
    return [
        make_agent(GAME, "random", seed=seed),
        make_agent(GAME, "greedy", seed=seed),
        make_agent(GAME, "lookahead", seed=seed, **TINY),
        make_agent(GAME, "pimc", seed=seed, **TINY_PIMC),
        make_agent(GAME, "pimc", seed=seed, every_move=False, **TINY_PIMC),
        make_agent(GAME, "learned", seed=seed),
        make_agent(GAME, "learned", seed=seed, temperature=1.0),
    ]


def random_states(
    n: int, seed: int, rule_sets: tuple[str, ...] = ("classic", "relaxed")
) -> list[ScorpionState]:
    """Positions reached by 0–60 random moves from numbered deals and run-rich layouts, each
    under one of ``rule_sets`` (the default: the draws some tests' positions were picked by)."""
    rng = np.random.default_rng(seed)
    states = []
    moves = np.empty(rules.N_ACTIONS, np.int64)
    while len(states) < n:
        rule_set = rule_sets[int(rng.integers(len(rule_sets)))]
        if rng.integers(3):
            state = ScorpionState.from_number(int(rng.integers(10**6)), rule_set)
        else:
            pos = run_position(rng, reserve=bool(rng.integers(2)))
            state = ScorpionState.from_position(pos, rule_set)
        for _ in range(int(rng.integers(0, 61))):
            k = rules.legal_moves(state.arrays, moves)
            if k == 0:
                break
            rules.apply_action(state.arrays, moves[rng.integers(k)])
        if rules.legal_moves(state.arrays, moves) > 0:
            states.append(state)
    return states


def mask_of(state: ScorpionState, allow_undo: bool = False) -> np.ndarray:
    """The env's legal-action mask of ``state``."""
    mask = np.zeros(rules.N_ACTIONS_UNDO if allow_undo else rules.N_ACTIONS, np.bool_)
    rules.legal_mask(state.arrays, allow_undo, mask)
    return mask


def shuffle_hidden(state: ScorpionState, rng: np.random.Generator) -> ScorpionState:
    """A copy whose face-down and reserve cards are permuted among their places."""
    other = state.copy()
    places = [(c, d) for c in range(7) for d in range(int(other.fd[c]))]
    cards = [int(other.tab[c, d]) for c, d in places]
    reserve = [int(x) for x in other.reserve if x >= 0]
    mixed = list(rng.permutation(cards + reserve))
    for (c, d), card in zip(places, mixed[: len(places)], strict=True):
        other.tab[c, d] = card
    for i, card in enumerate(mixed[len(places) :]):
        other.reserve[i] = card
    return other


@pytest.mark.parametrize("seed", [1, 2])
def test_agents_return_only_legal_actions(seed: int) -> None:
    players = agents(seed)
    for state in random_states(40, seed, rules.RULE_SETS):
        view = ScorpionView.from_state(state)
        for allow_undo in (False, True):
            mask = mask_of(state, allow_undo)
            for agent in players:
                a = choose_action(agent, None, mask, view)
                assert mask[a], (agent.name, a)
                assert a != rules.UNDO_ACTION


def test_agents_play_legal_whole_games_through_the_env() -> None:
    for rule in rules.RULE_SETS:
        for agent in agents(3):
            env, info = start(position({}, filler=7), rules=rule, max_moves=120)
            env.reset(seed=11)
            _, info = env.reset(seed=11)
            agent.reset(11)
            for _ in range(120):
                a = choose_action(agent, None, info["action_mask"], ScorpionView.from_env(env))
                assert info["action_mask"][a]
                _, _, terminated, truncated, info = env.step(a)
                assert not info["illegal"]
                if terminated or truncated:
                    break


def test_act_decodes_tableau_and_cards_observations() -> None:
    for state in random_states(15, 5, rules.RULE_SETS):
        mask = mask_of(state)
        truth = ScorpionView.from_state(state)
        for encoder in (TableauEncoder(), CardsEncoder()):
            view = ScorpionView.from_observation(encoder.encode(state), state.rules)
            for field in ("tab", "lens", "fd", "reserve", "unseen"):
                assert np.array_equal(getattr(view, field), getattr(truth, field)), field
            for agent in agents(0):
                assert mask[agent.act(encoder.encode(state), mask)]
    with pytest.raises(ValueError, match="tableau"):
        ScorpionView.from_observation(np.zeros(10))


def test_view_masks_every_face_down_and_reserve_card() -> None:
    for state in random_states(20, 7, rules.RULE_SETS):
        view = ScorpionView.from_state(state)
        hidden = [int(state.tab[c, d]) for c in range(7) for d in range(int(state.fd[c]))]
        hidden += [int(x) for x in state.reserve if x >= 0]
        for c in range(7):
            assert np.all(view.tab[c, : state.fd[c]] == HIDDEN)
            assert np.array_equal(view.tab[c, state.fd[c] :], state.tab[c, state.fd[c] :])
        assert np.all(view.reserve[state.reserve >= 0] == HIDDEN)
        assert not set(hidden) & set(view.tab[view.tab >= 0].tolist())
        assert sorted(view.unseen.tolist()) == sorted(hidden)
        assert view.hidden_count == len(hidden)
        assert not view.tab.flags.writeable


def test_decisions_do_not_depend_on_the_hidden_cards() -> None:
    rng = np.random.default_rng(9)
    for state in random_states(25, 9, rules.RULE_SETS):
        other = shuffle_hidden(state, rng)
        view_a, view_b = ScorpionView.from_state(state), ScorpionView.from_state(other)
        for field in ("tab", "lens", "fd", "reserve", "meta", "unseen"):
            assert np.array_equal(getattr(view_a, field), getattr(view_b, field))
        mask = mask_of(state)
        assert np.array_equal(mask, mask_of(other))
        for agent in agents(0):
            agent.reset(4)
            first = agent.act_with_state(view_a, mask) if hasattr(agent, "act_with_state") else 0
            agent.reset(4)
            second = agent.act_with_state(view_b, mask) if hasattr(agent, "act_with_state") else 0
            assert first == second


def test_determinize_fills_hidden_places_with_unseen_cards() -> None:
    state = ScorpionState.from_number(42)
    view = ScorpionView.from_state(state)
    full = view.determinize(np.random.default_rng(0))
    cards = sorted(int(c) for c in full.tab[full.tab >= 0]) + sorted(full.reserve.tolist())
    assert sorted(cards) == list(range(52))
    assert np.array_equal(ScorpionView.from_state(full).tab, view.tab)


def spades(columns: dict[int, str], face_down: dict[int, int], reserve: str = "") -> dict:
    """A position with hearts, diamonds and clubs removed: only the 13 spades are in play."""
    pos = position(columns, face_down=face_down, reserve=reserve, removed="HDC")
    assert not pos["columns"][6] or 7 in columns, "every spade must be placed"
    return pos


FLIP_POSITION = {1: "AS 7S", 2: "8S", 3: "3S", 4: "2S", 5: "KS QS JS TS", 6: "9S 4S 5S 6S"}


def test_greedy_prefers_turning_a_card_and_never_shuffles_a_king() -> None:
    env, info = start(spades(FLIP_POSITION, {1: 1}))
    view = ScorpionView.from_env(env)
    tab, lens, fd, _, meta = view.arrays()
    assert search.is_pointless(tab, lens, fd, meta, action("KS", 7))
    assert not search.is_pointless(tab, lens, fd, meta, action("7S", 2))
    assert info["action_mask"][action("KS", 7)]
    for seed in range(5):
        greedy = make_agent(GAME, "greedy", seed=seed)
        assert greedy.act_with_state(view, info["action_mask"]) == action("7S", 2)
        lookahead = make_agent(GAME, "lookahead", seed=seed, **TINY)
        assert lookahead.act_with_state(view, info["action_mask"]) != action("KS", 7)


def test_greedy_deals_the_reserve_only_when_nothing_else_gains() -> None:
    columns = {**FLIP_POSITION, 6: "9S"}
    env, info = start(spades(columns, {1: 1}, reserve="4S 5S 6S"))
    greedy = make_agent(GAME, "greedy", seed=0)
    assert greedy.act_with_state(ScorpionView.from_env(env), info["action_mask"]) == action("7S", 2)
    env, info = start(spades({1: "KS QS JS TS 9S 8S 7S 6S 5S 4S"}, {}, reserve="3S 2S AS"))
    view = ScorpionView.from_env(env)
    assert greedy.act_with_state(view, info["action_mask"]) == rules.RESERVE_ACTION
    moves = np.empty(rules.N_ACTIONS, np.int64)
    assert not search.is_dead(view.state_arrays(), moves)


def moves_a_whole_king_column(state: ScorpionState, a: int) -> bool:
    """Whether ``a`` moves a king lying face up at the bottom of its column to an empty one,
    its top 13 cards not a complete sequence (which the move would remove; the traditional
    rules remove nothing)."""
    if a >= rules.RESERVE_ACTION:
        return False
    card, dest = divmod(a, 7)
    columns = [state.column(c) for c in range(7)]
    src = next((c for c, col in enumerate(columns) if card in col), None)
    return (
        card % 13 == 12
        and not columns[dest]
        and src is not None
        and columns[src][0] == card
        and int(state.fd[src]) == 0
        and (state.traditional or not is_sequence(columns[src][-13:]))
    )


def is_sequence(cards: list[int]) -> bool:
    """Whether ``cards`` (bottom to top) are one suit's king down to its ace."""
    king = cards[0] if cards else -1
    return len(cards) == 13 and king % 13 == 12 and cards == list(range(king, king - 13, -1))


def test_is_dead_exactly_when_only_whole_king_columns_can_move() -> None:
    moves = np.empty(rules.N_ACTIONS, np.int64)
    seen = {True: 0, False: 0}
    rng = np.random.default_rng(13)
    for state in random_states(40, 13, rules.RULE_SETS):
        for _ in range(200):
            legal = np.flatnonzero(mask_of(state))
            dead = search.is_dead(state.arrays, moves)
            assert dead == all(moves_a_whole_king_column(state, int(a)) for a in legal)
            seen[dead] += 1
            if dead or legal.size == 0:
                break
            rules.apply_action(state.arrays, int(rng.choice(legal)))
    assert seen[True] > 0 and seen[False] > 0


def test_registry_and_validation() -> None:
    assert agent_names(GAME) == ["greedy", "learned", "lookahead", "pimc", "random"]
    for bad in (
        {"samples": 0},
        {"max_nodes": -1},
        {"won_target": 1.5},
        {"every_move": "yes"},
        {"check_lines": 1},
        {"resolve": "no"},
        {"rollout_order": 0},
        {"exact": -1},
        {"exact": 10**6},
        {"exact": True},
        {"deepen": 0},
        {"settle": 0},
        {"widen": "yes"},
        {"refresh": 1},
        {"plan": -1},
        {"plan": 5},
        {"plan": True},
    ):
        with pytest.raises(ValueError, match=next(iter(bad))):
            PimcAgent(**bad)
    with pytest.raises(ValueError, match="samples"):
        LookaheadAgent(samples=0)
    with pytest.raises(ValueError, match="noise"):
        LookaheadAgent(noise=-1.0)
    with pytest.raises(ValueError, match="rules"):
        make_agent(GAME, "greedy", rules="easy")
    with pytest.raises(ValueError, match="no legal action"):
        make_agent(GAME, "greedy").act_with_state(
            ScorpionView.from_state(ScorpionState.from_number(0)), np.zeros(365, bool)
        )


def test_moving_a_complete_sequence_on_a_king_is_not_pointless() -> None:
    # a complete sequence standing on the base king leaves only when its column moves, and is
    # removed then: the one move of this position wins, so it is neither pointless nor dead
    env, info = start(spades({1: "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S AS"}, {}))
    view = ScorpionView.from_env(env)
    tab, lens, fd, _, meta = view.arrays()
    assert not search.is_pointless(tab, lens, fd, meta, action("KS", 2))
    assert not search.is_dead(view.state_arrays(), np.empty(rules.N_ACTIONS, np.int64))
    for agent in agents(0)[1:]:
        agent.reset(0)
        _, _, _, _, after = env.step(agent.act_with_state(view, info["action_mask"]))
        assert after["won"], agent.name
        env, info = start(spades({1: "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S AS"}, {}))


def play_until_reveal(agent, state: ScorpionState, seed: int, limit: int = 12) -> list[int]:
    """The agent's moves from ``state`` (reset with ``seed``) until a hidden card is revealed."""
    state = state.copy()
    agent.reset(seed)
    moves = []
    for _ in range(limit):
        view = ScorpionView.from_state(state)
        mask = mask_of(state)
        if not mask.any():
            break
        a = agent.act_with_state(view, mask)
        moves.append(a)
        rules.apply_action(state.arrays, a)
        if ScorpionView.from_state(state).hidden_count != view.hidden_count:
            break
    return moves


def test_pimc_never_reads_the_hidden_cards_over_several_moves() -> None:
    # the samples it keeps between moves come from the views alone: with the hidden cards
    # reshuffled, the same seed plays the same moves up to the first card revealed
    rng = np.random.default_rng(21)
    for state in random_states(6, 21):
        other = shuffle_hidden(state, rng)
        for options in ({}, {"every_move": False}, *PIMC_OPTIONS):
            agent = PimcAgent(**{**TINY_PIMC, **options})
            assert play_until_reveal(agent, state, 3) == play_until_reveal(agent, other, 3)


# every combination of the options that change how pimc decides, beside the defaults
PIMC_OPTIONS = (
    {"every_move": False, "check_lines": True, "rollout_order": False, "resolve": True},
    {"every_move": False, "check_lines": True, "rollout_order": True, "resolve": False},
    {"every_move": False, "check_lines": False, "resolve": True, "exact": 24},
    {"every_move": False, "check_lines": True, "rollout_order": True, "exact": 24},
    {"every_move": True, "resolve": True, "exact": 6},
    {"every_move": True, "reveal_first": True},
    {"every_move": False, "check_lines": True, "rollout_order": True, "reveal_first": True},
    {"every_move": False, "check_lines": True, "rollout_order": False, "reveal_first": True},
    {"every_move": False, "check_lines": True, "rollout_order": True, "deepen": 1},
    {"every_move": False, "check_lines": True, "rollout_order": False, "deepen": 8},
    {"every_move": False, "check_lines": True, "rollout_order": True, "widen": True, "settle": 8},
    {"every_move": False, "check_lines": True, "rollout_order": False, "widen": True},
    {"every_move": False, "check_lines": True, "rollout_order": True, "settle": 1},
    {"every_move": False, "check_lines": True, "rollout_order": True, "refresh": True},
    {"every_move": True, "refresh": True, "exact": 24},
    {"every_move": False, "check_lines": True, "rollout_order": True, "plan": 1},
    {"every_move": False, "check_lines": True, "rollout_order": False, "plan": 2, "exact": 6},
)


def turns_a_card(state: ScorpionState, action: int) -> bool:
    """Whether ``action`` uncovers a hidden card, read off the layout: the reserve deal while
    the reserve is undealt, or moving the card that lies right on a column's face-down cards."""
    if action == rules.RESERVE_ACTION:
        return bool((state.reserve >= 0).any())
    card = action // 7
    for c in range(7):
        down = int(state.fd[c])
        if down and int(state.lens[c]) > down and int(state.tab[c, down]) == card:
            return True
    return False


def test_pimc_reveals_exactly_the_moves_that_uncover_a_card() -> None:
    for state in random_states(40, 8):
        agent = PimcAgent(**TINY_PIMC, reveal_first=True)
        agent.reset(0)
        view = ScorpionView.from_state(state)
        agent._pool = [_Sample(view.determinize(agent.rng), UNSOLVED, [])]
        legal = [int(a) for a in np.flatnonzero(mask_of(state))]
        assert agent._reveals(legal) == {a: int(turns_a_card(state, a)) for a in legal}


def test_pimc_reveal_first_breaks_ties_toward_a_revealing_move() -> None:
    # of moves that win equally often, one that turns a card is played; without the option
    # the immediate gain alone decides, and in some of these positions it picks another
    other = 0
    for state in random_states(60, 9):
        legal = [int(a) for a in np.flatnonzero(mask_of(state))]
        turning = [a for a in legal if turns_a_card(state, a)]
        if not turning or len(turning) == len(legal):
            continue
        view = ScorpionView.from_state(state)
        agent = PimcAgent(**TINY_PIMC, reveal_first=True)
        agent.reset(0)
        agent._pool = [_Sample(view.determinize(agent.rng), UNSOLVED, [])]
        visited = np.zeros(0, np.int64)
        assert agent._break_tie(view, np.array(legal, np.int64), visited) in turning
        plain = PimcAgent(**TINY_PIMC, reveal_first=False)
        plain.reset(0)
        other += plain._break_tie(view, np.array(legal, np.int64), visited) not in turning
    assert other > 0


def test_pimc_deepen_solves_an_undecided_candidate_again_on_more_nodes() -> None:
    # a candidate that is undecided on the budget in this won determinization is won on eight
    # times it: with deepen=8 it counts as a win of the move, with deepen=1 as a miss
    state = random_states(1, 31)[0]
    view = ScorpionView.from_state(state)
    sample = _Sample(view.determinize(np.random.default_rng(0)), UNSOLVED, [])
    PimcAgent._solve(sample, 20_000)
    assert sample.verdict == solver.WON and sample.line[0] != 1
    budget = 300
    assert solver.solve_children(sample.state, [1], budget)[0].verdict == solver.UNKNOWN
    for deepen, verdict in ((8, solver.WON), (1, solver.UNKNOWN)):
        agent = PimcAgent(**TINY_PIMC, deepen=deepen)
        agent.reset(0)
        agent._pool = [_Sample(sample.state.copy(), solver.WON, list(sample.line))]
        assert agent._check_lines(view, [1], {1: 0}, np.zeros(0, np.int64), budget) == 1
        assert agent._pool[0].children[1][0] == verdict


def test_pimc_settle_solves_an_undecided_sample_again_before_the_vote() -> None:
    # this determinization is undecided on 300 nodes and decided on 2,400: with settle=8 it
    # is solved again before the vote (to the verdict a plain large solve gives), with
    # settle=1 it stays out of the vote
    state = random_states(4, 33)[0]
    view = ScorpionView.from_state(state)
    determinization = view.determinize(np.random.default_rng(0))
    truth = solver.solve_quick(determinization, 200_000).verdict
    assert truth != solver.UNKNOWN
    for settle, nodes, verdict in ((8, 2_400, truth), (1, 300, solver.UNKNOWN)):
        agent = PimcAgent(**{**TINY_PIMC, "samples": 1, "max_samples": 1}, settle=settle)
        agent.reset(0)
        agent._pool = [_Sample(determinization.copy(), UNSOLVED, [])]
        agent._fill(view, 300)
        assert (agent._pool[0].verdict, agent._pool[0].nodes) == (verdict, nodes)


def test_pimc_refresh_draws_the_pool_afresh_unless_enumerated() -> None:
    # a pool kept from an earlier decision: kept without refresh, replaced by fresh solved
    # determinizations with it; an enumerated pool (3 hidden cards, 6 arrangements) is kept
    for state, exact in ((random_states(4, 33)[0], False), (few_hidden(5, "relaxed", 0), True)):
        assert (len(ScorpionView.from_state(state).unseen) <= 3) == exact
        view = ScorpionView.from_state(state)
        for refresh in (False, True):
            agent = PimcAgent(**TINY_PIMC, exact=6, refresh=refresh, rules="relaxed")
            agent.reset(0)
            agent._fill(view, 300)
            old = list(agent._pool)  # held, so that no new sample can take an old one's id
            agent._fill(view, 300)
            kept = {id(sample) for sample in agent._pool} & {id(sample) for sample in old}
            assert len(kept) == (len(old) if exact or not refresh else 0)
            assert all(sample.verdict != UNSOLVED for sample in agent._pool)
            assert all(_looks_like(sample.state, view) for sample in agent._pool)


def relaxed_after(deal: int, line: list[int]) -> ScorpionState:
    """Relaxed deal number ``deal`` after the moves of ``line``."""
    state = ScorpionState.from_number(deal, "relaxed")
    for move in line:
        rules.apply_action(state.arrays, move)
    return state


# Relaxed deal 10 after these moves (a game of pimc without `widen`): 6 cards hidden; the
# moves that the won determinizations' lines start with are 173 (which loses the real deal)
# and 355, while 82, 90, 181, 217 and 256 win in each of 60 determinizations solved on
# 200,000 nodes and start no line
DEAL_10_LINE = [223, 103, 22, 7, 343, 336, 364, 92, 63, 56, 50, 210, 88, 24, 113, 99, 197, 190,
                45, 185, 137, 0, 120, 35, 150, 130, 344, 252, 81, 180, 280]  # fmt: skip


def test_pimc_widen_tries_the_moves_no_line_proposes() -> None:
    state = relaxed_after(10, DEAL_10_LINE)
    view = ScorpionView.from_state(state)
    for seed in range(3):
        chosen = {}
        for widen in (False, True):
            agent = PimcAgent(rules="relaxed", widen=widen)
            agent.reset(seed)
            chosen[widen] = agent.act_with_state(view, mask_of(state))
        assert chosen[False] in (173, 355)
        assert chosen[True] in (82, 90, 181, 217, 256)
    # checked on the real deal with a plain solve: the widened choice keeps it winnable
    verdicts = solver.solve_children(state, [173, chosen[True]], 2_000_000)
    assert [o.verdict for o in verdicts] == [solver.LOST, solver.WON]


# Relaxed deal 5580 after these moves (the game pimc plays from it): 7 cards hidden
DEAL_5580_LINE = [222, 364, 303, 154, 89, 53, 15, 316, 147, 23, 212, 260, 202, 341, 242, 188,
                  334, 208, 134, 292, 117, 270]  # fmt: skip


def test_pimc_tries_a_move_back_into_a_position_seen_after_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # once the position a move leads to has been seen, another candidate that wins in every
    # won determinization is played instead, even when the rollouts rate the move back far
    # higher (its rollout value is raised by a million here)
    state = relaxed_after(5580, DEAL_5580_LINE)
    view = ScorpionView.from_state(state)
    pools = []
    original = PimcAgent._check_lines

    def spy(agent: PimcAgent, *args: object) -> int:
        pools.append([s.state.copy() for s in agent._pool if s.verdict == solver.WON])
        return original(agent, *args)

    monkeypatch.setattr(PimcAgent, "_check_lines", spy)
    for seed in (0, 1):
        agent = PimcAgent(rules="relaxed")
        agent.reset(seed)
        first = agent.act_with_state(view, mask_of(state))
        child = state.copy()
        rules.apply_action(child.arrays, first)
        agent = PimcAgent(rules="relaxed")
        agent.reset(seed)
        agent._visited.add(ScorpionView.from_state(child).position_hash())

        def boosted(v: ScorpionView, roots: np.ndarray, rollout=agent._values, back=first):
            return rollout(v, roots) + 1e6 * (roots == back)

        monkeypatch.setattr(agent, "_values", boosted)
        second = agent.act_with_state(view, mask_of(state))
        assert second != first
        for move in (first, second):  # checked with a plain solve of each won determinization
            assert all(wins_after(won, move, 20_000, 8) for won in pools[-1]), (seed, move)


def test_pimc_never_plays_a_move_twice_from_the_same_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Relaxed `test` deal 5580: from move 28 the agent used to move a card to and fro (53, 54)
    # until the bench stopped the game 100 moves later, since each move won in every kept
    # determinization (the pool is the same each time round); a move already played from a
    # position now gives way to the other candidates, and the deal is won
    played = []
    original = PimcAgent.act_with_state

    def spy(agent: PimcAgent, view: ScorpionView, mask: np.ndarray) -> int:
        move = original(agent, view, mask)
        played.append((view.position_hash(), move))
        return move

    monkeypatch.setattr(PimcAgent, "act_with_state", spy)
    won, _, moves, end = play_deal(PimcAgent(rules="relaxed"), 5580, "relaxed")
    assert len(played) == moves
    assert len(set(played)) == moves
    assert (won, end) == (True, "won")


def test_pimc_plays_a_move_again_when_every_move_has_been_played_from_the_position() -> None:
    # the rule against playing a move twice gives way when no other candidate is left, with
    # or without `widen` (whose extra candidates may all return to a position seen)
    state = relaxed_after(5580, DEAL_5580_LINE)
    view = ScorpionView.from_state(state)
    legal = [int(m) for m in np.flatnonzero(mask_of(state))]
    for widen in (False, True):
        agent = PimcAgent(rules="relaxed", widen=widen)
        agent.reset(0)
        agent._played = {(view.position_hash(), m) for m in legal}
        assert agent.act_with_state(view, mask_of(state)) in legal


# Relaxed deal 74 after these moves (a game of pimc with plan=1): 9 cards hidden; the won
# determinizations' lines propose 17, 51, 139 and 243, none of which turns a card
DEAL_74_LINE = [333, 173, 348, 364, 298, 271, 0, 58, 134, 287]


def wins_after(state: ScorpionState, move: int, budget: int, deepen: int) -> bool:
    """Whether ``move`` wins in the full ``state``: solved on ``budget`` nodes, and once more
    on ``deepen`` times it when that runs out."""
    out = solver.solve_children(state, [move], budget)[0]
    if out.verdict == solver.UNKNOWN and deepen > 1:
        out = solver.solve_children(state, [move], budget * deepen)[0]
    return out.verdict == solver.WON


def plan_share(states: list, move: int, depth: int, budget: int, deepen: int) -> int | None:
    """Plainly, without pruning: in how many of ``states`` the best fair plan starting with
    ``move`` wins (``move`` if it turns a card, else ``move``, at most ``depth`` - 1 more
    moves turning none, then one turning a card); None when no such plan exists."""
    if turns_a_card(states[0], move):
        return sum(wins_after(s, move, budget, deepen) for s in states)
    if depth == 0:
        return None
    after = [s.copy() for s in states]
    for s in after:
        rules.apply_action(s.arrays, move)
    nxt = [int(m) for m in np.flatnonzero(mask_of(after[0]))]
    first = after[0]
    nxt = [
        m for m in nxt if not search.is_pointless(first.tab, first.lens, first.fd, first.meta, m)
    ]
    shares = [plan_share(after, m, depth - 1, budget, deepen) for m in nxt]
    found = [share for share in shares if share is not None]
    return max(found) if found else None


def test_pimc_plan_plays_the_best_fair_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    # the move `plan` picks has the best fair-plan share by a plain count over the same won
    # determinizations (a move turning no card with no plan in reach: its plain count), and
    # here it differs from the choice without `plan`
    state = relaxed_after(74, DEAL_74_LINE)
    view = ScorpionView.from_state(state)
    calls = []
    original = PimcAgent._plan

    def spy(agent, view, roots, candidates, best, visited, budget):
        won = [s.state.copy() for s in agent._pool if s.verdict == solver.WON]
        chosen = original(agent, view, roots, candidates, best, visited, budget)
        calls.append((won, roots, candidates, best, budget, chosen))
        return chosen

    monkeypatch.setattr(PimcAgent, "_plan", spy)
    changed = 0
    plan = 1
    for n, seed in ((8, 0), (8, 3), (16, 1)):
        calls.clear()
        agent = PimcAgent(rules="relaxed", plan=plan, samples=n, won_target=n, max_samples=n)
        agent.reset(seed)
        agent.act_with_state(view, mask_of(state))
        [(won, roots, candidates, best, budget, chosen)] = calls
        moves = set(candidates) | {m for m in roots if turns_a_card(state, m)}
        shares = {}
        for move in moves:
            share = plan_share(won, move, plan, budget, 8)
            if share is None:  # no card to turn within reach: the plain count
                share = sum(wins_after(s, move, budget, 8) for s in won)
            shares[move] = share
        assert chosen in moves
        assert shares[chosen] == max(shares.values()), (seed, shares, chosen)
        changed += chosen != best
    assert changed


def few_hidden(seed: int, rule_set: str, down: int) -> ScorpionState:
    """A numbered deal with only ``down`` face-down cards left (column 1), reserve undealt:
    ``down + 3`` hidden cards."""
    state = ScorpionState.from_number(seed, rule_set)
    state.fd[:] = 0
    state.fd[0] = down
    return state


def test_pimc_enumerates_few_hidden_cards_and_stays_fair() -> None:
    # with at most `exact` arrangements of the hidden cards the pool is every one of them,
    # once; decisions still do not depend on which arrangement is the real one
    rng = np.random.default_rng(5)
    for seed, rule_set, down in ((3, "relaxed", 1), (8, "classic", 1), (11, "relaxed", 0)):
        state = few_hidden(seed, rule_set, down)
        view = ScorpionView.from_state(state)
        n = len(view.unseen)
        agent = PimcAgent(**{**TINY_PIMC, "exact": 24})
        agent.reset(1)
        agent.act_with_state(view, mask_of(state))
        if agent._pool:  # a single legal move is played without a search
            assert len(agent._pool) == [1, 1, 2, 6, 24][n]
        for options in PIMC_OPTIONS:
            agent = PimcAgent(**{**TINY_PIMC, **options})
            other = shuffle_hidden(state, rng)
            assert play_until_reveal(agent, state, 2) == play_until_reveal(agent, other, 2)


def test_pimc_enumeration_covers_every_arrangement_once() -> None:
    state = few_hidden(4, "relaxed", 1)
    view = ScorpionView.from_state(state)
    agent = PimcAgent(**{**TINY_PIMC, "exact": 24})
    agent.reset(0)
    assert agent._enumerate(view)
    places = [(0, 0), (-1, 0), (-1, 1), (-1, 2)]
    seen = {
        tuple(int(s.state.reserve[d] if c < 0 else s.state.tab[c, d]) for c, d in places)
        for s in agent._pool
    }
    assert len(seen) == 24 == len(agent._pool)
    assert all(sorted(k) == sorted(int(c) for c in view.unseen) for k in seen)
    assert not PimcAgent(**{**TINY_PIMC, "exact": 23})._enumerate(view)
    assert PimcAgent(**TINY_PIMC)._enumerate(view)  # the Relaxed default: up to 24
    classic = ScorpionView.from_state(few_hidden(4, "classic", 1))
    assert not PimcAgent(**TINY_PIMC)._enumerate(classic)  # the Classic default: never


def test_pimc_is_deterministic_for_a_seed() -> None:
    first = play_deal(PimcAgent(**TINY_PIMC), 14, "classic")
    again = play_deal(PimcAgent(**TINY_PIMC), 14, "classic")
    assert first == again
    for options in PIMC_OPTIONS:
        first = play_deal(PimcAgent(**TINY_PIMC, **options), 14, "relaxed")
        again = play_deal(PimcAgent(**TINY_PIMC, **options), 14, "relaxed")
        assert first == again, options


def test_pimc_wins_deals_greedy_loses() -> None:
    # Classic deal 0 and Relaxed deal 5 are winnable: the determinized search wins them with
    # its default options, the one-move greedy agent does not
    for deal, rule in ((0, "classic"), (5, "relaxed")):
        assert play_deal(PimcAgent(rules=rule), deal, rule)[0], (deal, rule)
        assert not play_deal(make_agent(GAME, "greedy"), deal, rule)[0], (deal, rule)


# three moves from a traditional win, each a same-suit placement: 7S onto 8S, 4H onto 5H, AC
# onto 2C (the diamonds stand complete)
TRADITIONAL_THREE_MOVES = position(
    {
        1: "KS QS JS TS 9S 8S",
        2: "7S 6S 5S 4S 3S 2S AS",
        3: "KH QH JH TH 9H 8H 7H 6H 5H",
        4: "4H 3H 2H AH",
        5: "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D AD",
        6: "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
        7: "AC",
    }
)


def test_agents_play_traditional_games() -> None:
    # the bench's play function under the traditional rules: whole short games, legal moves
    for name, options in (("greedy", {}), ("lookahead", {}), ("learned", {}), ("pimc", TINY_PIMC)):
        for deal in (0, 1):
            agent = make_agent(GAME, name, rules="traditional", **options)
            won, score, moves, end = play_deal(agent, deal, "traditional", max_moves=40)
            assert moves > 0 and score >= 0 and score % 5 == 0, (name, deal)
            assert end in ("won", "no move", "dead", "stalled", "move cap"), (name, deal, end)
    # and each finishes a game three moves from the win: the runs count in its evaluation
    for agent in agents(0)[1:]:  # not random
        env, info = start(TRADITIONAL_THREE_MOVES, rules="traditional")
        agent.reset(0)
        for _ in range(3):
            a = choose_action(agent, None, info["action_mask"], ScorpionView.from_env(env))
            _, reward, terminated, _, info = env.step(a)
            assert reward == 5.0, agent.name
        assert terminated and info["won"] and info["score"] == 15, agent.name
