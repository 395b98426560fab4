"""The learned Scorpion policy: move features, a numpy forward pass and its weights file.

The policy scores each candidate move from `N_FEATURES` numbers that describe it
([`move_features`][]): its change in the hand-written evaluation
(`shell_envs.scorpion.search.evaluate`), the points it scores, whether it turns a card,
removes a sequence, deals the reserve or sends a king to an empty column, the block it moves
and where to, what can be played after it (how many moves, the best one's evaluation change,
whether nothing is left), what it leaves behind (cards still face down and face up in the column it
leaves, whether the card it uncovers can move on), whether it leads back into a position
already seen this game, and a few numbers about the game (cards still face down, reserve
dealt, moves made, how many candidates there are).  Everything is computed on the player's
view, with the face-down and reserve cards `HIDDEN`: a
card a move turns stays unknown.
Candidates are the legal moves less pointless king shuffles
(`is_pointless`) and moves back into a position seen before
(the loop-avoiding mask); when that leaves nothing, every legal move but the shuffles is a
candidate, then every legal move.

The score of a move is a linear term plus a small multilayer perceptron (two tanh hidden
layers) on its features, the same network for every move; the policy is the softmax of the
scores over the candidates.  The weights are numpy ``float32`` arrays (`WEIGHT_NAMES`)
in an ``.npz`` file; the shipped one is ``shell_envs/data/scorpion_network.npz``
(`shipped`).  Playing needs no torch (training does: ``examples/train_scorpion.py``).
"""

from __future__ import annotations

import numpy as np

from shell_envs.core import weights
from shell_envs.core.jit import jit
from shell_envs.scorpion import rules, search
from shell_envs.scorpion.actions import decode_move, encode_move

WEIGHTS_FILE = "scorpion_network.npz"
WEIGHT_NAMES = ("w_linear", "w1", "b1", "w2", "b2", "w_out", "b_out")
N_FEATURES = 26
N_SLOTS = 128  # candidates a training observation holds (more are cut, in move order)
MAX_VISITED = 1024  # positions a training game remembers (the bench stops games at 500 moves)
F_GAIN, F_REVISIT, F_VALID, F_NEXT_GAIN = 0, 11, 17, 23  # features the tests and the init use
GAIN_SCALE = 10.0  # evaluation and points are divided by this
FACE_DOWN_CARDS = 12

Network = tuple[np.ndarray, ...]


@jit
def _seen(h, visited, n_visited):
    """Whether hash ``h`` is among ``visited[:n_visited]`` (any order)."""
    for i in range(n_visited):
        if visited[i] == h:
            return True
    return False


@jit
def _playable(tab, lens, card, col, relaxed):
    """Whether ``card``, the new top of column ``col``, can itself move now: a king while a
    column is empty, else a card whose successor (of its suit, or any under ``relaxed``) tops
    another column (unknown cards: no)."""
    if card < 0:
        return 0.0
    for c in range(rules.N_COLUMNS):
        if c == col:
            continue
        n = lens[c]
        if n == 0:
            if card % 13 == 12:
                return 1.0
        elif card % 13 != 12:
            top = tab[c, n - 1]
            if top == card + 1 or (relaxed and top >= 0 and top % 13 == card % 13 + 1):
                return 1.0
    return 0.0


@jit
def follow_ups(
    tab: np.ndarray, lens: np.ndarray, fd: np.ndarray, meta: np.ndarray, out: np.ndarray
) -> int:
    """The card moves of a view that involve known cards only; returns how many (in ``out``).

    What can be played next after a move, when the card it turned is still unknown (so the
    rules' move generator, which needs every top card, cannot run): a face-up card onto a
    known top card one rank higher (of its suit under Classic), a king that does not already
    head a column onto the first empty column.  No reserve deal, no pointless shuffle.
    """
    relaxed = meta[rules.M_RULES] == rules.RELAXED
    empty = -1
    for c in range(rules.N_COLUMNS):
        if lens[c] == 0:
            empty = c
            break
    k = 0
    for c in range(rules.N_COLUMNS):
        for d in range(fd[c], lens[c]):
            card = tab[c, d]
            if card < 0:
                continue
            if card % 13 == 12:
                if empty >= 0 and (d > 0 or fd[c] > 0):
                    out[k] = encode_move(card, empty)
                    k += 1
                continue
            for c2 in range(rules.N_COLUMNS):
                n = lens[c2]
                if c2 == c or n == 0:
                    continue
                top = tab[c2, n - 1]
                if top >= 0 and top % 13 == card % 13 + 1 and (relaxed or top // 13 == card // 13):
                    out[k] = encode_move(card, c2)
                    k += 1
    return k


@jit
def _best_follow_up(s, loc, nexts):
    """``(count, best gain)`` of the follow-ups of a view ``s`` ([`follow_ups`][]); gain 0 if
    none."""
    tab, lens, fd, _, meta, _ = s
    k = follow_ups(tab, lens, fd, meta, nexts)
    if k == 0:
        return 0, 0.0
    base = search.evaluate(s, loc)
    best = -1e18
    for j in range(k):
        rules.apply_action(s, nexts[j])
        gain = search.evaluate(s, loc) - base
        rules.undo(s)
        if gain > best:
            best = gain
    return k, best


@jit
def move_features(
    s: rules.StateArrays,
    legal: np.ndarray,
    k: int,
    visited: np.ndarray,
    n_visited: int,
    feats: np.ndarray,
    moves: np.ndarray,
) -> tuple[int, int]:
    """The candidates among ``legal[:k]`` and their features: returns ``(count, level)``.

    The position ``s`` must be a view (hidden cards `search.HIDDEN`; its history is scratch,
    e.g. `ScorpionView.state_arrays`); it is changed and restored.
    Writes the candidate moves to ``moves`` and their features to ``feats`` (one row each,
    room for ``k`` rows); ``visited[:n_visited]`` are the hashes of the positions seen.
    ``level`` is 0 when the loop-avoiding mask left candidates, 1 when only revisits were left,
    2 when only pointless king shuffles were (a learner in training gives such a game up).
    """
    tab, lens, fd, _, meta, _ = s
    loc = np.empty(rules.N_CARDS, np.int8)
    nexts = np.empty(rules.N_ACTIONS, np.int64)
    base = search.evaluate(s, loc)
    down = 0
    for c in range(rules.N_COLUMNS):
        down += fd[c]
    relaxed = meta[rules.M_RULES] == rules.RELAXED
    n = 0
    level = 0
    for level in range(3):  # 0: the loop-avoiding mask; 1: revisits allowed; 2: shuffles too
        for i in range(k):
            a = legal[i]
            if level < 2 and search.is_pointless(tab, lens, fd, meta, a):
                continue
            size = 0
            rank = 0
            src = -1
            link = 0.0
            king_to_empty = 0.0
            dest_down = 0.0
            dest_len = 0.0
            if a < rules.RESERVE_ACTION:
                card, dest = decode_move(a)
                src, start = rules.find_card(tab, lens, card)
                size = lens[src] - start
                rank = card % 13 + 1
                if start > fd[src]:
                    below = tab[src, start - 1]
                    if below >= 0 and below == card + 1 and below % 13 != 0:
                        link = 1.0
                if lens[dest] == 0:
                    king_to_empty = 1.0
                dest_down = fd[dest] / 3.0
                dest_len = lens[dest] / 13.0
            removed = meta[rules.M_REMOVED] + meta[rules.M_RUNS]
            before_down = down
            points = rules.apply_action(s, a)
            gain = search.evaluate(s, loc) - base
            revisit = _seen(search.position_hash(tab, lens, fd, meta), visited, n_visited)
            after_down = 0
            for c in range(rules.N_COLUMNS):
                after_down += fd[c]
            new_removed = meta[rules.M_REMOVED] + meta[rules.M_RUNS]
            src_left = lens[src] if src >= 0 else 1
            src_down = fd[src] if src >= 0 else 0
            src_up = src_left - src_down if src >= 0 else 0
            exposes = 0.0
            if src >= 0 and src_up > 0:
                exposes = _playable(tab, lens, int(tab[src, src_left - 1]), src, relaxed)
            n_next, next_gain = _best_follow_up(s, loc, nexts)
            empties = 0
            for c in range(rules.N_COLUMNS):
                empties += lens[c] == 0
            dealt = meta[rules.M_RESERVE_DEALT] != 0
            rules.undo(s)
            if level == 0 and revisit:
                continue
            f = feats[n]
            f[0] = gain / GAIN_SCALE
            f[1] = points / GAIN_SCALE
            f[2] = 1.0 if after_down < before_down else 0.0
            f[3] = 1.0 if new_removed > removed else 0.0
            f[4] = 1.0 if a == rules.RESERVE_ACTION else 0.0
            f[5] = king_to_empty
            f[6] = size / 13.0
            f[7] = rank / 13.0
            f[8] = 1.0 if src_left == 0 else 0.0
            f[9] = src_down / 3.0
            f[10] = link
            f[11] = 1.0 if revisit else 0.0
            f[12] = gain  # relative to the best candidate's gain, below
            f[13] = 1.0 if meta[rules.M_RESERVE_DEALT] else 0.0
            f[14] = down / FACE_DOWN_CARDS
            f[15] = meta[rules.M_MOVES] / 500.0
            f[16] = 0.0  # the number of candidates, below
            f[17] = 1.0
            f[18] = src_up / 13.0
            f[19] = dest_down
            f[20] = dest_len
            f[21] = exposes
            f[22] = n_next / 10.0
            f[23] = next_gain / GAIN_SCALE
            stuck = n_next == 0 and dealt and after_down == before_down
            f[24] = 1.0 if stuck else 0.0
            f[25] = empties / 7.0
            moves[n] = a
            n += 1
        if n > 0:
            break
    best = -1e18
    for i in range(n):
        if feats[i, 12] > best:
            best = feats[i, 12]
    for i in range(n):
        feats[i, 12] = (feats[i, 12] - best) / GAIN_SCALE
        feats[i, 16] = n / 40.0
    return n, level


@jit
def hide(tab: np.ndarray, fd: np.ndarray, reserve: np.ndarray, meta: np.ndarray) -> None:
    """Turn a full state (copies of its arrays) into the player's view of it, in place."""
    for c in range(rules.N_COLUMNS):
        for d in range(fd[c]):
            tab[c, d] = search.HIDDEN
    for i in range(3):
        if reserve[i] >= 0:
            reserve[i] = search.HIDDEN
    meta[rules.M_HIST_COUNT] = 0
    meta[rules.M_HIST_HEAD] = 0


@jit
def batch_features(
    arrays: rules.StateArrays,
    masks: np.ndarray,
    visited: np.ndarray,
    n_visited: np.ndarray,
    obs: np.ndarray,
    slots: np.ndarray,
    counts: np.ndarray,
    levels: np.ndarray,
) -> None:
    """Training observations of a batch of games (the batched env's state ``arrays``, full
    states; their histories are not read).

    Each game's view is scored as [`move_features`][] does; ``obs[i]`` gets the features of
    its first `N_SLOTS` candidates (zeros after), ``slots[i]`` their actions,
    ``counts[i]`` how many (0: no legal move) and ``levels[i]`` the level.  The position seen
    now is added to ``visited[i]`` first.
    """
    legal = np.empty(rules.N_ACTIONS, np.int64)
    feats = np.empty((rules.N_ACTIONS, N_FEATURES), np.float32)
    moves = np.empty(rules.N_ACTIONS, np.int64)
    hist = np.zeros((rules.HISTORY, rules.HIST_WIDTH), np.int32)  # scratch for the searches
    tab, lens, fd, reserve, meta, _ = arrays
    for i in range(tab.shape[0]):
        g_tab = tab[i].copy()
        g_lens = lens[i].copy()
        g_fd = fd[i].copy()
        g_res = reserve[i].copy()
        g_meta = meta[i].copy()
        h = search.position_hash(g_tab, g_lens, g_fd, g_meta)
        if not _seen(h, visited[i], n_visited[i]) and n_visited[i] < visited.shape[1]:
            visited[i, n_visited[i]] = h
            n_visited[i] += 1
        hide(g_tab, g_fd, g_res, g_meta)
        k = 0
        for a in range(rules.N_ACTIONS):
            if masks[i, a]:
                legal[k] = a
                k += 1
        view = (g_tab, g_lens, g_fd, g_res, g_meta, hist)
        m, levels[i] = move_features(view, legal, k, visited[i], n_visited[i], feats, moves)
        m = min(m, N_SLOTS)
        obs[i] = 0.0
        slots[i] = -1
        for j in range(m):
            obs[i, j] = feats[j]
            slots[i, j] = moves[j]
        counts[i] = m


def scores(net: Network, feats: np.ndarray) -> np.ndarray:
    """The policy's score (logit) of each row of ``feats`` (``float32[k, N_FEATURES]``)."""
    w_linear, w1, b1, w2, b2, w_out, b_out = net
    h = np.tanh(feats @ w1 + b1)
    h = np.tanh(h @ w2 + b2)
    return (feats @ w_linear + h @ w_out + b_out)[:, 0]


def shapes(hidden: int) -> dict[str, tuple[int, ...]]:
    """The shape of each weight array of a network with ``hidden`` units per hidden layer."""
    return {
        "w_linear": (N_FEATURES, 1),
        **weights.trunk_shapes(N_FEATURES, hidden),
        "w_out": (hidden, 1),
        "b_out": (1,),
    }


FORMAT = weights.NetworkFormat(WEIGHT_NAMES, shapes, WEIGHTS_FILE)
check = FORMAT.check  # the arrays as float32, shapes checked
save = FORMAT.save  # to an .npz file
load = FORMAT.load  # from an .npz file written by save
shipped = FORMAT.shipped  # the network in shell_envs/data/scorpion_network.npz
