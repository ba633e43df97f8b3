"""Win rates of ``ContingentReplanner`` on the public contingent suites, by domain.

Give it folders holding the suites (fetched copies of up-cpor's ``Tests``,
cp2fsc-and-replanner's ``benchmarks/replanner/CLG``, PO-PRP's ``pond-benchmarks``);
problems are paired with their domains as ``benchmarks/contingent_suites.py`` pairs them.
``--wumpus 10,15`` adds Wumpus problems of those sizes from ``planloop.envs.wumpus``; with
neither, the shipped sample (``Contingent-*-v0``) is played. Each problem runs in a process
of its own, under ``--timeout`` seconds for the whole of it:

- loaded: ``ContingentPDDLEnv`` with default settings resets;
- tracked: a walk of WALK random admissible commands steps without error (planloop's
  steps per second are measured on it);
- played: the replanner plays seeds 0 .. ``--seeds`` - 1 (each seed a hidden world), each
  within ``--budget`` seconds and MAX_STEPS steps.

A JSON line per problem goes to ``--out``; the table by domain gives problems tried,
loaded, tracked, episodes won, the median steps per second, and the largest problem
loaded and won beside the largest tried (by the size of its file).

    python benchmarks/contingent_replanner.py SUITES... --seeds 3 --out /tmp/replanner.jsonl

``--resume`` keeps the records ``--out`` holds and plays only the problems it lacks.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from importlib import resources
from pathlib import Path

import numpy as np

from planloop.envs.contingent import ContingentPDDLEnv
from planloop.envs.wumpus import DOMAIN, wumpus_problem
from planloop.policies.contingent_replanner import ContingentReplanner
from planloop.policies.runner import run_episode

WALK = 100  # random steps measuring planloop's speed
MAX_STEPS = 500  # ContingentPDDL-v0's step budget
SAMPLE = ("blocks2", "logistic_conf", "doors15", "colorballs")


def _suites():
    """``benchmarks/contingent_suites.py`` (benchmarks are scripts, not a package)."""
    path = Path(__file__).with_name("contingent_suites.py")
    spec = importlib.util.spec_from_file_location("contingent_suites", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def pairs(roots: list[Path], wumpus: list[int], folder: Path) -> list:
    """The problems to try: those of ``roots``, Wumpus of the sizes ``wumpus`` (written to
    ``folder``), else the shipped sample."""
    suites = _suites()
    found = [pair for root in roots for pair in suites.suite_pairs(root.resolve())]
    if wumpus:
        domain = folder / "wumpus-domain.pddl"
        domain.write_text(DOMAIN)
        for size in wumpus:
            problem = folder / f"wumpus{size:02d}.pddl"
            problem.write_text(wumpus_problem(size))
            found.append(suites.Pair("generated", "wumpus", domain, problem, ()))
    if not found:
        data = Path(str(resources.files("planloop.envs") / "data" / "contingent"))
        found = [
            suites.Pair(
                "planloop", name, data / name / "domain.pddl", data / name / "problem.pddl", ()
            )
            for name in SAMPLE
        ]
    return found


def label(path: Path) -> str:
    """A problem's name: its file's, or its folder's for ``p.pddl`` and the like."""
    return path.parent.name if path.stem.lower() in ("p", "problem") else path.stem


def play(pair, seeds: int, budget: float, planner: str) -> dict:
    """The record of one problem: loaded, tracked, steps per second, each episode."""
    record: dict = {
        "suite": pair.suite,
        "domain": pair.domain_name,
        "problem": str(pair.problem),
        "bytes": pair.problem.stat().st_size + pair.domain.stat().st_size,
        "loaded": False,
        "tracked": False,
        "episodes": [],
    }
    stage = "load"
    try:
        start = time.perf_counter()
        env = ContingentPDDLEnv(pair.domain, pair.problem, obs_format="pddl")
        _, info = env.reset(seed=0)
        record.update(loaded=True, load_seconds=round(time.perf_counter() - start, 3))
        stage = "walk"
        rng, steps, spent = np.random.default_rng(0), 0, 0.0
        while steps < WALK and info["admissible_actions"]:
            command = info["admissible_actions"][rng.integers(len(info["admissible_actions"]))]
            start = time.perf_counter()
            _, _, terminated, _, info = env.step(command)
            spent, steps = spent + time.perf_counter() - start, steps + 1
            if terminated:
                _, info = env.reset(seed=steps)
        record.update(tracked=True, steps_per_second=round(steps / spent, 1) if spent else None)
        stage = "play"
        for seed in range(seeds):
            policy = ContingentReplanner(planner, budget)
            episode = run_episode(env, policy, seed=seed, max_steps=MAX_STEPS)
            record["episodes"].append(
                {
                    "seed": seed,
                    "won": episode.won,
                    "steps": episode.steps,
                    "seconds": round(episode.seconds, 2),
                    **policy.details,
                }
            )
    except Exception as exc:  # a record of why, whatever it is
        record["error"] = f"{stage}: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
    return record


def run(pair, seeds: int, budget: float, planner: str, timeout: float) -> dict:
    """:func:`play` in a process of its own, ended after ``timeout`` seconds."""
    with multiprocessing.get_context("fork").Pool(1) as pool:
        job = pool.apply_async(play, (pair, seeds, budget, planner))
        try:
            return job.get(timeout)
        except multiprocessing.TimeoutError:
            return {
                "suite": pair.suite,
                "domain": pair.domain_name,
                "problem": str(pair.problem),
                "bytes": pair.problem.stat().st_size + pair.domain.stat().st_size,
                "loaded": False,
                "tracked": False,
                "episodes": [],
                "error": f"timeout: more than {timeout:g} s",
            }


def largest(records: list[dict]) -> str:
    """The name of the largest problem of ``records`` (by its files' size), or -."""
    return label(Path(max(records, key=lambda r: r["bytes"])["problem"])) if records else "-"


def table(records: list[dict]) -> list[str]:
    """The table by domain, as Markdown lines."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in records:
        groups[(r["suite"], r["domain"])].append(r)
    lines = [
        "| suite | domain | tried | loaded | tracked | replanner wins | steps/s "
        "| largest loaded | largest won | largest tried |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ]
    total: defaultdict[str, int] = defaultdict(int)
    for (suite, domain), group in sorted(groups.items()):
        episodes = [e for r in group for e in r["episodes"]]
        loaded = [r for r in group if r["loaded"]]
        won = [r for r in group if any(e["won"] for e in r["episodes"])]
        speeds = [r["steps_per_second"] for r in group if r.get("steps_per_second")]
        row = {
            "tried": len(group),
            "loaded": len(loaded),
            "tracked": sum(r["tracked"] for r in group),
            "wins": sum(e["won"] for e in episodes),
            "episodes": len(episodes),
        }
        for name, n in row.items():
            total[name] += n
        speed = f"{statistics.median(speeds):,.0f}" if speeds else "-"
        lines.append(
            f"| {suite} | {domain} | {row['tried']} | {row['loaded']} | {row['tracked']} "
            f"| {row['wins']}/{row['episodes']} | {speed} "
            f"| {largest(loaded)} | {largest(won)} | {largest(group)} |"
        )
    lines.append(
        f"| all | | {total['tried']} | {total['loaded']} | {total['tracked']} "
        f"| {total['wins']}/{total['episodes']} | | | | |"
    )
    return lines


def kept(path: Path) -> list[dict]:
    """The records of an earlier run in ``path`` (none if it does not exist; a line cut
    short by an interruption is left out)."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="*", type=Path, help="folders of suites")
    parser.add_argument("--wumpus", default="", help="sizes of generated Wumpus, e.g. 10,15")
    parser.add_argument("--seeds", type=int, default=3, help="episodes per problem")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per episode")
    parser.add_argument("--planner", default="auto")
    parser.add_argument("--timeout", type=float, help="seconds per problem, all seeds included")
    parser.add_argument("--only", help="a regular expression the problem's path must match")
    parser.add_argument("--out", type=Path, help="a JSON line per problem")
    parser.add_argument(
        "--resume", action="store_true", help="keep --out's records and play only the rest"
    )
    args = parser.parse_args()
    timeout = args.timeout or 60 + args.seeds * (args.budget + 10)
    sizes = [int(s) for s in args.wumpus.split(",") if s.strip()]
    records = kept(args.out) if args.resume and args.out else []
    done = {r["problem"] for r in records}
    out = args.out.open("a" if args.resume else "w") if args.out else None
    with tempfile.TemporaryDirectory() as folder:
        for pair in pairs(args.roots, sizes, Path(folder)):
            if args.only and not re.search(args.only, str(pair.problem)):
                continue
            if str(pair.problem) in done:
                continue
            record = run(pair, args.seeds, args.budget, args.planner, timeout)
            records.append(record)
            if out:
                out.write(json.dumps(record) + "\n")
                out.flush()
            wins = sum(e["won"] for e in record["episodes"])
            print(
                f"{record['domain']:<20} {label(pair.problem):<24} loaded={record['loaded']} "
                f"tracked={record['tracked']} won={wins}/{len(record['episodes'])} "
                f"{record.get('error', '')[:100]}",
                flush=True,
            )
    print("\n".join(table(records)))


if __name__ == "__main__":
    main()
