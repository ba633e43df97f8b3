"""Where ALFWorld-v0's games come from (released-data splits, task types, the games
ALFWorld's own environment skips), and the hidden world it keeps for evaluators."""

import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs.alfworld import ALFWorldEnv
from planloop.pddl import load

DATA = Path(__file__).resolve().parent.parent / "data" / "alfworld"
GAMES = DATA / "games"
MUG = "pick_and_place_simple-Mug-CoffeeMachine-18"
EGG = "pick_heat_then_place_in_recep-Egg-CounterTop-8"
LETTUCE = "pick_clean_then_place_in_recep-Lettuce-DiningTable-19"


def add_game(split_folder: Path, task_folder: str, source: str, trial: str = "trial_T1"):
    target = split_folder / task_folder / trial
    target.mkdir(parents=True)
    for name in ("game.tw-pddl", "traj_data.json"):
        shutil.copy(GAMES / source / name, target / name)


@pytest.fixture
def release(tmp_path):
    """ALFWorld's released layout: json_2.1.1/<split>/<task folder>/<trial>/game.tw-pddl."""
    root = tmp_path / "alfworld_data"
    train = root / "json_2.1.1" / "train"
    add_game(train, MUG, MUG)
    add_game(train, MUG, MUG, trial="trial_T0")
    add_game(train, EGG, EGG)
    add_game(train, "pick_heat_then_place_in_recep-AppleSliced-None-DiningTable-27", EGG)
    add_game(train, "pick_and_place_with_movable_recep-Pen-Mug-Desk-310", MUG)
    add_game(root / "json_2.1.1" / "valid_seen", LETTUCE, LETTUCE)
    (root / "json_2.1.1" / "valid_unseen").mkdir()
    shutil.copytree(DATA / "logic", root / "logic")
    return root


def test_splits_in_sorted_order_with_skipped_games_flagged(release):
    env = ALFWorldEnv(data_dir=release, split="train")
    names = [f"{g.path.parent.parent.name}/{g.path.parent.name}" for g in env.games]
    assert names == sorted(names) and len(names) == 5
    flags = {g.path.parent.parent.name.split("-")[1]: g.flags for g in env.games}
    assert flags == {"Mug": (), "Egg": (), "AppleSliced": ("sliced",), "Pen": ("movable",)}
    sliced = next(i for i, g in enumerate(env.games) if g.flags == ("sliced",))
    _, info = env.reset(options={"instance": sliced})
    assert info["flags"] == ("sliced",) and info["task_type"] == "pick_heat_then_place_in_recep"
    kept = ALFWorldEnv(data_dir=release, split="train", skip_flagged=True)
    assert [g.flags for g in kept.games] == [(), (), ()]
    assert ALFWorldEnv(data_dir=release).num_instances == 5  # the train split by default
    seen = ALFWorldEnv(data_dir=release, split="valid_seen")
    assert [g.task_type for g in seen.games] == ["pick_clean_then_place_in_recep"]


def test_task_types_select_games(release):
    env = ALFWorldEnv(data_dir=release, split="train", task_types=["pick_and_place_simple"])
    assert {g.task_type for g in env.games} == {"pick_and_place_simple"} and env.num_instances == 2
    with pytest.raises(ValueError, match="unknown task types \\['pick_and_juggle'\\]"):
        ALFWorldEnv(data_dir=release, task_types=["pick_and_juggle"])
    with pytest.raises(ValueError, match="no game.tw-pddl under .* of task types"):
        ALFWorldEnv(data_dir=release, split="valid_seen", task_types="pick_two_obj_and_place")


def test_bad_splits_are_named(release, monkeypatch):
    with pytest.raises(ValueError, match="split must be one of train, valid_seen, .*, not 'test'"):
        ALFWorldEnv(data_dir=release, split="test")
    with pytest.raises(ValueError, match="no game.tw-pddl under"):
        ALFWorldEnv(data_dir=release, split="valid_unseen")
    with pytest.raises(FileNotFoundError, match="data_dir must be the path of a folder: no such"):
        ALFWorldEnv(data_dir=release / "missing")
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    with pytest.raises(ValueError, match="needs ALFWorld's released games"):
        ALFWorldEnv(split="train")


def test_alfworld_data_variable_selects_the_released_games(release, monkeypatch):
    monkeypatch.setenv("ALFWORLD_DATA", str(release))
    env = gym.make("ALFWorld-v0", split="valid_seen")
    obs, info = env.reset(seed=0)
    assert info["task_type"] == "pick_clean_then_place_in_recep" and "lettuce" in info["task"]
    assert env.reset(seed=3) == env.reset(seed=3)  # the seed picks the game, repeatably


def test_without_released_games_the_generator_serves(release, monkeypatch):
    shutil.rmtree(release / "json_2.1.1")
    monkeypatch.setenv("ALFWORLD_DATA", str(release))
    env = ALFWorldEnv(task_types=["pick_cool_then_place_in_recep"], num_generated=3)
    assert env.num_instances == 3 and env.games[2].seed == 2
    obs, info = env.reset(options={"instance": 1})
    assert info["task_type"] == "pick_cool_then_place_in_recep" and info["flags"] == ()
    for command in env.walkthrough():
        obs, reward, terminated, truncated, info = env.step(command)
    assert terminated and info["won"]


def test_hidden_world_and_observed_facts():
    env = ALFWorldEnv(game_file=GAMES / MUG / "game.tw-pddl")
    obs, _ = env.reset(seed=0)
    domain, problem = env.world_pddl()
    assert load(domain, problem).init == env.state  # the same facts, in the same ids
    mug = next(obj for obj, e in env.game.entities.items() if e.name == "mug 2")
    assert "mug 2" not in obs
    assert not [f for f in env.observed_facts() if mug in f]
    assert set(env.observed_facts()) < {str(a) for a in env.task.atoms(env.state)}
    for command in env.walkthrough():
        obs, *_ = env.step(command)
        if "mug 2" in obs:
            break
    seen = [f for f in env.observed_facts() if mug in f]
    assert f"(objecttype {mug} mugtype)" in seen and not [f for f in seen if "cabinet" in f]
    assert not [f for f in env.observed_facts() if "loc_bar" in f.lower()]
    _, problem = env.world_pddl()
    written = load(domain, problem)
    true = {str(a) for a in env.task.atoms(env.state)}
    left_out = true - {str(a) for a in written.atoms(written.init)}
    assert left_out and all(f.startswith("(checked loc_bar") for f in left_out)  # after `look`
