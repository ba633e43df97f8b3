"""ALFWorld's admissible commands, rendered once per command and cached, against every
applicable action rendered afresh: after each step of the golden transcripts and of a
random walk on a game with its receptacles cloned to 60."""

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

from planloop.envs.alfworld import ALFWorldEnv
from planloop.envs.alfworld.engine import changes_nothing

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "alfworld" / "games"
GAMES = sorted(p.name for p in DATA.iterdir() if (p / "game.tw-pddl").is_file())


def load_benchmark(name: str):
    """A module of ``benchmarks/`` (benchmarks are scripts, not a package)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def from_scratch(env: ALFWorldEnv) -> list[str]:
    """The admissible commands with every applicable action rendered afresh."""
    engine, world = env.engine, env.world
    commands = {
        engine.render(action, world)
        for action in engine.task.applicable(world.state)
        if not changes_nothing(action)
    }
    return sorted(commands)


@pytest.mark.parametrize("game", GAMES)
def test_every_transcript_step_matches_a_fresh_render(game):
    env = ALFWorldEnv(game_file=DATA / game / "game.tw-pddl")
    record = json.loads((DATA / game / "transcript.json").read_text())
    for episode in record["episodes"]:
        for step in episode["steps"]:
            if step["step"] == 0:
                _, info = env.reset(seed=0)
            else:
                _, _, _, _, info = env.step(step["action"])
            assert info["admissible_actions"] == from_scratch(env), (episode["name"], step)


def test_a_random_walk_on_cloned_receptacles_matches_a_fresh_render(tmp_path):
    clone = load_benchmark("alfworld_clone")
    game = DATA / "pick_two_obj_and_place-CD-Drawer-326"
    path = tmp_path / game.name / "game.tw-pddl"
    path.parent.mkdir()
    path.write_text(json.dumps(clone.clone_file(game / "game.tw-pddl", 60)))
    env = ALFWorldEnv(game_file=path)
    rng = random.Random(0)
    _, info = env.reset(seed=0)
    for _ in range(150):
        assert info["admissible_actions"] == from_scratch(env)
        _, _, terminated, _, info = env.step(rng.choice(info["admissible_actions"]))
        if terminated:
            _, info = env.reset(seed=0)
