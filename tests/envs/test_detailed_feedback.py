"""feedback="detailed": a failed command's cause in words, from the hidden world but told
only with what the player knows; feedback="game" (the default) prints what it always did.
Either way ``info`` is the same, ``action_error["cause"]`` included."""

import json
import random
import re

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import planloop  # noqa: F401  (registers the environments)
from planloop.envs.alfworld import ALFWorldEnv
from planloop.envs.alfworld.causes import FACTS
from planloop.envs.coin import CoinCollectorEnv, coin_collector
from planloop.pddl.model import And, Atom, Exists, Not, Or

from conftest import DATA

COIN = DATA / "twx_coin" / "coin_L6_D1_X10_train_s13.json"
COIN_GAMES = sorted((DATA / "twx_coin").glob("coin_*.json"))
COIN_COMMANDS = (
    "look around, inventory, move <direction>, open door to <direction>, "
    "close door to <direction>, take <item>"
)
ALFWORLD = DATA / "alfworld" / "games"
GAMES = sorted(p.name for p in ALFWORLD.iterdir() if (p / "game.tw-pddl").is_file())
FORMS = (
    "go to <receptacle>, open <receptacle>, close <receptacle>, take <object> from "
    "<receptacle>, move <object> to <receptacle>, inventory, examine <receptacle>, "
    "examine <object>, use <object>, heat <object> with <receptacle>, clean <object> "
    "with <receptacle>, cool <object> with <receptacle>, slice <object> with <object>, "
    "look, help"
)
DIRECTIONS = ("north", "south", "east", "west")


class Pair:
    """The same game in both modes, stepped together: the infos must be equal, and the
    detailed observation the game's text followed by the failure's cause."""

    def __init__(self, make):
        self.game, self.detailed = make(feedback="game"), make(feedback="detailed")

    def reset(self, **kwargs):
        (obs, info), (obs_d, info_d) = self.game.reset(**kwargs), self.detailed.reset(**kwargs)
        assert obs == obs_d and info == info_d
        return obs, info

    def step(self, command):
        obs, *rest, info = self.game.step(command)
        obs_d, *rest_d, info_d = self.detailed.step(command)
        assert rest == rest_d and info == info_d
        error = info["action_error"]
        if not error["kind"]:
            assert obs_d == obs
        else:
            assert set(error) == {"kind", "message", "unmet", "cause"}
            assert obs_d.startswith(obs) and obs_d[len(obs) :].strip() == error["cause"]
            assert info["feedback"] == obs
        return obs, info


# -- CoinCollector ----------------------------------------------------------------------
def coin_pair(**kwargs) -> Pair:
    return Pair(lambda feedback: CoinCollectorEnv(feedback=feedback, **kwargs))


@pytest.mark.parametrize(
    "before,command,cause",
    [
        ([], "move west", "The plain door to the west is closed."),
        ([], "close door to west", "The plain door to the west is already closed."),
        (["open door to west"], "open door to west", "The plain door to the west is already open."),
        ([], "move north", "There is no way to the north from the kitchen."),
        ([], "open door to east", "There is no door to the east."),
        ([], "take beret", "You see no beret here."),  # on the corridor's hat rack
        ([], "take sword", "You see no sword here."),  # in no house at all: the same words
        (
            ["move south", "take picture", "take table lamp", "move north"],
            "take coin",
            "Your inventory is full: you can carry 2 items at most.",
        ),
        ([], "move up", "'up' is not a direction: say north, south, east or west."),
        ([], "LOOK AROUND", "Commands must be typed exactly: did you mean 'look around'?"),
        (
            [],
            "fly to the moon",
            f"'fly to the moon' is not one of the game's commands: {COIN_COMMANDS}.",
        ),
        ([], "", f"No command was given. The game's commands are: {COIN_COMMANDS}."),
    ],
)
def test_coin_cause_of_each_failure(before, command, cause):
    envs = coin_pair(layout=COIN)
    envs.reset()
    for done in before:
        assert envs.step(done)[1]["action_error"]["kind"] == ""
    obs, info = envs.step(command)
    error = info["action_error"]
    assert error["cause"] == cause
    assert error["message"] == info["feedback"] == obs  # the game's own text


@pytest.mark.parametrize("seed", range(4))
def test_coin_generated_house_exits_and_doors(seed):
    envs = coin_pair(num_locations=11, include_doors=True, num_distractor_items=5)
    envs.reset(seed=seed)
    world = envs.game.world
    room = world.house.room(world.room)
    for direction in DIRECTIONS:
        exit_ = room.exits.get(direction)
        if exit_ is None:
            expected = {"move": f"There is no way to the {direction} from the {room.name}."}
        elif exit_.door is None:
            expected = {"open door to": f"There is no door to the {direction}."}
        else:
            expected = {
                "move": f"The {exit_.door} to the {direction} is closed.",
                "close door to": f"The {exit_.door} to the {direction} is already closed.",
            }
        for verb, cause in expected.items():
            assert envs.step(f"{verb} {direction}")[1]["action_error"]["cause"] == cause


@pytest.mark.parametrize("path", COIN_GAMES, ids=[p.stem for p in COIN_GAMES])
def test_coin_game_mode_prints_what_textworld_express_printed(path):
    data = json.loads(path.read_text())
    default = CoinCollectorEnv(layout=data)
    envs = coin_pair(layout=data)
    for episode in data["episodes"]:
        assert envs.reset()[0] == default.reset()[0] == episode["steps"][0]["obs"]
        for step in episode["steps"][1:]:
            obs, _ = envs.step(step["action"])
            assert obs == default.step(step["action"])[0] == step["obs"]


def test_coin_causes_name_no_room_the_player_has_not_seen():
    rng = random.Random(0)
    for seed in range(6):
        envs = coin_pair(num_locations=11, include_doors=True, num_distractor_items=5)
        obs, info = envs.reset(seed=seed)
        house = envs.game.world.house
        rooms = [room.name for room in house.rooms]
        items = sorted(envs.game.world.items) + ["sword", "coin"]
        shown = [obs]
        for _ in range(150):
            command = rng.choice(
                [
                    rng.choice(info["admissible_actions"]),
                    f"{rng.choice(['move', 'open door to', 'close door to'])} "
                    f"{rng.choice(DIRECTIONS)}",
                    f"take {rng.choice(items)}",
                ]
            )
            obs, info = envs.step(command)
            error = info["action_error"]
            if error["kind"]:
                known = " ".join(shown) + " " + command
                for name in rooms:
                    if re.search(rf"\b{name}\b", error["cause"]):
                        assert re.search(rf"\b{name}\b", known), (command, error["cause"])
            shown.append(obs)


@pytest.mark.parametrize("feedback", ["game", "detailed"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_locations": 7, "include_doors": True, "num_distractor_items": 3},
        {"layout": COIN},
    ],
)
@pytest.mark.filterwarnings("ignore:.*alternative render modes")
def test_coin_env_checker_passes(feedback, kwargs):
    check_env(
        CoinCollectorEnv(feedback=feedback, render_mode="ansi", **kwargs), skip_render_check=False
    )


# -- ALFWorld ---------------------------------------------------------------------------
def alfworld_pair(game: str) -> Pair:
    return Pair(
        lambda feedback: ALFWorldEnv(game_file=ALFWORLD / game / "game.tw-pddl", feedback=feedback)
    )


SCRIPTS = {  # command -> the cause of its failure, or None where it succeeds
    "pick_heat_then_place_in_recep-Mug-Cabinet-23": [
        ("open cabinet 1", "You are not at the cabinet 1: go to it first."),
        ("heat mug 1 with microwave 1", "You have seen no 'mug 1' so far."),
        ("take mug 9 from cabinet 1", "You have seen no 'mug 9' so far."),  # no mug 9 at all
        ("go to diningtable 1", None),  # an egg 1, a glassbottle 1, a mug 1
        ("open diningtable 1", "The diningtable 1 cannot be opened or closed."),
        ("heat mug 1 with sinkbasin 1", "The sinkbasin 1 is not a microwave."),
        (
            "heat mug 1 with microwave 1",
            "You are not at the microwave 1: go to it first. You are not holding the mug 1.",
        ),
        ("take mug 1 from diningtable 1", None),
        (
            "take egg 1 from diningtable 1",
            "Your hands are full: you can carry one thing at a time.",
        ),
        ("heat glassbottle 1 with microwave 1", "The glassbottle 1 cannot be heated."),
        ("go to microwave 1", None),
        ("go to microwave 1", "You are already at the microwave 1."),
        (
            "take egg 1 from microwave 1",
            "Your hands are full: you can carry one thing at a time. The microwave 1 is closed.",
        ),
        ("cool mug 1 with microwave 1", "The microwave 1 is not a fridge."),
        ("heat mug 1 with microwave 1", None),
        ("go to cabinet 1", None),
        ("move mug 1 to cabinet 1", "The cabinet 1 is closed."),
        ("close cabinet 1", "The cabinet 1 is closed."),
        ("open cabinet 1", None),
        ("open cabinet 1", "The cabinet 1 is already open."),
        ("examine egg 1", "You are not holding the egg 1."),
        (
            "take glassbottle 1 from cabinet 1",
            "You see no glassbottle 1 at the cabinet 1. "
            "Your hands are full: you can carry one thing at a time.",
        ),
        ("open mug 1", "The mug 1 is not a receptacle: the command is 'open <receptacle>'."),
        ("use mug 1", "The mug 1 has no switch."),
        ("go to spaceship 1", "You have seen no 'spaceship 1' so far."),
        ("LOOK", "Commands must be typed exactly: did you mean 'look'?"),
        ("xyzzy", f"'xyzzy' is not one of the game's commands: {FORMS}."),
        ("", f"No command was given. The game's commands are: {FORMS}."),
        ("move mug 1 to cabinet 1", None),  # wins: a step after it is over
    ],
    "pick_cool_then_place_in_recep-Pan-StoveBurner-9": [
        ("go to cabinet 2", None),
        ("open cabinet 2", None),  # a pan 1
        (
            "cool pan 1 with fridge 1",
            "You are not at the fridge 1: go to it first. You are not holding the pan 1.",
        ),
        ("take pan 1 from cabinet 2", None),
        ("cool pan 1 with cabinet 2", "The cabinet 2 is not a fridge."),
        ("go to fridge 1", None),
        ("cool pan 1 with fridge 1", None),
    ],
    "pick_clean_then_place_in_recep-Fork-Drawer-25": [
        ("go to sinkbasin 1", None),  # an apple 1, a fork 1
        ("clean fork 1 with sinkbasin 1", "You are not holding the fork 1."),
        ("take fork 1 from sinkbasin 1", None),
        ("clean fork 1 with drawer 1", "The drawer 1 is not a sinkbasin."),
        ("clean fork 1 with sinkbasin 1", None),
        ("go to drawer 1", None),
        ("move fork 1 to drawer 1", "The drawer 1 is closed."),
        (
            "take apple 1 from sinkbasin 1",
            "You are not at the sinkbasin 1: go to it first. "
            "Your hands are full: you can carry one thing at "
            "a time.",
        ),
    ],
    "pick_and_place_simple-SoapBottle-Toilet-403": [
        ("go to shelf 2", None),  # a cloth 1, a soapbottle 2, a spraybottle 1
        ("take soapbottle 2 from shelf 2", None),
        (
            "move soapbottle 2 to handtowelholder 1",
            "You cannot put a soapbottle in a handtowelholder.",
        ),
        ("clean soapbottle 2 with sinkbasin 1", "The soapbottle 2 cannot be cleaned."),
        ("go to cabinet 1", None),
        (
            "take cloth 1 from cabinet 1",
            "Your hands are full: you can carry one thing at a time. The cabinet 1 is closed.",
        ),
    ],
    "look_at_obj_in_light-AlarmClock-DeskLamp-314": [
        ("use desklamp 1", "You have seen no 'desklamp 1' so far."),
        ("go to dresser 1", None),  # ... a desklamp 1
        ("use alarmclock 1", "The alarmclock 1 has no switch."),
        ("take alarmclock 1 from dresser 1", None),
        ("go to bed 1", None),
        ("use desklamp 1", "You are not where the desklamp 1 is."),
    ],
}


@pytest.mark.parametrize("game", sorted(SCRIPTS))
def test_alfworld_cause_of_each_failure(game):
    envs = alfworld_pair(game)
    envs.reset(seed=0)
    for command, cause in SCRIPTS[game]:
        obs, info = envs.step(command)
        error = info["action_error"]
        assert (error["cause"] or None) == cause, command
        if error["kind"]:
            assert obs == info["feedback"] == "Nothing happens."


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_alfworld_game_mode_prints_what_alfworld_printed(game):
    record = json.loads((ALFWORLD / game / "transcript.json").read_text())
    default = ALFWorldEnv(game_file=ALFWORLD / game / "game.tw-pddl")
    envs = alfworld_pair(game)
    for episode in record["episodes"]:
        assert envs.reset(seed=0)[0] == default.reset(seed=0)[0] == episode["steps"][0]["obs"]
        for step in episode["steps"][1:]:
            obs, _ = envs.step(step["action"])
            assert obs == default.step(step["action"])[0] == step["obs"]


def random_command(rng: random.Random, env: ALFWorldEnv, admissible: list[str]) -> str:
    """An admissible command, or a command of the game's forms about any object or
    receptacle of the game (seen or not) or an invented one."""
    if rng.random() < 0.4:
        return rng.choice(admissible)
    numbered = {obj: e.name for obj, e in env.game.entities.items() if e.name[-1].isdigit()}
    receptacles = [
        name for obj, name in numbered.items() if env.task.objects[obj] == "receptacle"
    ] + ["spaceship 1"]
    objects = [name for obj, name in numbered.items() if env.task.objects[obj] == "object"] + [
        "unicorn 3"
    ]
    form = rng.choice(list(env.engine.forms.values()))
    form = form.replace("<receptacle>", rng.choice(receptacles), 1)
    return form.replace("<object>", rng.choice(objects), 1).replace("<object>", rng.choice(objects))


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES[::3])
def test_alfworld_causes_tell_only_what_the_player_knows(game):
    rng = random.Random(game)
    envs = alfworld_pair(game)
    env = envs.detailed
    obs, info = envs.reset(seed=0)
    entities = env.game.entities
    things = [e.name for e in entities.values() if e.name[-1].isdigit()]  # not kinds
    shown = [obs]
    for _ in range(200):
        command = random_command(rng, env, info["admissible_actions"])
        obs, info = envs.step(command)
        error = info["action_error"]
        if error["kind"]:
            cause = error["cause"]
            known = "\n".join(shown + [command])
            for name in things:
                if re.search(rf"\b{re.escape(name)}\b", cause):
                    assert re.search(rf"\b{re.escape(name)}\b", known), (command, cause)
            looked_into = re.search(r"You see no (.+?) at the ([^.]+)\.", cause)
            if looked_into:  # said only at an open (or openless) receptacle
                receptacle = next(o for o, e in entities.items() if e.name == looked_into[2])
                facts = {(a.predicate, a.args) for a in env.task.atoms(env.state)}
                place = next(args[1] for p, args in facts if p == "atlocation")
                assert ("receptacleatlocation", (receptacle, place)) in facts
                assert ("opened", (receptacle,)) in facts or (
                    "openable",
                    (receptacle,),
                ) not in facts
        shown.append(obs)


def test_every_precondition_the_game_can_miss_has_a_sentence():
    env = ALFWorldEnv(game_file=ALFWORLD / GAMES[0] / "game.tw-pddl")
    env.reset(seed=0)

    def literals(formula, wanted=True):
        if isinstance(formula, Atom):
            yield formula.predicate, wanted
        elif isinstance(formula, Not):
            yield from literals(formula.arg, not wanted)
        elif isinstance(formula, (And, Or)):
            for part in formula.args:
                yield from literals(part, wanted)
        else:
            assert isinstance(formula, Exists)
            yield from literals(formula.body, wanted)

    needed = {
        key for action in env.task.domain.actions.values() for key in literals(action.precondition)
    }
    assert needed <= set(FACTS)


@pytest.mark.parametrize("feedback", ["game", "detailed"])
def test_alfworld_env_checker_passes(feedback):
    env = gym.make(
        "ALFWorld-v0",
        game_file=ALFWORLD / GAMES[0] / "game.tw-pddl",
        feedback=feedback,
        render_mode="ansi",
    ).unwrapped
    check_env(env)


# -- both -------------------------------------------------------------------------------
def test_gym_make_takes_the_feedback_mode():
    coin = gym.make("CoinCollector-v0", feedback="detailed")
    coin.reset(seed=0)
    assert coin.step("dance")[0].endswith(
        f"'dance' is not one of the game's commands: {COIN_COMMANDS}."
    )
    alfworld = gym.make(
        "ALFWorld-v0", game_file=ALFWORLD / GAMES[0] / "game.tw-pddl", feedback="detailed"
    )
    alfworld.reset(seed=0)
    assert (
        alfworld.step("dance")[0] == f"Nothing happens. 'dance' is not one of the "
        f"game's commands: {FORMS}."
    )


@pytest.mark.parametrize(
    "feedback, error",
    [("Detailed", ValueError), ("verbose", ValueError), (None, TypeError), (1, TypeError)],
)
def test_an_unknown_feedback_mode_is_refused(feedback, error):
    with pytest.raises(error, match="feedback must be one of"):
        CoinCollectorEnv(feedback=feedback)
    with pytest.raises(error, match="feedback must be one of"):
        ALFWorldEnv(game_file=ALFWORLD / GAMES[0] / "game.tw-pddl", feedback=feedback)


def test_the_real_textworld_express_has_no_detailed_feedback():
    with pytest.raises(ValueError, match="needs backend='native'"):
        coin_collector(backend="twx", feedback="detailed")
