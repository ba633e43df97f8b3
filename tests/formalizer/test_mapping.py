"""Plan steps to game commands, by structure: no action name of one DF is known."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.formalizer import CommandMapper
from planloop.formalizer.mapping import Choice, effect_roles
from planloop.pddl import parse_domain

from conftest import DATA

COIN = [
    "look around",
    "inventory",
    "move north",
    "move east",
    "open door to east",
    "close door to east",
    "take coin",
    "take used Q-tip",
]
ALFWORLD = [
    "go to cabinet 1",
    "go to countertop 1",
    "go to countertop 2",
    "go to drawer 1",
    "go to drawer 10",
    "open fridge 1",
    "close fridge 1",
    "take mug 1 from fridge 1",
    "take egg 2 from fridge 1",
    "move mug 1 to fridge 1",
    "heat mug 1 with microwave 1",
    "cool mug 1 with fridge 1",
    "clean mug 1 with sinkbasin 1",
    "use desklamp 1",
    "examine mug 1",
    "examine fridge 1",
    "slice apple 1 with knife 1",
    "inventory",
    "look",
    "help",
]


def mapper(*lists):
    m = CommandMapper()
    for commands in lists:
        m.learn(commands)
    return m


@pytest.mark.parametrize(
    "step, command",
    [
        ("(move kitchen corridor east)", "move east"),
        ("(move kitchen corridor north)", "move north"),
        ("(go kitchen north)", "move north"),
        ("(open-door kitchen corridor east)", "open door to east"),
        ("(open-door frosted-glass_door_kitchen_pantry kitchen pantry east)", "open door to east"),
        ("(close-door kitchen corridor east)", "close door to east"),
        ("(take coin kitchen slot1)", "take coin"),
        ("(pick-up coin kitchen)", "take coin"),
        ("(take used_q-tip kitchen)", "take used Q-tip"),
        ("(look-around)", "look around"),
        ("(check-inventory)", "inventory"),
    ],
)
def test_coin_collector_commands(step, command):
    assert mapper(COIN).command_for(step, COIN) == command


@pytest.mark.parametrize(
    "step, command",
    [
        ("(gotolocation agent1 loc3 countertop1)", "go to countertop 1"),  # the example
        ("(GotoLocation Agent1 Loc_3 CounterTop_2)", "go to countertop 2"),
        ("(go-to drawer_10)", "go to drawer 10"),
        ("(go-to drawer_1)", "go to drawer 1"),
        ("(OpenObject agent1 loc3 fridge_1)", "open fridge 1"),
        ("(close fridge-1)", "close fridge 1"),
        ("(PickupObject agent1 loc3 Mug_1 Fridge_1)", "take mug 1 from fridge 1"),
        ("(take egg_2 fridge_1)", "take egg 2 from fridge 1"),
        ("(PutObject agent1 loc3 mug_1 fridge_1)", "move mug 1 to fridge 1"),  # ALFWorld's put
        ("(put mug_1 fridge_1)", "move mug 1 to fridge 1"),
        ("(HeatObject agent1 loc3 mug_1 microwave_1)", "heat mug 1 with microwave 1"),
        ("(coolObject agent1 loc3 mug_1 fridge_1)", "cool mug 1 with fridge 1"),
        ("(CleanObject agent1 loc3 mug_1 sinkbasin_1)", "clean mug 1 with sinkbasin 1"),
        ("(useObject agent1 loc3 desklamp_1)", "use desklamp 1"),
        ("(toggle-on desklamp_1)", "use desklamp 1"),
        ("(examine mug_1)", "examine mug 1"),
        ("(examineObject agent1 fridge_1)", "examine fridge 1"),
        ("(SliceObject agent1 loc3 apple_1 knife_1)", "slice apple 1 with knife 1"),
        ("(cut apple-1 knife-1)", "slice apple 1 with knife 1"),
        ("(look)", "look"),
        ("(inventory agent1)", "inventory"),
        ("pickupobject(agent1, loc3, mug_1, fridge_1)", "take mug 1 from fridge 1"),  # call style
    ],
)
def test_alfworld_commands(step, command):
    assert mapper(ALFWORLD).command_for(step, ALFWORLD) == command


@pytest.mark.parametrize(
    "step",
    [
        "(fly kitchen corridor east)",  # no verb of any command
        "(move kitchen corridor)",  # no direction
        "(move kitchen corridor up)",  # no such direction
        "(take apple kitchen)",  # nothing called apple
        "(gotolocation agent1 loc3 bed_1)",  # no bed
        "(heatobject agent1 loc3 bowl_1 microwave_1)",  # no bowl
        "()",
        "",
        "(move (kitchen) east)",
    ],
)
def test_a_step_that_names_no_command_is_none(step):
    assert mapper(COIN, ALFWORLD).command_for(step, COIN + ALFWORLD) is None


def test_a_command_naming_nothing_does_not_stand_for_a_step_naming_a_thing():
    # examine mug 1 is not valid away from the mug: "look" (valid now) is not it; the
    # command seen before is sent, for the game to refuse
    m = mapper(ALFWORLD)
    valid = ["go to cabinet 1", "look", "inventory", "help", "examine cabinet 1"]
    assert m.command_for("(examine mug_1)", valid) == "examine mug 1"
    assert m.command_for("(look agent1 loc3)", valid) == "look"


def test_the_valid_commands_of_the_moment_come_before_those_seen():
    m = mapper(["go to countertop 1", "go to cabinet 1"])
    step = "(gotolocation agent1 countertop_1 cabinet_1)"  # from one, to the other
    assert m.command_for(step, ["go to cabinet 1", "look"]) == "go to cabinet 1"
    assert m.command_for(step, ["go to countertop 1", "look"]) == "go to countertop 1"
    # nothing valid fits: a command seen before is sent, for the game to refuse
    assert m.command_for("(take coin kitchen)", ["move east"]) is None
    m.learn(["take coin"])
    assert m.command_for("(take coin kitchen)", ["move east"]) == "take coin"


def test_the_best_fitting_command_wins():
    valid = ["look", "examine mug 1", "go to fridge 1", "move mug 1 to fridge 1"]
    m = mapper(valid)
    assert m.command_for("(lookat mug_1)", valid) == "examine mug 1"
    assert m.command_for("(move mug_1 fridge_1)", valid) == "move mug 1 to fridge 1"
    assert m.command_for("(move-to fridge_1)", valid) == "go to fridge 1"


def test_a_step_is_built_from_a_seen_commands_form():
    m = mapper(["move east", "open door to east", "look around"])
    assert m.command_for("(open-door kitchen corridor north)", []) == "open door to north"
    assert m.command_for("(open-door door_3 kitchen corridor south)", []) == "open door to south"
    assert m.command_for("(move kitchen pantry west)", ["move east"]) == "move west"
    assert m.command_for("(close-door kitchen corridor north)", []) is None  # never seen
    m = mapper(["take egg 1 from fridge 1", "go to countertop 2", "examine apple 3"])
    assert (
        m.command_for("(PickupObject agent1 loc3 apple_3 countertop_2)", [])
        == "take apple 3 from countertop 2"
    )
    assert m.command_for("(PickupObject agent1 loc3 pear_1 countertop_2)", []) is None
    assert (
        mapper(ALFWORLD).command_for("(heatobject agent1 loc3 mug_1 fridge_1)", ALFWORLD)
        == "heat mug 1 with fridge 1"
    )  # not valid, but what the step says


def test_examples_show_one_command_per_verb():
    assert mapper(COIN).examples() == [
        "look around",
        "inventory",
        "move north",
        "open door to east",
        "close door to east",
        "take coin",
    ]
    assert len(mapper(ALFWORLD).examples(limit=3)) == 3


# -- property: every real command, written in several DF styles, maps back to itself -----
def _phrases(command):
    words, phrases, current = command.split(), [], []
    for word in words[1:]:
        if word in ("to", "from", "with"):
            phrases.append("_".join(current))
            current = []
        else:
            current.append(word)
    return words[0], [p for p in phrases + ["_".join(current)] if p]


def styles(command):
    """``command`` as plan steps of several domain files."""
    verb, args = _phrases(command)
    if command in ("look", "help", "inventory"):
        return [f"({command})", f"({command} agent1)"]
    if command == "look around":
        return ["(look-around)", "(look_around player)"]
    if verb in ("move", "open", "close") and args[-1] in ("north", "south", "east", "west"):
        d = args[-1]  # CoinCollector
        if verb == "move":
            return [
                f"(move kitchen corridor {d})",
                f"(go kitchen {d})",
                f"(Move-{d.capitalize()} player)",
            ]
        return [
            f"({verb}-door kitchen corridor {d})",
            f"({verb}-door door_1 kitchen hall {d})",
            f"({verb.upper()}DOOR {d})",
        ]
    if verb == "take" and len(args) == 1:
        return [
            f"(take {args[0]} kitchen)",
            f"(take {args[0]} kitchen slot1)",
            f"(pick-up {args[0].replace('_', '-')} living_room)",
        ]
    x = args[0]
    if verb == "go":
        return [
            f"(gotolocation agent1 loc3 {x})",
            f"(GotoLocation agent1 loc3 {x.replace('_', '')})",
            f"(go-to {x})",
            f"(walk_to agent_1 {x.upper()})",
        ]
    if verb in ("open", "close", "use", "examine"):
        name = {"use": "useObject", "examine": "examine"}.get(verb, verb.capitalize() + "Object")
        return [f"({name} agent1 loc3 {x})", f"({verb} {x})", f"({verb}-it {x.upper()})"]
    y = args[1]
    if verb == "take":
        return [
            f"(PickupObject agent1 loc3 {x} {y})",
            f"(take {x} {y})",
            f"(pick_up {x.upper()} {y})",
        ]
    if verb == "move":
        return [
            f"(PutObject agent1 loc3 {x} {y})",
            f"(put {x} {y})",
            f"(move-object {x} {y})",
            f"(place {x.replace('_', '-')} {y})",
        ]
    return [
        f"({verb.capitalize()}Object agent1 loc3 {x} {y})",
        f"({verb} {x} {y})",
        f"({verb}-with {x.upper()} {y})",
    ]


def _played(env, seed, commands):
    """The admissible lists of ``env`` along ``commands`` played from ``reset``."""
    _, info = env.reset(seed=seed)
    lists = [info["admissible_actions"]]
    for command in commands(env.unwrapped):
        *_, info = env.step(command)
        lists.append(info["admissible_actions"])
    return lists


@pytest.fixture(scope="module")
def admissible_lists():
    coin = gym.make("CoinCollector-v0", num_locations=6, num_distractor_items=4)
    lists = [
        commands for seed in range(4) for commands in _played(coin, seed, lambda e: e.gold_path())
    ]
    games = DATA / "alfworld" / "games"
    for game in (
        "pick_heat_then_place_in_recep-Egg-CounterTop-8",
        "pick_cool_then_place_in_recep-Pan-StoveBurner-9",
        "pick_clean_then_place_in_recep-Fork-Drawer-25",
        "look_at_obj_in_light-Book-DeskLamp-308",
    ):
        alfworld = gym.make("ALFWorld-v0", game_file=games / game / "game.tw-pddl")
        lists += _played(alfworld, 0, lambda e: e.walkthrough())
    return lists


@pytest.mark.slow
def test_every_real_command_in_every_style_maps_back_to_itself(admissible_lists):
    verbs = {c.split()[0] for commands in admissible_lists for c in commands}
    assert verbs >= {
        "move",
        "open",
        "close",
        "take",
        "go",
        "examine",
        "heat",
        "cool",
        "clean",
        "use",
        "look",
        "inventory",
        "help",
    }
    assert any(
        c.startswith("take") and c != "take coin" for commands in admissible_lists for c in commands
    )
    m, wrong, tried = CommandMapper(), [], 0
    for valid in admissible_lists:
        m.learn(valid)  # as the policy does: every list the game shows
        for command in valid:
            for step in styles(command):
                tried += 1
                if (got := m.command_for(step, valid)) != command:
                    wrong.append((step, command, got))
    assert tried > 3000 and wrong == []


# -- the domain's effects tell a move's destination from its origin --------------------
# Domains (excerpts), steps and valid lists from real PDDLego+ calls (shared corpus
# real-model-pddl; each names its df_sha and call id). A step is the first of the plan a
# planner finds for the call's files (Coin: the authors' recorded raw_plan), unless its
# comment says otherwise.
GOTO_VISITED = parse_domain("""(define (domain room-exploration)
  (:requirements :strips :negative-preconditions)
  (:types object receptacle)
  (:predicates (at ?r - receptacle) (opened ?r - receptacle) (visited ?r - receptacle))
  (:action GotoLocation
    :parameters (?from - receptacle ?to - receptacle)
    :precondition (at ?from)
    :effect (and
      (at ?to)
      (visited ?to)
      (not (at ?from))
    )
  )
  (:action OpenObject
    :parameters (?r - receptacle)
    :precondition (and (at ?r) (not (opened ?r)))
    :effect (opened ?r)
  ))""")  # 90fa602263d0fc15, gpt-4.1
BEDROOM = [
    "go to bed 1",
    "go to desk 1",
    "go to drawer 1",
    "go to drawer 2",
    "go to drawer 3",
    "go to garbagecan 1",
    "go to safe 1",
    "go to shelf 1",
    "go to shelf 2",
    "go to shelf 3",
    "go to shelf 4",
    "go to shelf 5",
    "go to sidetable 1",
    "go to sidetable 2",
    "help",
    "inventory",
    "look",
]  # ...basic&use_10.txt#2


def test_a_move_goes_to_its_destination_not_its_origin():
    m = mapper(BEDROOM)
    choice = m.choose("(gotolocation bed1 desk1)", BEDROOM, GOTO_VISITED)
    assert choice == Choice(
        "go to desk 1",
        "go to desk 1: destination ?to, added by (at ?to); "
        "'go to bed 1' names the origin ?from, deleted by (not (at ?from))",
    )
    assert m.command_for("(gotolocation bed1 desk1)", BEDROOM, GOTO_VISITED) == "go to desk 1"


def test_without_the_domain_or_its_action_the_first_fit_wins_as_before():
    m = mapper(BEDROOM)
    assert m.command_for("(gotolocation bed1 desk1)", BEDROOM) == "go to bed 1"
    assert m.choose("(gotolocation bed1 desk1)", BEDROOM).reason == (
        "go to bed 1: first of 2 that fit alike, in the game's order (no domain to tell the "
        "destination)"
    )
    # a step of another domain's three-parameter gotolocation
    assert m.choose("(gotolocation agent1 bed1 desk1)", BEDROOM, GOTO_VISITED).reason == (
        "go to bed 1: first of 2 that fit alike, in the game's order (the domain has no "
        "action gotolocation of 3 parameters)"
    )


def test_the_destination_wins_even_when_only_the_origin_is_valid_now():
    # the agent already stands at sinkbasin 2; the model believes it is at sinkbasin 1:
    # going back to sinkbasin 1 would undo the move, the game refusing the step tells it
    domain = parse_domain("""(define (domain room_exploration)
	(:requirements :strips :typing :negative-preconditions)
	(:types receptacle object)
	(:predicates (at ?r - receptacle) (in ?o - object ?r - receptacle) (holding ?o - object)
		(taken ?o - object))
	(:action GotoLocation
		:parameters (?from - receptacle ?to - receptacle)
		:precondition (at ?from)
		:effect (and (at ?to) (not (at ?from)))
	)
	(:action PickupObject
		:parameters (?o - object ?r - receptacle)
		:precondition (and (in ?o ?r) (not (holding ?o)))
		:effect (and (holding ?o) (not (in ?o ?r)) (taken ?o))
	))""")  # 3669314617df2458, gpt-4o, ...clean_66.txt#8
    valid = [
        "examine sinkbasin 2",
        "go to bathtubbasin 1",
        "go to cabinet 1",
        "go to countertop 1",
        "go to sinkbasin 1",
        "go to toilet 1",
        "help",
        "look",
    ]
    m = mapper(
        ["go to sinkbasin 1", "go to sinkbasin 2", "take soapbottle 1 from cabinet 2"], valid
    )
    step = "(gotolocation sinkbasin1 sinkbasin2)"
    assert m.command_for(step, valid) == "go to sinkbasin 1"  # without the domain
    assert m.choose(step, valid, domain) == Choice(
        "go to sinkbasin 2",
        "go to sinkbasin 2 (seen before, not valid now): destination "
        "?to, added by (at ?to); 'go to sinkbasin 1' names the origin ?from, deleted by "
        "(not (at ?from))",
    )
    # taking is no move: the receptacle it takes from is no origin (a step of the same
    # domain for a take command of the same log)
    assert (
        m.choose("(pickupobject soapbottle1 cabinet2)", valid, domain).command
        == "take soapbottle 1 from cabinet 2"
    )


def test_a_move_whose_destination_the_game_does_not_name_is_no_command():
    domain = parse_domain("""(define (domain explore-room)
  (:requirements :strips :typing :negative-preconditions)
  (:types object receptacle)
  (:predicates (at ?r - receptacle) (visited ?r - receptacle))
  (:action GotoLocation
    :parameters (?from - receptacle ?to - receptacle)
    :precondition (and (at ?from) (not (at ?to)))
    :effect (and (not (at ?from)) (at ?to) (visited ?to))
  ))""")  # 0edd74b697b5f55d, gpt-4.1, ...basic&use_8.txt#8
    valid = [
        "examine sidetable 1",
        "go to bed 1",
        "go to desk 1",
        "help",
        "look",
        "take alarmclock 2 from sidetable 1",
    ]
    m = mapper(["go to sidetable 1", "go to bed 1"], valid)
    step = "(gotolocation sidetable1 init_receptacle)"
    assert m.command_for(step, valid) == "go to sidetable 1"  # without the domain
    assert m.choose(step, valid, domain) == Choice(
        None,
        "no command names the step's destination: 'go to sidetable 1' names the "
        "origin ?from, deleted by (not (at ?from))",
    )
    # nor is the origin's command built when only the valid list of the moment is known
    assert mapper(valid).command_for(step, valid) == "go to sidetable 1"
    assert mapper(valid).choose(step, valid, domain) == Choice(
        None, f"no command the game has shown fits {step}"
    )


def test_when_the_effects_add_both_arguments_the_first_fit_wins():
    domain = parse_domain("""(define (domain kitchen-domain)
    (:requirements :strips :typing)
    (:types location direction)
    (:predicates (at ?l - location) (door-open ?d - direction) (door-closed ?d - direction))
    (:action open-door
        :parameters (?loc1 - location ?loc2 - location ?dir - direction)
        :precondition (and (door-closed ?dir) (at ?loc1))
        :effect (and (door-open ?dir) (at ?loc2))
    ))""")  # a37a0df303171fb6, Qwen3-8B, a room named north: ...detailed_4.txt#17
    valid = [
        "close door to north",
        "close door to west",
        "inventory",
        "look around",
        "move east",
        "move north",
        "move south",
        "move west",
        "open door to north",
        "open door to west",
    ]
    assert mapper(valid).choose("(open-door street north west)", valid, domain) == Choice(
        "open door to north",
        "open door to north: first of 2 that fit alike, in the game's "
        "order (the effects do not tell them apart)",
    )


def test_a_coin_collector_move_names_its_direction_not_its_rooms():
    domain = parse_domain("""(define (domain exploration)
    (:requirements :strips :typing)
    (:types location direction)
    (:predicates (at ?l - location) (direction ?d - direction ?from - location ?to - location)
        (open ?d - direction ?from - location ?to - location))
    (:action move
        :parameters (?from - location ?to - location ?dir - direction)
        :precondition (and (at ?from) (direction ?dir ?from ?to) (open ?dir ?from ?to))
        :effect (and (at ?to) (not (at ?from)))
    ))""")  # bb0e7e9cf09dd426, Qwen3-32B, 0916/32b_pddl/..._detailed_2.txt#0
    valid = [
        "close door to east",
        "close door to south",
        "close door to west",
        "inventory",
        "look around",
        "move east",
        "move north",
        "move south",
        "move west",
        "open door to east",
        "open door to south",
        "open door to west",
    ]
    assert mapper(valid).choose("(move kitchen south_room south)", valid, domain) == Choice(
        "move south", "move south: the only command that fits"
    )


def test_leaving_a_place_makes_it_the_origin_even_when_visited_is_added():
    domain = parse_domain("""(define (domain exploration)
  (:requirements :strips :typing)
  (:types location direction door)
  (:predicates (at ?l - location) (visited ?l - location))
  (:action move
    :parameters (?from - location ?to - location ?dir - direction)
    :precondition (at ?from)
    :effect (and (not (at ?from)) (at ?to) (visited ?from))
  ))""")  # bdef2742a970a451, deepseek
    added, origins = effect_roles(domain.actions["move"])
    assert {p: str(a) for p, a in added.items()} == {"?to": "(at ?to)"}
    assert {p: str(a) for p, a in origins.items()} == {"?from": "(at ?from)"}


def test_effect_roles_leave_an_agent_alone_and_read_added_only_moves():
    agent = parse_domain("""(define (domain home_env)
  (:requirements :strips :typing)
  (:types agent location object receptacle)
  (:predicates (at ?a - agent ?l - location) (located ?o - object ?l - location)
    (in-inventory ?a - agent ?o - object))
  (:action go
    :parameters (?a - agent ?from - location ?to - location)
    :precondition (at ?a ?from)
    :effect (and (not (at ?a ?from)) (at ?a ?to))
  ))""")  # ca3eb1fb6651e46a
    added, origins = effect_roles(agent.actions["go"])
    assert (set(added), set(origins)) == ({"?to"}, {"?from"})
    visit = parse_domain("""(define (domain bathroom)
  (:requirements :typing)
  (:types location object receptacle)
  (:predicates (at ?l - location) (visited ?l - location))
  (:action GotoLocation
    :parameters (?l - location ?r - receptacle)
    :precondition (not (visited ?l))
    :effect (and (at ?l) (visited ?l))
  ))""")  # 1010a6d3a1d51455, o3-mini
    added, origins = effect_roles(visit.actions["gotolocation"])
    assert ({p: str(a) for p, a in added.items()}, origins) == ({"?l": "(at ?l)"}, {})
