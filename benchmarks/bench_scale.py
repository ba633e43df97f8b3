"""Step time, load time and peak memory against size: Blocksworld and ALFWorld.

Blocksworld: ``gym.make("PDDL-v0", domain=..., problem=...)`` on IPC-2000's domain
(``tests/data/ipc2000-blocks/domain.pddl``) and a generated N-block problem in its layout
(``generate_problem(N, seed, style="ipc")``), N = 50, 100, 200, 400, with the default
``limits`` (400 blocks: 320,800 actions, 161,201 facts). ALFWorld: ``gym.make("ALFWorld-v0", game_file=...)`` on
the fixture game with the most receptacles (``tests/data/alfworld/games/
pick_clean_then_place_in_recep-Fork-Drawer-25``, 18) with its receptacles cloned to N =
30, 50, 100 (``benchmarks/alfworld_clone.py``).

Each point runs in a fresh Python process: load is ``gym.make`` + the first ``reset``
(load again: the same, once more, after the walk);
step is the mean ``env.step`` over a walk choosing uniformly
(``random.Random(seed)``) among the admissible commands, ``--steps`` steps (a reset
when an episode ends, not timed); peak memory is the process's peak resident set
(``resource.getrusage(RUSAGE_SELF).ru_maxrss`` at the end, the interpreter and its
imports included), so it covers imports + make + reset + the walk. Each family's fitted
exponent is the least-squares slope of log(time) against log(N). The checks are issue
25's: Blocksworld step time 200/50 <= 8, ALFWorld step time 100/30 <= 3.5, the
400-block Blocksworld peak <= 400 MiB, and Blocksworld's load again <= 0.2x its load. ``--quick`` measures Blocksworld up to 200
blocks only and walks 50 steps.

    python benchmarks/bench_scale.py --json /tmp/bench_scale.json --plot docs/images/scale.png
    python benchmarks/bench_scale.py --quick
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOMAIN = ROOT / "tests" / "data" / "ipc2000-blocks" / "domain.pddl"
GAME = (
    ROOT / "tests" / "data" / "alfworld" / "games" / "pick_clean_then_place_in_recep-Fork-Drawer-25"
)


class Family(TypedDict):
    unit: str  # what a size counts
    sizes: tuple[int, ...]
    quick: tuple[int, ...]  # the sizes of --quick


FAMILIES: dict[str, Family] = {
    "blocksworld": {"unit": "blocks", "sizes": (50, 100, 200, 400), "quick": (50, 100, 200)},
    "alfworld": {"unit": "receptacles", "sizes": (30, 50, 100), "quick": (30, 50, 100)},
}
CHECKS = [  # (family, what, small N, large N, target)
    ("blocksworld", "step", 50, 200, 8.0),
    ("alfworld", "step", 30, 100, 3.5),
]
RELOAD_TARGET = 0.2  # make + reset of a text seen before, against the first
PEAK_CHECK = ("blocksworld", 400, 400.0)  # (family, N, MiB)


def make_env(family: str, size: int, seed: int, folder: Path):
    """The environment of one point, made (not reset)."""
    import gymnasium as gym

    import planloop  # noqa: F401  (registers the environments)

    if family == "blocksworld":
        from planloop.envs.blocksworld import generate_problem

        problem = generate_problem(size, seed=seed, style="ipc")
        return gym.make("PDDL-v0", domain=DOMAIN, problem=problem)
    path = folder / GAME.name / "game.tw-pddl"
    path.parent.mkdir(parents=True, exist_ok=True)
    if str(HERE) not in sys.path:  # run as a script, benchmarks/ is there already
        sys.path.insert(0, str(HERE))
    from alfworld_clone import clone_file

    path.write_text(json.dumps(clone_file(GAME / "game.tw-pddl", size)))
    return gym.make("ALFWorld-v0", game_file=path)


def measure(family: str, size: int, steps: int, seed: int) -> dict:
    """One point, in this process: load and mean step seconds, peak RSS in MiB."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        env = make_env(family, size, seed, Path(folder))
        _, info = env.reset(seed=seed)
        load = time.perf_counter() - start
        rng = random.Random(seed)
        stepping = 0.0
        for _ in range(steps):
            command = rng.choice(info["admissible_actions"])
            start = time.perf_counter()
            _, _, terminated, truncated, info = env.step(command)
            stepping += time.perf_counter() - start
            if terminated or truncated:
                _, info = env.reset()
        admissible = len(info["admissible_actions"])
        start = time.perf_counter()  # the same task again: what the process kept of it
        make_env(family, size, seed, Path(folder)).reset(seed=seed)
        reload = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {
        "family": family,
        "size": size,
        "load_s": load,
        "step_s": stepping / steps,
        "reload_s": reload,
        "peak_mib": peak_kib / 1024,
        "admissible": admissible,
    }


def measure_apart(family: str, size: int, steps: int, seed: int) -> dict:
    """One point in a fresh Python process (so that its peak memory is its own)."""
    command = [sys.executable, __file__, "--point", family, str(size)]
    command += ["--steps", str(steps), "--seed", str(seed)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{family} at {size} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def exponent(points: list[dict], key: str) -> float:
    """The least-squares slope of log(points' key) against log(size)."""
    xs = [math.log(p["size"]) for p in points]
    ys = [math.log(p[key]) for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def checks(results: dict[str, list[dict]]) -> list[dict]:
    """Issue 25's ratios and the peak memory, each with its target, where measured."""
    found = []
    for family, what, small, large, target in CHECKS:
        by_size = {p["size"]: p for p in results.get(family, [])}
        if small in by_size and large in by_size:
            ratio = by_size[large][f"{what}_s"] / by_size[small][f"{what}_s"]
            name = f"{family} {what} time {large}/{small}"
            found.append({"check": name, "value": ratio, "target": target, "unit": "x"})
    for point in results.get("blocksworld", []):  # the same text made and reset again
        name = f"blocksworld {point['size']} load again / load"
        value = point["reload_s"] / point["load_s"]
        found.append({"check": name, "value": value, "target": RELOAD_TARGET, "unit": "x"})
    family, size, target = PEAK_CHECK
    peak = next((p["peak_mib"] for p in results.get(family, []) if p["size"] == size), None)
    if peak is not None:
        name = f"{family} {size} peak memory"
        found.append({"check": name, "value": peak, "target": target, "unit": "MiB"})
    return found


def table(family: str, points: list[dict]) -> str:
    unit = FAMILIES[family]["unit"]
    lines = [
        f"| {unit} | load (s) | load again (s) | step (ms) | admissible at the end "
        "| peak RSS (MiB) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {p['size']} | {p['load_s']:.3f} | {p['reload_s']:.4f} | {p['step_s'] * 1e3:.3f} | "
        f"{p['admissible']} | {p['peak_mib']:.0f} |"
        for p in points
    ]
    if len(points) > 1:
        lines.append(
            f"\nfitted exponent (time ~ N^k): step k = {exponent(points, 'step_s'):.2f}, "
            f"load k = {exponent(points, 'load_s'):.2f}"
        )
    return "\n".join(lines)


def plot(results: dict[str, list[dict]], path: Path) -> None:
    """Step time against N on log-log axes, one line per family."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    figure, axes = plt.subplots(figsize=(5.5, 3.8))
    for family, points in results.items():
        sizes = [p["size"] for p in points]
        label = f"{family} (N {FAMILIES[family]['unit']})"
        if len(points) > 1:
            label += f", k = {exponent(points, 'step_s'):.2f}"
        axes.plot(sizes, [p["step_s"] * 1e3 for p in points], "o-", label=label)
    axes.set_xscale("log")
    axes.set_yscale("log")
    sizes = sorted({p["size"] for points in results.values() for p in points})
    axes.set_xticks(sizes, [str(n) for n in sizes])
    axes.xaxis.set_minor_formatter(NullFormatter())
    axes.set_xlabel("N (blocks or receptacles)")
    axes.set_ylabel("mean step time (ms)")
    axes.set_title("Step time against size (random walk)")
    axes.legend(fontsize="small")
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Blocksworld to 200, 50 steps")
    parser.add_argument("--steps", type=int, help="steps a walk (default 100; --quick 50)")
    parser.add_argument("--seed", type=int, default=0, help="problem and walk seed")
    parser.add_argument(
        "--only", nargs="+", choices=sorted(FAMILIES), help="measure these families only"
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--plot", type=Path, help="save a log-log plot of step time here")
    parser.add_argument(
        "--point", nargs=2, metavar=("FAMILY", "N"), help=argparse.SUPPRESS
    )  # one point, in this process (what each fresh process runs)
    args = parser.parse_args(argv)
    steps = args.steps or (50 if args.quick else 100)
    if args.point:
        print(json.dumps(measure(args.point[0], int(args.point[1]), steps, args.seed)))
        return

    results: dict[str, list[dict]] = {}
    for family in args.only or FAMILIES:
        sizes = FAMILIES[family]["quick" if args.quick else "sizes"]
        results[family] = [measure_apart(family, n, steps, args.seed) for n in sizes]
        print(f"{family}: {steps}-step random walk (seed {args.seed}), one process a point\n")
        print(table(family, results[family]) + "\n")
    found = checks(results)
    for check in found:
        verdict = "met" if check["value"] <= check["target"] else "NOT met"
        print(
            f"{check['check']}: {check['value']:.2f} {check['unit']} "
            f"(target <= {check['target']:g}: {verdict})"
        )
    print(f"\nPython {platform.python_version()}, {platform.machine()}")
    if args.plot:
        plot(results, args.plot)
        print(f"plot: {args.plot}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "steps": steps,
                    "seed": args.seed,
                    "python": platform.python_version(),
                    "results": results,
                    "checks": found,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
