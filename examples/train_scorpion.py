"""Train MaskablePPO on Scorpion with the batched env; evaluate against the built-in agents.

The learner plays ``--num-envs`` games side by side in one compiled loop
(:class:`shell_envs.integrations.sb3.ScorpionVecEnv`) with the legal-move masks of every game,
on the default ``"tableau"`` observations and the score as reward.  Every ``--eval-every``
steps it plays the evaluation deals on the batched env (a quick learning curve).  At the end
the model, the built-in ``random`` and ``greedy`` agents all play the same deals in the format
of ``shell-envs bench`` (its deal numbers, move cap and end rules).  The policy samples its
moves: its single most likely move has no memory and can cycle (``--deterministic`` to see).
Writes ``model.zip``, ``results.json`` and ``learning_curve.png`` under ``--out``::

    python examples/train_scorpion.py --timesteps 300000
    python examples/train_scorpion.py --smoke --out /tmp/scorpion   # seconds, for tests

Needs the extra ``train`` (stable-baselines3, sb3-contrib, matplotlib).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecMonitor, VecNormalize

from shell_envs.agents import PolicyAgent
from shell_envs.bench.patience import MAX_MOVES, deal_numbers
from shell_envs.integrations.evaluation import ScorpionResult, play_scorpion
from shell_envs.integrations.sb3 import ScorpionVecEnv, evaluate_scorpion_model

BASELINES = ("random", "greedy")
TRAIN_DEALS = 2**40  # training starts from deal numbers far from the bench's 0, 1, 2, ...


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; ``--smoke`` shrinks every budget to a few seconds."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--timesteps", type=int, default=300_000, help="training steps (all games)")
    p.add_argument("--num-envs", type=int, default=16, help="games stepped together")
    p.add_argument("--n-steps", type=int, default=256, help="rollout length per game")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--rules", choices=("classic", "relaxed"), default="classic")
    p.add_argument("--reward", choices=("score", "win"), default="score")
    p.add_argument("--max-moves", type=int, default=MAX_MOVES, help="moves before truncation")
    p.add_argument("--eval-every", type=int, default=50_000, help="steps between evaluations")
    p.add_argument("--eval-deals", type=int, default=200, help="evaluation deals (the bench's)")
    p.add_argument("--deterministic", action="store_true", help="evaluate the most likely moves")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch and numba threads")
    p.add_argument("--out", type=Path, default=Path("results/scorpion_ppo"))
    p.add_argument("--smoke", action="store_true", help="tiny budgets, for tests")
    args = p.parse_args(argv)
    if args.smoke:
        args.timesteps, args.num_envs, args.n_steps, args.batch_size = 256, 4, 32, 64
        args.n_epochs, args.eval_every, args.eval_deals, args.max_moves = 1, 128, 4, 60
    return args


class EvalCallback(BaseCallback):
    """Evaluate the policy on the held-out deals every ``every`` steps and record the curve."""

    def __init__(
        self, every: int, deals: list[int], deterministic: bool, env_kwargs: dict[str, Any]
    ) -> None:
        super().__init__()
        self.every = every
        self.deals = deals
        self.deterministic = deterministic
        self.env_kwargs = env_kwargs
        self.curve: list[dict[str, Any]] = []
        self._next = 0

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self.evaluate()
            self._next = self.num_timesteps + self.every
        return True

    def _on_training_end(self) -> None:
        if not self.curve or self.curve[-1]["timesteps"] != self.num_timesteps:
            self.evaluate()

    def evaluate(self) -> ScorpionResult:
        """One evaluation point: win rate and mean score on the held-out deals."""
        result = evaluate_scorpion_model(
            self.model, self.deals, deterministic=self.deterministic, **self.env_kwargs
        )
        self.curve.append({"timesteps": self.num_timesteps, **result.as_dict()})
        print(f"[{self.num_timesteps:>9} steps] {result}", flush=True)
        return result


def plot_curve(curve: list[dict], baselines: dict[str, dict], path: Path) -> None:
    """Win rate and mean score against training steps, the built-in agents as flat lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [point["timesteps"] for point in curve]
    fig, (ax_score, ax_win) = plt.subplots(1, 2, figsize=(10, 4))
    panels = ((ax_score, "mean_score", "score_ci95"), (ax_win, "win_rate", "win_ci95"))
    for ax, key, interval in panels:
        ax.plot(steps, [point[key] for point in curve], marker="o", label="MaskablePPO")
        lo = [point[interval][0] for point in curve]
        hi = [point[interval][1] for point in curve]
        ax.fill_between(steps, lo, hi, alpha=0.2)
        for (name, result), style in zip(baselines.items(), ("--", ":"), strict=False):
            ax.axhline(result[key], color="grey", linestyle=style, label=name)
        ax.set_xlabel("training steps")
        ax.set_ylabel(key.replace("_", " "))
        ax.legend()
    fig.suptitle("Scorpion: MaskablePPO on held-out deals (95% intervals)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, evaluate, save; returns the results written to ``results.json``."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    args.out.mkdir(parents=True, exist_ok=True)
    env_kwargs = {"rules": args.rules, "reward": args.reward, "max_moves": args.max_moves}
    deals = deal_numbers(args.eval_deals)

    venv = ScorpionVecEnv(args.num_envs, **env_kwargs)
    venv.seed(TRAIN_DEALS + args.seed * args.num_envs)
    env = VecNormalize(
        VecMonitor(venv, info_keywords=("won", "score")), norm_obs=False, norm_reward=True
    )
    model = MaskablePPO(
        "MlpPolicy",
        env,
        policy_kwargs={"net_arch": [256, 256]},
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.lr,
        ent_coef=args.ent_coef,
        gamma=0.995,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    callback = EvalCallback(args.eval_every, deals, args.deterministic, env_kwargs)
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=callback)
    train_s = time.perf_counter() - start
    model.save(args.out / "model.zip")

    start = time.perf_counter()
    agent = PolicyAgent(model, name="ppo", deterministic=args.deterministic)
    final = {}
    for player in (agent, *BASELINES):
        result = play_scorpion(player, deals, args.rules, args.max_moves)
        final[result.agent] = result.as_dict()
        print(f"bench format: {result}", flush=True)
    eval_s = time.perf_counter() - start

    results = {
        "example": "train_scorpion",
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "timesteps": int(model.num_timesteps),
        "train_seconds": train_s,
        "eval_seconds": eval_s,
        "steps_per_second": model.num_timesteps / train_s,
        "final": final,
        "curve": callback.curve,
        "model": str(args.out / "model.zip"),
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2, default=_json))
    baselines = {name: final[name] for name in BASELINES}
    plot_curve(callback.curve, baselines, args.out / "learning_curve.png")
    print(
        f"trained {model.num_timesteps} steps in {train_s:.0f} s "
        f"({model.num_timesteps / train_s:.0f} steps/s); evaluation {eval_s:.0f} s; "
        f"saved to {args.out}",
        flush=True,
    )
    return results


def _json(value: Any) -> Any:
    """numpy scalars in JSON."""
    return value.item() if isinstance(value, np.generic) else str(value)


if __name__ == "__main__":
    main()
