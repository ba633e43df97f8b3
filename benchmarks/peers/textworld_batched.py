"""Random play on TextWorld's batched ALFWorld environment, timed per batch size and mode.

The peer side of ``benchmarks/bench_vector_envs.py``. It runs in the virtual
environment of ``benchmarks/bench_alfworld_steps.py`` (``textworld[pddl]==1.7.0`` and
``alfworld==0.4.2`` without its optional dependencies), never in planloop's.

Each run sets the batch up as ALFWorld's ``AlfredTWEnv.init_env(batch_size=B)`` does:
``textworld.gym.register_games`` with ``EnvInfos(won=True, admissible_commands=True,
extras=["gamefile"])``, ``batch_size=B``, ``asynchronous`` (TextWorld's
``AsyncBatchEnv``, one process per game, is used only when ``B > 1``; a batch of one
plays in process), ``max_episode_steps=50`` and the wrappers
``AlfredDemangler(shuffle=False)`` and ``AlfredInfos``, then ``textworld.gym.make``.
The pool of game files is the plan's list (the fixture games, round-robin, ``B`` of
them), so the first ``env.reset()`` loads the same games as planloop's sub-environments.
Each step sends, for every game of the batch, a command drawn uniformly
(``random.Random(seed)``) among that game's admissible commands; when every game of the
batch is done (won, or the 50-step limit), ``env.reset()`` starts the next batch, as
ALFWorld's training loop does (TextWorld's batch has no per-game autoreset there).

Construction and the first reset are timed apart. The timed loop holds every later
``env.step`` and ``env.reset`` call; env-steps are ``B`` per call, resets included
(gymnasium's vector envs count their autoreset step the same way).

    python textworld_batched.py PLAN.json OUT.json

``PLAN.json``: ``{"game_files": [PATH, ...], "seed": S, "max_episode_steps": 50,
"runs": [{"batch_size": B, "asynchronous": bool, "calls": N}, ...]}``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

from textworld_alfworld import alfworld_data, write_result  # beside this script


def _tree(pid: int) -> list[int]:
    """``pid`` and all its descendants, from ``/proc`` (Linux)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, []))
    return tree


def tree_pss_mib(pid: int | None = None) -> float | None:
    """Proportional set size (MiB) of process ``pid`` (default: this one) and all its
    descendants; None where ``/proc`` cannot tell. PSS shares each page among the
    processes mapping it, so forked workers are not counted twice."""
    try:
        total = 0
        for p in _tree(os.getpid() if pid is None else pid):
            try:
                with open(f"/proc/{p}/smaps_rollup", encoding="ascii") as f:
                    total += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
            except (OSError, StopIteration):
                continue
        return total / 1024
    except OSError:
        return None


def tree_cpu_s(pid: int | None = None) -> float | None:
    """CPU seconds (user + system) used so far by process ``pid`` (default: this one) and
    its living descendants; None where ``/proc`` cannot tell."""
    try:
        ticks = 0
        for p in _tree(os.getpid() if pid is None else pid):
            try:
                with open(f"/proc/{p}/stat", encoding="ascii") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                ticks += int(fields[11]) + int(fields[12])
            except (OSError, ValueError, IndexError):
                continue
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None


def tree_cpu_since(start: float | None) -> float | None:
    """The CPU seconds of :func:`tree_cpu_s` since its reading ``start``; None where
    either reading is."""
    if start is None:
        return None
    end = tree_cpu_s()
    return None if end is None else end - start


def make_env(game_files: list[str], batch_size: int, asynchronous: bool, max_steps: int):
    import textworld
    import textworld.gym
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos

    request_infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
    env_id = textworld.gym.register_games(
        game_files,
        request_infos,
        batch_size=batch_size,
        asynchronous=asynchronous,
        max_episode_steps=max_steps,
        wrappers=[AlfredDemangler(shuffle=False), AlfredInfos],
    )
    return textworld.gym.make(env_id)


def run(
    game_files: list[str],
    batch_size: int,
    asynchronous: bool,
    calls: int,
    seed: int,
    max_steps: int,
) -> dict:
    rng = random.Random(seed)
    start = time.perf_counter()
    env = make_env(game_files[:batch_size], batch_size, asynchronous, max_steps)
    construct_s = time.perf_counter() - start
    start = time.perf_counter()
    _, infos = env.reset()
    first_reset_s = time.perf_counter() - start
    pss = tree_pss_mib()
    dones = [False] * batch_size
    spent = reset_s = 0.0
    steps = resets = 0
    cpu = tree_cpu_s()
    for _ in range(calls):
        if all(dones):
            start = time.perf_counter()
            _, infos = env.reset()
            elapsed = time.perf_counter() - start
            spent += elapsed
            reset_s += elapsed
            dones = [False] * batch_size
            resets += 1
            continue
        commands = [rng.choice(list(a)) for a in infos["admissible_commands"]]
        start = time.perf_counter()
        _, _, dones, infos = env.step(commands)
        spent += time.perf_counter() - start
        steps += 1
    cpu = tree_cpu_since(cpu)
    start = time.perf_counter()
    env.close()
    close_s = time.perf_counter() - start
    return {
        "batch_size": batch_size,
        "asynchronous": asynchronous,
        "batch_env": "AsyncBatchEnv" if asynchronous and batch_size > 1 else "SyncBatchEnv",
        "construct_s": construct_s,
        "first_reset_s": first_reset_s,
        "close_s": close_s,
        "seconds": spent,
        "reset_seconds": reset_s,
        "step_calls": steps,
        "reset_calls": resets,
        "env_steps": batch_size * (steps + resets),
        "pss_mib": pss,
        "cpu_s": cpu,
        "loadavg": os.getloadavg(),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        plan = json.load(f)
    results = []
    with alfworld_data():
        for spec in plan["runs"]:
            result = run(
                plan["game_files"],
                spec["batch_size"],
                spec["asynchronous"],
                spec["calls"],
                plan["seed"],
                plan["max_episode_steps"],
            )
            results.append(result)
            print(
                f"  TextWorld B={result['batch_size']} {result['batch_env']}: "
                f"{result['env_steps'] / result['seconds']:,.1f} env-steps/s",
                file=sys.stderr,
                flush=True,
            )
    write_result(argv[1], runs=results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
