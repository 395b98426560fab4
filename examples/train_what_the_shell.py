"""Train MaskablePPO at What the Shell against a growing pool of opponents; evaluate in matches.

First a warm start: the policy imitates the ``greedy`` agent (its set of best cells as the
target, the discounted outcome as the value target), then plays games itself and learns
greedy's choice in the positions it reached (DAgger, ``--dagger-rounds``); a sparse ±1 reward
alone teaches almost nothing against an opponent that wins in five rounds.  Then PPO: the
learner plays the single-agent env (``shell_envs/WhatTheShell-v0``, a random seat each game)
against an opponent drawn per game from a pool: the built-in ``random`` and ``greedy`` agents
and frozen earlier versions of itself.  Every ``--pool-every`` steps it plays a short match
against ``greedy``; when its score (win 1, draw 1/2) is a new best, that version is saved
under ``snapshots/`` and joins the pool.  At the end it plays ``--eval-games`` games against
``random`` and ``greedy`` with alternating seats, the tournament format of ``shell-envs
bench``, and reports win, draw and loss counts with Wilson 95% intervals.  It says what it
does first, and how far it has come every ``--progress-every`` seconds.  Writes ``model.zip``,
``results.json`` and ``learning_curve.png`` under ``--out`` (default
``runs/train_what_the_shell``); the model plays as an agent with
``shell_envs.integrations.sb3.load_agent(PATH)``::

    python examples/train_what_the_shell.py               # about 4 min on 2 cores
    python examples/train_what_the_shell.py --smoke --out /tmp/wts   # seconds, for tests

Needs the extra ``train`` (stable-baselines3, sb3-contrib, matplotlib).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numba
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

import shell_envs  # noqa: F401  (registers the Gymnasium ids)
from shell_envs.agents import Agent, WhatTheShellView, choose_action, make_agent
from shell_envs.bench.evaluation import MatchResult, play_match
from shell_envs.core.jit import compile_notice
from shell_envs.integrations.sb3 import (
    ProgressCallback,
    ProgressLines,
    WhatTheShellModelAgent,
    load_model,
)
from shell_envs.what_the_shell import search
from shell_envs.what_the_shell.encoders import encode_flat
from shell_envs.what_the_shell.env import WhatTheShellEnv

GAME = "what_the_shell"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; ``--smoke`` shrinks every budget to a few seconds."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--timesteps", type=int, default=200_000, help="PPO steps (all envs)")
    p.add_argument("--num-envs", type=int, default=8, help="games played side by side")
    p.add_argument("--imitate-games", type=int, default=600,
                   help="greedy games to imitate before PPO (0: no warm start)")  # fmt: skip
    p.add_argument("--imitate-epochs", type=int, default=15)
    p.add_argument("--dagger-rounds", type=int, default=3,
                   help="rounds of playing and relabelling with greedy's choices")  # fmt: skip
    p.add_argument("--n-steps", type=int, default=256, help="rollout length per env")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--ent-coef", type=float, default=0.0)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--pool-weights", type=float, nargs=3, default=(0.05, 0.6, 0.35),
                   metavar=("RANDOM", "GREEDY", "SNAPSHOTS"),
                   help="chance per game of each kind of opponent")  # fmt: skip
    p.add_argument("--pool-every", type=int, default=25_000, help="steps between pool checks")
    p.add_argument("--pool-games", type=int, default=40, help="games vs greedy per check")
    p.add_argument("--eval-games", type=int, default=400, help="final games per opponent")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch and numba threads")
    p.add_argument("--out", type=Path, default=Path("runs/train_what_the_shell"))
    p.add_argument("--progress-every", type=float, default=10.0,
                   help="seconds between progress lines")  # fmt: skip
    p.add_argument("--smoke", action="store_true", help="tiny budgets, for tests")
    args = p.parse_args(argv)
    if args.smoke:
        args.timesteps, args.num_envs, args.n_steps, args.batch_size = 256, 2, 64, 64
        args.n_epochs, args.pool_every, args.pool_games, args.eval_games = 1, 64, 2, 4
        args.imitate_games, args.imitate_epochs, args.dagger_rounds = 4, 1, 1
    return args


class OpponentPool:
    """An agent that is, each game, one opponent drawn from a pool.

    ``fixed`` (e.g. random and greedy, one instance per env) are drawn with ``weights[:-1]``;
    with probability ``weights[-1]`` the game is against one of ``snapshots``, a list shared
    by every env's pool and grown during training (uniformly among the latest five).
    """

    name = "pool"

    def __init__(self, fixed: list[Agent], snapshots: list[Agent], weights: tuple) -> None:
        self.fixed = fixed
        self.snapshots = snapshots
        self.weights = np.asarray(weights, np.float64)
        self.current: Agent = fixed[0]

    def reset(self, seed: int | None = None) -> None:
        """Draw this game's opponent (seeded by ``seed``) and reset it."""
        rng = np.random.default_rng(seed)
        weights = self.weights if self.snapshots else self.weights[:-1]
        kind = rng.choice(len(weights), p=weights / weights.sum())
        if kind < len(self.fixed):
            self.current = self.fixed[kind]
        else:
            recent = self.snapshots[-5:]
            self.current = recent[rng.integers(len(recent))]
        self.current.reset(int(rng.integers(2**31 - 1)))

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        """This game's opponent's move from an observation."""
        return int(self.current.act(observation, action_mask))

    def act_with_state(self, state: Any, action_mask: np.ndarray) -> int:
        """This game's opponent's move from the full position."""
        observation = encode_flat(state.board, state.eggs, state.meta, state.player)
        return choose_action(self.current, observation, action_mask, state)


class PoolCallback(BaseCallback):
    """Every ``every`` steps: a match against greedy; a new best score adds a snapshot."""

    def __init__(self, every: int, games: int, snapshots: list[Agent], folder: Path) -> None:
        super().__init__()
        self.every = every
        self.games = games
        self.snapshots = snapshots
        self.folder = folder
        self.curve: list[dict[str, Any]] = []
        self.best = -1.0
        self._next = every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next = self.num_timesteps + self.every
            self.check()
        return True

    def check(self) -> MatchResult:
        """Play the match, record the curve point, maybe freeze this version into the pool."""
        agent = WhatTheShellModelAgent(self.model, name="ppo")
        result = play_match(agent, "greedy", games=self.games, seed=len(self.curve) * 10_000)
        added = result.score > self.best
        if added:
            self.best = result.score
            path = self.folder / f"v{len(self.snapshots) + 1}_{self.num_timesteps}.zip"
            self.model.save(path)
            self.snapshots.append(WhatTheShellModelAgent(load_model(path), name=path.stem))
        self.curve.append(
            {"timesteps": self.num_timesteps, **result.as_dict(), "added_to_pool": added}
        )
        note = f" -> snapshot {len(self.snapshots)} joins the pool" if added else ""
        print(f"[{self.num_timesteps:>9} steps] {result}{note}", flush=True)
        return result


def imitation_data(
    learner: Agent, games: int, seed: int, gamma: float, tick: Callable[[int], None]
) -> list[np.ndarray]:
    """Positions ``learner`` reaches against greedy (3 games in 4) and random, labelled;
    ``tick(games_played)`` after each game.

    Returns ``[observations, masks, best, returns]``: ``best`` marks the cells greedy rates
    highest (its choice up to tie-breaking) and ``returns`` is the game's outcome for the
    learner discounted by the rounds left.
    """
    env = WhatTheShellEnv(obs_encoder="flat")
    opponents = [make_agent(GAME, "random", seed=seed), make_agent(GAME, "greedy", seed=seed)]
    scores = np.empty(81)
    observations, masks, bests, returns = [], [], [], []
    for game in range(games):
        opponent = opponents[min(game % 4, 1)]
        own = ("black", "white")[game % 2]
        learner.reset(seed + game)
        opponent.reset(seed + game + games)
        by_agent, _ = env.reset(seed=seed + game)
        seen: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        while env.agents:
            actions = {}
            for name in env.agents:
                view = WhatTheShellView.from_env(env, name)
                obs, mask = by_agent[name]["observation"], by_agent[name]["action_mask"]
                actions[name] = choose_action(learner if name == own else opponent, obs, mask, view)
                if name == own:
                    search.score_cells(
                        view.board.copy(), view.eggs.copy(), view.meta.copy(), view.player, scores
                    )
                    seen.append((obs, mask.astype(bool), scores >= scores.max() - 1e-9))
            by_agent, rewards, _, _, _ = env.step(actions)
        for t, (obs, mask, best) in enumerate(seen):
            observations.append(obs)
            masks.append(mask)
            bests.append(best)
            returns.append(rewards[own] * gamma ** (len(seen) - 1 - t))
        tick(game + 1)
    return [np.asarray(column) for column in (observations, masks, bests, returns)]


def imitate(model: MaskablePPO, data: list[np.ndarray], epochs: int, seed: int) -> float:
    """Fit the policy to greedy's best cells and the value to the outcomes; top-1 accuracy."""
    observations, masks, best, returns = data
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(epochs):
        hits = 0
        order = rng.permutation(len(observations))
        for start in range(0, len(order), 256):
            batch = order[start : start + 256]
            obs = torch.as_tensor(observations[batch], dtype=torch.float32)
            logits = policy.get_distribution(obs, action_masks=masks[batch]).distribution.logits
            log_p = torch.log_softmax(logits, -1)
            target = torch.as_tensor(best[batch])
            policy_loss = -torch.logsumexp(log_p.masked_fill(~target, -1e9), -1).mean()
            value = policy.predict_values(obs).flatten()
            value_loss = torch.nn.functional.mse_loss(
                value, torch.as_tensor(returns[batch], dtype=torch.float32)
            )
            optimizer.zero_grad()
            (policy_loss + 0.5 * value_loss).backward()
            optimizer.step()
            hits += int(best[batch, log_p.argmax(-1).numpy()].sum())
    return hits / max(len(observations), 1)


def warm_start(model: MaskablePPO, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Imitate greedy, then DAgger rounds; returns the accuracy and match of each round."""
    log = []
    tick = ProgressLines("[imitation 0] greedy's games", args.imitate_games, "games",
                  args.progress_every)  # fmt: skip
    data = imitation_data(make_agent(GAME, "greedy", seed=args.seed), args.imitate_games,
                          args.seed, args.gamma, tick)  # fmt: skip
    for round_ in range(args.dagger_rounds + 1):
        if round_:
            learner = WhatTheShellModelAgent(model, name="imitation")
            games = args.imitate_games // 2
            tick = ProgressLines(
                f"[imitation {round_}] own games", games, "games", args.progress_every
            )
            new = imitation_data(learner, games, args.seed + round_ * 10**5, args.gamma, tick)
            data = [np.concatenate([old, extra]) for old, extra in zip(data, new, strict=True)]
        epochs = args.imitate_epochs if round_ == 0 else max(1, args.imitate_epochs // 3)
        accuracy = imitate(model, data, epochs, args.seed + round_)
        match = play_match(WhatTheShellModelAgent(model, name="imitation"), "greedy",
                           games=args.pool_games, seed=round_)  # fmt: skip
        log.append({"round": round_, "positions": len(data[0]), "top1_in_best": accuracy,
                    **match.as_dict()})  # fmt: skip
        print(f"[imitation {round_}] {len(data[0])} positions, top-1 in greedy's best "
              f"{accuracy:.3f}; {match}", flush=True)  # fmt: skip
    return log


def make_env(pool: OpponentPool) -> gym.Env:
    """One single-agent env against ``pool``, with SB3's episode monitor."""
    return Monitor(gym.make("shell_envs/WhatTheShell-v0", opponent=pool, obs_encoder="flat"))


def plot_curve(curve: list[dict], path: Path) -> None:
    """Score, win and loss rate against greedy over training, with Wilson intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [point["timesteps"] for point in curve]
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, interval, label in (
        ("win_rate", "win_ci95", "win rate"),
        ("loss_rate", "loss_ci95", "loss rate"),
    ):
        ax.plot(steps, [point[key] for point in curve], marker="o", label=label)
        ax.fill_between(
            steps, [p[interval][0] for p in curve], [p[interval][1] for p in curve], alpha=0.2
        )
    ax.plot(steps, [point["score"] for point in curve], marker="s", label="score (draw = 1/2)")
    ax.axhline(0.5, color="grey", linestyle="--")
    ax.set_xlabel("training steps")
    ax.set_ylabel("against greedy")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title("What the Shell: MaskablePPO against greedy (95% intervals)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, evaluate, save; returns the results written to ``results.json``."""
    args = parse_args(argv)
    warm = (
        f"imitates greedy ({args.imitate_games:,} games, {args.dagger_rounds} DAgger rounds), "
        if args.imitate_games
        else ""
    )
    print(f"What the Shell, MaskablePPO: {warm}then {args.timesteps:,} PPO steps against a pool "
          f"of opponents; results in {args.out}", flush=True)  # fmt: skip
    compile_notice(search.score_cells, what="greedy's cell scores")
    torch.set_num_threads(args.threads)
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    snapshot_folder = args.out / "snapshots"
    snapshot_folder.mkdir(parents=True, exist_ok=True)
    snapshots: list[Agent] = []
    pools = [
        OpponentPool(
            [make_agent(GAME, "random", seed=args.seed + i), make_agent(GAME, "greedy", seed=i)],
            snapshots,
            tuple(args.pool_weights),
        )
        for i in range(args.num_envs)
    ]
    env = DummyVecEnv([lambda pool=pool: make_env(pool) for pool in pools])
    env.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.lr,
        ent_coef=args.ent_coef,
        gamma=args.gamma,
        policy_kwargs={"net_arch": [256, 256]},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    start = time.perf_counter()
    imitation = warm_start(model, args) if args.imitate_games else []
    imitation_s = time.perf_counter() - start
    callback = PoolCallback(args.pool_every, args.pool_games, snapshots, snapshot_folder)
    start = time.perf_counter()
    progress = ProgressCallback(args.timesteps, args.progress_every)
    model.learn(total_timesteps=args.timesteps, callback=CallbackList([callback, progress]))
    train_s = time.perf_counter() - start
    model.save(args.out / "model.zip")

    start = time.perf_counter()
    agent = WhatTheShellModelAgent(model, name="ppo")
    final = {
        name: play_match(agent, name, games=args.eval_games, seed=10**6)
        for name in ("random", "greedy")
    }
    eval_s = time.perf_counter() - start
    for result in final.values():
        print(result, flush=True)

    results = {
        "example": "train_what_the_shell",
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "timesteps": int(model.num_timesteps),
        "imitation_seconds": imitation_s,
        "train_seconds": train_s,
        "eval_seconds": eval_s,
        "steps_per_second": model.num_timesteps / train_s,
        "snapshots": [agent.name for agent in snapshots],
        "final": {name: result.as_dict() for name, result in final.items()},
        "imitation": imitation,
        "curve": callback.curve,
        "model": str(args.out / "model.zip"),
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    plot_curve(callback.curve, args.out / "learning_curve.png")
    print(
        f"imitation {imitation_s:.0f} s; PPO {model.num_timesteps} steps in {train_s:.0f} s "
        f"({model.num_timesteps / train_s:.0f} steps/s), {len(snapshots)} snapshots in the pool; "
        f"evaluation {eval_s:.0f} s; saved to {args.out}",
        flush=True,
    )
    return results


if __name__ == "__main__":
    main()
