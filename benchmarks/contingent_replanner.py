"""Win rate of the optimistic contingent replanner on the shipped contingent sample.

Each of the four problems is played on seeds 0..N-1 (each seed a hidden world) within the
id's step budget; a line per problem gives wins, steps, Fast Downward calls and seconds.

    python benchmarks/contingent_replanner.py --seeds 20
"""

from __future__ import annotations

import argparse
import json
import time

from planloop.envs.contingent import CONTINGENT_ENVIRONMENTS
from planloop.policies.contingent_replanner import ContingentReplanner
from planloop.policies.runner import run_episode

SAMPLE = (
    "Contingent-Blocks-v0",
    "Contingent-Logistics-v0",
    "Contingent-Doors-v0",
    "Contingent-ColorBalls-v0",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--planner", default="lama-first")
    parser.add_argument("--env", action="append", choices=SAMPLE, help="default: all four")
    args = parser.parse_args()
    import gymnasium as gym
    from gymnasium.envs.registration import register, registry

    for env_id, (entry_point, steps) in CONTINGENT_ENVIRONMENTS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point, max_episode_steps=steps)
    for env_id in args.env or SAMPLE:
        env = gym.make(env_id)
        wins, steps, calls, start = 0, [], [], time.monotonic()
        for seed in range(args.seeds):
            policy = ContingentReplanner(args.planner, seed=seed)
            episode = run_episode(env, policy, seed=seed)
            wins += episode.won
            steps.append(episode.steps)
            calls.append(policy.planner_calls)
        print(
            json.dumps(
                {
                    "env": env_id,
                    "seeds": args.seeds,
                    "wins": wins,
                    "win_rate": wins / args.seeds,
                    "mean_steps": sum(steps) / len(steps),
                    "mean_planner_calls": sum(calls) / len(calls),
                    "seconds": round(time.monotonic() - start, 1),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
