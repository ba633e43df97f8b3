"""Re-measure every ratio the README states, in one run, and print its performance table.

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

HERE = Path(__file__).resolve().parent

NOT_REMEASURED = [
    (
        "real model-written PDDL (`real_model_pddl.py`: 97.7% agreement and the rest of "
        "that section)",
        "needs the corpus `shared/corpora/real-model-pddl` (not in this repository) and "
        "about 45 minutes on 2 workers; no ratio against a peer's speed",
        "last measured by one full run of `benchmarks/real_model_pddl.py` (2 workers, 45 min)",
    ),
]


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


# Formatting: a figure's range over the runs.


def span(values: list[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def number(x: float, digits: int) -> str:
    if x >= 100 or digits == 0:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def rng(results: dict, name: str, key: str, unit: str = "", digits: int = 1) -> str:
    """``min-max`` of one figure over the runs (one value when they agree), or a dash."""
    values = [r[key] for r in results.get(name, []) if key in r and r[key] == r[key]]
    if not values:
        return "-"
    lo, _, hi = span(values)
    a, b = number(lo, digits), number(hi, digits)
    return f"{a}{unit}" if a == b else f"{a}-{b}{unit}"


def ratio(results: dict, name: str, key: str) -> str:
    """``**lo-hi x** (median m x)`` over the runs."""
    values = [r[key] for r in results.get(name, []) if key in r]
    if not values:
        return "-"
    lo, mid, hi = span(values)
    digits = 1 if hi < 100 else 0
    if len(values) == 1:
        return f"**{number(lo, digits)}x**"
    return f"**{number(lo, digits)}-{number(hi, digits)}x** (median {number(mid, digits)}x)"


def met(results: dict, name: str, key: str, target: float, at_most: bool = False) -> str:
    """Whether figure ``key`` reached ``target`` (at least it; ``at_most``: at most it)
    in every run, in none or in some."""
    values = [r[key] for r in results.get(name, []) if key in r]
    if not values:
        return "not run"
    sign = -1 if at_most else 1
    if min(sign * v for v in values) >= sign * target:
        return "met"
    if max(sign * v for v in values) < sign * target:
        return "**not met**"
    return "**met in some runs only**"


def table(results: dict, quick: bool) -> str:
    r = results
    sweep_delay = rng(r, "sweep", "delay_ms", " ms", 0)
    rows = [
        (
            "env steps/s, applicable actions every step, text observations, `gym.make`, "
            "vs PDDLGym 0.0.7 blocks",
            rng(r, "env_steps", "ours_steps_s", "", 0),
            rng(r, "env_steps", "peer_steps_s", "", 0),
            ratio(r, "env_steps", "ratio"),
            f"30x: {met(r, 'env_steps', 'ratio', 30)}",
            "bench_env_steps.py",
        ),
        (
            'the same, `obs_format="pddl"`',
            rng(r, "env_steps", "ours_pddl_steps_s", "", 0),
            "same run",
            ratio(r, "env_steps", "ratio_pddl"),
            "",
            "same run",
        ),
        (
            "plan validation vs unified-planning `SequentialPlanValidator`, "
            f"{rng(r, 'validate', 'plans', '', 0)} plans",
            rng(r, "validate", "ours_us_min", " µs", 0)
            + " (fastest plan) to "
            + rng(r, "validate", "ours_us_max", " µs", 0),
            rng(r, "validate", "peer_ms_min", " ms")
            + " to "
            + rng(r, "validate", "peer_ms_max", " ms"),
            ratio(r, "validate", "ratio")
            + "; by plan group "
            + rng(r, "validate", "ratio_row_min", "x", 0)
            + " (slowest) to "
            + rng(r, "validate", "ratio_row_max", "x", 0),
            f"50x: {met(r, 'validate', 'ratio', 50)}",
            "bench_validate.py",
        ),
        (
            "CoinCollector-v0 steps/s vs TextWorld Express (Java), same houses and walk",
            rng(r, "coin", "ours_steps_s", "", 0),
            rng(r, "coin", "peer_steps_s", "", 0),
            ratio(r, "coin", "ratio")
            + "; by game "
            + rng(r, "coin", "ratio_game_min", "x")
            + " to "
            + rng(r, "coin", "ratio_game_max", "x"),
            f"25x: {met(r, 'coin', 'ratio', 25)}",
            "bench_coin_steps.py",
        ),
        (
            "ALFWorld-v0 steps/s vs TextWorld 1.7.0 as ALFWorld 0.4.2 runs it, "
            f"{rng(r, 'alfworld', 'games', '', 0)} games, "
            f"{rng(r, 'alfworld', 'steps', '', 0)} steps; identical steps and resets "
            f"{rng(r, 'alfworld', 'identical_steps', '', 0)} of "
            f"{rng(r, 'alfworld', 'compared_steps', '', 0)}",
            rng(r, "alfworld", "ours_steps_s", "", 0),
            rng(r, "alfworld", "peer_steps_s"),
            ratio(r, "alfworld", "ratio")
            + "; by task type "
            + rng(r, "alfworld", "ratio_type_min", "x", 0)
            + " to "
            + rng(r, "alfworld", "ratio_type_max", "x", 0),
            f"100x: {met(r, 'alfworld', 'ratio', 100)}",
            "bench_alfworld_steps.py",
        ),
        (
            "ALFWorld median step / reset, ms",
            rng(r, "alfworld", "ours_median_ms", "", 3)
            + " / "
            + rng(r, "alfworld", "ours_reset_ms", "", 2),
            rng(r, "alfworld", "peer_median_ms")
            + " / "
            + rng(r, "alfworld", "peer_reset_ms", "", 0),
            "",
            "",
            "same run",
        ),
        (
            f"horizon sweep on Baking-v0, 32 episodes, scripted model at {sweep_delay} a call, "
            "`--workers 8` vs `--workers 1`",
            rng(r, "sweep", "workers8_s", " s"),
            rng(r, "sweep", "workers1_s", " s"),
            ratio(r, "sweep", "ratio"),
            f"6x: {met(r, 'sweep', 'ratio', 6)}",
            "bench_sweep_workers.py",
        ),
        (
            "the same sweep run again",
            rng(r, "sweep", "rerun_calls", " model calls", 0)
            + ", "
            + rng(r, "sweep", "rerun_s", " s", 2),
            "",
            "",
            "0 calls: "
            + (
                "met"
                if r.get("sweep") and all(x["rerun_calls"] == 0 for x in r["sweep"])
                else "**not met**"
            ),
            "same run",
        ),
    ]
    for key, env in (("coin", "CoinCollector"), ("alf", "ALFWorld")):
        rows.append(
            (
                f"planning per formalization round, {env} "
                f"({rng(r, 'formalizer_planning', f'{key}_rounds', ' rounds', 0)}), "
                '`solve(planner="auto")` vs Fast Downward `lama-first` (means)',
                rng(r, "formalizer_planning", f"{key}_auto_ms", " ms", 2)
                + " (afresh "
                + rng(r, "formalizer_planning", f"{key}_afresh_ms", "", 2)
                + ", reusing ground actions "
                + rng(r, "formalizer_planning", f"{key}_reused_ms", "", 2)
                + ")",
                rng(r, "formalizer_planning", f"{key}_fd_ms", " ms", 1),
                ratio(r, "formalizer_planning", f"{key}_ratio"),
                f"20x: {met(r, 'formalizer_planning', f'{key}_ratio', 20)}",
                "bench_formalizer_planning.py",
            )
        )
    rows.append(
        (
            "the same through `PlanCache`, each episode's rounds met 3 times, CoinCollector / "
            "ALFWorld",
            rng(r, "formalizer_planning", "coin_cached_ms", " ms", 2)
            + " / "
            + rng(r, "formalizer_planning", "alf_cached_ms", " ms", 2),
            "",
            ratio(r, "formalizer_planning", "coin_cached_ratio")
            + " / "
            + ratio(r, "formalizer_planning", "alf_cached_ratio"),
            "",
            "same run",
        )
    )
    rows.append(
        (
            "judging one written problem against its 40-object reference (per-domain means): "
            "the reference / renamed / one initial fact missing",
            rng(r, "formalize_metrics", "reference_ms_min", " ms")
            + " to "
            + rng(r, "formalize_metrics", "reference_ms_max", " ms")
            + " / "
            + rng(r, "formalize_metrics", "renamed_objects_ms_min", " ms")
            + " to "
            + rng(r, "formalize_metrics", "renamed_objects_ms_max", " ms")
            + " / "
            + rng(r, "formalize_metrics", "missing_fact_ms_min", " ms")
            + " to "
            + rng(r, "formalize_metrics", "missing_fact_ms_max", " ms"),
            "none runnable",
            "",
            "",
            "bench_formalize_metrics.py",
        )
    )
    rows.append(
        (
            "parse + ground a 50-block IPC-2000 Blocksworld task "
            f"({rng(r, 'grounding', 'ground_actions', '', 0)} ground actions), medians",
            rng(r, "grounding", "ours_ms", " ms", 0),
            "PDDLGym construct + reset + valid actions: "
            + rng(r, "grounding", "pddlgym_ms", " ms", 0)
            + "; UP parse alone: "
            + rng(r, "grounding", "up_parse_ms", " ms", 0),
            ratio(r, "grounding", "ratio") + " vs PDDLGym",
            "< 500 ms: "
            + (
                "met"
                if r.get("grounding") and max(x["ours_ms"] for x in r["grounding"]) < 500
                else "**not met**"
            ),
            "bench_grounding.py",
        )
    )
    rows.append(
        (
            '`solve(planner="lama-first")` on a 4-block task, 10 solves in a fresh process: '
            "median of solves 2-10 / solve 1 (its translation kept); a new 4-block task: "
            + rng(r, "fd_startup", "warm_other_ms", " ms", 0)
            + " warm, "
            + rng(r, "fd_startup", "cold_other_ms", " ms", 0)
            + " with a translator process per call",
            rng(r, "fd_startup", "warm_rest_ms", " ms", 0)
            + " (solve 1: "
            + rng(r, "fd_startup", "warm_first_ms", " ms", 0)
            + ")",
            "",
            rng(r, "fd_startup", "warm_ratio", "", 2),
            f"<= 0.3: {met(r, 'fd_startup', 'warm_ratio', 0.3, at_most=True)}",
            "bench_fd_startup.py",
        )
    )
    rows.append(
        (
            "scale: step time 200 / 50 blocks (PDDL-v0), 100 / 30 receptacles (ALFWorld); "
            "400 blocks: peak memory (load "
            + rng(r, "scale", "blocks_400_load_s", " s", 1)
            + "); make + reset of a Blocksworld text seen before / the first, at most",
            rng(r, "scale", "blocks_step_ratio", "x", 1)
            + " / "
            + rng(r, "scale", "alfworld_step_ratio", "x", 1)
            + " / "
            + rng(r, "scale", "blocks_400_peak_mib", " MiB", 0)
            + " / "
            + rng(r, "scale", "blocks_reload_ratio", "x", 2),
            "",
            "",
            f"8x: {met(r, 'scale', 'blocks_step_ratio', 8, at_most=True)}; 3.5x: "
            f"{met(r, 'scale', 'alfworld_step_ratio', 3.5, at_most=True)}; 400 MiB: "
            f"{met(r, 'scale', 'blocks_400_peak_mib', 400, at_most=True)}; 0.2x: "
            f"{met(r, 'scale', 'blocks_reload_ratio', 0.2, at_most=True)}",
            "bench_scale.py",
        )
    )
    lines = [
        "| what | planloop | peer | ratio, min-max over runs (median) | target | script |",
        "| --- | ---: | ---: | ---: | --- | --- |",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]
    vector_rows = []
    for env in ("ALFWorld", "CoinCollector"):
        for mode in ("sync", "async"):
            for size in (1, 8, 64):
                key = f"{env}_{mode}_{size}"
                if not any(f"{key}_ours" in x for x in r.get("vector", [])):
                    continue
                vector_rows.append(
                    f"| {env}-v0 | {mode} | {size} | {rng(r, 'vector', f'{key}_ours', '', 0)} "
                    f"| {rng(r, 'vector', f'{key}_peer')} | {ratio(r, 'vector', f'{key}_ratio')} "
                    f"| {ratio(r, 'vector', f'{key}_cpu_ratio')} |"
                )
    if vector_rows:
        lines += [
            "",
            "Batched environments (`gym.make_vec`) vs TextWorld's batched env as "
            "`AlfredTWEnv(batch_size=B)` builds it, env-steps per second of wall clock:",
            "",
            "| env | mode | envs | planloop | TextWorld | ratio | ratio per CPU-second |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
            *vector_rows,
        ]
        sync_async = [
            v for x in r.get("vector", []) for k, v in x.items() if "_sync_over_async_" in k
        ]
        if sync_async:
            lines.append(
                f"\nsync over async, every env and size: {min(sync_async):.1f}x-"
                f"{max(sync_async):.1f}x"
            )
    if quick:
        lines.append(
            "\n`--quick`: the sizes are shrunk (see `readme_figures.py --help`); the "
            "async and CoinCollector-v0 vector rows are not run."
        )
    return "\n".join(lines)


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
    args = parser.parse_args(argv)
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
    print(
        f"Measured by `{command}` on {today}: {machine()}; 1-minute load average "
        f"{load_before:.1f} before, {loadavg():.1f} after; {elapsed / 60:.1f} minutes in all. "
        f"Every figure is min-max over the {args.runs} runs (median in brackets for "
        "ratios); each ratio is taken within one run, both sides measured by the same "
        "script.\n"
    )
    print(table(results, args.quick))
    print("\nNot re-measured here:\n")
    for what, why, last in NOT_REMEASURED:
        print(f"- {what}: {why}; {last}.")
    for name, message in errors.items():
        print(f"- {BENCHMARKS[name][1]}: failed in this run ({message.splitlines()[0]})")
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
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
