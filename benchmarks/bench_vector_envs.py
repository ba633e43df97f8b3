"""Steps per second of vectorised ALFWorld-v0 and CoinCollector-v0, sync and async, against
TextWorld's own batched ALFWorld environment, same run.

For 1, 8 and 64 sub-environments (``--envs``) and both of gymnasium's vectorisation
modes, ours plays seeded random walks: every vector step sends, for each sub-environment,
a command drawn uniformly (``random.Random(seed)``) among that sub-environment's
``info["admissible_actions"]``. ``CoinCollector-v0`` is built with
``gym.make_vec("planloop:CoinCollector-v0", num_envs=N, vectorization_mode=mode)`` and
reset with the seeds ``seed, seed + 1, ...``. ``ALFWorld-v0`` plays the 18 fixture games
(``tests/data/alfworld/games``) assigned round-robin to the sub-environments, one
``game_file=`` each; ``gym.make_vec`` gives every sub-environment the same arguments, so
the vector env is built as ``make_vec`` builds it, ``SyncVectorEnv`` or
``AsyncVectorEnv`` (shared memory, the default) over ``gym.make("planloop:ALFWorld-v0",
game_file=...)`` per sub-environment. Episodes end at the registered 50 steps (or a
win) and gymnasium's default autoreset starts the next on the following step.

The peer is TextWorld 1.7.0 set up as ALFWorld 0.4.2's ``AlfredTWEnv(batch_size=B)``
sets it up, in the virtual environment ``benchmarks/bench_alfworld_steps.py`` makes
(``benchmarks/.venvs/textworld``, made on first use and reused), played by
``benchmarks/peers/textworld_batched.py`` with the same games (the first ``B`` of the
same round-robin list), the same kind of random walk, ``asynchronous=False`` (sync) and
``True`` (async; TextWorld runs a batch of one in process either way), and a batch reset
whenever every game of the batch is done.

Steps per second are env-steps (``N`` per vector step or batch call, autoreset steps and
the peer's batch resets included) over the seconds spent inside ``step``/``reset``
calls; construction and the first reset are timed apart, action choice is not timed.
Ours is the best of ``--repeat`` rounds on the same vector env; the peer runs once.
Memory is the proportional set size of the benchmark process and its workers after the
first reset.

    python benchmarks/bench_vector_envs.py --json /tmp/bench_vector_envs.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import gymnasium as gym
from bench_alfworld_steps import (
    GAMES_DIR,
    PeerError,
    add_peer_flags,
    peer_env,
    prepare_peer,
)

import planloop

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "peers"))
from textworld_batched import (  # noqa: E402  (stdlib only, shared)
    tree_cpu_s,
    tree_cpu_since,
    tree_pss_mib,
)

PEER_SCRIPT = HERE / "peers" / "textworld_batched.py"
ENV_IDS = ("ALFWorld-v0", "CoinCollector-v0")
MODES = ("sync", "async")
MAX_EPISODE_STEPS = 50  # ALFWorld-v0's registered limit, and AlfredTWEnv's


def game_files(count: int) -> list[str]:
    """The fixture games, round-robin, ``count`` of them."""
    games = sorted(str(p) for p in GAMES_DIR.glob("*/game.tw-pddl"))
    return [games[i % len(games)] for i in range(count)]


def make_ours(env_id: str, num_envs: int, mode: str):
    if env_id == "ALFWorld-v0":
        fns = [partial(gym.make, "planloop:ALFWorld-v0", game_file=g) for g in game_files(num_envs)]
        return gym.vector.SyncVectorEnv(fns) if mode == "sync" else gym.vector.AsyncVectorEnv(fns)
    return gym.make_vec(f"planloop:{env_id}", num_envs=num_envs, vectorization_mode=mode)


def time_ours(
    env_id: str, num_envs: int, mode: str, vector_steps: int, repeat: int, seed: int
) -> dict:
    start = time.perf_counter()
    envs = make_ours(env_id, num_envs, mode)
    construct_s = time.perf_counter() - start
    try:
        start = time.perf_counter()
        _, infos = envs.reset(seed=[seed + i for i in range(num_envs)])
        first_reset_s = time.perf_counter() - start
        pss = tree_pss_mib()
        rng = random.Random(seed)
        rounds, episodes, cpu = [], 0, tree_cpu_s()
        for _ in range(repeat):
            spent = 0.0
            for _ in range(vector_steps):
                actions = tuple(rng.choice(a) for a in infos["admissible_actions"])
                start = time.perf_counter()
                _, _, terminated, truncated, infos = envs.step(actions)
                spent += time.perf_counter() - start
                episodes += int((terminated | truncated).sum())
            rounds.append(spent)
        cpu = tree_cpu_since(cpu)
    finally:
        start = time.perf_counter()
        envs.close()
        close_s = time.perf_counter() - start
    best = min(rounds)
    return {
        "env": env_id,
        "backend": "planloop",
        "mode": mode,
        "envs": num_envs,
        "vector_steps": vector_steps,
        "env_steps": num_envs * vector_steps,
        "seconds": best,
        "rounds_s": rounds,
        "steps_per_s": num_envs * vector_steps / best,
        "episodes_ended": episodes,
        "construct_s": construct_s,
        "first_reset_s": first_reset_s,
        "close_s": close_s,
        "pss_mib": pss,
        "cpu_s": cpu,
        "cpu_env_steps": repeat * num_envs * vector_steps,
        "loadavg": os.getloadavg(),
    }


def run_peer(python: Path, plan: dict) -> dict:
    """The peer's results. Its progress lines are passed on; the rest of its stderr
    (TextWorld's ``AsyncBatchEnv`` workers print an ``EOFError`` traceback each as the
    batch is closed) is kept, and shown only if the peer fails."""
    with tempfile.TemporaryDirectory() as tmp:
        plan_file, out_file = Path(tmp) / "plan.json", Path(tmp) / "peer.json"
        plan_file.write_text(json.dumps(plan))
        with subprocess.Popen(
            [str(python), str(PEER_SCRIPT), str(plan_file), str(out_file)],
            env=peer_env(),
            stderr=subprocess.PIPE,
            text=True,
        ) as proc:
            assert proc.stderr is not None  # stderr=PIPE
            other = []
            for line in proc.stderr:
                if line.startswith("  TextWorld"):
                    print(line, end="", file=sys.stderr, flush=True)
                else:
                    other.append(line)
        eof = sum(line.strip() == "EOFError" for line in other)
        if proc.returncode != 0 or not out_file.exists():
            sys.stderr.writelines(other[-40:])
            raise PeerError(f"the TextWorld peer ({python}) exited with {proc.returncode}")
        if eof:
            print(
                f"# TextWorld's async workers printed {eof} EOFError tracebacks on close "
                "(not shown)",
                file=sys.stderr,
            )
        return json.loads(out_file.read_text())


def fmt_rate(rate: float) -> str:
    return f"{rate:,.0f}" if rate >= 100 else f"{rate:,.1f}"


def per_cpu_s(row: dict) -> float | None:
    """Env-steps per CPU-second of the benchmark process and its workers (the whole timed
    loop, action choice included): what the steps cost, whatever else loads the cores."""
    return row["cpu_env_steps"] / row["cpu_s"] if row.get("cpu_s") else None


def markdown(rows: list[dict]) -> str:
    peers = {(r["mode"], r["envs"]): r for r in rows if r["backend"] != "planloop"}
    lines = [
        "| env | backend | mode | envs | env-steps | steps/s | ratio ours/peer "
        "| steps per CPU-s | ratio | construct + first reset s | memory (PSS) MiB |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = cpu_ratio = ""
        peer = peers.get((r["mode"], r["envs"]))
        cpu_rate = per_cpu_s(r)
        if r["backend"] == "planloop" and r["env"] == "ALFWorld-v0" and peer:
            ratio = f"**{r['steps_per_s'] / peer['steps_per_s']:,.0f}x**"
            peer_cpu_rate = per_cpu_s(peer)
            if cpu_rate and peer_cpu_rate:
                cpu_ratio = f"{cpu_rate / peer_cpu_rate:,.0f}x"
        pss = "" if r.get("pss_mib") is None else f"{r['pss_mib']:,.0f}"
        lines.append(
            f"| {r['env']} | {r['backend']} | {r['mode']} | {r['envs']} "
            f"| {r['env_steps']:,} | {fmt_rate(r['steps_per_s'])} | {ratio} "
            f"| {fmt_rate(cpu_rate) if cpu_rate else ''} | {cpu_ratio} "
            f"| {r['construct_s'] + r['first_reset_s']:.2f} | {pss} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--envs",
        type=int,
        nargs="+",
        default=[1, 8, 64],
        help="numbers of sub-environments (batch sizes)",
    )
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--env-ids", nargs="+", choices=ENV_IDS, default=list(ENV_IDS))
    parser.add_argument(
        "--steps",
        type=int,
        default=3200,
        help="env-steps per round of ours (vector steps = steps / envs, at "
        "least --min-vector-steps)",
    )
    parser.add_argument(
        "--min-vector-steps",
        type=int,
        default=MAX_EPISODE_STEPS + 1,
        help="vector steps per round of ours at least (default: an episode and its autoreset)",
    )
    parser.add_argument(
        "--peer-steps",
        type=int,
        default=256,
        help="env-steps of the peer per configuration (calls = steps / "
        "batch size, at least --min-peer-calls)",
    )
    parser.add_argument("--min-peer-calls", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of ours; best kept")
    parser.add_argument("--seed", type=int, default=0)
    add_peer_flags(parser)
    args = parser.parse_args(argv)

    peer_python, venv_s = None, None
    if not args.skip_peer and "ALFWorld-v0" in args.env_ids:  # fail early, before timing
        prepared = prepare_peer(args.peer_python)
        if prepared is None:
            return 2
        peer_python, venv_s = prepared

    rows = []
    for env_id in args.env_ids:
        for num_envs in args.envs:
            for mode in args.modes:
                vector_steps = max(args.min_vector_steps, math.ceil(args.steps / num_envs))
                row = time_ours(env_id, num_envs, mode, vector_steps, args.repeat, args.seed)
                rows.append(row)
                print(
                    f"# {env_id} planloop {mode} x{num_envs}: "
                    f"{fmt_rate(row['steps_per_s'])} steps/s (construct "
                    f"{row['construct_s']:.2f} s, first reset {row['first_reset_s']:.2f} s, "
                    f"{row['pss_mib'] or 0:,.0f} MiB)",
                    file=sys.stderr,
                    flush=True,
                )

    peer_info = None
    if peer_python is not None:
        runs = [
            {
                "batch_size": b,
                "asynchronous": mode == "async",
                "calls": max(args.min_peer_calls, math.ceil(args.peer_steps / b)),
            }
            for b in args.envs
            for mode in args.modes
        ]
        plan = {
            "game_files": game_files(max(args.envs)),
            "seed": args.seed,
            "max_episode_steps": MAX_EPISODE_STEPS,
            "runs": runs,
        }
        print(
            f"# TextWorld: batch sizes {args.envs}, {args.modes} (about 50 ms a game step "
            "and 0.6 s a game load, per core)",
            file=sys.stderr,
            flush=True,
        )
        try:
            peer_info = run_peer(peer_python, plan)
        except PeerError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        for run in peer_info["runs"]:
            rows.append(
                {
                    "env": "ALFWorld-v0",
                    "backend": f"TextWorld {run['batch_env']}",
                    "mode": "async" if run["asynchronous"] else "sync",
                    "envs": run["batch_size"],
                    "env_steps": run["env_steps"],
                    "seconds": run["seconds"],
                    "steps_per_s": run["env_steps"] / run["seconds"],
                    "step_calls": run["step_calls"],
                    "reset_calls": run["reset_calls"],
                    "reset_seconds": run["reset_seconds"],
                    "construct_s": run["construct_s"],
                    "first_reset_s": run["first_reset_s"],
                    "close_s": run["close_s"],
                    "pss_mib": run["pss_mib"],
                    "cpu_s": run["cpu_s"],
                    "cpu_env_steps": run["env_steps"],
                    "loadavg": run["loadavg"],
                }
            )
        order = {env_id: i for i, env_id in enumerate(ENV_IDS)}
        rows.sort(
            key=lambda r: (
                order[r["env"]],
                r["envs"],
                MODES.index(r["mode"]),
                r["backend"] != "planloop",
            )
        )

    print(
        f"Vector envs, random admissible commands: planloop {planloop.__version__}, gymnasium "
        f"{gym.__version__}, Python {platform.python_version()}, {os.cpu_count()} cores; "
        f"ours best of {args.repeat} rounds of {args.steps} env-steps (at least "
        f"{args.min_vector_steps} vector steps), seed {args.seed}"
    )
    loads = [r["loadavg"][0] for r in rows]
    print(
        f"1-minute load average after each configuration: {min(loads):.1f}-{max(loads):.1f} "
        f"(steps/s is wall-clock; steps per CPU-s counts the CPU time of this process and "
        f"its workers only)"
    )
    if peer_info:
        packages = ", ".join(f"{k} {v}" for k, v in peer_info["packages"].items())
        print(
            f"peer: TextWorld's batched env as ALFWorld's AlfredTWEnv(batch_size=B) builds it, "
            f"{packages}, Python {peer_info['python']}, one run of {args.peer_steps} env-steps "
            f"(at least {args.min_peer_calls} batch calls)"
        )
    print()
    print(markdown(rows))
    if args.json:
        out = {
            "planloop": planloop.__version__,
            "gymnasium": gym.__version__,
            "python": platform.python_version(),
            "cores": os.cpu_count(),
            "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "peer_venv_seconds": venv_s,
            "peer": None
            if peer_info is None
            else {k: peer_info[k] for k in ("python", "packages")},
            "rows": rows,
        }
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
