"""The ALFWorld PDDLego+ study with the ground-truth formalizer, timed against another
checkout of planloop (an older commit, say) in the same run.

    git worktree add /tmp/planloop-old cadd790
    python benchmarks/bench_pddlego_study.py --base /tmp/planloop-old --runs 3

Each run is ``experiments/pddlego.py --env ALFWorld-v0 --llm groundtruth`` in a fresh
process with its own results folder, the two checkouts taking turns. A run's time is
the sum of its episodes' ``seconds`` (reset and play; the process start, the report and
the plot left out); the wall time of the whole process is printed beside it. Both sides
must win the same episodes, and by default play the same commands.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
STUDY = Path("experiments") / "pddlego.py"


def play(tree: Path, instances: str, out: Path) -> dict:
    """One study run of the checkout at ``tree``: its episodes' seconds, wins, commands
    and the process's wall time."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, str(tree / STUDY), "--env", "ALFWorld-v0", "--llm"]
    command += ["groundtruth", "--instances", instances, "--workers", "1", "--out", str(out)]
    started = time.monotonic()
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True)
    wall = time.monotonic() - started
    if done.returncode != 0:  # the study's own one-line error, with the side it came from
        said = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        raise SystemExit(f"the study at {tree} failed: {said[-1]}")
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    records.sort(key=lambda r: r["instance"])
    return {
        "seconds": sum(r["seconds"] for r in records),
        "wall": wall,
        "won": [r["instance"] for r in records if r["won"]],
        "actions": [r["actions"] for r in records],
        "episodes": len(records),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--runs", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("--instances", default="0:12", help="the study's --instances (0:12)")
    parser.add_argument(
        "--allow-other-commands",
        action="store_true",
        help="accept that the two sides play other commands (wins must still agree)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if not (args.base / STUDY).is_file():
        parser.error(f"--base {args.base} holds no {STUDY}")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    sides = {"base": args.base.resolve(), "this": HERE}
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory(prefix="bench-pddlego-") as scratch:
        for n in range(args.runs):
            for side, tree in sides.items():
                runs[side].append(play(tree, args.instances, Path(scratch, f"{side}-{n}")))
    base, this = runs["base"], runs["this"]
    if base[0]["won"] != this[0]["won"]:
        raise SystemExit(f"the sides win other episodes: {base[0]['won']} vs {this[0]['won']}")
    same_commands = base[0]["actions"] == this[0]["actions"]
    if not same_commands and not args.allow_other_commands:
        raise SystemExit("the sides play other commands (--allow-other-commands to time them)")
    result = {
        "episodes": this[0]["episodes"],
        "won": len(this[0]["won"]),
        "same_commands": same_commands,
        "base_seconds": [round(r["seconds"], 3) for r in base],
        "this_seconds": [round(r["seconds"], 3) for r in this],
        "base_wall": [round(r["wall"], 2) for r in base],
        "this_wall": [round(r["wall"], 2) for r in this],
        "ratio": round(
            statistics.median(r["seconds"] for r in base)
            / statistics.median(r["seconds"] for r in this),
            2,
        ),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['episodes']} episodes, {result['won']} won on both sides; ", end="")
    print("the same commands" if same_commands else "other commands")
    for side in ("base", "this"):
        seconds, wall = result[f"{side}_seconds"], result[f"{side}_wall"]
        print(f"{side:5s} episode seconds {seconds}  (process wall {wall})")
    print(f"base / this, median episode seconds: {result['ratio']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
