"""Steps per second of planloop's Blocksworld envs against PDDLGym's, with the
applicable actions computed at every step.

Both sides play the same problem files: PDDLGym's own shipped 4-operator blocks
problems (``blocks_operator_actions`` and ``blocks_operator_actions_test``), the 14
of 20 (4-5 blocks) that do not use PDDLGym's extra ``handfull`` fact, which
PlanBench's domain lacks. They are copied to a temporary folder under zero-padded
names so both envs number them alike. PDDLGym reads them with its shipped
``blocks_operator_actions.pddl`` (``operators_as_actions=True,
dynamic_action_space=True``). Ours plays them as ``Blocksworld-v0`` (PlanBench's
4-operator domain; the headline is its ``gym.make`` form, with text observations),
unwrapped, with PDDL observations, and as ``PDDL-v0`` over PDDLGym's very domain
file. Our steps render observations and a richer ``info``; PDDLGym's return
literal sets.

Each side walks ``--episodes`` episodes of exactly ``--steps`` steps, grouped
by problem, with a seeded random policy choosing among the sorted applicable
actions and resetting the problem on reaching the goal; the action sequences are
checked to be identical. A step is ``env.step`` plus the applicable actions of
the new state (ours: ``info["admissible_actions"]``; PDDLGym:
``env.action_space.all_ground_literals(obs)``); resets, and PDDLGym's grounding of
a newly switched-to problem, are timed apart.

    python benchmarks/bench_env_steps.py --json /tmp/bench_env_steps.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import tempfile
import time
import warnings
from importlib.metadata import version
from pathlib import Path

import gymnasium as gym
import pddlgym
from pddlgym.core import PDDLEnv as GymPDDLEnv

import planloop
from planloop.envs.blocksworld import blocksworld_env

PDDLGYM_DATA = Path(pddlgym.__file__).resolve().parent / "pddl"
PDDLGYM_DOMAIN = PDDLGYM_DATA / "blocks_operator_actions.pddl"
PDDLGYM_FOLDERS = ("blocks_operator_actions", "blocks_operator_actions_test")


def copy_problems(target: Path) -> list[str]:
    """Copy PDDLGym's blocks problems without ``handfull`` to ``target`` as ``pNN.pddl``."""
    sources = [
        f
        for folder in PDDLGYM_FOLDERS
        for f in sorted((PDDLGYM_DATA / folder).glob("*.pddl"))
        if "handfull" not in f.read_text()
    ]
    for i, source in enumerate(sources):
        shutil.copy(source, target / f"p{i:02d}.pddl")
    return [f"{s.parent.name}/{s.name}" for s in sources]


def schedule(episodes: int, problems: int) -> list[int]:
    """The problem of each episode, problem-major so each problem is loaded once."""
    return sorted(i % problems for i in range(episodes))


def walk_ours(env, plan: list[int], steps: int, seed: int) -> dict:
    rng = random.Random(seed)
    chosen, step_time, reset_time, resets = [], 0.0, 0.0, len(plan)
    for problem in plan:
        start = time.perf_counter()
        _, info = env.reset(options={"instance": problem})
        reset_time += time.perf_counter() - start
        actions = sorted(info["admissible_actions"])
        for _ in range(steps):
            action = actions[rng.randrange(len(actions))]
            chosen.append(action)
            start = time.perf_counter()
            _, _, won, _, info = env.step(action)
            actions = sorted(info["admissible_actions"])
            step_time += time.perf_counter() - start
            if won:
                resets += 1
                start = time.perf_counter()
                _, info = env.reset(options={"instance": problem})
                reset_time += time.perf_counter() - start
                actions = sorted(info["admissible_actions"])
    return {"chosen": chosen, "step_s": step_time, "reset_s": reset_time, "resets": resets}


def command(literal) -> str:
    return "(" + " ".join([literal.predicate.name, *(v.name for v in literal.variables)]) + ")"


def sorted_literals(env, obs) -> list:
    return [
        lit
        for _, lit in sorted(
            (command(lit), lit) for lit in env.action_space.all_ground_literals(obs)
        )
    ]


def walk_pddlgym(env, plan: list[int], steps: int, seed: int) -> dict:
    rng = random.Random(seed)
    chosen, step_time, reset_time, resets = [], 0.0, 0.0, len(plan)
    for problem in plan:
        start = time.perf_counter()
        env.fix_problem_index(problem)
        obs, _ = env.reset()
        actions = sorted_literals(env, obs)
        reset_time += time.perf_counter() - start
        for _ in range(steps):
            action = actions[rng.randrange(len(actions))]
            chosen.append(command(action))
            start = time.perf_counter()
            obs, _, done, _, _ = env.step(action)
            actions = sorted_literals(env, obs)
            step_time += time.perf_counter() - start
            if done:
                resets += 1
                start = time.perf_counter()
                obs, _ = env.reset()
                actions = sorted_literals(env, obs)
                reset_time += time.perf_counter() - start
    return {"chosen": chosen, "step_s": step_time, "reset_s": reset_time, "resets": resets}


def markdown(rows: list[dict], baseline: dict) -> str:
    lines = [
        "| env | steps | step time s | steps/s | µs/step | resets | reset time s "
        "| ours / PDDLGym |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['env']} | {r['steps']} | {r['step_s']:.3f} | {r['steps_per_s']:,.0f} "
            f"| {1e6 / r['steps_per_s']:.1f} | {r['resets']} | {r['reset_s']:.3f} "
            f"| {r['steps_per_s'] / baseline['steps_per_s']:.1f}x |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=140, help="episodes per env")
    parser.add_argument("--steps", type=int, default=100, help="steps per episode")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds over all envs; each env's fastest round is kept",
    )
    parser.add_argument("--seed", type=int, default=0, help="policy seed (same for all envs)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sources = copy_problems(folder)
        plan = schedule(args.episodes, len(sources))
        envs = {
            "planloop Blocksworld-v0 (gym.make)": lambda: gym.make(
                "Blocksworld-v0", instances=folder, max_episode_steps=args.steps
            ),
            "planloop Blocksworld-v0 (unwrapped)": lambda: blocksworld_env(instances=folder),
            "planloop Blocksworld-v0 obs_format=pddl (gym.make)": lambda: gym.make(
                "Blocksworld-v0", instances=folder, obs_format="pddl", max_episode_steps=args.steps
            ),
            "planloop PDDL-v0 on PDDLGym's domain (gym.make)": lambda: gym.make(
                "PDDL-v0", domain=PDDLGYM_DOMAIN, problem=folder, max_episode_steps=args.steps
            ),
        }
        walks = {name: (walk_ours, make) for name, make in envs.items()}
        pddlgym_name = f"PDDLGym {version('pddlgym')}"
        walks[pddlgym_name] = (
            walk_pddlgym,
            lambda: GymPDDLEnv(
                str(PDDLGYM_DOMAIN),
                str(folder),
                operators_as_actions=True,
                dynamic_action_space=True,
            ),
        )
        runs: dict[str, dict] = {}
        for _ in range(args.repeat):  # rounds interleave the envs; the fastest round is kept
            for name, (walk, make) in walks.items():
                run = walk(make(), plan, args.steps, args.seed)
                if name not in runs or run["step_s"] < runs[name]["step_s"]:
                    runs[name] = run
        baseline = runs[pddlgym_name]

    for name, run in runs.items():
        if run["chosen"] != baseline["chosen"]:
            raise SystemExit(f"{name} walked differently from PDDLGym")
    rows = [
        {
            "env": name,
            "steps": len(run["chosen"]),
            "step_s": run["step_s"],
            "steps_per_s": len(run["chosen"]) / run["step_s"],
            "resets": run["resets"],
            "reset_s": run["reset_s"],
        }
        for name, run in runs.items()
    ]
    base_row = rows[-1]  # PDDLGym's
    headline = rows[0]["steps_per_s"] / base_row["steps_per_s"]
    print(
        f"env steps/s with applicable actions every step: {len(sources)} PDDLGym blocks "
        f"problems, {args.episodes} episodes x {args.steps} steps, seed {args.seed}, "
        f"best of {args.repeat}, Python {platform.python_version()}; "
        "identical walks on all envs\n"
    )
    print(markdown(rows, base_row))
    print(f"\nheadline: Blocksworld-v0 (gym.make) / PDDLGym = {headline:.1f}x")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "episodes": args.episodes,
                    "steps": args.steps,
                    "seed": args.seed,
                    "repeat": args.repeat,
                    "problems": sources,
                    "python": platform.python_version(),
                    "planloop": planloop.__version__,
                    "rows": rows,
                    "ratio": headline,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
