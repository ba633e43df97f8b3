"""``benchmarks/bench_scale.py``'s ALFWorld games: receptacles cloned to a count make a
game the environment loads, with that many receptacles and a walkthrough that still
wins; and one point of the benchmark, measured in this process."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from planloop.envs.alfworld import ALFWorldEnv

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
GAME = Path(__file__).resolve().parents[1] / "data" / "alfworld" / "games"
GAME = GAME / "pick_heat_then_place_in_recep-Egg-CounterTop-8" / "game.tw-pddl"


def load(name: str):
    """A module of ``benchmarks/`` (benchmarks are scripts, not a package)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.mark.parametrize("count", [30, 50])
def test_cloned_game_loads_with_the_receptacles_asked_for(tmp_path, count):
    game = load("alfworld_clone").clone_file(GAME, count)
    path = tmp_path / GAME.parent.name / "game.tw-pddl"
    path.parent.mkdir()
    path.write_text(json.dumps(game))
    env = ALFWorldEnv(game_file=path)
    _, info = env.reset(seed=0)
    receptacles = [o for o, kind in env.task.objects.items() if kind == "receptacle"]
    assert len(receptacles) == count
    assert sum(c.startswith("go to ") for c in info["admissible_actions"]) == count
    for command in env.walkthrough():
        _, _, terminated, _, info = env.step(command)
        assert not info["action_error"]["kind"], command
    assert info["won"] and terminated


def test_cloning_refuses_fewer_receptacles_than_the_game_has():
    with pytest.raises(ValueError, match="receptacles"):
        load("alfworld_clone").clone_file(GAME, 3)


def test_one_point_and_the_fitted_exponent():
    bench = load("bench_scale")
    point = bench.measure("alfworld", 30, steps=5, seed=0)
    assert point["load_s"] > 0 and point["step_s"] > 0 and point["peak_mib"] > 0
    doubling = [{"size": n, "t": n**2} for n in (10, 20, 40)]
    assert bench.exponent(doubling, "t") == pytest.approx(2.0)
