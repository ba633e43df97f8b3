"""Offline ALFWorld-style games: generated from a seed, solved, played to a win."""

import importlib.util
import json
import re
import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs.alfworld import TASK_TYPES, ALFWorldEnv, load_game
from planloop.envs.alfworld import env as env_module
from planloop.envs.alfworld import generate as gen
from planloop.envs.alfworld.generate import (
    LOGIC_FILES,
    SHIPPED_LOGIC,
    find_logic_dir,
    generate_game,
)

LOGIC = Path(__file__).resolve().parent.parent / "data" / "alfworld" / "logic"
SEEDS = (0, 1)
# ALFWorld's two task-sentence templates per task type
TEMPLATES = {
    "pick_and_place_simple": ("put a {o} in {r}", "put some {o} on {r}"),
    "look_at_obj_in_light": ("look at {o} under the {t}", "examine the {o} with the {t}"),
    "pick_clean_then_place_in_recep": (
        "put a clean {o} in {r}",
        "clean some {o} and put it in {r}",
    ),
    "pick_heat_then_place_in_recep": ("put a hot {o} in {r}", "heat some {o} and put it in {r}"),
    "pick_cool_then_place_in_recep": ("put a cool {o} in {r}", "cool some {o} and put it in {r}"),
    "pick_two_obj_and_place": ("put two {o} in {r}", "find two {o} and put them in {r}"),
}
GOAL_STATE = {
    "pick_clean_then_place_in_recep": "(isClean ?o)",
    "pick_heat_then_place_in_recep": "(isHot ?o)",
    "pick_cool_then_place_in_recep": "(isCool ?o)",
}
TOOLS = {
    "pick_clean_then_place_in_recep": "SinkBasin",
    "pick_heat_then_place_in_recep": "Microwave",
    "pick_cool_then_place_in_recep": "Fridge",
}
CASES = [(t, s) for t in TASK_TYPES for s in SEEDS]
_GAMES: dict = {}


def game_for(task_type: str, seed: int) -> dict:
    key = (task_type, seed)
    if key not in _GAMES:
        _GAMES[key] = generate_game(task_type, seed, logic_dir=LOGIC)
    return _GAMES[key]


def facts(game: dict, predicate: str) -> list[list[str]]:
    init = game["pddl_problem"].split("(:init", 1)[1].split("(:goal", 1)[0]
    return [m.split() for m in re.findall(rf"\({predicate} ([^()]*)\)", init)]


@pytest.mark.slow
@pytest.mark.parametrize("task_type,seed", CASES)
def test_walkthrough_wins_in_the_env(tmp_path, task_type, seed):
    game = game_for(task_type, seed)
    path = tmp_path / f"{task_type}-gen-{seed}" / "game.tw-pddl"
    path.parent.mkdir()
    path.write_text(json.dumps(game))
    env = ALFWorldEnv(game_file=path)
    obs, info = env.reset(seed=0)
    assert obs.endswith(f"\n\nYour task is to: {game['task_sentence']}.")
    assert info["task"] == game["task_sentence"] and info["task_type"] == task_type
    assert info["admissible_actions"] and not info["won"]
    walkthrough = env.unwrapped.walkthrough()
    assert walkthrough == game["walkthrough"] and len(walkthrough) >= 2
    for i, command in enumerate(walkthrough):
        assert command.split()[0] not in ("look", "inventory", "examine", "help")
        assert command in info["admissible_actions"]
        obs, reward, terminated, truncated, info = env.step(command)
        assert obs != "Nothing happens." and not info["action_error"]["kind"], (command, obs)
        assert terminated == (i == len(walkthrough) - 1) and not truncated
    assert info["won"] and reward == 1.0


@pytest.mark.parametrize("task_type,seed", CASES)
def test_game_follows_alfworld_conventions(task_type, seed):
    game = game_for(task_type, seed)
    assert game["solvable"] is True and game["task_type"] == task_type and game["seed"] == seed
    assert game["pddl_domain"] == (LOGIC / "alfred.pddl").read_text()
    grammar = (LOGIC / "alfred.twl2").read_text()
    assert game["grammar"] == grammar.replace("UNKNOWN GOAL", game["task_sentence"])
    params = game["pddl_params"]
    obj, recep, lamp = params["object_target"], params["parent_target"], params["toggle_target"]
    words = {"o": obj.lower(), "r": recep.lower(), "t": lamp.lower()}
    assert game["task_sentence"] in {t.format(**words) for t in TEMPLATES[task_type]}
    problem = game["pddl_problem"]
    assert problem.startswith(f"\n(define (problem plan_{game['task_id']})\n(:domain alfred)\n")
    assert "\nAlarmClock - object\n" in problem and "        SinkBasinType - rtype\n" in problem

    receptacles = dict(facts(game, "receptacleType"))
    assert 6 <= len(receptacles) <= 16
    assert all(
        re.fullmatch(
            r"[A-Za-z]+(_bar__(plus|minus)_\d\d_dot_\d\d|_bar_00_dot_00){3}"
            r"(_bar_(Sink|Bathtub)Basin)?",
            r,
        )
        for r in receptacles
    )
    openable = [r for (r,) in facts(game, "openable")]
    assert openable and all(receptacles[r].removesuffix("Type") in gen.OPENABLE for r in openable)
    assert not facts(game, "opened") and not facts(game, "checked") and not facts(game, "isOn")
    located = dict(facts(game, "receptacleAtLocation"))
    assert located.keys() == receptacles.keys()
    ((agent, start),) = facts(game, "atLocation")
    assert agent == "agent1" and start not in located.values()

    types = dict(facts(game, "objectType"))
    inside = dict(facts(game, "inReceptacle"))
    targets = [o for o, t in types.items() if t == f"{obj}Type"]
    assert len(targets) >= (2 if task_type == "pick_two_obj_and_place" else 1)
    assert all(receptacles[inside[o]] != f"{recep}Type" for o in targets)
    assert len({t for o, t in types.items() if [o] in facts(game, "pickupable")}) >= 4
    where = dict(facts(game, "objectAtLocation"))
    assert all(where[o] == located[r] for o, r in inside.items())
    contain = {tuple(f) for f in facts(game, "canContain")}
    assert all(
        (receptacles[r], types[o]) in contain
        for o, r in inside.items()
        if [o] in facts(game, "pickupable")
    )
    for inner, outer in facts(game, "inReceptacleObject"):
        assert [outer] in facts(game, "isReceptacleObject") and inside[inner] == inside[outer]

    goal = problem.split("(:goal", 1)[1]
    if task_type == "look_at_obj_in_light":
        lamps = [o for o, t in types.items() if t == f"{lamp}Type"]
        assert lamps and all([o] in facts(game, "toggleable") for o in lamps)
        assert f"(objectType ?ot {lamp}Type)" in goal and f"(objectType ?o {obj}Type)" in goal
        assert "(isToggled ?ot)" in goal and "(holds ?a ?o)" in goal
    elif task_type == "pick_two_obj_and_place":
        assert "(not (= ?o1 ?o2))" in goal and f"(receptacleType ?r {recep}Type)" in goal
        assert goal.count(f"{obj}Type") == 2
    else:
        for needle in (
            f"(objectType ?o {obj}Type)",
            f"(receptacleType ?r {recep}Type)",
            "(inReceptacle ?o ?r)",
        ):
            assert needle in goal
        for other, state in GOAL_STATE.items():
            assert (state in goal) == (other == task_type)
    if task_type in TOOLS:
        assert f"{TOOLS[task_type]}Type" in receptacles.values()
        assert recep != TOOLS[task_type]


def test_names_demangle_as_alfworld_does():
    game = load_game(game_for("pick_clean_then_place_in_recep", 1))
    names = {e.name for e in game.entities.values()}
    assert {"sinkbasin 1", "fridge 1", "microwave 1", "cabinet 1"} <= names
    assert all(
        re.fullmatch(r"[a-z]+ \d+", e.name) for o, e in game.entities.items() if "_bar_" in o
    )
    basin = next(o for o, e in game.entities.items() if e.name == "sinkbasin 1")
    sink = next(o for o, e in game.entities.items() if e.name == "sink 1")
    assert basin == sink + "_bar_sinkbasin"


def test_same_seed_same_game_other_seed_other_game():
    first = game_for("pick_heat_then_place_in_recep", 0)
    again = generate_game("pick_heat_then_place_in_recep", 0, logic_dir=LOGIC)
    assert json.dumps(again, sort_keys=True) == json.dumps(first, sort_keys=True)
    other = game_for("pick_heat_then_place_in_recep", 1)
    assert other["pddl_problem"] != first["pddl_problem"]
    assert len({game_for(t, 0)["pddl_problem"] for t in TASK_TYPES}) == len(TASK_TYPES)


def test_fridge_objects_of_the_target_class_start_cool():
    scene = gen.Scene("pick_heat_then_place_in_recep", "kitchen", "Egg", "CounterTop")
    scene.receptacles = {
        "Fridge|+01.00|00.00|+02.00": ("Fridge", "loc|4|6|1|30"),
        "CounterTop|-01.00|+00.90|+00.50": ("CounterTop", "loc|-3|2|3|30"),
    }
    scene.objects = {
        "Egg|+01.10|+00.20|+02.10": ("Egg", "loc|4|6|1|30", "Fridge|+01.00|00.00|+02.00"),
        "Apple|+01.20|+00.20|+02.10": ("Apple", "loc|4|6|1|30", "Fridge|+01.00|00.00|+02.00"),
    }
    scene.start, scene.locations = "loc|0|0|0|30", ["loc|4|6|1|30", "loc|-3|2|3|30", "loc|0|0|0|30"]
    text = gen.problem_text(scene, "t")
    egg = "Egg_bar__plus_01_dot_10_bar__plus_00_dot_20_bar__plus_02_dot_10"
    assert f"(isCool {egg})" in text and "(isCool Apple" not in text
    assert "(openable Fridge_bar__plus_01_dot_00_bar_00_dot_00_bar__plus_02_dot_00)" in text
    assert "(canContain FridgeType AppleType)" in text and "(canContain FridgeType EggType)" in text
    assert "(atLocation agent1 loc_bar_0_bar_0_bar_0_bar_30)" in text
    assert "(heatable ?o)" in text and "(isHot ?o)" in text


def test_unknown_task_type():
    with pytest.raises(ValueError, match="pick_two_obj_and_place"):
        generate_game("pick_and_juggle", 0, logic_dir=LOGIC)


def test_unsolvable_draws_are_redrawn_then_refused(monkeypatch):
    real, calls = gen.winnable, []

    def fail_first(game, timeout):
        calls.append(game["attempt"])
        return (False, "refused") if len(calls) == 1 else real(game, timeout)

    monkeypatch.setattr(gen, "winnable", fail_first)
    game = generate_game("pick_and_place_simple", 5, logic_dir=LOGIC)
    assert calls == [0, 1] and game["attempt"] == 1 and game["walkthrough"]
    monkeypatch.setattr(gen, "winnable", lambda *args: (False, "refused"))
    with pytest.raises(RuntimeError, match="10 attempts.*refused"):
        generate_game("pick_and_place_simple", 5, logic_dir=LOGIC)


def test_winnable_refuses_a_lost_game_and_a_won_one():
    game = game_for("pick_and_place_simple", 0)
    assert gen.winnable(game) == (True, "")
    target = game["pddl_params"]["object_target"]
    # no object of the target's type: nothing to put anywhere
    init, goal = game["pddl_problem"].split("(:goal", 1)
    init = re.sub(rf"\(objectType \S+ {target}Type\)", "", init)
    lost = {**game, "pddl_problem": f"{init}(:goal{goal}"}
    won, why = gen.winnable(lost)
    assert not won and why.startswith("gbfs: unsolvable")
    with pytest.raises(RuntimeError, match="no walkthrough: lama-first: unsolvable"):
        gen.walkthrough(lost)


def test_generated_games_plan_their_walkthrough_when_asked(monkeypatch):
    planned = []
    real = env_module.walkthrough
    monkeypatch.setattr(env_module, "walkthrough", lambda game: planned.append(1) or real(game))
    env = gym.make("ALFWorld-v0", task_types=["pick_heat_then_place_in_recep"])
    env.reset(options={"instance": 1})
    assert planned == []  # resetting checks the game winnable, no more
    expected = generate_game("pick_heat_then_place_in_recep", 1)["walkthrough"]
    assert env.unwrapped.walkthrough() == expected == env.unwrapped.walkthrough()
    assert planned == [1]
    for command in expected:
        *_, terminated, _, info = env.step(command)
    assert terminated and info["won"]


def test_logic_dir_from_alfworld_data(tmp_path, monkeypatch):
    shutil.copytree(LOGIC, tmp_path / "logic")
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path))
    assert find_logic_dir() == tmp_path / "logic"
    game = generate_game("look_at_obj_in_light", 0)
    assert game == game_for("look_at_obj_in_light", 0)


def test_logic_dir_from_the_alfworld_package_without_importing_it(tmp_path, monkeypatch):
    shutil.copytree(LOGIC, tmp_path / "alfworld" / "data")
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    spec = importlib.util.spec_from_loader("alfworld", loader=None, is_package=True)
    spec.submodule_search_locations.append(str(tmp_path / "alfworld"))
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: spec if name == "alfworld" else None
    )
    assert find_logic_dir() == tmp_path / "alfworld" / "data"


def test_without_alfworld_the_shipped_copies_serve(monkeypatch):
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert find_logic_dir() == SHIPPED_LOGIC
    for name in LOGIC_FILES:  # ALFWorld's files as they are, with its licence beside them
        assert (SHIPPED_LOGIC / name).read_bytes() == (LOGIC / name).read_bytes()
    assert "MIT" in (SHIPPED_LOGIC / "LICENSE-alfworld").read_text()
    env = gym.make("ALFWorld-v0", num_generated=2)
    _, info = env.reset(seed=0)
    for command in env.unwrapped.walkthrough():
        *_, info = env.step(command)
    assert info["won"]


def test_missing_logic_files_say_how_to_get_them(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="alfred.twl2 not found"):
        (tmp_path / "alfred.pddl").write_text("")
        generate_game("pick_and_place_simple", 0, logic_dir=tmp_path)
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="ALFWORLD_DATA"):
        find_logic_dir()
