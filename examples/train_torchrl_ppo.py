"""PPO end to end on a TorchRL env of either game, on any device, for a time budget.

The env is :func:`shell_envs.integrations.torchrl.make_env`: on ``--device cuda`` the batched
env itself runs on the GPU (observations, masks and rewards never leave it), on ``cpu`` it is
the CPU batched env (``--env-device cpu`` keeps it under a GPU learner: a copy per step). PPO
is plain torch: a masked categorical policy and a value head, clipped objective, GAE; the
transitions out of a batched env's reset step (``"autoreset"``) are dropped. What the Shell is
self-play, one policy in both seats (each seat's transitions are its own samples); every
``--eval-every`` iterations the policy (its most likely legal cell) plays ``--eval-games``
games against uniformly random legal moves, half as black and half as white, and the learning
curve is that win rate. Scorpion's curve is the mean final score of the policy (sampled) on the
same ``--eval-games`` deals each time, played to their end (``--max-moves``; rewards: score
changes / 100). Both curves start at the untrained policy.

Prints steps/s with the network included (env steps, inference and updates in the wall time;
the evaluations apart; What the Shell counts joint steps: one round of one game; on a busy
CPU pass ``--torch-threads 1``), and writes ``results.json``
and ``learning_curve.png`` under ``--out`` (default ``runs/train_torchrl_ppo``)::

    python examples/train_torchrl_ppo.py --game what_the_shell --device cuda --minutes 5
    python examples/train_torchrl_ppo.py --game scorpion --device cpu --minutes 2 --num-envs 256
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import matplotlib
import torch
from torch import nn

from shell_envs.integrations.torchrl import SEATS, make_env

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

SCORPION_SYMBOLS = 54  # tableau values 0..53


class Agent(nn.Module):
    """A masked categorical policy and a value, from one torso over the observation."""

    def __init__(self, game: str, obs_shape: tuple[int, ...], actions: int, hidden: int) -> None:
        super().__init__()
        self.game = game
        if game == "scorpion":  # small integer codes per tableau slot: embedded
            self.embed = nn.Embedding(SCORPION_SYMBOLS, 8)
            width = obs_shape[-1] * 8
        else:
            self.embed = None
            width = int(torch.tensor(obs_shape).prod())
        self.torso = nn.Sequential(
            nn.Linear(width, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.policy = nn.Linear(hidden, actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values for a batch of observations."""
        if self.embed is not None:
            x = self.embed(obs.long().clamp(0, SCORPION_SYMBOLS - 1)).flatten(1)
        elif obs.dtype == torch.uint8:
            x = obs.flatten(1).float() / 255.0
        else:
            x = obs.flatten(1).float()
        h = self.torso(x)
        logits = self.policy(h).masked_fill(~mask, -1e9)
        return logits, self.value(h).squeeze(-1)


def _groups(game: str) -> tuple:
    """The tensordict prefixes of the acting groups: both seats, or the root."""
    return SEATS if game == "what_the_shell" else ((),)


def _key(group: str | tuple, name: str) -> tuple:
    """The nested key ``group/name`` (the root for ``()``)."""
    return (*((group,) if isinstance(group, str) else group), name)


def sample(logits: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One action per row from ``logits`` by the Gumbel-max trick (``multinomial`` is slow on
    CPUs); masked logits (-1e9) are never drawn."""
    uniform = torch.rand(logits.shape, device=logits.device, generator=generator)
    return (logits - (-uniform.clamp_min(1e-20).log()).log()).argmax(-1)


def gae(rewards, values, dones, last_value, gamma, lam):
    """Generalised advantage estimates over a ``[T, B]`` rollout; returns (advantages, returns)."""
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(last_value)
    for t in reversed(range(rewards.shape[0])):
        next_value = last_value if t == rewards.shape[0] - 1 else values[t + 1]
        live = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_value * live - values[t]
        running = delta + gamma * lam * live * running
        advantages[t] = running
    return advantages, advantages + values


@torch.no_grad()
def evaluate_vs_random(
    agent: Agent, games: int, device: str, encoder: str, seed: int, env_device: str | None = None
) -> dict:
    """What the Shell: the policy's most likely legal cell against random legal moves.

    ``games`` games, the policy black in the first half and white in the second; each game
    counts once, at its first end.  Returns wins, draws, losses and the win rate.
    """
    env = make_env("what_the_shell", games, device, env_device, obs_encoder=encoder)
    env.set_seed(seed)
    td = env.reset()
    policy_seat = torch.zeros(games, dtype=torch.long, device=env.device)
    policy_seat[games // 2 :] = 1
    result = torch.full((games,), 2, dtype=torch.long, device=env.device)  # 2: not ended yet
    generator = torch.Generator(device=env.device).manual_seed(seed)
    while (result == 2).any():
        for s, seat in enumerate(SEATS):
            mask = td[seat, "action_mask"]
            logits, _ = agent(td[seat, "observation"], mask)
            greedy = logits.argmax(-1)
            random = sample(torch.zeros_like(logits).masked_fill(~mask, -1e9), generator)
            td[seat, "action"] = torch.where(policy_seat == s, greedy, random)
        td, root = env.step_and_maybe_reset(td)
        nxt = td["next"]
        ended = nxt["done"].squeeze(-1) & (result == 2)
        reward = torch.where(
            policy_seat == 0,
            nxt["black", "reward"].squeeze(-1),
            nxt["white", "reward"].squeeze(-1),
        )
        result = torch.where(ended, torch.sign(reward).long(), result)
        td = root
    wins, draws = int((result == 1).sum()), int((result == 0).sum())
    return {"wins": wins, "draws": draws, "losses": games - wins - draws, "win_rate": wins / games}


@torch.no_grad()
def evaluate_scorpion(
    agent: Agent, games: int, device: str, max_moves: int, seed: int, env_device: str | None = None
) -> dict:
    """Scorpion: the policy's sampled moves on deals ``seed .. seed + games - 1``, each played
    to its end once; returns the mean and best final score."""
    env = make_env("scorpion", games, device, env_device, max_moves=max_moves)
    env.set_seed(seed)
    td = env.reset()
    final = torch.full((games,), -1.0, device=env.device)
    generator = torch.Generator(device=env.device).manual_seed(seed)
    while (final < 0).any():
        logits, _ = agent(td["observation"], td["action_mask"])
        td["action"] = sample(logits, generator)
        td, root = env.step_and_maybe_reset(td)
        ended = td["next", "done"].squeeze(-1) & (final < 0)
        final = torch.where(ended, td["next", "score"].float(), final)
        td = root
    return {"games": games, "mean_score": float(final.mean()), "best_score": float(final.max())}


def evaluate(agent: Agent, args: argparse.Namespace) -> dict:
    """The learning curve's point for the current policy (see the module docstring)."""
    agent.eval()
    if args.game == "scorpion":
        point = evaluate_scorpion(
            agent, args.eval_games, args.device, args.max_moves, args.seed, args.env_device
        )
    else:
        point = evaluate_vs_random(
            agent, args.eval_games, args.device, args.encoder, args.seed, args.env_device
        )
    agent.train()
    return point


def curve_value(point: dict) -> float:
    """The number a learning-curve point is plotted as."""
    return point["mean_score"] if "mean_score" in point else point["win_rate"]


def train(args: argparse.Namespace) -> dict:
    """Run PPO for ``args.minutes``; returns the results written to ``results.json``."""
    torch.manual_seed(args.seed)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    device = args.device
    kwargs = {"obs_encoder": args.encoder} if args.game == "what_the_shell" else {}
    if args.game == "scorpion":
        kwargs["max_moves"] = args.max_moves
    env = make_env(args.game, args.num_envs, device, args.env_device, **kwargs)
    env.set_seed(args.seed)
    groups = _groups(args.game)
    first = groups[0]
    obs_spec = env.observation_spec[_key(first, "observation")]
    actions = env.observation_spec[_key(first, "action_mask")].shape[-1]
    agent = Agent(args.game, tuple(obs_spec.shape[1:]), actions, args.hidden).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    n, steps = args.num_envs, args.steps
    g = len(groups)
    store = {
        "obs": torch.zeros((steps, g, *obs_spec.shape), dtype=obs_spec.dtype, device=device),
        "mask": torch.zeros((steps, g, n, actions), dtype=torch.bool, device=device),
        "action": torch.zeros((steps, g, n), dtype=torch.long, device=device),
        "logp": torch.zeros((steps, g, n), device=device),
        "value": torch.zeros((steps, g, n), device=device),
        "reward": torch.zeros((steps, g, n), device=device),
        "done": torch.zeros((steps, g, n), device=device),
        "valid": torch.zeros((steps, g, n), dtype=torch.bool, device=device),
    }
    td = env.reset()
    curve, episode_return = [], torch.zeros(n, device=device)
    curve.append({"iteration": 0, "env_steps": 0, "eval": evaluate(agent, args)})  # untrained
    start = time.perf_counter()
    env_steps, iteration, eval_s = 0, 0, 0.0
    budget = args.minutes * 60.0
    while time.perf_counter() - start < budget or iteration == 0:
        finished_returns = []
        with torch.no_grad():
            for t in range(steps):
                valid = ~td["autoreset"].squeeze(-1)
                for j, group in enumerate(groups):
                    obs, mask = td[_key(group, "observation")], td[_key(group, "action_mask")]
                    logits, value = agent(obs, mask)
                    dist = torch.distributions.Categorical(logits=logits)
                    action = sample(logits)
                    td[_key(group, "action")] = action
                    store["obs"][t, j] = obs
                    store["mask"][t, j] = mask
                    store["action"][t, j] = action
                    store["logp"][t, j] = dist.log_prob(action)
                    store["value"][t, j] = value
                    store["valid"][t, j] = valid
                td, root = env.step_and_maybe_reset(td)
                nxt = td["next"]
                done = nxt["done"].squeeze(-1)
                for j, group in enumerate(groups):
                    reward = nxt[_key(group, "reward")].squeeze(-1)
                    store["reward"][t, j] = reward * args.reward_scale
                    store["done"][t, j] = done.float()
                if args.game == "scorpion":
                    episode_return += nxt["reward"].squeeze(-1)
                    finished_returns.append(episode_return[done].clone())
                    episode_return[done] = 0.0
                td = root
            env_steps += steps * n
            last_values = torch.stack(
                [
                    agent(td[_key(group, "observation")], td[_key(group, "action_mask")])[1]
                    for group in groups
                ]
            )
        advantages, returns = gae(
            store["reward"], store["value"], store["done"], last_values, args.gamma, args.lam
        )
        flat = {
            "obs": store["obs"].flatten(0, 2),
            "mask": store["mask"].flatten(0, 2),
            "action": store["action"].flatten(),
            "logp": store["logp"].flatten(),
            "adv": advantages.flatten(),
            "ret": returns.flatten(),
        }
        keep = store["valid"].flatten()
        flat = {k: v[keep] for k, v in flat.items()}
        flat["adv"] = (flat["adv"] - flat["adv"].mean()) / (flat["adv"].std() + 1e-8)
        stats = []
        for _ in range(args.epochs):
            order = torch.randperm(flat["action"].shape[0], device=device)
            for idx in order.tensor_split(args.minibatches):
                logits, value = agent(flat["obs"][idx], flat["mask"][idx])
                dist = torch.distributions.Categorical(logits=logits)
                logp = dist.log_prob(flat["action"][idx])
                adv = flat["adv"][idx]
                ratio = (logp - flat["logp"][idx]).exp()
                clipped = ratio.clamp(1 - args.clip, 1 + args.clip)
                policy_loss = -torch.min(ratio * adv, clipped * adv).mean()
                value_loss = 0.5 * (value - flat["ret"][idx]).pow(2).mean()
                entropy = dist.entropy().mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
                stats.append((policy_loss.item(), value_loss.item(), entropy.item()))
        iteration += 1
        elapsed = time.perf_counter() - start
        row = {
            "iteration": iteration,
            "env_steps": env_steps,
            "seconds": round(elapsed, 2),
            "steps_per_s": env_steps / (elapsed - eval_s),
            "entropy": sum(s[2] for s in stats) / len(stats),
            "value_loss": sum(s[1] for s in stats) / len(stats),
        }
        if args.game == "scorpion":
            ended = torch.cat(finished_returns) if finished_returns else torch.zeros(0)
            row["train_episodes"] = int(ended.numel())
            row["train_mean_score"] = float(ended.mean()) if ended.numel() else None
        if iteration % args.eval_every == 0 or time.perf_counter() - start >= budget:
            row["eval"] = evaluate(agent, args)
            eval_s += time.perf_counter() - start - elapsed
        curve.append(row)
        shown = curve_value(row["eval"]) if "eval" in row else "-"
        print(
            f"iter {iteration:4d}  {env_steps:>11,} steps  {row['steps_per_s']:>10,.0f} steps/s"
            f"  entropy {row['entropy']:.3f}  curve {shown}",
            flush=True,
        )
    results = {
        "game": args.game,
        "device": str(device),
        "num_envs": n,
        "rollout_steps": steps,
        "env_steps": env_steps,
        "seconds": round(time.perf_counter() - start, 2),
        "eval_seconds": round(eval_s, 2),
        "steps_per_s": env_steps / (time.perf_counter() - start - eval_s),
        "args": vars(args),
        "curve": curve,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2))
    plot(results, out / "learning_curve.png")
    return results


def plot(results: dict, path: Path) -> None:
    """The learning curve: win rate against random, or mean final score, over env steps."""
    points = [(r["env_steps"], curve_value(r["eval"])) for r in results["curve"] if "eval" in r]
    if results["game"] == "scorpion":
        label, steps = "mean final score on the evaluation deals", "env steps"
    else:
        label, steps = "win rate against random (greedy policy)", "joint steps (rounds of a game)"
    fig, ax = plt.subplots(figsize=(6, 4))
    if points:
        ax.plot(*zip(*points, strict=True), marker="o")
    ax.set_xlabel(steps)
    ax.set_ylabel(label)
    title = f"PPO on {results['game']} ({results['device']}, N = {results['num_envs']:,})"
    ax.set_title(f"{title}: {results['steps_per_s']:,.0f} steps/s", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["what_the_shell", "scorpion"], default="what_the_shell")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ...")
    parser.add_argument(
        "--env-device", default=None, help="where the batched env runs (default: --device)"
    )
    parser.add_argument("--minutes", type=float, default=5.0, help="time budget (wall clock)")
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=32, help="rollout steps per iteration")
    parser.add_argument("--encoder", default="planes_uint8", help="What the Shell obs_encoder")
    parser.add_argument("--max-moves", type=int, default=200, help="Scorpion max_moves")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument(
        "--reward-scale", type=float, default=None, help="default: 1, Scorpion 0.01"
    )
    parser.add_argument("--eval-every", type=int, default=5, help="iterations between evals")
    parser.add_argument("--eval-games", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--torch-threads", type=int, default=0, help="torch's CPU threads (0: torch's default)"
    )
    parser.add_argument("--out", default="runs/train_torchrl_ppo")
    args = parser.parse_args(argv)
    if args.reward_scale is None:
        args.reward_scale = 0.01 if args.game == "scorpion" else 1.0
    return args


def main(argv: list[str] | None = None) -> dict:
    """Train and write the results; returns them."""
    return train(parse(argv))


if __name__ == "__main__":
    main()
