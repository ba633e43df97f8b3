"""Steps per second of native ALFWorld-v0 against TextWorld's PDDL engine, same run.

Both sides play the same ALFWorld games (the 18 fixture games in
``tests/data/alfworld/games``, three of each task type) with the same commands. The
commands are fixed first on our engine: for each game its walkthrough, then random
walks choosing uniformly (``random.Random(seed)``) among the admissible commands, an
episode ending when the game is won or at the 50-step limit, until ``--steps``
random steps are made. Ours replays them through ``gym.make("ALFWorld-v0",
game_file=...)`` (gymnasium's default wrappers, as a user gets it), best of
``--repeat`` rounds per game. TextWorld 1.7.0 replays them once in its own virtual
environment (``benchmarks/.venvs/textworld``, made on first use and reused), set up
as ALFWorld 0.4.2's ``AlfredTWEnv`` sets it up (``benchmarks/peers/textworld_alfworld.py``).
A step is one ``env.step`` with the admissible commands of the new state; resets are
timed apart (TextWorld's reloads the game file; ours loads it on the first reset only).
Observations, admissible commands, ``won`` and ``done`` are compared step by step.

    python benchmarks/bench_alfworld_steps.py --json /tmp/bench_alfworld_steps.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import gymnasium as gym

import planloop
from planloop.envs.alfworld import TASK_TYPES, ALFWorldEnv

HERE = Path(__file__).resolve().parent
GAMES_DIR = HERE.parent / "tests" / "data" / "alfworld" / "games"
PEER_SCRIPT = HERE / "peers" / "textworld_alfworld.py"
PEER_VENV = HERE / ".venvs" / "textworld"
# ALFWorld's text environment needs only textworld; alfworld's own requirements beyond it
# (torch, ai2thor, opencv, transformers, ...) serve its THOR and training code.
PEER_INSTALLS = (["textworld[pddl]==1.7.0"], ["--no-deps", "alfworld==0.4.2"])
PEER_CHECK = (
    "import textworld.gym\n"
    "from importlib.metadata import version\n"
    "from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos\n"
    "assert version('textworld') == '1.7.0' and version('alfworld') == '0.4.2'\n"
)


class PeerError(Exception):
    """The TextWorld side could not be set up or run."""


# -- the games and the commands ------------------------------------------------------


def pick_games(count: int) -> list[Path]:
    """``count`` fixture games, taking the task types in turn."""
    by_type = defaultdict(list)
    for path in sorted(GAMES_DIR.glob("*/game.tw-pddl")):
        by_type[path.parent.name.split("-")[0]].append(path)
    rounds = max(len(games) for games in by_type.values())
    order = [by_type[t][i] for i in range(rounds) for t in TASK_TYPES if i < len(by_type[t])]
    return sorted(order[:count])


def make_plan(path: Path, random_steps: int, seed: int) -> list[list[str]]:
    """The episodes (command lists) of one game: its walkthrough, then random walks."""
    env = gym.make("ALFWorld-v0", game_file=path)
    _, info = env.reset()
    game = env.unwrapped
    assert isinstance(game, ALFWorldEnv)
    walkthrough = game.walkthrough()
    for command in walkthrough:
        _, _, terminated, truncated, info = env.step(command)
    if not (info["won"] and terminated):
        raise SystemExit(f"{path.parent.name}: the walkthrough does not win on our engine")
    episodes = [walkthrough]
    rng = random.Random(seed)
    while random_steps > 0:
        _, info = env.reset()
        commands, done = [], False
        while not done and random_steps > 0:
            command = rng.choice(info["admissible_actions"])
            _, _, terminated, truncated, info = env.step(command)
            commands.append(command)
            random_steps -= 1
            done = terminated or truncated
        episodes.append(commands)
    env.close()
    return episodes


# -- our side --------------------------------------------------------------------------


def play_native(env, episodes: list[list[str]], record: bool) -> dict:
    resets, steps_ms, seen = [], [], []
    for commands in episodes:
        start = time.perf_counter()
        obs, info = env.reset()
        resets.append(1e3 * (time.perf_counter() - start))
        if record:
            seen.append(
                [
                    {
                        "obs": obs,
                        "admissible": info["admissible_actions"],
                        "won": info["won"],
                        "done": False,
                    }
                ]
            )
        for command in commands:
            start = time.perf_counter()
            obs, _, terminated, truncated, info = env.step(command)
            steps_ms.append(1e3 * (time.perf_counter() - start))
            if record:
                seen[-1].append(
                    {
                        "obs": obs,
                        "admissible": info["admissible_actions"],
                        "won": info["won"],
                        "done": terminated or truncated,
                    }
                )
    return {"reset_ms": resets, "step_ms": steps_ms, "episodes": seen}


def time_native(path: Path, episodes: list[list[str]], repeat: int) -> dict:
    """Our steps: the fastest of ``repeat`` rounds; what was seen, from the first."""
    env = gym.make("ALFWorld-v0", game_file=path)
    best = None
    for round_ in range(repeat):
        run = play_native(env, episodes, record=round_ == 0)
        if round_ == 0:
            seen, load_ms = run["episodes"], run["reset_ms"][0]
        if best is None or sum(run["step_ms"]) < sum(best["step_ms"]):
            best = run
    env.close()
    assert best is not None  # repeat >= 1
    return {
        "step_ms": best["step_ms"],
        "reset_ms": best["reset_ms"],
        "load_ms": load_ms,
        "episodes": seen,
    }


# -- TextWorld's side -----------------------------------------------------------------


def peer_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return env


def peer_ok(python: Path) -> bool:
    if not python.exists():
        return False
    with tempfile.TemporaryDirectory() as data:  # alfworld makes its data folder on import
        result = subprocess.run(
            [str(python), "-c", PEER_CHECK],
            capture_output=True,
            env={**peer_env(), "ALFWORLD_DATA": data},
        )
    return result.returncode == 0


def add_peer_flags(parser: argparse.ArgumentParser) -> None:
    """``--skip-peer``, ``--peer-python`` and ``--json``: the flags of every benchmark
    against the TextWorld side."""
    parser.add_argument("--skip-peer", action="store_true", help="time our side only")
    parser.add_argument(
        "--peer-python",
        type=Path,
        help="an interpreter with textworld 1.7.0 and alfworld 0.4.2, instead "
        f"of the venv made in {PEER_VENV.relative_to(HERE.parent)}",
    )
    parser.add_argument("--json", type=Path, help="also write the raw numbers here")


def prepare_peer(python: Path | None) -> tuple[Path, float | None] | None:
    """The TextWorld side's interpreter and the seconds spent making its venv (None when
    it was there): ``python`` once checked, else the benchmark venv's (made on first
    use, saying so); None, after saying why on stderr, when neither works."""
    try:
        if python is not None:
            if not peer_ok(python):
                raise PeerError(
                    f"{python} cannot import textworld 1.7.0 and alfworld "
                    "0.4.2's AlfredTWEnv wrappers"
                )
            return python, None
        python, seconds = ensure_peer_venv(PEER_VENV)
    except PeerError as error:
        print(
            f"error: {error}\n(--skip-peer times our side alone; --peer-python PATH "
            "uses an existing interpreter)",
            file=sys.stderr,
        )
        return None
    if seconds is not None:
        print(f"# made {PEER_VENV} in {seconds:.0f} s", file=sys.stderr)
    return python, seconds


def ensure_peer_venv(venv: Path) -> tuple[Path, float | None]:
    """The peer's interpreter, and the seconds spent making its venv (None if reused)."""
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if peer_ok(python):
        return python, None
    if venv.exists():
        if not (venv / "pyvenv.cfg").exists():
            raise PeerError(f"{venv} exists and is not a virtual environment; move it away")
        print(f"# {venv} is incomplete or outdated: making it again", file=sys.stderr)
        shutil.rmtree(venv)
    print(
        f"# making TextWorld's virtual environment in {venv} (a few minutes; reused next time)",
        file=sys.stderr,
        flush=True,
    )
    start = time.perf_counter()
    steps = [[sys.executable, "-m", "venv", str(venv)]] + [
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *args]
        for args in PEER_INSTALLS
    ]
    for argv in steps:
        try:
            result = subprocess.run(argv, capture_output=True, text=True, env=peer_env())
        except OSError as error:
            raise PeerError(f"could not run {argv[0]}: {error}") from None
        if result.returncode != 0:
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-12:])
            raise PeerError(
                f"could not make TextWorld's virtual environment in {venv}:\n  $ "
                f"{' '.join(argv)}\n  exited with {result.returncode}. Is PyPI reachable?\n"
                f"{tail}"
            )
    if not peer_ok(python):
        raise PeerError(f"{venv} was made but cannot import textworld 1.7.0 and alfworld 0.4.2")
    return python, time.perf_counter() - start


def run_peer(python: Path, plan: list[dict]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        plan_file, out_file = Path(tmp) / "plan.json", Path(tmp) / "peer.json"
        plan_file.write_text(json.dumps({"games": plan}))
        result = subprocess.run(
            [str(python), str(PEER_SCRIPT), str(plan_file), str(out_file)], env=peer_env()
        )
        if result.returncode != 0 or not out_file.exists():
            raise PeerError(f"the TextWorld peer ({python}) exited with {result.returncode}")
        return json.loads(out_file.read_text())


# -- comparison and report -----------------------------------------------------------


def compare(game: str, episodes: list[list[str]], ours: list, theirs: list) -> dict:
    """Step-by-step agreement (resets count as step 0), and the differences found."""
    counts: defaultdict[str, int] = defaultdict(int)
    differences = []
    for e, (commands, mine, peer) in enumerate(zip(episodes, ours, theirs, strict=True)):
        for s, (a, b) in enumerate(zip(mine, peer["steps"], strict=True)):
            key = "walkthrough" if e == 0 else "random"
            counts[f"{key}_steps"] += 1
            same = {field: a[field] == b[field] for field in ("obs", "admissible", "won", "done")}
            for field, ok in same.items():
                counts[f"{key}_{field}"] += ok
            if not all(same.values()):
                differences.append(
                    {
                        "game": game,
                        "episode": e,
                        "step": s,
                        "command": None if s == 0 else commands[s - 1],
                        "fields": [f for f, ok in same.items() if not ok],
                        "planloop": {f: a[f] for f, ok in same.items() if not ok},
                        "textworld": {f: b[f] for f, ok in same.items() if not ok},
                    }
                )
    return {"counts": dict(counts), "differences": differences}


def summary(rows: list[dict], side: str) -> dict:
    steps = [ms for r in rows for ms in r[side]["step_ms"]]
    return {
        "steps": len(steps),
        "steps_per_s": 1e3 * len(steps) / sum(steps),
        "median_ms": statistics.median(steps),
    }


def fmt_ms(ms: float) -> str:
    return f"{ms:.3f}" if ms < 1 else f"{ms:.1f}"


def markdown(groups: list[tuple[str, list[dict]]], peer: bool) -> str:
    head = "| task type | games | steps | planloop steps/s | planloop median ms/step |"
    rule = "|---|---:|---:|---:|---:|"
    if peer:
        head += (
            " TextWorld steps/s | TextWorld median ms/step | ratio (steps/s) | ratio of medians |"
        )
        rule += "---:|---:|---:|---:|"
    lines = [head, rule]
    for name, rows in groups:
        ours = summary(rows, "native")
        line = (
            f"| {name} | {len(rows)} | {ours['steps']} | {ours['steps_per_s']:,.0f} "
            f"| {fmt_ms(ours['median_ms'])} |"
        )
        if peer:
            theirs = summary(rows, "peer")
            line += (
                f" {theirs['steps_per_s']:,.1f} | {fmt_ms(theirs['median_ms'])} "
                f"| **{ours['steps_per_s'] / theirs['steps_per_s']:,.0f}x** "
                f"| {theirs['median_ms'] / ours['median_ms']:,.0f}x |"
            )
        lines.append(line)
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=18, help="games (task types in turn)")
    parser.add_argument(
        "--steps", type=int, default=160, help="random steps per game, after its walkthrough"
    )
    parser.add_argument("--seed", type=int, default=0, help="random-walk seed")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds of our side per game; the fastest is kept"
    )
    add_peer_flags(parser)
    args = parser.parse_args(argv)

    games = pick_games(args.games)
    peer_python, venv_s = None, None
    if not args.skip_peer:  # set the peer up first: fail early, before any timing
        prepared = prepare_peer(args.peer_python)
        if prepared is None:
            return 2
        peer_python, venv_s = prepared

    plan: list[dict] = [
        {
            "game": p.parent.name,
            "game_file": str(p),
            "episodes": make_plan(p, args.steps, args.seed),
        }
        for p in games
    ]
    rows = []
    for entry, path in zip(plan, games, strict=True):
        native = time_native(path, entry["episodes"], args.repeat)
        rows.append(
            {
                "game": entry["game"],
                "task_type": entry["game"].split("-")[0],
                "episodes": len(entry["episodes"]),
                "native": native,
            }
        )

    peer_info, checks = None, []
    if peer_python is not None:
        print(
            f"# TextWorld replays {sum(len(c) for e in plan for c in e['episodes'])} steps "
            f"(about 50 ms each)",
            file=sys.stderr,
            flush=True,
        )
        try:
            peer_info = run_peer(peer_python, plan)
        except PeerError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        for row, entry, result in zip(rows, plan, peer_info["games"], strict=True):
            episodes = result["episodes"]
            row["peer"] = {
                "step_ms": [ms for e in episodes for ms in e["step_ms"]],
                "reset_ms": [e["reset_ms"] for e in episodes],
            }
            check = compare(entry["game"], entry["episodes"], row["native"]["episodes"], episodes)
            row["check"] = check["counts"]
            checks.append(check)

    groups = [(t, [r for r in rows if r["task_type"] == t]) for t in TASK_TYPES]
    groups = [g for g in groups if g[1]] + [("**all**", rows)]
    steps = sum(len(r["native"]["step_ms"]) for r in rows)
    print(
        f"ALFWorld-v0 steps/s, admissible commands every step: {len(rows)} fixture games, "
        f"{steps} steps (walkthroughs + {args.steps} random steps per game, seed "
        f"{args.seed}), planloop {planloop.__version__} through gym.make, best of "
        f"{args.repeat}, Python {platform.python_version()}"
    )
    if peer_info:
        packages = ", ".join(f"{k} {v}" for k, v in peer_info["packages"].items())
        print(
            f"peer: TextWorld's PDDL engine as ALFWorld's AlfredTWEnv (batch_size=1) runs it, "
            f"{packages}, Python {peer_info['python']}, one run"
        )
    print()
    print(markdown(groups, peer_info is not None))
    native_resets = [ms for r in rows for ms in r["native"]["reset_ms"]]
    loads = [r["native"]["load_ms"] for r in rows]
    print(
        f"\nresets: planloop median {fmt_ms(statistics.median(native_resets))} ms "
        f"(first reset, which loads the game: median {fmt_ms(statistics.median(loads))} ms)",
        end="",
    )
    if peer_info:
        peer_resets = [ms for r in rows for ms in r["peer"]["reset_ms"]]
        print(
            f"; TextWorld median {fmt_ms(statistics.median(peer_resets))} ms "
            f"(every reset reloads the game)"
        )
        total: defaultdict[str, int] = defaultdict(int)
        for check in checks:
            for key, value in check["counts"].items():
                total[key] += value
        for kind in ("walkthrough", "random"):
            n = total[f"{kind}_steps"]
            print(
                f"{kind} episodes, {n} steps incl. resets: same observation "
                f"{total[f'{kind}_obs']}/{n}, same admissible commands "
                f"{total[f'{kind}_admissible']}/{n}, same won {total[f'{kind}_won']}/{n}, "
                f"same done {total[f'{kind}_done']}/{n}"
            )
        differences = [d for check in checks for d in check["differences"]]
        for d in differences[:10]:
            print(
                f"  difference: {d['game']} episode {d['episode']} step {d['step']} "
                f"command {d['command']!r}: {d['fields']}\n    planloop:  {d['planloop']}\n"
                f"    TextWorld: {d['textworld']}"
            )
        if len(differences) > 10:
            print(f"  ... {len(differences) - 10} more differences (see --json)")
    else:
        print()
    if args.json:
        out = {
            "games": [r["game"] for r in rows],
            "steps_per_game": args.steps,
            "seed": args.seed,
            "repeat": args.repeat,
            "python": platform.python_version(),
            "planloop": planloop.__version__,
            "peer_venv_seconds": venv_s,
            "peer": None
            if peer_info is None
            else {k: peer_info[k] for k in ("python", "packages")},
            "summary": {
                name: {side: summary(rs, side) for side in ("native", "peer") if side in rs[0]}
                for name, rs in groups
            },
            "rows": [
                {
                    "game": r["game"],
                    "task_type": r["task_type"],
                    "episodes": r["episodes"],
                    "check": r.get("check"),
                    **{
                        side: {k: r[side][k] for k in ("step_ms", "reset_ms")}
                        for side in ("native", "peer")
                        if side in r
                    },
                    "native_load_ms": r["native"]["load_ms"],
                }
                for r in rows
            ],
            "differences": [d for check in checks for d in check["differences"]],
        }
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
