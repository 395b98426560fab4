"""Multi-agent PPO on What the Shell with Ray RLlib: one machine or a cluster, unchanged.

Both colours are RLlib agents (self-play) on one shared policy (``--policies shared``) or one
policy each (``--policies two``); with ``--opponent greedy`` (or ``random``) one seat per game
is the built-in agent instead.  Illegal cells are masked in every forward pass
(:mod:`shell_envs.integrations.rllib`).  After training, each policy plays ``--eval-games``
games against ``random`` and ``greedy`` with alternating seats (Wilson 95% intervals); the
checkpoint, ``results.json`` and ``learning_curve.png`` go under ``--out`` (default
``runs/rllib_what_the_shell``).  Each iteration prints a line with the mean return of each
seat: in self-play black's and white's sum to 0, so a policy's own mean over both seats (what
RLlib reports per module) is 0 whatever it learns; the seats' returns show who wins.

Locally, Ray starts on this machine; ``--num-env-runners`` sampling actors run beside the
learner::

    python examples/rllib_what_the_shell.py --num-env-runners 1
    python examples/rllib_what_the_shell.py --smoke --out /tmp/rllib   # a minute, for tests

On a cluster the same script runs as a Ray job (``ray.init()`` joins the job's cluster); the
runtime env ships this checkout and installs the package's dependencies on every node::

    ray job submit --address http://HEAD:8265 --working-dir . \\
        --runtime-env-json '{"pip": ["numba>=0.59", "pettingzoo>=1.24", "pillow>=10"],
                             "excludes": [".venv", "results", "runs"]}' \\
        -- python examples/rllib_what_the_shell.py --num-env-runners 64 --iterations 200

Needs the extra ``rllib`` (``ray[rllib]``, torch).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import ray

from shell_envs.bench.evaluation import play_match
from shell_envs.integrations.rllib import RLModuleAgent, masked_ppo_config


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; ``--smoke`` shrinks every budget for tests."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--iterations", type=int, default=30, help="PPO training iterations")
    p.add_argument("--policies", choices=("shared", "two"), default="shared")
    p.add_argument("--opponent", choices=("self", "random", "greedy"), default="self",
                   help="self: both seats learn; else that agent plays one seat")  # fmt: skip
    p.add_argument("--num-env-runners", type=int, default=0,
                   help="sampling actors (0: sample in the driver)")  # fmt: skip
    p.add_argument("--envs-per-runner", type=int, default=4, help="games per sampling actor")
    p.add_argument("--train-batch", type=int, default=4000, help="env steps per iteration")
    p.add_argument("--minibatch", type=int, default=500)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--eval-games", type=int, default=200, help="games per opponent at the end")
    p.add_argument("--address", default=None, help="Ray address (default: local, or the job's)")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("runs/rllib_what_the_shell"))
    p.add_argument("--smoke", action="store_true", help="tiny budgets, for tests")
    args = p.parse_args(argv)
    if args.smoke:
        args.iterations, args.train_batch, args.minibatch, args.epochs = 2, 256, 128, 1
        args.envs_per_runner, args.eval_games = 1, 4
    return args


def build_config(args: argparse.Namespace) -> Any:
    """The masked multi-agent PPO config for ``args``."""
    env_config = {} if args.opponent == "self" else {"opponent": args.opponent}
    return (
        masked_ppo_config(args.policies, env_config=env_config)
        .env_runners(
            num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner
        )
        .training(
            train_batch_size_per_learner=args.train_batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.lr,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )


def history_point(result: dict[str, Any], seconds: float) -> dict[str, Any]:
    """One training iteration's figures from RLlib's result: steps, games, mean game length,
    the mean return of each seat (``seat_returns``) and of each policy (``module_returns``)."""
    runners = result.get("env_runners", {})
    return {
        "iteration": int(result["training_iteration"]),
        "env_steps": int(result.get("num_env_steps_sampled_lifetime", 0)),
        "episodes": int(runners.get("num_episodes_lifetime", 0)),
        "episode_len_mean": runners.get("episode_len_mean"),
        "seat_returns": dict(sorted(runners.get("agent_episode_returns_mean", {}).items())),
        "module_returns": runners.get("module_episode_returns_mean", {}),
        "seconds": seconds,
    }


def describe(point: dict[str, Any]) -> str:
    """One training iteration in a line, figures rounded (RLlib reports raw floats)."""
    length = point["episode_len_mean"]
    returns = ", ".join(f"{k} {v:+.2f}" for k, v in point["seat_returns"].items())
    return (
        f"iter {point['iteration']:>3}: {point['env_steps']:,} env steps, "
        f"{point['episodes']:,} games, mean length "
        f"{'-' if length is None else f'{length:.1f}'} rounds, "
        f"mean return {returns or '-'} ({point['seconds']:.0f} s)"
    )


def plot_curve(history: list[dict[str, Any]], path: Path) -> None:
    """The learning curve: mean game length and each seat's mean return, by env steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [point["env_steps"] for point in history]
    fig, (ax_len, ax_ret) = plt.subplots(1, 2, figsize=(10, 4))
    lengths = [point["episode_len_mean"] for point in history]
    ax_len.plot(steps, [np.nan if x is None else x for x in lengths], marker="o")
    ax_len.set_ylabel("mean game length (rounds)")
    seats = sorted({k for point in history for k in point["seat_returns"]})
    for seat in seats:
        returns = [point["seat_returns"].get(seat, np.nan) for point in history]
        ax_ret.plot(steps, returns, marker="o", label=seat)
    ax_ret.set_ylabel("mean return per game (self-play: the seats' sum to 0)")
    if seats:
        ax_ret.legend()
    for ax in (ax_len, ax_ret):
        ax.set_xlabel("env steps")
    fig.suptitle("What the Shell: RLlib PPO, self-play learning curve")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, checkpoint, evaluate; returns the results written to ``results.json``."""
    args = parse_args(argv)
    print(f"What the Shell, RLlib PPO ({args.policies} policies, opponent: {args.opponent}): "
          f"{args.iterations} iterations of {args.train_batch:,} env steps, a line each; "
          f"starting Ray; results in {args.out}", flush=True)  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(address=args.address, num_cpus=args.num_cpus, include_dashboard=False)
    algo = build_config(args).build_algo()
    history = []
    start = time.perf_counter()
    for _ in range(args.iterations):
        point = history_point(algo.train(), time.perf_counter() - start)
        history.append(point)
        print(describe(point), flush=True)
    train_s = time.perf_counter() - start
    checkpoint = algo.save_to_path(str((args.out / "checkpoint").resolve()))

    evaluation = {}
    start = time.perf_counter()
    module_ids = ["shared"] if args.policies == "shared" else ["black", "white"]
    for module_id in module_ids:
        agent = RLModuleAgent(algo.get_module(module_id), name=f"rllib:{module_id}")
        for opponent in ("random", "greedy"):
            match = play_match(agent, opponent, games=args.eval_games, seed=10**6)
            evaluation[f"{module_id}_vs_{opponent}"] = match.as_dict()
            print(match, flush=True)
    eval_s = time.perf_counter() - start
    algo.stop()
    if started_ray:
        ray.shutdown()

    steps = history[-1]["env_steps"] if history else 0
    results = {
        "example": "rllib_what_the_shell",
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "env_steps": steps,
        "train_seconds": train_s,
        "eval_seconds": eval_s,
        "steps_per_second": steps / train_s if train_s else 0.0,
        "history": history,
        "evaluation": evaluation,
        "checkpoint": str(checkpoint),
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2, default=str))
    plot_curve(history, args.out / "learning_curve.png")
    print(
        f"trained {steps:,} env steps in {train_s:.0f} s; evaluation {eval_s:.0f} s; "
        f"checkpoint {checkpoint}",
        flush=True,
    )
    return results


if __name__ == "__main__":
    main()
