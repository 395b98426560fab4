"""Train the learned Scorpion agent: MaskablePPO on the batched env, a move-scoring policy.

The learner plays ``--num-envs`` games side by side in one compiled loop
(:class:`shell_envs.integrations.sb3.ScorpionVecEnv`).  Its observation is not the table but
the candidate moves (:mod:`shell_envs.scorpion.network`): up to 128 of them, each described
by 26 features of the player's view (the change in the hand-written evaluation, the points,
a card turned, a sequence removed, what can be played next, ...); its action is one of them.
One small network scores every move alike (a linear term plus a two-layer tanh perceptron),
so a position's hundreds of possible actions are no obstacle.  The linear term starts as a
two-move greedy policy (``--init-gain`` times the evaluation change, half that times the best
next move's), so PPO starts from a sensible policy whose samples are close to its best moves.
The value head reads the mean and maximum of the moves' features.  About 45 minutes on one
core at the defaults (2M steps); the shipped network is such a run.

What keeps PPO from its usual failures here:

- **cycling**: pointless king shuffles and moves back into a position already seen are not
  candidates (the loop-avoiding mask, the memory ``greedy`` keeps); a game left with nothing
  else, or with :data:`~shell_envs.bench.patience.STALL_MOVES` moves in a row that turn no
  card, deal nothing and remove nothing, ends there, as the bench ends it;
- **reward**: the score change divided by 100, plus ``--win-bonus`` for a won game, so the
  return is the bench's final score (in hundreds) with wins worth more; rewards normalised
  by ``VecNormalize`` (not the observations);
- **curriculum**: for the first ``--curriculum`` share of the steps, only deals the solver
  proved winnable (the shipped list, :func:`shell_envs.scorpion.winnable.winnable_seeds`,
  taken from the bench's ``dev`` deals after the evaluation ones), then every deal (deal
  numbers from 2**40 on).  The bench's ``test`` deals (5000–9999) are never trained on.

Every ``--eval-every`` steps the policy, exported to numpy, plays the first ``--eval-deals``
``dev`` deals as ``make_agent("scorpion", "learned")`` does (its best move, no sampling); the
one with the best mean score is kept, and at the end it and ``greedy`` play them in the
bench's format.  The learning rate decays linearly to 0.  Writes ``network.npz`` (the kept
agent's weights: load them with ``make_agent("scorpion", "learned", weights=...)``),
``model.zip`` (the last policy), ``results.json`` and ``learning_curve.png`` under ``--out``
(default ``runs/train_scorpion``).  It says what it does first, and how far it has come (the
training steps, an evaluation's deals) every ``--progress-every`` seconds::

    python examples/train_scorpion.py
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
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import VecEnvWrapper, VecNormalize
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn
from torch import nn

from shell_envs.agents.scorpion import LearnedAgent
from shell_envs.bench.evaluation import ScorpionResult
from shell_envs.bench.evaluation import evaluate_scorpion as play_scorpion
from shell_envs.bench.patience import DEAL_SETS, MAX_MOVES, STALL_MOVES, deal_numbers
from shell_envs.core.jit import compile_notice
from shell_envs.integrations.sb3 import ProgressCallback, ProgressLines, ScorpionVecEnv
from shell_envs.scorpion import network, rules, search
from shell_envs.scorpion.winnable import winnable_seeds

TRAIN_DEALS = 2**40  # training deals start far from the bench's 0–9999
SCORE_SCALE = 100.0  # rewards are score changes in hundreds of points
F = network.N_FEATURES


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; ``--smoke`` shrinks every budget to a few seconds."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--timesteps", type=int, default=2_000_000, help="training steps (all games)")
    p.add_argument("--num-envs", type=int, default=32, help="games stepped together")
    p.add_argument("--n-steps", type=int, default=128, help="rollout length per game")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4, help="learning rate, decaying to 0")
    p.add_argument("--ent-coef", type=float, default=0.003)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--hidden", type=int, default=64, help="units per hidden layer")
    p.add_argument("--init-gain", type=float, default=20.0, help="start: scores = gain x this")
    p.add_argument("--win-bonus", type=float, default=2.0, help="reward for a won game")
    p.add_argument("--curriculum", type=float, default=0.2, help="share on winnable deals")
    p.add_argument("--rules", choices=("classic", "relaxed"), default="classic")
    p.add_argument("--eval-every", type=int, default=100_000, help="steps between evaluations")
    p.add_argument("--eval-deals", type=int, default=1000, help="evaluation deals (bench dev)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch and numba threads")
    p.add_argument("--out", type=Path, default=Path("runs/train_scorpion"))
    p.add_argument("--progress-every", type=float, default=10.0,
                   help="seconds between progress lines")  # fmt: skip
    p.add_argument("--smoke", action="store_true", help="tiny budgets, for tests")
    args = p.parse_args(argv)
    if args.smoke:
        args.timesteps, args.num_envs, args.n_steps, args.batch_size = 256, 4, 32, 64
        args.n_epochs, args.eval_every, args.eval_deals, args.hidden = 1, 128, 2, 8
    return args


class MoveVecEnv(VecEnvWrapper):
    """The batched env as the learner sees it: candidate moves in, the index of one out.

    Observations are ``float32[N_SLOTS * N_FEATURES]`` (:func:`network.batch_features`), the
    mask marks the candidates; rewards are shaped as the module doc says.  Games the learner
    gives up on (only revisits or shuffles left, or a stall) end with a terminal observation.
    """

    def __init__(self, venv: ScorpionVecEnv, win_bonus: float) -> None:
        space = spaces.Box(-np.inf, np.inf, (network.N_SLOTS * F,), np.float32)
        super().__init__(
            venv, observation_space=space, action_space=spaces.Discrete(network.N_SLOTS)
        )
        self.batch = venv.venv
        self.win_bonus = win_bonus
        n = self.num_envs
        self.visited = np.zeros((n, network.MAX_VISITED), np.int64)
        self.n_visited = np.zeros(n, np.int64)
        self.quiet = np.zeros(n, np.int64)
        self.feats = np.zeros((n, network.N_SLOTS, F), np.float32)
        self.slots = np.full((n, network.N_SLOTS), -1, np.int64)
        self.counts = np.zeros(n, np.int64)
        self.levels = np.zeros(n, np.int64)
        self.chosen = np.zeros(n, np.int64)
        self.ended: list[tuple[float, bool]] = []  # (score, won) of the games ended so far

    def _observe(self) -> None:
        """Features of every game's candidates, from the batched env's state arrays."""
        network.batch_features(self.batch.arrays, self.batch.masks, self.visited, self.n_visited,
                               self.feats, self.slots, self.counts, self.levels)  # fmt: skip

    def reset(self) -> np.ndarray:
        """New games everywhere."""
        self.venv.reset()
        self.n_visited[:] = 0
        self.quiet[:] = 0
        self._observe()
        return self.feats.reshape(self.num_envs, -1).copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Play the chosen candidate of every game."""
        self.chosen = np.asarray(actions).reshape(self.num_envs).astype(np.int64)
        moves = self.slots[np.arange(self.num_envs), self.chosen]
        self.venv.step_async(moves)

    def step_wait(self) -> VecEnvStepReturn:
        """Step, shape the rewards, end the games given up on, observe the next candidates."""
        rows = np.arange(self.num_envs)
        picked = self.feats[rows, self.chosen]
        progress = (picked[:, 2] + picked[:, 3] + picked[:, 4]) > 0  # turned, removed, dealt
        self.quiet = np.where(progress, 0, self.quiet + 1)
        _, points, dones, infos = self.venv.step_wait()
        won = np.array([bool(info.get("won")) for info in infos])
        rewards = points / SCORE_SCALE + self.win_bonus * won
        blank = np.zeros(self.observation_space.shape, np.float32)
        for i in np.flatnonzero(dones):  # every end is final, as in the bench (no bootstrap)
            infos[i] = {**infos[i], "terminal_observation": blank, "TimeLimit.truncated": False}
            self.ended.append((float(infos[i]["score"]), bool(infos[i]["won"])))
        self.n_visited[dones] = 0
        self.quiet[dones] = 0
        self._observe()
        stuck = ~dones & ((self.levels > 0) | (self.quiet >= STALL_MOVES))
        if stuck.any():
            ended = np.flatnonzero(stuck)
            for i in ended:
                infos[i] = {**infos[i], "terminal_observation": self.feats[i].reshape(-1).copy()}
                infos[i]["TimeLimit.truncated"] = False
                self.ended.append((float(self.batch.meta[i, rules.M_SCORE]), False))
            self.batch.redeal(ended)
            self.n_visited[ended] = 0
            self.quiet[ended] = 0
            self._observe()
        return (
            self.feats.reshape(self.num_envs, -1).copy(),
            rewards.astype(np.float32),
            dones | stuck,
            infos,
        )

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **kwargs: Any
    ) -> list[Any]:
        """``action_masks``: the candidates of each game; other methods go to the env."""
        if method_name != "action_masks":
            return self.venv.env_method(method_name, *method_args, indices=indices, **kwargs)
        masks = np.arange(network.N_SLOTS)[None, :] < self.counts[:, None]
        return list(masks[list(self._get_indices(indices))])


class MoveScorer(nn.Module):
    """Scores each candidate move alike (policy); values the position from all of them."""

    def __init__(self, hidden: int, init_gain: float) -> None:
        super().__init__()
        self.linear = nn.Linear(F, 1, bias=False)
        self.mlp = nn.Sequential(
            nn.Linear(F, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, 1),
        )
        self.critic = nn.Sequential(
            nn.Linear(2 * F, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.latent_dim_pi = network.N_SLOTS
        self.latent_dim_vf = hidden
        with torch.no_grad():  # start near greedy: the evaluation change, half the next one's
            self.linear.weight.zero_()
            self.linear.weight[0, network.F_GAIN] = init_gain
            self.linear.weight[0, network.F_NEXT_GAIN] = init_gain / 2
            self.mlp[-1].weight.zero_()
            self.mlp[-1].bias.zero_()

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        """The score of every slot (padding slots are masked out by the policy)."""
        x = features.view(-1, network.N_SLOTS, F)
        return (self.linear(x) + self.mlp(x)).squeeze(-1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        """The value head's latent: the mean and maximum over the real candidates."""
        x = features.view(-1, network.N_SLOTS, F)
        valid = x[..., network.F_VALID : network.F_VALID + 1]
        count = valid.sum(1)
        mean = (x * valid).sum(1) / count.clamp(min=1.0)
        top = (x - (1.0 - valid) * 1e4).max(1).values * (count > 0)
        return self.critic(torch.cat([mean, top], dim=1))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Both heads' latents."""
        return self.forward_actor(features), self.forward_critic(features)


class MovePolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with :class:`MoveScorer` in place of the MLP and action layer."""

    def __init__(self, *args: Any, hidden: int = 64, init_gain: float = 5.0, **kwargs: Any) -> None:
        self.hidden = hidden
        self.init_gain = init_gain
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        """The move scorer."""
        self.mlp_extractor = MoveScorer(self.hidden, self.init_gain)

    def _build(self, lr_schedule: Any) -> None:
        """The scorer's scores are the logits; a linear value layer; no re-initialisation."""
        self._build_mlp_extractor()
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.hidden, 1)
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def export(policy: MovePolicy) -> network.Network:
    """The policy's scorer as the numpy network of :mod:`shell_envs.scorpion.network`."""
    scorer = policy.mlp_extractor
    layers = (scorer.mlp[0], scorer.mlp[2], scorer.mlp[4])

    def arr(t: torch.Tensor) -> np.ndarray:
        return t.detach().cpu().numpy().astype(np.float32)

    return network.check(
        (
            arr(scorer.linear.weight.T),
            arr(layers[0].weight.T),
            arr(layers[0].bias),
            arr(layers[1].weight.T),
            arr(layers[1].bias),
            arr(layers[2].weight.T),
            arr(layers[2].bias),
        )
    )


def evaluate_deals(
    player: LearnedAgent | str, deals: list[int], rule_set: str, what: str, seconds: float
) -> ScorpionResult:
    """``play_scorpion`` over ``deals``, 100 at a time with a progress line when due; the
    figures are the same as in one call (every deal seeds the agent)."""
    tick = ProgressLines(what, len(deals), "deals", seconds)
    parts = []
    for start in range(0, len(deals), 100):
        parts.append(play_scorpion(player, deals[start : start + 100], rule_set))
        tick(start + parts[-1].games)
    won, scores = (
        np.concatenate([getattr(part, key) for part in parts]) for key in ("won", "scores")
    )
    return ScorpionResult(parts[0].agent, won, scores)


class Trainer(BaseCallback):
    """Ends the curriculum on time and evaluates the exported policy every ``every`` steps."""

    def __init__(self, args: argparse.Namespace, deals: list[int], env: MoveVecEnv) -> None:
        super().__init__()
        self.args = args
        self.env = env
        self.deals = deals
        self.every = args.eval_every
        self.switch = int(args.curriculum * args.timesteps)
        self.curve: list[dict[str, Any]] = []
        self.best: tuple[float, network.Network, int] | None = None  # score, network, steps
        self._next = 0

    def _on_step(self) -> bool:
        if self.switch and self.num_timesteps >= self.switch:
            self.env.batch.set_deal_pool(None)
            print(
                f"[{self.num_timesteps:>9} steps] curriculum over: every deal from now", flush=True
            )
            self.switch = 0
        if self.num_timesteps >= self._next:
            self.evaluate()
            self._next = self.num_timesteps + self.every
        return True

    def _on_training_end(self) -> None:
        if not self.curve or self.curve[-1]["timesteps"] != self.num_timesteps:
            self.evaluate()

    def evaluate(self) -> ScorpionResult:
        """One evaluation point: win rate and mean score on the evaluation deals."""
        net = export(self.model.policy)
        result = evaluate_deals(
            LearnedAgent(net=net, seed=0, rules=self.args.rules),
            self.deals,
            self.args.rules,
            f"[{self.num_timesteps:>9} steps] evaluation",
            self.args.progress_every,
        )
        if self.best is None or result.mean_score > self.best[0]:
            self.best = (result.mean_score, net, self.num_timesteps)
        games = self.env.ended
        played = {
            "train_games": len(games),
            "train_score": float(np.mean([g[0] for g in games])) if games else 0.0,
            "train_win_rate": float(np.mean([g[1] for g in games])) if games else 0.0,
        }
        self.env.ended = []
        self.curve.append({"timesteps": self.num_timesteps, **result.as_dict(), **played})
        print(
            f"[{self.num_timesteps:>9} steps] {result}; training games (sampled moves): "
            f"{played['train_games']}, mean score {played['train_score']:.1f}, "
            f"win rate {played['train_win_rate']:.3f}",
            flush=True,
        )
        return result


def curriculum_deals(rules: str, eval_deals: int) -> list[int]:
    """The winnable deals trained on first: the shipped ones of the dev set, evaluation ones out."""
    first, end = DEAL_SETS["dev"]
    return [s for s in winnable_seeds(rules) if first + eval_deals <= s < end]


def plot_curve(curve: list[dict], baseline: dict, path: Path) -> None:
    """Win rate and mean score against training steps, ``greedy`` as a flat line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [point["timesteps"] for point in curve]
    fig, (ax_score, ax_win) = plt.subplots(1, 2, figsize=(10, 4))
    panels = ((ax_score, "mean_score", "score_ci95"), (ax_win, "win_rate", "win_ci95"))
    for ax, key, interval in panels:
        ax.plot(steps, [point[key] for point in curve], marker="o", label="learned")
        lo = [point[interval][0] for point in curve]
        hi = [point[interval][1] for point in curve]
        ax.fill_between(steps, lo, hi, alpha=0.2)
        ax.axhline(baseline[key], color="grey", linestyle="--", label="greedy")
        ax.set_xlabel("training steps")
        ax.set_ylabel(key.replace("_", " "))
        ax.legend()
    fig.suptitle("Scorpion: the learned agent on the bench's dev deals (95% intervals)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, evaluate, save; returns the results written to ``results.json``."""
    args = parse_args(argv)
    print(f"Scorpion ({args.rules}), MaskablePPO: {args.timesteps:,} steps on {args.num_envs} "
          f"games side by side, evaluated on {args.eval_deals:,} dev deals first and every "
          f"{args.eval_every:,} steps; results in {args.out}", flush=True)  # fmt: skip
    compile_notice(network.move_features, network.batch_features, search.is_dead,
                   what="the move features and the evaluation's game ends")  # fmt: skip
    torch.set_num_threads(args.threads)
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    args.out.mkdir(parents=True, exist_ok=True)
    deals = deal_numbers(args.eval_deals, "dev")

    venv = ScorpionVecEnv(args.num_envs, rules=args.rules, max_moves=MAX_MOVES)
    if args.curriculum > 0:
        venv.venv.set_deal_pool(curriculum_deals(args.rules, args.eval_deals))
    venv.seed(TRAIN_DEALS + args.seed * args.num_envs)
    env = VecNormalize(
        MoveVecEnv(venv, args.win_bonus), norm_obs=False, norm_reward=True, gamma=args.gamma
    )
    model = MaskablePPO(
        MovePolicy,
        env,
        policy_kwargs={"hidden": args.hidden, "init_gain": args.init_gain},
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=lambda remaining: args.lr * remaining,
        ent_coef=args.ent_coef,
        gamma=args.gamma,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    trainer = Trainer(args, deals, env.venv)
    start = time.perf_counter()
    progress = ProgressCallback(args.timesteps, args.progress_every)
    model.learn(total_timesteps=args.timesteps, callback=CallbackList([trainer, progress]))
    train_s = time.perf_counter() - start
    model.save(args.out / "model.zip")
    best_score, best_net, best_steps = trainer.best
    network.save(best_net, args.out / "network.npz")  # the best policy on the evaluation deals

    start = time.perf_counter()
    final = {}
    learned = LearnedAgent(weights=str(args.out / "network.npz"), seed=0, rules=args.rules)
    for player in (learned, "greedy"):
        result = evaluate_deals(
            player, deals, args.rules, "[final] evaluation", args.progress_every
        )
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
        "curve": trainer.curve,
        "weights": str(args.out / "network.npz"),
        "weights_timesteps": best_steps,
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2, default=_json))
    plot_curve(trainer.curve, final["greedy"], args.out / "learning_curve.png")
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
