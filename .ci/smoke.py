"""Smoke the installed wheel, as a user who ran ``pip install planloop-*.whl`` would.

    cd "$(mktemp -d)" && /path/to/wheel-venv/bin/python /path/to/checkout/.ci/smoke.py \\
        /path/to/checkout

Run it with the interpreter of a fresh virtual environment the wheel was installed into,
from a directory outside the source tree, so that ``planloop`` and its package data (the
PDDL domains, the Baking and PlanBench files, the ALFWorld logic, the contingent samples)
come from the wheel. It imports planloop, makes and resets every registered native
environment, runs the command lines' help and ``planloop envs``, solves a shipped
problem with ``planloop solve``, runs a two-instance planner baseline study from the
source tree given as the only argument, and the oracle on two families of the shipped
smoke suite (``planloop bench``). Exits non-zero on the first failure.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path


def check(cond: bool, what: str) -> None:
    if not cond:
        raise SystemExit(f"smoke: {what}")


def run(*argv: str | Path, timeout: float = 600) -> str:
    """``argv``'s standard output; exits with its output when it fails."""
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise SystemExit(
            f"smoke: {' '.join(map(str, argv))} exited with {result.returncode}\n"
            f"{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        )
    return result.stdout


def main(source: Path) -> None:
    import gymnasium as gym

    import planloop
    from planloop.envs import ENVIRONMENTS

    where = Path(planloop.__file__).resolve()
    print(f"planloop from {where.parent}")
    check(source not in where.parents, f"planloop was imported from the source tree ({where})")
    check("site-packages" in where.parts, f"planloop is not an installed package ({where})")

    bin_dir = Path(sys.executable).parent
    data = resources.files("planloop.envs") / "data"
    with tempfile.TemporaryDirectory() as tmp:
        blocks = gym.make("Blocksworld-v0")
        _, info = blocks.reset(seed=0)
        problem = Path(tmp) / "problem.pddl"
        problem.write_text(info["problem_pddl"])
        blocks.close()
        domain = Path(str(data / "blocksworld.pddl"))
        contingent = Path(str(data / "contingent" / "blocks2"))
        needs_files = {
            "PDDL-v0": {"domain": domain, "problem": problem},
            "ContingentPDDL-v0": {  # max_belief=1: its belief as a formula (python-sat)
                "domain": contingent / "domain.pddl",
                "problem": contingent / "problem.pddl",
                "max_belief": 1,
            },
        }
        for env_id in ENVIRONMENTS:
            env = gym.make(env_id, **needs_files.get(env_id, {}))
            obs, info = env.reset(seed=0)
            check(isinstance(obs, str) and obs, f"{env_id}: reset gave no observation")
            env.close()
            print(f"ok gym.make({env_id!r}).reset()")

        out = run(bin_dir / "planloop", "solve", domain, problem)
        check("(" in out, f"planloop solve printed no plan:\n{out}")
        print("ok planloop solve")
        for argv in (["planloop", "--help"], ["planloop", "envs"], ["planloop-mcp", "--help"]):
            run(bin_dir / argv[0], *argv[1:])
            print(f"ok {' '.join(argv)}")
        envs = run(bin_dir / "planloop", "envs")
        check(all(env_id in envs for env_id in ENVIRONMENTS), f"planloop envs:\n{envs}")

        results = Path(tmp) / "baseline"
        script = source / "experiments" / "planner_baseline.py"
        run(sys.executable, script, "--instances", "0:2", "--out", results)
        check((results / "results.md").is_file(), "the planner baseline wrote no results.md")
        records = (results / "episodes.jsonl").read_text().splitlines()
        check(len(records) == 2, f"the planner baseline recorded {len(records)} episodes, not 2")
        print("ok experiments/planner_baseline.py --instances 0:2")

        board = Path(tmp) / "bench"  # the suites come from the wheel; no matplotlib here
        run(bin_dir / "planloop", "bench", "--llm", "oracle", "--suite", "smoke",
            "--families", "blocksworld,nl-pddl", "--out", board)  # fmt: skip
        import json

        rows = json.loads((board / "leaderboard.json").read_text())["models"]
        check(rows[0]["score"]["rate"] == 1.0, f"the oracle's board: {rows}")
        print("ok planloop bench --llm oracle --suite smoke")
    print("smoke: the wheel works")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]).resolve())
