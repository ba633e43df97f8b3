"""Closed-loop horizon sweep: success against the planning horizon H.

For every horizon (default 1, 5 and the open loop), problem and trial, a language model
plans with ``ClosedLoopPolicy(horizon=H)`` (``OpenLoopPolicy`` for ``open``) in the
environment, and the environment judges the episode.

    python experiments/horizon_sweep.py --llm openai:gpt-4o-mini
    python experiments/horizon_sweep.py --env Mystery-BW-v0 --instances 0:5 \\
        --llm http://localhost:8000/v1@Qwen/Qwen2.5-7B-Instruct --workers 8

``--out DIR`` receives ``episodes.jsonl`` (one record per episode, appended as each
ends; rerunning the same command resumes and skips finished episodes; episodes whose
model calls failed for good are recorded and run again), ``success.md`` (the table
printed at the end) and ``success.png`` (success against horizon, with 95% Wilson
intervals; needs matplotlib, the ``plot`` extra).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import gymnasium as gym

import planloop  # noqa: F401  (registers the environments)
from planloop.llm import make_model
from planloop.policies import ClosedLoopPolicy, OpenLoopPolicy, run_episode
from planloop.results import ResultsFile, config_hash
from planloop.stats import wilson_interval

OPEN = "open"


def parse_horizons(text: str) -> list[int | str]:
    horizons = []
    for part in text.split(","):
        part = part.strip().lower()
        if part in (OPEN, "inf", "open-loop"):
            horizons.append(OPEN)
        elif part.isdigit() and int(part) > 0:
            horizons.append(int(part))
        else:
            raise argparse.ArgumentTypeError(f"a horizon is a positive integer or 'open', "
                                             f"not {part!r}")
    return horizons


def parse_range(text: str) -> range:
    start, _, stop = text.partition(":")
    return range(int(start), int(stop)) if stop else range(int(start), int(start) + 1)


def make_policy(model, horizon, trial: int, max_actions: int, temperature: float):
    if horizon == OPEN:
        return OpenLoopPolicy(model, max_actions=max_actions, temperature=temperature, seed=trial)
    return ClosedLoopPolicy(model, horizon=horizon, max_actions=max_actions,
                            temperature=temperature, seed=trial)


def episode_record(episode) -> dict:
    """What the results keep of an episode (everything but the observation texts)."""
    record = episode.to_json()
    record["observations"] = len(record["observations"])
    return record


def run_sweep(env_id: str, model, horizons, instances, trials: int, out: Path,
              workers: int = 1, max_actions: int = 50, temperature: float = 0.7,
              progress=None) -> list[dict]:
    """Run every (horizon, instance, trial) not yet in ``out/episodes.jsonl``; returns
    this configuration's records (old and new)."""
    config = {"study": "horizon_sweep", "env": env_id, "model": model.name,
              "max_actions": max_actions, "temperature": temperature}
    run_id = config_hash(config)
    keys = {(h, i, t): f"{run_id}/{h}/{i}/{t}"
            for h in horizons for i in instances for t in range(trials)}
    results = ResultsFile(out / "episodes.jsonl")
    finished = {r["key"] for r in results.records if not r.get("error")}
    jobs = [job for job, key in keys.items() if key not in finished]
    local = threading.local()

    def play(horizon, instance, trial):
        if not hasattr(local, "env"):
            local.env = gym.make(env_id)
        policy = make_policy(model, horizon, trial, max_actions, temperature)
        episode = run_episode(local.env, policy, options={"instance": instance})
        results.append({"key": keys[horizon, instance, trial], "config": config,
                        "horizon": horizon, "trial": trial, **episode_record(episode)})

    total = len(keys)
    if progress:
        progress(total - len(jobs), total)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(play, *job) for job in jobs]
        for done, future in enumerate(as_completed(futures), start=total - len(jobs) + 1):
            future.result()
            if progress:
                progress(done, total)
    wanted = set(keys.values())
    latest = {r["key"]: r for r in results.records if r["key"] in wanted}
    return list(latest.values())


def success_table(records: list[dict], horizons, instances) -> str:
    """Problems as columns, one row per horizon: wins/trials and the 95% Wilson interval."""
    header = "| horizon | " + " | ".join(f"problem {i}" for i in instances) + " | all |"
    rows = [header, "|---|" + "---:|" * (len(instances) + 1)]
    for horizon in horizons:
        cells = []
        for instance in list(instances) + [None]:
            mine = [r for r in records if r["horizon"] == horizon and not r.get("error")
                    and (instance is None or r["instance"] == instance)]
            wins = sum(r["won"] for r in mine)
            low, high = wilson_interval(wins, len(mine))
            cells.append(f"{wins}/{len(mine)} [{low:.0%}, {high:.0%}]")
        label = "open loop" if horizon == OPEN else f"H = {horizon}"
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    errors = [r["error"] for r in records if r.get("error")]
    if errors:
        rows.append(f"\n{len(errors)} episodes ended on a failed model call; rerun to retry "
                    f"them. The last: {errors[-1]}")
    return "\n".join(rows)


def save_plot(records: list[dict], horizons, path: Path) -> bool:
    """Success rate against horizon with Wilson intervals; False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    labels, rates, lows, highs = [], [], [], []
    for horizon in horizons:
        mine = [r for r in records if r["horizon"] == horizon and not r.get("error")]
        wins = sum(r["won"] for r in mine)
        low, high = wilson_interval(wins, len(mine))
        rate = wins / len(mine) if mine else 0.0
        labels.append("open" if horizon == OPEN else str(horizon))
        rates.append(rate)
        lows.append(max(0.0, rate - low))
        highs.append(max(0.0, high - rate))
    figure, axes = plt.subplots(figsize=(5, 3.5))
    axes.errorbar(range(len(labels)), rates, yerr=[lows, highs], fmt="o-", capsize=4)
    axes.set_xticks(range(len(labels)), labels)
    axes.set_xlabel("horizon H")
    axes.set_ylabel("success rate (95% Wilson)")
    axes.set_ylim(-0.02, 1.02)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def progress_bar(width: int = 30):
    """A callback drawing ``[####....] done/total episodes seconds`` on stderr."""
    start = time.monotonic()

    def draw(done: int, total: int) -> None:
        filled = width * done // max(1, total)
        print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} episodes "
              f"{time.monotonic() - start:.0f} s", end="", file=sys.stderr, flush=True)

    return draw


def main(argv=None, model=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="Baking-v0")
    parser.add_argument("--llm", help="openai:MODEL, URL@MODEL or interactive")
    parser.add_argument("--horizons", type=parse_horizons, default=parse_horizons("1,5,open"),
                        help="comma-separated horizons, 'open' for the open loop "
                             "(default 1,5,open)")
    parser.add_argument("--instances", type=parse_range, default=None,
                        help="START:STOP problems (default: every problem, at most 10)")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--max-actions", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("results/horizon_sweep"))
    args = parser.parse_args(argv)
    if model is None:
        if not args.llm:
            parser.error("--llm is required (e.g. openai:gpt-4o-mini)")
        model = make_model(args.llm)
    instances = args.instances or range(min(10, gym.make(args.env).unwrapped.num_instances))
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    records = run_sweep(args.env, model, args.horizons, instances, args.trials, args.out,
                        args.workers, args.max_actions, args.temperature, progress=progress_bar())
    print(f"\nfinished in {time.monotonic() - start:.1f} s", file=sys.stderr)
    table = f"## {args.env}, {model.name}\n\n" + success_table(records, args.horizons, instances)
    (args.out / "success.md").write_text(table + "\n")
    print(table)
    if save_plot(records, args.horizons, args.out / "success.png"):
        print(f"\nplot: {args.out / 'success.png'}")
    else:
        print("\nno plot: install matplotlib (pip install 'planloop[plot]')", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
