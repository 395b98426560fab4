"""Train What the Shell's policy network (the ``learned`` agent) by distilling ``mcts``.

The ``learned`` agent plays a move without search, so its network must see tactics itself:
a small residual convolutional network (:mod:`shell_envs.what_the_shell.policy_network`)
learns ``mcts``'s choices.

1. **Self-play.**  ``--workers`` processes play ``mcts`` against itself for
   ``--selfplay-minutes`` (worker ``i`` searches ``--teacher-iterations[i]`` iterations a move,
   round-robin); every position keeps both players' root visit shares and the value target of
   the expert-iteration example (its ``play_game``).
2. **Fit.**  The network learns both move heads' visit shares (cross-entropy) and the value
   (``--steps`` AdamW steps, one-cycle learning rate, each position under a random board
   symmetry and colour swap; ``--bf16`` computes in bfloat16 autocast, the weights staying
   float32: 1.7 to 1.8 times as fast on CPUs with AVX512-BF16, see
   ``benchmarks/wts_policy_fit_speed.py``).
3. **DAgger** (off by default, ``--dagger-minutes 0``: with a 32-plane network it added 3.7
   points against ``mcts``, within the noise).  The fitted policy plays ``mcts`` for
   ``--dagger-minutes`` (a seat each game in turn; both sides' first 4 moves drawn, for
   variety) and every position it reaches is labelled by the search, for both players at once
   (the search is simultaneous); the network is fitted again, from scratch, on all positions.
   Imitation alone learns the positions ``mcts`` reaches against itself, not those the
   policy's own mistakes lead to.

Every ``--eval-every`` steps of a fit and after it, ``learned`` (its argmax, temperature 0)
plays ``--eval-games`` games (seats swapped) against each of three anchors of the bench's
fixed scale and is rated on it; the points, against training time, make the learning curve.
Writes ``wts_policy.npz`` (``make_agent("what_the_shell", "learned:weights=PATH")``),
``curve.json`` and ``learning_curve.png`` under ``--out`` (default
``runs/train_what_the_shell_policy``)::

    python examples/train_what_the_shell_policy.py   # 2 cores, about 95 minutes
    python examples/train_what_the_shell_policy.py --smoke --out /tmp/policy   # seconds

Needs the extra ``train`` (torch) and matplotlib.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the expert-iteration example
import train_what_the_shell_alphazero as az  # noqa: E402

from shell_envs.agents.what_the_shell import LearnedAgent  # noqa: E402
from shell_envs.what_the_shell import network, policy_network, rules, search  # noqa: E402

CELLS = rules.CELLS
ANCHORS = ("greedy", "mcts-100", "mcts-400")
DAGGER_OPENING = 4  # rounds in which DAgger games draw both sides' moves, for variety


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; ``--smoke`` shrinks every budget to a few seconds."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--workers", type=int, default=2, help="processes playing games")
    p.add_argument("--selfplay-minutes", type=float, default=30.0)
    p.add_argument("--teacher-iterations", type=int, nargs="+", default=[400, 1600],
                   help="mcts iterations a move, per self-play worker (round-robin)")  # fmt: skip
    p.add_argument("--dagger-minutes", type=float, default=0.0, help="0: no DAgger stage")
    p.add_argument("--dagger-iterations", type=int, nargs="+", default=[400, 800])
    p.add_argument("--channels", type=int, default=64)
    p.add_argument("--blocks", type=int, default=6)
    p.add_argument("--steps", type=int, default=16_000, help="Adam steps per fit")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3, help="the one-cycle schedule's peak")
    p.add_argument("--threads", type=int, default=2, help="torch threads while fitting")
    p.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=False,
                   help="fit in bfloat16 autocast (weights stay float32; 1.7 to 1.8 times as "
                   "fast on CPUs with AVX512-BF16)")  # fmt: skip
    p.add_argument("--eval-games", type=int, default=20, help="per anchor, seats swapped")
    p.add_argument("--eval-every", type=int, default=4_000,
                   help="also rate the network every this many steps of a fit")  # fmt: skip
    p.add_argument("--max-rounds", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("runs/train_what_the_shell_policy"))
    p.add_argument("--smoke", action="store_true", help="tiny budgets, for tests")
    args = p.parse_args(argv)
    if args.smoke:
        args.selfplay_minutes = args.dagger_minutes = 0.03
        args.teacher_iterations, args.dagger_iterations = [20], [20]
        args.workers, args.channels, args.blocks, args.steps, args.eval_every = 1, 4, 1, 5, 2
        args.batch, args.eval_games, args.max_rounds = 16, 2, 30
    return args


class Net(torch.nn.Module):
    """The torch twin of :func:`policy_network.forward` (same layers, same weight layout)."""

    def __init__(self, channels: int, blocks: int) -> None:
        super().__init__()
        self.inp = torch.nn.Conv2d(policy_network.IN_PLANES, channels, 3, padding=1)
        self.mid = torch.nn.ModuleList(
            [torch.nn.Conv2d(channels, channels, 3, padding=1) for _ in range(blocks)]
        )
        self.policy = torch.nn.Conv2d(channels, 2, 1)
        self.value = torch.nn.Linear(channels, 1)
        self.channels, self.blocks = channels, blocks

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Features ``[B, N_FEATURES]`` to logits ``[B, 162]`` and the value logit ``[B]``."""
        h = torch.relu(self.inp(planes(x)))
        for conv in self.mid:
            h = h + torch.relu(conv(h))
        logits, value = self.policy(h).flatten(1), self.value(h.mean((2, 3))).squeeze(-1)
        return logits.float(), value.float()  # float32 even under bfloat16 autocast

    def export(self) -> policy_network.Network:
        """The weights in :mod:`policy_network`'s layout."""

        def arr(t: torch.Tensor) -> np.ndarray:
            return t.detach().cpu().numpy().astype(np.float32)

        c = self.channels
        return policy_network.check(
            (
                arr(self.inp.weight),
                arr(self.inp.bias),
                np.stack([arr(m.weight) for m in self.mid])
                if self.blocks
                else np.zeros((0, c, c, 3, 3)),
                np.stack([arr(m.bias) for m in self.mid]) if self.blocks else np.zeros((0, c)),
                arr(self.policy.weight)[:, :, 0, 0],
                arr(self.policy.bias),
                arr(self.value.weight),
                arr(self.value.bias),
            )
        )


def planes(x: torch.Tensor) -> torch.Tensor:
    """Features ``[B, N_FEATURES]`` as ``[B, IN_PLANES, 9, 9]``: the window evaluation spread."""
    b = x.shape[0]
    grid = x[:, : network.N_PLANES * CELLS].reshape(b, network.N_PLANES, rules.SIZE, rules.SIZE)
    evaluation = x[:, -1].reshape(b, 1, 1, 1).expand(b, 1, rules.SIZE, rules.SIZE)
    return torch.cat([grid, evaluation], 1)


def policy_player(
    policy: policy_network.Network, side: int, rng: np.random.Generator
) -> Callable[[np.ndarray, np.ndarray, np.ndarray, bool], int]:
    """The policy as ``side``'s stand-in in :func:`az.play_game`: its best legal cell, drawn
    from the softmax of its logits in the opening rounds."""
    player = rules.BLACK if side == 0 else rules.WHITE
    x = np.empty(network.N_FEATURES, np.float32)
    logits = np.empty(network.N_LOGITS, np.float32)

    def choose(board: np.ndarray, eggs: np.ndarray, meta: np.ndarray, opening: bool) -> int:
        search.net_features(board.copy(), eggs.copy(), meta.copy(), player, x)
        policy_network.forward(policy, x, logits)
        own = np.where(board == rules.EMPTY, logits[:CELLS].astype(np.float64), -np.inf)
        if opening:
            p = np.exp(own - own.max())
            return int(rng.choice(CELLS, p=p / p.sum()))
        return int(np.argmax(own))

    return choose


def worker(
    job: tuple[str, int, float, int, policy_network.Network | None, int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Games for ``minutes``: ``mcts`` self-play (``kind="selfplay"``) or the policy against
    ``mcts`` (``"dagger"``), at ``iterations`` a move; the positions and the game count."""
    kind, iterations, minutes, seed, policy, max_rounds = job
    rng = np.random.default_rng(seed)
    options = az.parse_args(["--imitation-iterations", str(iterations)])
    options.max_rounds = max_rounds
    if kind == "dagger":
        options.sample_rounds = DAGGER_OPENING
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    deadline = time.perf_counter() + 60.0 * minutes
    while time.perf_counter() < deadline or not out:
        side = len(out) % 2
        stand_in = None if kind == "selfplay" else (side, policy_player(policy, side, rng))
        out.append(az.play_game(None, options, rng, stand_in))
    x, pi, z = (np.concatenate(parts) for parts in zip(*out, strict=True))
    return x, pi, z, len(out)


def play(
    kind: str,
    args: argparse.Namespace,
    minutes: float,
    budgets: list[int],
    policy: policy_network.Network | None,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Positions from ``args.workers`` processes playing ``kind`` games for ``minutes``."""
    jobs = [
        (kind, budgets[i % len(budgets)], minutes, seed + i, policy, args.max_rounds)
        for i in range(args.workers)
    ]
    if args.workers == 1:
        parts = [worker(jobs[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            parts = pool.map(worker, jobs)
    x, pi, z = (np.concatenate([p[i] for p in parts]) for i in range(3))
    return x, pi, z, sum(p[3] for p in parts)


def fit(
    data: az.Replay, args: argparse.Namespace, checkpoint: Callable[[Net, int, float], None]
) -> tuple[Net, float]:
    """A network fitted from scratch on ``data``; the last batch's loss.  Every
    ``--eval-every`` steps before the last, ``checkpoint(model, step, loss)`` sees it."""
    torch.manual_seed(args.seed)
    model = Net(args.channels, args.blocks)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps)
    loss = torch.zeros(())
    for step in range(1, args.steps + 1):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            policy, v = az.loss_terms(model, *data.batch(args.batch))
        loss = (policy + v).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        schedule.step()
        if step % args.eval_every == 0 and step < args.steps:
            checkpoint(model, step, float(loss.detach()))
    return model, float(loss.detach())


class Clock:
    """Training time: seconds since it was made, less those spent in :meth:`paused`."""

    def __init__(self) -> None:
        self.start, self.excluded = time.perf_counter(), 0.0

    def seconds(self) -> float:
        """Training seconds so far."""
        return time.perf_counter() - self.start - self.excluded

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """A block whose seconds are not training (evaluation)."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self.excluded += time.perf_counter() - began


def record(
    curve: list[dict[str, Any]],
    clock: Clock,
    stage: dict[str, Any],
    seed: int,
    args: argparse.Namespace,
    model: Net,
    step: int,
    loss: float,
) -> policy_network.Network:
    """Rate ``model`` (after ``step`` steps of ``stage``'s fit) on the scale, its argmax
    against :data:`ANCHORS`, off the clock; add the point to ``curve``; return its weights."""
    with clock.paused():
        point = {**stage, "step": step, "train_seconds": clock.seconds(), "loss": loss}
        net = model.export()
        point["learned"] = az.rate(
            lambda: LearnedAgent(net=net, temperature=0.0), ANCHORS, args.eval_games,
            seed + step, args.max_rounds,
        )  # fmt: skip
        curve.append(point)
        print(json.dumps(point), flush=True)
    return net


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Self-play, fit, DAgger, fit; rate during and after each fit; save.  Returns
    ``curve.json``'s summary."""
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    clock = Clock()  # playing and fitting; evaluation not counted
    data = az.Replay(10**9, np.random.default_rng(args.seed))
    curve: list[dict[str, Any]] = []
    net = None  # the last fit's network: the DAgger stage's policy
    stages = (
        ("selfplay", args.selfplay_minutes, args.teacher_iterations),
        ("dagger", args.dagger_minutes, args.dagger_iterations),
    )
    for k, (kind, minutes, budgets) in enumerate(stages):
        if minutes <= 0:
            continue
        x, pi, z, games = play(kind, args, minutes, budgets, net, args.seed + 100 * k)
        data.add(x, pi, z)
        stage = {"stage": kind, "games": games, "positions": len(data.z)}
        checkpoint = functools.partial(record, curve, clock, stage, 1000 * k, args)
        model, loss = fit(data, args, checkpoint)
        net = checkpoint(model, args.steps, loss)
        policy_network.save(net, args.out / f"wts_policy_{kind}.npz")  # each stage's network
        policy_network.save(net, args.out / policy_network.WEIGHTS_FILE)
    summary = {"args": {k: str(v) for k, v in vars(args).items()}, "curve": curve}
    (args.out / "curve.json").write_text(json.dumps(summary, indent=1))
    az.plot(curve, args.out / "learning_curve.png", ("learned",), f"{args.workers} cores")
    return summary


if __name__ == "__main__":
    main()
