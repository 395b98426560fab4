"""Compiled helpers for the Scorpion agents: evaluation, greedy choice, determinized rollouts.

Every move here is played by the rules engine (`shell_envs.scorpion.rules`), on copies
of the state arrays; nothing in this module restates a rule.  The agents work on a *view*:
the rule arrays with every face-down and reserve card replaced by `HIDDEN` (see
[`shell_envs.scorpion.view.ScorpionView`][]).  The functions below accept a view or a
full state; `fill_hidden` turns a view into one full state consistent with it
(a *determinization*), which is how the lookahead agent searches without ever seeing the
real hidden cards.
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.jit import jit, jit_inline
from shell_envs.scorpion import rules
from shell_envs.scorpion.actions import decode_move

HIDDEN = -2

W_REMOVED = 100.0  # a sequence removed to a slot (Traditional: a complete run standing)
W_FACE_DOWN = 6.0  # penalty per card still face down
W_LINK = 5.0  # a face-up card on the next-higher card of its suit
W_EMPTY = 4.0  # an empty column
W_KING_BASE = 3.0  # a king at the bottom of a column with nothing face down
W_MOBILITY = 1.0  # a same-suit placement available next
REVISIT_PENALTY = 1000.0  # a move back into a position already seen this game
NO_MOVE = -1
NO_VISITS = np.empty(0, dtype=np.int64)  # no positions to avoid (the rollouts' choices)


@jit
def evaluate(s: rules.StateArrays, loc: np.ndarray) -> float:
    """Heuristic value of a position; ``loc`` is scratch (52).  Hidden cards count as unknown.

    Removed sequences, turned cards, same-suit links, empty columns, kings at the base of a
    column and the same-suit placements available next: what a patience player tries to grow.
    """
    tab, lens, fd, _, meta, _ = s
    value = W_REMOVED * (meta[rules.M_REMOVED] + meta[rules.M_RUNS])
    loc[:] = -1
    for c in range(rules.N_COLUMNS):
        n = int(lens[c])
        down = int(fd[c])
        value -= W_FACE_DOWN * down
        if n == 0:
            value += W_EMPTY
            continue
        if down == 0 and tab[c, 0] >= 0 and tab[c, 0] % 13 == 12:
            value += W_KING_BASE
        for d in range(down, n):
            card = int(tab[c, d])
            if card >= 0:
                loc[card] = c
            if d > down:
                below = int(tab[c, d - 1])
                if card >= 0 and below >= 0 and card == below - 1 and below % 13 != 0:
                    value += W_LINK
    for c in range(rules.N_COLUMNS):
        n = int(lens[c])
        if n == 0:
            continue
        top = int(tab[c, n - 1])
        if top >= 0 and top % 13 != 0 and loc[top - 1] >= 0 and loc[top - 1] != c:
            value += W_MOBILITY
    return value


@jit
def is_pointless(
    tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, meta: np.ndarray, action: int
) -> bool:
    """Whether ``action`` moves a whole column headed by a king onto an empty column, and
    removes nothing by it.

    Such a move only relabels the columns: the position and its prospects stay the same.
    The exception (Classic and Relaxed) is a column whose top 13 cards form a complete
    sequence: it stays standing until its column receives cards, so moving the whole column
    is the only way to remove it.  Traditional removes nothing, so it has no exception.
    """
    if action >= rules.RESERVE_ACTION:
        return False
    card, dest = decode_move(action)
    if card % 13 != 12 or lens[dest] != 0:
        return False
    src, depth = rules.find_card(tab, lens, card)
    if depth != 0 or fd[src] != 0:
        return False
    return meta[rules.M_RULES] == rules.TRADITIONAL or not rules.is_complete_sequence(
        tab, lens, fd, src
    )


@jit
def is_dead(s: rules.StateArrays, moves: np.ndarray) -> bool:
    """Whether nothing but pointless king shuffles is legal: the game can make no more progress
    (`is_pointless`).

    ``moves`` is scratch (365).  A won game or one without legal actions is dead too.
    """
    tab, lens, fd, _, meta, _ = s
    k = rules.legal_moves(s, moves)
    for i in range(k):
        if not is_pointless(tab, lens, fd, meta, moves[i]):
            return False
    return True


@jit
def _combine(h, value):
    """Fold ``value`` into the 32-bit hash ``h``; exact in compiled and plain Python alike."""
    h = ((h ^ value) * 0x01000193) & 0xFFFFFFFF
    return h ^ (h >> 15)


@jit
def position_hash(tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, meta: np.ndarray) -> int:
    """A 32-bit hash of the visible layout: columns, face-down counts, reserve dealt or not."""
    h = int(meta[rules.M_RESERVE_DEALT]) + 8 * int(meta[rules.M_REMOVED])  # runs: in the cards
    for c in range(rules.N_COLUMNS):
        h = _combine(h, int(lens[c]) * 64 + int(fd[c]) + 4096 * (c + 1))
        for d in range(int(fd[c]), int(lens[c])):
            h = _combine(h, int(tab[c, d]) + 3 + 128 * d)
    return h


@jit
def _visited(h, visited, n_visited):
    """Whether hash ``h`` is among the first ``n_visited`` entries of the sorted ``visited``."""
    if n_visited == 0:
        return False
    i = np.searchsorted(visited[:n_visited], h)
    return i < n_visited and visited[i] == h


@jit
def successors(
    s: rules.StateArrays, actions: np.ndarray, n: int, hashes: np.ndarray, gains: np.ndarray
) -> None:
    """Play and undo each of ``actions[:n]``, recording where it leads and what it gains.

    ``hashes[i]``: the `position_hash` after the action; ``gains[i]``: its change in
    `evaluate` (a card it turns stays unknown in a view).
    """
    tab, lens, fd, _, meta, _ = s
    loc = np.empty(rules.N_CARDS, np.int8)
    base = evaluate(s, loc)
    for i in range(n):
        rules.apply_action(s, actions[i])
        hashes[i] = position_hash(tab, lens, fd, meta)
        gains[i] = evaluate(s, loc) - base
        rules.undo(s)


@jit
def greedy_choice(
    s: rules.StateArrays,
    moves: np.ndarray,
    k: int,
    rng: np.ndarray,
    noise: float,
    visited: np.ndarray,
    n_visited: int,
) -> int:
    """The greedy move among ``moves[:k]``, or `NO_MOVE` when only pointless ones exist.

    Each move is played, the position evaluated (`evaluate`) and the move undone; the
    best gain wins, ties and near-ties broken by uniform noise of size ``noise``.  The reserve
    is dealt only when no move gains anything (it buries the tops of columns 1–3).  Moves into
    a position in the sorted hash array ``visited`` are penalised, so play does not cycle.
    """
    loc = np.empty(rules.N_CARDS, np.int8)
    base = evaluate(s, loc)
    return _noisy_best(s, moves, k, rng, noise, False, loc, base, visited, n_visited)


@jit
def fill_hidden(
    tab: np.ndarray,
    lens: np.ndarray,
    fd: np.ndarray,
    reserve: np.ndarray,
    unseen: np.ndarray,
    n_unseen: int,
    rng: np.ndarray,
) -> int:
    """Replace every `HIDDEN` card (face down, then reserve) by a random unseen card."""
    perm = unseen[:n_unseen].copy()
    for i in range(n_unseen - 1, 0, -1):
        j = rules.rng_below(rng, i + 1)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    k = 0
    for c in range(rules.N_COLUMNS):
        for d in range(int(lens[c])):
            if tab[c, d] == HIDDEN:
                tab[c, d] = perm[k]
                k += 1
    for i in range(3):
        if reserve[i] == HIDDEN:
            reserve[i] = perm[k]
            k += 1
    return k


@jit
def locate(tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, where: np.ndarray) -> None:
    """``where[card]`` = ``column * 64 + depth`` of every face-up card, -1 for the others."""
    where[:] = -1
    for c in range(rules.N_COLUMNS):
        for d in range(int(fd[c]), int(lens[c])):
            card = int(tab[c, d])
            if card >= 0:
                where[card] = c * 64 + d


@jit
def _run_below(tab, lens, fd, col, depth):
    """Length of the same-suit descending run that ends at ``depth`` in ``col``, face up."""
    n = 1
    d = depth
    while d > fd[col] and tab[col, d - 1] == tab[col, d] + 1 and tab[col, d] % 13 != 12:
        n += 1
        d -= 1
    return n


@jit
def quick_gain(
    tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, where: np.ndarray, action: int
) -> float:
    """A cheap estimate of what a card move gains, read off the position without playing it.

    Turning a face-down card, building on the same suit (more for joining longer runs),
    emptying a column, giving a king a column of its own, opening a same-suit build;
    minus breaking a same-suit link.  The rollouts use it to choose moves quickly.
    """
    card, dest = decode_move(action)
    src = where[card] // 64
    depth = where[card] % 64
    gain = 0.0
    if depth == fd[src] and fd[src] > 0:
        gain += W_FACE_DOWN
    if depth == 0:
        gain += W_EMPTY
    n = int(lens[dest])
    if n == 0:
        gain += W_KING_BASE - W_EMPTY
    elif tab[dest, n - 1] == card + 1 and card % 13 != 12:
        top_run = 1
        while (
            depth + top_run < lens[src]
            and card % 13 >= top_run
            and tab[src, depth + top_run] == card - top_run
        ):
            top_run += 1
        gain += W_LINK + 0.5 * (_run_below(tab, lens, fd, dest, n - 1) + top_run)
    if depth > fd[src]:
        below = int(tab[src, depth - 1])
        if below == card + 1 and card % 13 != 12:
            gain -= W_LINK
        elif below >= 0 and below % 13 != 0 and where[below - 1] >= 0:
            gain += W_MOBILITY
    return gain


@jit
def rollout_choice(
    s: rules.StateArrays,
    moves: np.ndarray,
    k: int,
    rng: np.ndarray,
    noise: float,
    where: np.ndarray,
) -> int:
    """The rollout policy: the best `quick_gain` plus noise, the reserve when nothing gains.

    Returns `NO_MOVE` when only pointless king shuffles are legal.
    """
    tab, lens, fd, _, _, _ = s
    locate(tab, lens, fd, where)
    return _noisy_best(s, moves, k, rng, noise, True, where, 0.0, NO_VISITS, 0)


@jit_inline
def _noisy_best(
    s: rules.StateArrays,
    moves: np.ndarray,
    k: int,
    rng: np.ndarray,
    noise: float,
    quick: bool,
    cards: np.ndarray,
    base: float,
    visited: np.ndarray,
    n_visited: int,
) -> int:
    """The loop of `greedy_choice` and `rollout_choice`: each of ``moves[:k]`` but the reserve
    deal and pointless moves weighed, by `quick_gain` (``quick``: ``cards`` from `locate`) or
    played and evaluated (``cards``: `evaluate`'s scratch; gain over ``base``, revisits of
    ``visited[:n_visited]`` penalised), the best with uniform noise of size ``noise`` added;
    the reserve deal (when legal) if none was found or the best gains nothing."""
    tab, lens, fd, _, meta, _ = s
    best = NO_MOVE
    best_value = -1e18
    best_gain = 0.0
    reserve_ok = False
    for i in range(k):
        a = moves[i]
        if a == rules.RESERVE_ACTION:
            reserve_ok = True
            continue
        if is_pointless(tab, lens, fd, meta, a):
            continue
        if quick:
            value = quick_gain(tab, lens, fd, cards, a)
        else:
            rules.apply_action(s, a)
            value = evaluate(s, cards) - base
            if n_visited > 0 and _visited(position_hash(tab, lens, fd, meta), visited, n_visited):
                value -= REVISIT_PENALTY
            rules.undo(s)
        noisy = value + noise * (rules.rng_next(rng) / 4294967296.0)
        if noisy > best_value:
            best_value = noisy
            best_gain = value
            best = a
    if reserve_ok and (best == NO_MOVE or best_gain <= 0.0):
        return rules.RESERVE_ACTION
    return best


@jit
def rollout(
    s: rules.StateArrays,
    depth: int,
    noise: float,
    rng: np.ndarray,
    moves: np.ndarray,
    where: np.ndarray,
) -> int:
    """Play up to ``depth`` rollout-policy moves on a full state; returns the moves played."""
    _, _, _, _, meta, _ = s
    for step in range(depth):
        if rules.is_won(meta):
            return step
        k = rules.legal_moves(s, moves)
        if k == 0:
            return step
        a = rollout_choice(s, moves, k, rng, noise, where)
        if a == NO_MOVE:
            return step
        rules.apply_action(s, a)
    return depth


@jit
def rollout_values(
    s: rules.StateArrays,
    unseen: np.ndarray,
    n_unseen: int,
    roots: np.ndarray,
    n_roots: int,
    samples: int,
    rollouts: int,
    depth: int,
    noise: float,
    seed: int,
    out: np.ndarray,
) -> None:
    """Mean value of each root action over ``samples`` determinizations of a view ``s`` (its
    history is not read).

    Each sample deals the unseen cards at random into the hidden places (`fill_hidden`);
    every root action is then played on that same deal and followed by ``rollouts`` rollouts
    of ``depth`` moves under the fast noisy policy `rollout_choice`; the best final
    evaluation among them is that sample's value of the action.  ``out[:n_roots]`` gets the
    means over samples.
    """
    tab, lens, fd, reserve, meta, _ = s
    rng = np.zeros(1, np.int64)
    rules.rng_seed(rng, seed)
    loc = np.empty(rules.N_CARDS, np.int8)
    moves = np.empty(rules.N_ACTIONS, np.int64)
    where = np.empty(rules.N_CARDS, np.int64)
    s_tab = np.empty_like(tab)
    s_lens = np.empty_like(lens)
    s_fd = np.empty_like(fd)
    s_res = np.empty_like(reserve)
    w_tab = np.empty_like(tab)
    w_lens = np.empty_like(lens)
    w_fd = np.empty_like(fd)
    w_res = np.empty_like(reserve)
    w_meta = np.empty_like(meta)
    hist = np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)
    w = (w_tab, w_lens, w_fd, w_res, w_meta, hist)  # the state each rollout plays on
    for r in range(n_roots):
        out[r] = 0.0
    for _ in range(samples):
        s_tab[:, :] = tab
        s_lens[:] = lens
        s_fd[:] = fd
        s_res[:] = reserve
        fill_hidden(s_tab, s_lens, s_fd, s_res, unseen, n_unseen, rng)
        for r in range(n_roots):
            best = -1e18
            for _ in range(rollouts):
                w_tab[:, :] = s_tab
                w_lens[:] = s_lens
                w_fd[:] = s_fd
                w_res[:] = s_res
                w_meta[:] = meta
                w_meta[rules.M_HIST_COUNT] = 0
                w_meta[rules.M_HIST_HEAD] = 0
                rules.apply_action(w, roots[r])
                rollout(w, depth, noise, rng, moves, where)
                best = max(best, evaluate(w, loc))
            out[r] += best
    for r in range(n_roots):
        out[r] /= samples
