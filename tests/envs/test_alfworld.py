"""ALFWorld-v0 against transcripts recorded from ALFWorld's own text environment."""

import json
import shutil
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import planloop  # noqa: F401  (registers the environments)
from planloop.envs.alfworld import TASK_TYPES, ALFWorldEnv, load_game
from planloop.envs.alfworld.game import fast_downward_reading
from planloop.envs.alfworld.grammar import Grammar

DATA = Path(__file__).resolve().parent.parent / "data" / "alfworld" / "games"
GAMES = sorted(p.name for p in DATA.iterdir() if (p / "game.tw-pddl").is_file())
MUG = "pick_and_place_simple-Mug-CoffeeMachine-18"


def transcript(game: str) -> dict:
    return json.loads((DATA / game / "transcript.json").read_text())


@pytest.fixture(scope="module")
def envs():
    return {}


def env_for(envs, game: str) -> ALFWorldEnv:
    if game not in envs:
        envs[game] = ALFWorldEnv(game_file=DATA / game / "game.tw-pddl")
    return envs[game]


def test_fixtures_cover_every_task_type():
    assert len(GAMES) == 18
    assert {g.split("-", 1)[0] for g in GAMES} == set(TASK_TYPES)


@pytest.mark.parametrize("game", GAMES)
def test_replays_every_recorded_step(envs, game):
    env = env_for(envs, game)
    record = transcript(game)
    compared = 0
    for episode in record["episodes"]:
        for step in episode["steps"]:
            where = f"{episode['name']} step {step['step']} ({step['action']!r})"
            if step["step"] == 0:
                obs, info = env.reset(seed=0)
            else:
                obs, reward, terminated, truncated, info = env.step(step["action"])
                assert reward == step["score"], where
                assert terminated == step["done"] and not truncated, where
            assert obs == step["obs"], where
            assert info["admissible_actions"] == step["admissible_commands"], where
            assert info["won"] == step["won"], where
            assert info["task"] == record["task"], where
            assert info["task_type"] == record["task_type"], where
            assert (info["action_error"]["kind"] == "") == (obs != "Nothing happens."), where
            compared += 1
    assert compared == sum(len(e["steps"]) for e in record["episodes"])


@pytest.mark.parametrize("game", GAMES)
def test_walkthrough_wins(envs, game):
    env = env_for(envs, game)
    env.reset(seed=0)
    walkthrough = env.walkthrough()
    assert walkthrough
    for i, command in enumerate(walkthrough):
        obs, reward, terminated, _, info = env.step(command)
        assert not info["action_error"]["kind"], (command, obs)
        assert terminated == (i == len(walkthrough) - 1)
    assert info["won"] and reward == 1.0
    assert env.task.is_goal(env.state)


def test_info_contract_and_hidden_world():
    env = gym.make("ALFWorld-v0", game_file=DATA / MUG / "game.tw-pddl")
    obs, info = env.reset(seed=3)
    assert obs.endswith("Your task is to: put some mug on coffeemachine.")
    assert info["task"] == "put some mug on coffeemachine"
    assert info["task_type"] == "pick_and_place_simple"
    assert info["won"] is False and not info["action_error"]["kind"] and info["feedback"] == obs
    assert {"help", "inventory", "look"} <= set(info["admissible_actions"])
    world = env.unwrapped
    assert world.state == world.task.init
    assert any(a.predicate == "atlocation" for a in world.task.atoms(world.state))
    obs, _, _, _, info = env.step("  look  ")
    assert obs == info["feedback"] and not info["action_error"]["kind"]


@pytest.mark.parametrize(
    "command, kind",
    [
        ("xyzzy", "unknown"),
        ("", "unknown"),
        ("go to spaceship 1", "unknown"),
        ("LOOK", "unknown"),
        ("put mug 1 in cabinet 1", "malformed"),
        ("go  to cabinet 1", "malformed"),
        ("open mug 1", "malformed"),
        ("examine mug 1", "inapplicable"),
        ("take mug 1 from cabinet 1", "inapplicable"),
    ],
)
def test_action_errors(command, kind):
    env = ALFWorldEnv(game_file=DATA / MUG / "game.tw-pddl")
    env.reset(seed=0)
    before = env.world
    obs, reward, terminated, _, info = env.step(command)
    assert obs == "Nothing happens." == info["feedback"]
    assert info["action_error"]["kind"] == kind and info["action_error"]["message"]
    assert env.world == before and reward == 0.0 and not terminated


def test_inapplicable_lists_unmet_preconditions():
    env = ALFWorldEnv(game_file=DATA / MUG / "game.tw-pddl")
    env.reset(seed=0)
    env.step("go to cabinet 2")
    error = env.step("close cabinet 2")[-1]["action_error"]
    assert error["kind"] == "inapplicable" and error["unmet"] == ["opened(cabinet 2)"]
    error = env.step("go to cabinet 2")[-1]["action_error"]
    assert error["kind"] == "inapplicable" and error["unmet"] == []


def test_data_dir_instances_and_seeds():
    env = ALFWorldEnv(data_dir=DATA)
    assert env.num_instances == 18
    _, info = env.reset(options={"instance": 4})
    assert env.game.name == GAMES[4] and info["instance"] == 4
    first = env.reset(seed=7)
    assert env.reset(seed=7) == first


def test_task_type_from_traj_data(tmp_path):
    folder = tmp_path / "some_game"
    shutil.copytree(DATA / MUG, folder)
    assert load_game(folder / "game.tw-pddl").task_type == "pick_and_place_simple"


def test_check_env():
    env = gym.make(
        "ALFWorld-v0", game_file=DATA / MUG / "game.tw-pddl", render_mode="ansi"
    ).unwrapped
    check_env(env)
    obs, _ = env.reset(seed=0)
    assert env.render() == obs


def test_fast_downward_reading_makes_comma_types_empty():
    domain = json.loads((DATA / MUG / "game.tw-pddl").read_text())["pddl_domain"]
    text = fast_downward_reading(domain)
    assert "location-comma ?r" in text and "(:types location-comma" in text


def test_grammar_lists_and_conditions():
    grammar = Grammar.parse('''grammar :: """
    {
        "start": [{"condition": "on(x:thing, y:place)", "rhs": "[{x.name | on(x:thing, y:place)}]"},
                  {"rhs": "#list_empty#"}],
        "list_empty": [{"rhs": "nothing"}],
        "list_separator": [{"rhs": ", "}],
        "list_last_separator": [{"rhs": ", and "}]
    }
""";
''')

    class Facts:
        def __init__(self, facts):
            self._facts = facts

        def facts(self, predicate, bound=None):
            return sorted(self._facts.get(predicate, []))

        def is_a(self, obj, type_name):
            return True

    from planloop.envs.alfworld.grammar import Entity

    entities = {o: Entity(o, o.upper()) for o in "abct"}
    three = Facts({"on": [("c", "t"), ("a", "t"), ("b", "t")]})
    assert grammar.derive("#start#", three, {}, entities) == "A, B, and C"
    assert grammar.derive("#start#", Facts({}), {}, entities) == "nothing"
    assert grammar.derive("#start#", three, {("y", "place"): "t"}, entities) == "A, B, and C"
