"""Replay fixed ALFWorld command sequences on TextWorld's PDDL engine and time each step.

The peer side of ``benchmarks/bench_alfworld_steps.py``. It runs in its own virtual
environment (``textworld[pddl]==1.7.0`` and ``alfworld==0.4.2`` without its optional
dependencies), never in planloop's: TextWorld's ``fast-downward-textworld`` and
planloop's ``up-fast-downward`` install the same ``fast_downward/translate`` package.

Each game is set up as ALFWorld's ``AlfredTWEnv.init_env(batch_size=1)`` sets it up:
``textworld.gym.register_games`` with ``EnvInfos(won=True, admissible_commands=True,
extras=["gamefile"])``, ``batch_size=1``, ``asynchronous=True`` (a batch of one plays in
process), ``max_episode_steps=50`` and the wrappers ``AlfredDemangler(shuffle=False)``
and ``AlfredInfos``, one registration per game file. Every episode starts with
``env.reset()`` (which reloads the game file) and sends the plan's commands one by one
as ``env.step([command])``; the wall-clock time of each call is recorded.

    python textworld_alfworld.py PLAN.json OUT.json

``PLAN.json``: ``{"games": [{"game": NAME, "game_file": PATH, "episodes": [[command,
...], ...]}, ...]}``. ``OUT.json`` gets, per game and episode, the reset and step times
in milliseconds and what the engine returned at each step (observation, admissible
commands, won, score, done).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import version


@contextmanager
def alfworld_data() -> Iterator[None]:
    """A temporary ALFWORLD_DATA: alfworld creates its data folder on import (by default
    ~/.cache/alfworld)."""
    data_dir = tempfile.mkdtemp(prefix="alfworld-data-")
    os.environ["ALFWORLD_DATA"] = data_dir
    try:
        yield
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def write_result(path: str, **fields) -> None:
    """``fields`` as JSON at ``path``, with the Python and the peer packages' versions."""
    result = {
        "python": platform.python_version(),
        "packages": {
            name: version(name)
            for name in ("textworld", "fast-downward-textworld", "alfworld", "tatsu")
        },
        **fields,
    }
    with open(path, "w", encoding="utf-8") as out:
        json.dump(result, out)


def make_env(game_file: str):
    import textworld
    import textworld.gym
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos

    request_infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
    env_id = textworld.gym.register_games(
        [game_file],
        request_infos,
        batch_size=1,
        asynchronous=True,
        max_episode_steps=50,
        wrappers=[AlfredDemangler(shuffle=False), AlfredInfos],
    )
    return textworld.gym.make(env_id)


def play(env, commands: list[str]) -> dict:
    start = time.perf_counter()
    obs, infos = env.reset()
    reset_ms = 1e3 * (time.perf_counter() - start)
    steps = [
        {
            "obs": obs[0],
            "admissible": list(infos["admissible_commands"][0]),
            "won": bool(infos["won"][0]),
            "score": None,
            "done": False,
        }
    ]
    step_ms = []
    for command in commands:
        start = time.perf_counter()
        obs, scores, dones, infos = env.step([command])
        step_ms.append(1e3 * (time.perf_counter() - start))
        steps.append(
            {
                "obs": obs[0],
                "admissible": list(infos["admissible_commands"][0]),
                "won": bool(infos["won"][0]),
                "score": float(scores[0]),
                "done": bool(dones[0]),
            }
        )
    return {"reset_ms": reset_ms, "step_ms": step_ms, "steps": steps}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    plan = json.loads(open(argv[0], encoding="utf-8").read())
    games = []
    with alfworld_data():
        for game in plan["games"]:
            env = make_env(game["game_file"])
            episodes = [play(env, commands) for commands in game["episodes"]]
            env.close()
            games.append({"game": game["game"], "episodes": episodes})
            print(f"  TextWorld: {game['game']} done", file=sys.stderr, flush=True)
    write_result(argv[1], games=games)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
