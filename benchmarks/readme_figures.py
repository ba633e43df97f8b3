"""Re-measure every ratio docs/performance.md states, in one run, and print its table;
``--save`` keeps the figures for the page and ``--write`` renders the page from them
(``performance_page.py``).

Each figure's own benchmark in ``benchmarks/`` runs as a subprocess (with ``--json``
where it has one; ``bench_sweep_workers.py`` is read from its printed table), ``--runs``
times in turn (default 3), and every number is reported as its range over the runs,
min-max with the median, never the best run alone. Ratios are taken within one run (both
sides measured by the same subprocess), then ranged over the runs. The table ends with
the machine (CPU model, cores, Python), the date, the 1-minute load average before and
after, and the figures this script does not re-measure, with the reason.

``--quick`` shrinks the slow benchmarks to finish in about 3.5 minutes a run on 2 cores
(the full sizes take about 15); the env-step and CoinCollector benchmarks keep their
full sizes (about 12 s and 5 s a run; at 1,000 steps a game TextWorld Express's JVM is
not warm, which doubles the CoinCollector ratio):

- plan validation: 2 timed calls a plan instead of 5;
- ALFWorld: 6 games (one per task type) and 40 random steps a game instead of 18 and
  160, 1 round of ours instead of 3;
- the horizon sweep: a scripted model taking 50 ms a call instead of 200 ms (the
  table says which delay its figure is for);
- formalizer planning: the script's own ``--quick`` (11-room houses x 2 seeds, 2
  generated ALFWorld games, 1 repeat);
- judging a written problem: 3 problems a domain instead of 10, best of 2 instead of 5;
- grounding: 3 runs of ours and 1 of each peer instead of 5 and 3;
- batched environments: ALFWorld-v0 in sync mode only (1, 8 and 64 sub-environments),
  1 round of ours; the async rows and CoinCollector-v0 are left out.

    python benchmarks/readme_figures.py --runs 3 --json /tmp/readme_figures.json
    python benchmarks/readme_figures.py --quick --only coin alfworld
    python benchmarks/readme_figures.py --quick --save benchmarks/results/performance.json
    python benchmarks/readme_figures.py --write docs/performance.md   # renders only
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from performance_page import Measurement, batched, not_remeasured, render, summarize, table

HERE = Path(__file__).resolve().parent
MEASUREMENT = HERE / "results" / "performance.json"  # what docs/performance.md shows


def run(cmd: list[str], timeout: float) -> str:
    """Run one benchmark; its stdout (a failure raises with its stderr's tail)."""
    done = subprocess.run(
        [sys.executable, *cmd],
        cwd=HERE.parent,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{tail}")
    return done.stdout


def with_json(cmd: list[str], timeout: float = 3600) -> Any:
    """What benchmark ``cmd`` wrote to its ``--json`` file: an object or a list, as each
    benchmark writes it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "out.json"
        run([*cmd, "--json", str(path)], timeout)
        return json.loads(path.read_text())


# One function a benchmark: a flat dict of numbers for one run.


def env_steps(quick: bool) -> dict[str, float]:
    out = with_json(["benchmarks/bench_env_steps.py", "--repeat", "3"])
    rate = {r["env"]: r["steps_per_s"] for r in out["rows"]}
    ours = rate["planloop Blocksworld-v0 (gym.make)"]
    pddl = rate["planloop Blocksworld-v0 obs_format=pddl (gym.make)"]
    peer = next(v for k, v in rate.items() if k.startswith("PDDLGym"))
    return {
        "ours_steps_s": ours,
        "ours_pddl_steps_s": pddl,
        "peer_steps_s": peer,
        "ratio": ours / peer,
        "ratio_pddl": pddl / peer,
    }


def validate(quick: bool) -> dict[str, float]:
    out = with_json(["benchmarks/bench_validate.py", "--repeat", "2" if quick else "5"])
    rows = out["rows"]
    return {
        "plans": sum(r["plans"] for r in rows),
        "ours_us_min": min(r["ours_us_per_plan"] for r in rows),
        "ours_us_max": max(r["ours_us_per_plan"] for r in rows),
        "peer_ms_min": min(r["up_us_per_plan"] for r in rows) / 1e3,
        "peer_ms_max": max(r["up_us_per_plan"] for r in rows) / 1e3,
        "ratio": out["ratio"],
        "ratio_row_min": min(r["ratio"] for r in rows),
        "ratio_row_max": max(r["ratio"] for r in rows),
    }


def coin(quick: bool) -> dict[str, float]:
    rows = with_json(["benchmarks/bench_coin_steps.py", "--steps", "3000"])
    steps = sum(r["steps"] for r in rows)
    native_s = sum(r["steps"] * r["native_us"] for r in rows) / 1e6
    twx_s = sum(r["steps"] * r["twx_us"] for r in rows) / 1e6
    by_game = [r["twx_us"] / r["native_us"] for r in rows]
    return {
        "ours_steps_s": steps / native_s,
        "peer_steps_s": steps / twx_s,
        "ratio": twx_s / native_s,
        "ratio_game_min": min(by_game),
        "ratio_game_max": max(by_game),
    }


def fd_startup(quick: bool) -> dict[str, float]:
    out = with_json(["benchmarks/bench_fd_startup.py", "--runs", "10"])
    return {
        "warm_first_ms": out["warm"]["first_s"] * 1e3,
        "warm_rest_ms": out["warm"]["rest_median_s"] * 1e3,
        "warm_ratio": out["warm"]["ratio"],
        "warm_other_ms": out["warm"]["other_median_s"] * 1e3,
        "cold_other_ms": out["per-call"]["other_median_s"] * 1e3,
    }


def scale(quick: bool) -> dict[str, float]:
    out = with_json(["benchmarks/bench_scale.py"])
    checks = {c["check"]: c["value"] for c in out["checks"]}
    blocks = {p["size"]: p for p in out["results"]["blocksworld"]}
    return {
        "blocks_step_ratio": checks["blocksworld step time 200/50"],
        "alfworld_step_ratio": checks["alfworld step time 100/30"],
        "blocks_400_peak_mib": checks["blocksworld 400 peak memory"],
        "blocks_400_load_s": blocks[400]["load_s"],
        "blocks_reload_ratio": max(p["reload_s"] / p["load_s"] for p in blocks.values()),
    }


def alfworld(quick: bool) -> dict[str, float]:
    args = ["--games", "6", "--steps", "40", "--repeat", "1"] if quick else []
    out = with_json(["benchmarks/bench_alfworld_steps.py", *args])
    summary = out["summary"]
    every = summary["**all**"]
    by_type = [
        s["native"]["steps_per_s"] / s["peer"]["steps_per_s"]
        for name, s in summary.items()
        if name != "**all**"
    ]
    checks = [r["check"] for r in out["rows"]]
    compared = sum(c[f"{k}_steps"] for c in checks for k in ("walkthrough", "random"))
    same = sum(
        min(c[f"{k}_{f}"] for f in ("obs", "admissible", "won", "done"))
        for c in checks
        for k in ("walkthrough", "random")
    )

    def median_reset(side: str) -> float:
        return statistics.median(ms for r in out["rows"] for ms in r[side]["reset_ms"])

    return {
        "games": len(out["rows"]),
        "steps": every["native"]["steps"],
        "ours_steps_s": every["native"]["steps_per_s"],
        "peer_steps_s": every["peer"]["steps_per_s"],
        "ratio": every["native"]["steps_per_s"] / every["peer"]["steps_per_s"],
        "ratio_type_min": min(by_type),
        "ratio_type_max": max(by_type),
        "ours_median_ms": every["native"]["median_ms"],
        "peer_median_ms": every["peer"]["median_ms"],
        "ours_reset_ms": median_reset("native"),
        "peer_reset_ms": median_reset("peer"),
        "compared_steps": compared,
        "identical_steps": same,
    }


def sweep(quick: bool) -> dict[str, float]:
    delay = 0.05 if quick else 0.2
    out = run(["benchmarks/bench_sweep_workers.py", "--delay", str(delay)], 3600)
    rows = re.findall(
        r"^\| (\d+) \| (first|rerun) \| \d+ \| \d+ \| (\d+) \| ([\d.]+) \|$", out, re.M
    )
    table = {(int(w), r): (int(calls), float(s)) for w, r, calls, s in rows}
    serial, parallel = table[(1, "first")], table[(8, "first")]
    return {
        "delay_ms": delay * 1e3,
        "calls": serial[0],
        "workers1_s": serial[1],
        "workers8_s": parallel[1],
        "ratio": serial[1] / parallel[1],
        "rerun_calls": table[(1, "rerun")][0] + table[(8, "rerun")][0],
        "rerun_s": max(table[(1, "rerun")][1], table[(8, "rerun")][1]),
    }


def formalizer_planning(quick: bool) -> dict[str, float]:
    out = with_json(["benchmarks/bench_formalizer_planning.py", *(["--quick"] if quick else [])])
    figures: dict[str, float] = {}
    for env, key in (("CoinCollector", "coin"), ("ALFWorld", "alf")):
        s = out["summary"][env]
        figures |= {
            f"{key}_rounds": s["rounds"],
            f"{key}_auto_ms": s["auto"]["mean"],
            f"{key}_fd_ms": s["fd"]["mean"],
            f"{key}_ratio": s["fd"]["mean"] / s["auto"]["mean"],
            f"{key}_afresh_ms": s["afresh"][1],
            f"{key}_reused_ms": s["reused"][1],
            f"{key}_cached_ms": s["cached"]["mean"],
            f"{key}_cached_ratio": s["fd"]["mean"] / s["cached"]["mean"],
            f"{key}_fallbacks": s["fallbacks"],
        }
    return figures


def formalize_metrics(quick: bool) -> dict[str, float]:
    args = ["--seeds", "3", "--repeat", "2"] if quick else []
    rows = with_json(["benchmarks/bench_formalize_metrics.py", *args])
    figures: dict[str, float] = {}
    for kind in ("reference", "renamed_objects", "missing_fact"):
        values = [r[f"{kind}_ms"] for r in rows]
        figures |= {f"{kind}_ms_min": min(values), f"{kind}_ms_max": max(values)}
    return figures


def grounding(quick: bool) -> dict[str, float]:
    args = ["--repeat", "3", "--peer-repeat", "1"] if quick else ["--repeat", "5"]
    out = with_json(["benchmarks/bench_grounding.py", *args])
    rows = {(r["tool"].split()[0], r["timed"]): r for r in out["rows"]}
    ours = rows[("planloop", "load = parse + ground")]
    gym_row = next(r for k, r in rows.items() if k[0] == "PDDLGym")
    up_row = next(r for k, r in rows.items() if k[0] == "unified-planning")
    figures = {"ours_ms": ours["median_ms"], "ground_actions": ours["ground_actions"]}
    if gym_row["median_ms"] is not None:
        figures |= {
            "pddlgym_ms": gym_row["median_ms"],
            "ratio": gym_row["median_ms"] / ours["median_ms"],
        }
    if up_row["median_ms"] is not None:
        figures["up_parse_ms"] = up_row["median_ms"]
    return figures


def vector(quick: bool) -> dict[str, float]:
    args = ["--env-ids", "ALFWorld-v0", "--modes", "sync", "--repeat", "1"] if quick else []
    out = with_json(["benchmarks/bench_vector_envs.py", *args])
    figures: dict[str, float] = {}
    peers = {(r["env"], r["mode"], r["envs"]): r for r in out["rows"] if r["backend"] != "planloop"}
    for r in out["rows"]:
        if r["backend"] != "planloop":
            continue
        key = f"{r['env'].split('-')[0]}_{r['mode']}_{r['envs']}"
        figures[f"{key}_ours"] = r["steps_per_s"]
        peer = peers.get((r["env"], r["mode"], r["envs"]))
        if peer:
            figures[f"{key}_peer"] = peer["steps_per_s"]
            figures[f"{key}_ratio"] = r["steps_per_s"] / peer["steps_per_s"]
            if r.get("cpu_s") and peer.get("cpu_s"):
                ours_cpu = r["cpu_env_steps"] / r["cpu_s"]
                figures[f"{key}_cpu_ratio"] = ours_cpu / (peer["cpu_env_steps"] / peer["cpu_s"])
    for env in ("ALFWorld", "CoinCollector"):
        for size in (1, 8, 64):
            sync = figures.get(f"{env}_sync_{size}_ours")
            async_ = figures.get(f"{env}_async_{size}_ours")
            if sync and async_:
                figures[f"{env}_sync_over_async_{size}"] = sync / async_
    return figures


BENCHMARKS: dict[str, tuple[Callable[[bool], dict[str, float]], str]] = {
    "env_steps": (env_steps, "bench_env_steps.py"),
    "validate": (validate, "bench_validate.py"),
    "coin": (coin, "bench_coin_steps.py"),
    "alfworld": (alfworld, "bench_alfworld_steps.py"),
    "sweep": (sweep, "bench_sweep_workers.py"),
    "formalizer_planning": (formalizer_planning, "bench_formalizer_planning.py"),
    "formalize_metrics": (formalize_metrics, "bench_formalize_metrics.py"),
    "grounding": (grounding, "bench_grounding.py"),
    "vector": (vector, "bench_vector_envs.py"),
    "fd_startup": (fd_startup, "bench_fd_startup.py"),
    "scale": (scale, "bench_scale.py"),
}


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def loadavg() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of every benchmark")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (see above)")
    parser.add_argument(
        "--only", nargs="+", choices=list(BENCHMARKS), help="run only these benchmarks"
    )
    parser.add_argument("--json", type=Path, help="also write every run's numbers here")
    parser.add_argument(
        "--save",
        type=Path,
        metavar="MEASUREMENT",
        help="write this run's figures into the page's measurement (e.g. "
        "benchmarks/results/performance.json; its notes and sections, and the figures of "
        "benchmarks not run, are kept)",
    )
    parser.add_argument(
        "--write",
        type=Path,
        metavar="PAGE",
        help="render PAGE (docs/performance.md) from --figures; alone, it measures nothing",
    )
    parser.add_argument(
        "--figures",
        type=Path,
        default=MEASUREMENT,
        help=f"the measurement --write renders (default {MEASUREMENT.relative_to(HERE.parent)})",
    )
    args = parser.parse_args(argv)
    status = 0
    if args.save or not args.write:
        status = measure(args)
    if args.write:
        args.write.write_text(render(json.loads(args.figures.read_text())))
    return status


def measure(args: argparse.Namespace) -> int:
    """Run the benchmarks, print the table, and write what ``--json`` and ``--save``
    ask for; 1 if a benchmark failed."""
    names = args.only or list(BENCHMARKS)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    seconds: dict[str, list[float]] = {name: [] for name in names}
    errors: dict[str, str] = {}
    load_before, start = loadavg(), time.monotonic()
    for index in range(args.runs):
        for name in names:
            if name in errors:
                continue
            function, script = BENCHMARKS[name]
            print(f"# run {index + 1}/{args.runs}: {script}", file=sys.stderr, flush=True)
            began = time.monotonic()
            try:
                results[name].append(function(args.quick))
            except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as error:
                errors[name] = f"{type(error).__name__}: {error}"
                print(f"# {script} failed: {errors[name]}", file=sys.stderr, flush=True)
            seconds[name].append(time.monotonic() - began)
    elapsed = time.monotonic() - start
    today = datetime.date.today().isoformat()
    command = "benchmarks/readme_figures.py" + (" --quick" if args.quick else "")
    command += f" --runs {args.runs}"
    figures = summarize(results)
    failed = {BENCHMARKS[name][1]: error for name, error in errors.items()}
    print(
        f"Measured by `{command}` on {today}: {machine()}; 1-minute load average "
        f"{load_before:.1f} before, {loadavg():.1f} after; {elapsed / 60:.1f} minutes in all. "
        f"Every figure is min-max over the {args.runs} runs (median in brackets for "
        "ratios); each ratio is taken within one run, both sides measured by the same "
        "script.\n"
    )
    print(table(figures))
    if batched(figures):
        print(
            "\nBatched environments (`gym.make_vec`) vs TextWorld's batched env as "
            "`AlfredTWEnv(batch_size=B)` builds it, env-steps per second of wall clock:\n"
        )
        print(batched(figures))
    if args.quick:
        print(
            "\n`--quick`: the sizes are shrunk (see `readme_figures.py --help`); the "
            "async and CoinCollector-v0 vector rows are not run."
        )
    print("\nNot re-measured here:\n")
    print(not_remeasured(failed))
    print(
        "\nseconds a run: "
        + ", ".join(
            f"{BENCHMARKS[n][1]} {min(s):.0f}-{max(s):.0f}" for n, s in seconds.items() if s
        )
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "date": today,
                    "machine": machine(),
                    "command": command,
                    "quick": args.quick,
                    "runs": args.runs,
                    "elapsed_s": elapsed,
                    "loadavg": [load_before, loadavg()],
                    "seconds": seconds,
                    "errors": errors,
                    "results": results,
                },
                indent=1,
            )
        )
    if args.save:
        kept = json.loads(args.save.read_text()) if args.save.exists() else {}
        measurement: Measurement = {
            "source": f"measured by `python {command}`"
            + (
                f" (--only {' '.join(names)}: the other figures kept from before)"
                if args.only
                else ""
            ),
            "date": today,
            "command": command,
            "machine": machine(),
            "minutes": round(elapsed / 60, 1),
            "loadavg": [load_before, loadavg()],
            "runs": args.runs,
            "quick": args.quick,
            "figures": {**kept.get("figures", {}), **figures},  # --only keeps the rest
            "errors": failed,
            "notes": kept.get("notes", []),
            "sections": kept.get("sections", []),
        }
        args.save.write_text(json.dumps(measurement, indent=1, ensure_ascii=False) + "\n")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
