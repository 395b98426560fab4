"""Train What the Shell's learned agent by expert iteration (AlphaZero-style) and rate it.

The network (:mod:`shell_envs.what_the_shell.network`: a two-layer perceptron over the
observation planes and the heuristic cell values, with a move head for each player and a
value head) is trained on positions from games played by a search:

1. **Round 0, imitation.**  The built-in ``mcts`` (``--imitation-iterations`` a move) plays
   itself for a share of the budget (``--imitation-share``); the network learns the search's
   root visit shares, both players', and the games' outcomes.
2. **Expert iteration.**  Then, until the budget is spent, the search guided by the current
   network (:func:`search.run_guided_search`: PUCT for each player separately, the network's
   priors at every node and its value at the leaves) plays itself ``--games-per-round``
   games with Dirichlet noise on the root priors and moves drawn from the visit shares for
   the first ``--sample-rounds`` rounds; the network trains on the newest ``--window``
   positions (each seen under a random symmetry of the board and a random colour swap),
   the value towards a mix of the search's root value and the outcome (``--q-weight``).

Every ``--eval-every`` seconds of training the agents play ``--eval-games`` games against each
of three anchors of the bench's fixed scale (seats swapped) and are rated on it
(:func:`shell_envs.bench.scale.rate_on_scale`); the points make the learning curve.  Writes
``wts_network.npz`` (load it with ``make_agent("what_the_shell", "learned:weights=PATH")``),
``curve.json`` and ``learning_curve.png`` under ``--out`` (default
``runs/train_what_the_shell_alphazero``)::

    python examples/train_what_the_shell_alphazero.py --minutes 60   # 1 core, 1 h
    python examples/train_what_the_shell_alphazero.py --smoke --out /tmp/az        # seconds

One process, one torch thread.  Needs the extra ``train`` (torch) and matplotlib.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from shell_envs.agents.what_the_shell import GuidedMCTSAgent, LearnedAgent
from shell_envs.bench.games import play_what_the_shell
from shell_envs.bench.scale import anchor_table, finite_or_none, rate_on_scale
from shell_envs.what_the_shell import network, rules, search

CELLS = rules.CELLS
EVAL_ANCHORS = {
    "learned": ("greedy", "mcts-100", "mcts-400"),
    "mcts-learned": ("mcts-100", "mcts-400", "mcts-1600"),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; ``--smoke`` shrinks every budget to a few seconds."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--minutes", type=float, default=60.0,
                   help="budget: self-play and learning (evaluation not counted)")  # fmt: skip
    p.add_argument("--imitation-share", type=float, default=0.15)
    p.add_argument("--imitation-iterations", type=int, default=400)
    p.add_argument("--iterations", type=int, default=160, help="guided search per self-play move")
    p.add_argument("--candidates", type=int, default=8)
    p.add_argument("--c-puct", type=float, default=1.5)
    p.add_argument("--games-per-round", type=int, default=40)
    p.add_argument("--steps-per-round", type=int, default=600)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--window", type=int, default=80_000, help="replay positions kept")
    p.add_argument("--sample-rounds", type=int, default=8)
    p.add_argument("--dirichlet", type=float, default=0.5, help="root noise concentration")
    p.add_argument("--noise", type=float, default=0.25, help="root noise share")
    p.add_argument("--q-weight", type=float, default=0.5,
                   help="value target: share of the root's search value")  # fmt: skip
    p.add_argument("--max-rounds", type=int, default=200)
    p.add_argument("--eval-every", type=float, default=600.0, help="training seconds")
    p.add_argument("--eval-games", type=int, default=10, help="per anchor, seats swapped")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("runs/train_what_the_shell_alphazero"))
    p.add_argument("--smoke", action="store_true", help="tiny budgets, for tests")
    args = p.parse_args(argv)
    if args.smoke:
        args.minutes, args.imitation_iterations, args.iterations = 0.05, 20, 16
        args.games_per_round, args.steps_per_round, args.batch = 2, 5, 32
        args.hidden, args.eval_every, args.eval_games, args.max_rounds = 16, 1e9, 2, 30
    return args


def symmetries() -> np.ndarray:
    """``[8, 81]`` cell permutations of the board's symmetries: ``new = old[perm]``."""
    grid = np.arange(CELLS).reshape(rules.SIZE, rules.SIZE)
    out = []
    for k in range(4):
        turned = np.rot90(grid, k)
        out += [turned.ravel(), turned.T.ravel()]
    return np.array(out)


class Net(torch.nn.Module):
    """The torch twin of :func:`network.forward` (same layers, same weight layout)."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.l1 = torch.nn.Linear(network.N_FEATURES, hidden)
        self.l2 = torch.nn.Linear(hidden, hidden)
        self.policy = torch.nn.Linear(hidden, network.N_LOGITS)
        self.value = torch.nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``[B, 162]`` and the value logit ``[B]`` (sigmoid: the winning chance)."""
        h = torch.relu(self.l2(torch.relu(self.l1(x))))
        return self.policy(h), self.value(h).squeeze(-1)

    def export(self) -> network.Network:
        """The weights in :mod:`network`'s layout (``x @ w + b``)."""

        def arr(t: torch.Tensor) -> np.ndarray:
            return t.detach().cpu().numpy().astype(np.float32)

        return network.check(
            (
                arr(self.l1.weight.T),
                arr(self.l1.bias),
                arr(self.l2.weight.T),
                arr(self.l2.bias),
                arr(self.policy.weight.T),
                arr(self.policy.bias),
                arr(self.value.weight.T),
                arr(self.value.bias),
            )
        )


def _visit_shares(tree: tuple[np.ndarray, ...], side: int) -> np.ndarray:
    """The root's visit shares of ``side`` over the 81 cells."""
    n = int(tree[search.T_N_CANDIDATES][0, side])
    visits = tree[search.T_VISITS][0, side, :n]
    shares = np.zeros(CELLS, np.float32)
    shares[tree[search.T_CANDIDATES][0, side, :n]] = visits / max(visits.sum(), 1.0)
    return shares


def play_game(
    net: network.Network | None,
    args: argparse.Namespace,
    rng: np.random.Generator,
    stand_in: tuple[int, Callable[[np.ndarray, np.ndarray, np.ndarray, bool], int]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One self-play game: features (black's view), both sides' visit shares, value targets.

    A position's value target mixes black's mean value at the search root and the outcome.

    ``net`` None: the built-in ``mcts`` plays (imitation); else the guided search.  With
    ``stand_in`` = ``(side, choose)``, ``choose(board, eggs, meta, opening)`` picks that side's
    cells instead (``opening``: within the first ``--sample-rounds`` rounds), while the search
    still labels every position for both sides (DAgger).
    """
    board, eggs, meta = rules.new_state()
    iterations = args.imitation_iterations if net is None else args.iterations
    k = 6 if net is None else args.candidates
    tree = search.new_tree(iterations + 1, k)
    info = np.zeros(rules.INFO_SIZE, np.int32)
    everywhere = np.ones(CELLS, np.bool_)
    xs, pis, qs = [], [], []
    while meta[rules.OUTCOME] == rules.ONGOING and meta[rules.ROUNDS] < args.max_rounds:
        rules.seed_numba(int(rng.integers(2**31)))
        if net is None:
            search.init_root(tree, board.copy(), eggs.copy(), meta.copy(), everywhere)
            search.run_search(tree, iterations, search.UCB, 0.35, 0.1)
        else:
            search.init_guided_root(tree, board.copy(), eggs.copy(), meta.copy(), everywhere,
                                    net, False, 0.0, search.NETWORK_CANDIDATES)  # fmt: skip
            priors = tree[search.T_PRIORS]
            for side in range(2):
                n = int(tree[search.T_N_CANDIDATES][0, side])
                noise = rng.dirichlet(np.full(n, args.dirichlet))
                priors[0, side, :n] = (1 - args.noise) * priors[0, side, :n] + args.noise * noise
            search.run_guided_search(tree, iterations, net, False, search.PUCT, args.c_puct, 0.0,
                                     search.NETWORK_CANDIDATES)  # fmt: skip
        x = np.empty(network.N_FEATURES, np.float32)
        search.net_features(board.copy(), eggs.copy(), meta.copy(), rules.BLACK, x)
        shares = [_visit_shares(tree, side) for side in range(2)]
        root_visits = max(tree[search.T_NODE_VISITS][0], 1.0)
        qs.append(tree[search.T_VALUES][0, 0].sum() / root_visits)
        xs.append(x)
        pis.append(np.concatenate(shares))
        cells = []
        opening = bool(meta[rules.ROUNDS] < args.sample_rounds)
        for side, pi in enumerate(shares):
            if stand_in is not None and side == stand_in[0]:
                cells.append(stand_in[1](board, eggs, meta, opening))
            elif opening:
                cells.append(int(rng.choice(CELLS, p=pi / pi.sum())))
            else:
                cells.append(int(rng.choice(np.flatnonzero(pi >= pi.max()))))
        rules.step(board, eggs, meta, cells[0], cells[1], info)
    z = {rules.BLACK_WINS: 1.0, rules.WHITE_WINS: 0.0}.get(int(meta[rules.OUTCOME]), 0.5)
    target = args.q_weight * np.array(qs) + (1 - args.q_weight) * z
    return np.array(xs), np.array(pis), target.astype(np.float32)


class Replay:
    """The newest ``size`` positions; batches come under random symmetries and colour swaps."""

    def __init__(self, size: int, rng: np.random.Generator) -> None:
        self.size, self.rng = size, rng
        self.x = np.empty((0, network.N_FEATURES), np.float32)
        self.pi = np.empty((0, network.N_LOGITS), np.float32)
        self.z = np.empty(0, np.float32)
        perms = symmetries()
        planes = network.N_PLANES
        # feature permutations: each plane by the cell permutation, the scalar kept
        scalar = [[planes * CELLS]]
        self.x_perm = np.array(
            [np.concatenate([p + i * CELLS for i in range(planes)] + scalar) for p in perms]
        )
        self.pi_perm = np.array([np.concatenate([p, p + CELLS]) for p in perms])

    def add(self, x: np.ndarray, pi: np.ndarray, z: np.ndarray) -> None:
        """Append positions, dropping the oldest beyond the window."""
        self.x = np.concatenate([self.x, x])[-self.size :]
        self.pi = np.concatenate([self.pi, pi])[-self.size :]
        self.z = np.concatenate([self.z, z])[-self.size :]

    def batch(self, n: int) -> tuple[torch.Tensor, ...]:
        """``n`` random positions: features, move targets, outcome values, legal masks."""
        idx = self.rng.integers(len(self.z), size=n)
        s = self.rng.integers(8)
        x = self.x[idx][:, self.x_perm[s]]
        pi = self.pi[idx][:, self.pi_perm[s]]
        z = self.z[idx]
        if self.rng.random() < 0.5:  # colour swap: white's view, white's targets first
            x = x.copy()
            for a, b in ((0, 1), (5, 6)):
                x[:, a * CELLS : (a + 1) * CELLS], x[:, b * CELLS : (b + 1) * CELLS] = (
                    x[:, b * CELLS : (b + 1) * CELLS].copy(),
                    x[:, a * CELLS : (a + 1) * CELLS].copy(),
                )
            x[:, -1] = -x[:, -1]
            pi = np.concatenate([pi[:, CELLS:], pi[:, :CELLS]], axis=1)
            z = 1.0 - z
        legal = (x[:, : 3 * CELLS].reshape(n, 3, CELLS).sum(1) == 0).astype(np.float32)
        return tuple(torch.from_numpy(np.ascontiguousarray(a)) for a in (x, pi, z, legal))


def loss_terms(
    model: torch.nn.Module, x: torch.Tensor, pi: torch.Tensor, z: torch.Tensor, legal: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per position: both move heads' cross-entropy to the visit shares ``pi`` (illegal cells
    masked) and the value's binary cross-entropy to ``z``."""
    logits, value = model(x)
    mask = torch.cat([legal, legal], 1) > 0
    logits = logits.masked_fill(~mask, -1e9)
    own = torch.log_softmax(logits[:, :CELLS], 1)
    theirs = torch.log_softmax(logits[:, CELLS:], 1)
    policy = -(pi[:, :CELLS] * own).sum(1) - (pi[:, CELLS:] * theirs).sum(1)
    v = torch.nn.functional.binary_cross_entropy_with_logits(value, z, reduction="none")
    return policy, v


def train_steps(
    model: Net, opt: torch.optim.Optimizer, replay: Replay, steps: int, batch: int
) -> float:
    """``steps`` Adam steps on both move heads' cross-entropy and the value's; the last loss."""
    loss = torch.zeros(())
    for _ in range(steps):
        policy, v = loss_terms(model, *replay.batch(batch))
        loss = (policy + 2.0 * v).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(loss.detach())


def rate(make: Any, anchors: tuple[str, ...], games: int, seed: int, max_rounds: int) -> dict:
    """Rate the agents ``make()`` builds on the fixed scale from ``games`` games (seats
    swapped) against each of ``anchors``: the rating, its interval and the scores."""
    table = anchor_table()
    scores: dict[str, np.ndarray] = {}
    for anchor in anchors:
        results = []
        for g in range(games):
            agent, spec = make(), table[anchor].agent
            black, white = (agent, spec) if g % 2 == 0 else (spec, agent)
            record, _ = play_what_the_shell(black, white, seed + g, max_rounds)
            black_score = (record["outcome"] + 1) / 2
            results.append(black_score if g % 2 == 0 else 1 - black_score)
        scores[anchor] = np.array(results)
    rating, (low, high) = rate_on_scale(scores, table)
    return {
        "rating": finite_or_none(rating),
        "ci": [finite_or_none(low), finite_or_none(high)],
        "scores": {k: float(v.mean()) for k, v in scores.items()},
    }


def evaluate(net: network.Network, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """Rate ``learned`` and ``mcts-learned`` on the fixed scale from a few games per anchor.

    ``learned`` plays its argmax throughout (temperature 0) and ``mcts-learned`` is rated as
    self-play searches: guided by the network alone, without the blends with ``mcts``'s
    heuristics that the shipped agent uses by default.
    """
    makers = {
        "learned": lambda: LearnedAgent(net=net, temperature=0.0),
        "mcts-learned": lambda: GuidedMCTSAgent(
            net=net,
            candidates=args.candidates,
            c_puct=args.c_puct,
            mix=0.0,
            candidates_from="network",
        ),
    }
    return {
        label: rate(make, EVAL_ANCHORS[label], args.eval_games, seed, args.max_rounds)
        for label, make in makers.items()
    }


def plot(
    curve: list[dict[str, Any]],
    path: Path,
    labels: tuple[str, ...] = tuple(EVAL_ANCHORS),
    cores: str = "one core",
) -> None:
    """The learning curve: each agent's rating on the fixed scale against training minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    minutes = [p["train_seconds"] / 60 for p in curve]
    for label in labels:
        r = np.array([p[label]["rating"] for p in curve], float)  # a missing value (None): nan
        ci = np.array([p[label]["ci"] for p in curve], float).reshape(-1, 2)
        ax.errorbar(minutes, r, yerr=[r - ci[:, 0], ci[:, 1] - r], marker="o", capsize=3,
                    label=label)  # fmt: skip
    for anchor in anchor_table().anchors[1:]:
        ax.axhline(anchor.rating, color="grey", lw=0.6, ls=":")
        ax.text(0.01, anchor.rating, anchor.label, fontsize=7, color="grey", va="bottom",
                transform=ax.get_yaxis_transform())  # fmt: skip
    ax.set_xlabel(f"training time (minutes, {cores})")
    ax.set_ylabel("rating on the fixed scale (Elo)")
    ax.legend()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, rate and save; returns the summary written to ``curve.json``."""
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = Net(args.hidden)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    replay = Replay(args.window, rng)
    budget = args.minutes * 60.0
    trained = 0.0  # seconds of self-play and learning
    curve: list[dict[str, Any]] = []
    last_eval = 0.0
    games = positions = rounds = 0
    loss = float("nan")

    def record_point() -> None:
        net = model.export()
        point = {"train_seconds": trained, "games": games, "positions": positions, "loss": loss}
        point.update(evaluate(net, args, seed=1000 * len(curve)))
        curve.append(point)
        network.save(net, args.out / "wts_network.npz")
        print(json.dumps(point), flush=True)

    while trained < budget:
        start = time.perf_counter()
        imitating = trained < args.imitation_share * budget
        net = None if imitating else model.export()
        for _ in range(args.games_per_round):
            x, pi, z = play_game(net, args, rng)
            replay.add(x, pi, z)
            games += 1
            positions += len(z)
        loss = train_steps(model, opt, replay, args.steps_per_round, args.batch)
        rounds += 1
        trained += time.perf_counter() - start
        print(f"round {rounds} {'imitation' if imitating else 'self-play'}: {games} games, "
              f"{positions} positions, loss {loss:.3f}, {trained:.0f}s", flush=True)  # fmt: skip
        if trained - last_eval >= args.eval_every:
            record_point()
            last_eval = trained
    if not curve or last_eval != trained:
        record_point()
    summary = {"args": {k: str(v) for k, v in vars(args).items()}, "curve": curve}
    (args.out / "curve.json").write_text(json.dumps(summary, indent=1))
    plot(curve, args.out / "learning_curve.png")
    return summary


if __name__ == "__main__":
    main()
