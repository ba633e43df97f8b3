"""Offline ALFWorld-style games: a room, its receptacles and objects, a goal of one of
ALFWorld's six task types, all drawn from a seed; every game is checked winnable before
it is returned, and its walkthrough is a planner's plan replayed to a win in the engine.

The domain (``alfred.pddl``) and grammar (``alfred.twl2``) are ALFWorld's, shipped in
``planloop/envs/alfworld/data`` (MIT, its notice beside them), unless a caller points
elsewhere (see :func:`find_logic_dir`); the problem follows the conventions of
ALFWorld's ``initial_state.pddl`` files.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import random
from collections.abc import Set
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from ...pddl import parse_command, solve
from ...pddl.source import read_text, source_path
from ..arguments import MissingPath, instance_of
from .engine import Engine
from .game import TASK_TYPES, check_task_types, load_game

MAX_ATTEMPTS = 10
GOTO = "gotolocation"
NO_OP_ACTIONS = frozenset({"look", "inventory", "examinereceptacle", "examineobject", "help"})

# -- ALFWorld's class constants, in the order its problem files declare them ---------
OBJECT_CLASSES = (
    "AlarmClock Apple BaseballBat BasketBall Bathtub Blinds Book Boots Bowl Box Bread "
    "ButterKnife Candle CD CellPhone Chair Cloth CreditCard Cup Curtains DeskLamp DishSponge "
    "Egg FloorLamp Footstool Fork Glassbottle HandTowel HousePlant Kettle KeyChain Knife Ladle "
    "Laptop LaundryHamperLid Lettuce LightSwitch Mirror Mug Newspaper Painting Pan PaperTowel "
    "PaperTowelRoll Pen Pencil PepperShaker Pillow Plate Plunger Poster Pot Potato "
    "RemoteControl SaltShaker ScrubBrush ShowerDoor ShowerGlass Sink SoapBar SoapBottle "
    "Spatula Spoon SprayBottle Statue StoveKnob TeddyBear Television TennisRacket TissueBox "
    "ToiletPaper ToiletPaperRoll Tomato Towel Vase Watch WateringCan Window WineBottle"
).split()
RECEPTACLE_CLASSES = (
    "ArmChair BathtubBasin Bed Cabinet Cart CoffeeMachine CounterTop Desk Drawer Dresser "
    "Fridge GarbageCan HandTowelHolder LaundryHamper Microwave Ottoman Safe Shelf SinkBasin "
    "Sofa StoveBurner DiningTable CoffeeTable SideTable Toaster Toilet ToiletPaperHanger "
    "TowelHolder TVStand"
).split()
OPENABLE = frozenset({"Cabinet", "Drawer", "Fridge", "Microwave", "Safe"})
BASINS = {"SinkBasin": "Sink", "BathtubBasin": "Bathtub"}  # basin -> its fixture object
LAMPS = ("DeskLamp", "FloorLamp")
LAMP_HOSTS = frozenset({"Desk", "SideTable", "Dresser", "Shelf", "CoffeeTable"})

# -- rooms: receptacle classes with (fewest, most) instances; scenery classes --------
ROOMS: dict[str, dict[str, tuple[int, int]]] = {
    "kitchen": {
        "Cabinet": (2, 6),
        "Drawer": (1, 4),
        "CounterTop": (1, 3),
        "Fridge": (1, 1),
        "Microwave": (1, 1),
        "SinkBasin": (1, 1),
        "StoveBurner": (2, 4),
        "CoffeeMachine": (1, 1),
        "Toaster": (0, 1),
        "GarbageCan": (1, 1),
        "DiningTable": (0, 1),
        "Shelf": (0, 2),
        "SideTable": (0, 1),
    },
    "livingroom": {
        "Sofa": (1, 2),
        "ArmChair": (0, 2),
        "CoffeeTable": (1, 1),
        "SideTable": (1, 2),
        "Shelf": (1, 4),
        "TVStand": (0, 1),
        "Drawer": (1, 3),
        "Cabinet": (0, 2),
        "GarbageCan": (1, 1),
        "DiningTable": (0, 1),
        "Ottoman": (0, 1),
        "Safe": (0, 1),
        "Dresser": (0, 1),
    },
    "bedroom": {
        "Bed": (1, 1),
        "Desk": (0, 1),
        "Dresser": (0, 1),
        "SideTable": (1, 2),
        "Drawer": (2, 5),
        "Shelf": (0, 3),
        "GarbageCan": (1, 1),
        "Safe": (0, 1),
        "ArmChair": (0, 1),
        "LaundryHamper": (0, 1),
        "Cabinet": (0, 1),
    },
    "bathroom": {
        "Toilet": (1, 1),
        "SinkBasin": (1, 2),
        "BathtubBasin": (0, 1),
        "Cabinet": (1, 4),
        "Drawer": (0, 3),
        "CounterTop": (1, 1),
        "Shelf": (0, 2),
        "GarbageCan": (1, 1),
        "HandTowelHolder": (0, 1),
        "TowelHolder": (0, 1),
        "ToiletPaperHanger": (1, 1),
    },
}
SCENERY = {  # non-pickupable things that only have a location
    "kitchen": ("Chair", "LightSwitch", "StoveKnob", "Window", "Curtains"),
    "livingroom": ("Painting", "LightSwitch", "Window", "Television", "Chair", "Curtains"),
    "bedroom": ("Painting", "LightSwitch", "Window", "Blinds", "Mirror", "Chair"),
    "bathroom": ("Mirror", "LightSwitch", "ShowerDoor", "ShowerGlass", "Window", "Plunger"),
}
ROOM_CODES = {"K": "kitchen", "L": "livingroom", "B": "bedroom", "T": "bathroom"}


@dataclass(frozen=True)
class ObjectClass:
    """A pickupable class: the rooms it is found in, its properties, where it may lie."""

    name: str
    rooms: frozenset[str]
    props: frozenset[str]  # clean heat cool slice container
    places: frozenset[str]


def _catalog(rows: str) -> dict[str, ObjectClass]:
    """Rows ``Name | rooms | properties | receptacle classes``."""
    catalog = {}
    for row in filter(None, (r.strip() for r in rows.splitlines())):
        name, rooms, props, places = (part.strip() for part in row.split("|"))
        catalog[name] = ObjectClass(
            name,
            frozenset(ROOM_CODES[c] for c in rooms),
            frozenset(props.split()),
            frozenset(places.split()),
        )
    return catalog


_FOOD = "CounterTop DiningTable SideTable Fridge Microwave SinkBasin GarbageCan"
_DISH = "Cabinet CounterTop DiningTable SideTable Fridge Microwave SinkBasin Shelf"
_TOOL = "CounterTop DiningTable SideTable Drawer SinkBasin"
_SMALL = "Desk Dresser Drawer SideTable Shelf"
OBJECTS = _catalog(f"""
    Apple | K | clean heat cool slice | {_FOOD}
    Bread | K | heat cool slice | CounterTop DiningTable SideTable Fridge Microwave GarbageCan
    Egg | K | clean heat cool slice | {_FOOD}
    Lettuce | K | clean cool slice | CounterTop DiningTable SideTable Fridge SinkBasin GarbageCan
    Potato | K | clean heat cool slice | {_FOOD}
    Tomato | K | clean heat cool slice | {_FOOD}
    Bowl | KL | clean cool container | {_DISH} Desk Dresser CoffeeTable
    Cup | K | clean heat cool container | {_DISH}
    Mug | KB | clean heat cool container | {_DISH} CoffeeMachine Desk Dresser
    Plate | KL | clean heat cool container | {_DISH} CoffeeTable
    Pan | K | clean cool container | Cabinet CounterTop DiningTable Fridge SinkBasin StoveBurner
    Pot | K | clean cool container | Cabinet CounterTop DiningTable Fridge SinkBasin StoveBurner
    Kettle | K | clean | Cabinet CounterTop DiningTable StoveBurner SinkBasin
    Fork | K | clean | {_TOOL}
    Spoon | K | clean | {_TOOL}
    Knife | K | clean | {_TOOL}
    ButterKnife | K | clean | {_TOOL}
    Spatula | K | clean | {_TOOL}
    Ladle | K | clean | {_TOOL} Cabinet
    SaltShaker | K | | Cabinet CounterTop DiningTable Drawer Shelf SideTable
    PepperShaker | K | | Cabinet CounterTop DiningTable Drawer Shelf SideTable
    WineBottle | KL | cool | Cabinet CounterTop DiningTable Fridge Shelf GarbageCan SideTable
    DishSponge | KT | clean | Cabinet CounterTop Drawer SinkBasin GarbageCan Shelf BathtubBasin
    SoapBottle | KT | | Cabinet CounterTop DiningTable Drawer Shelf GarbageCan Toilet
    SoapBar | T | clean | Cabinet CounterTop Drawer SinkBasin BathtubBasin Toilet GarbageCan
    Cloth | TB | clean | Cabinet CounterTop Drawer SinkBasin BathtubBasin Toilet Dresser Shelf
    HandTowel | T | | HandTowelHolder CounterTop Cabinet Drawer Shelf Toilet
    Towel | T | | TowelHolder
    ToiletPaper | T | | ToiletPaperHanger Cabinet CounterTop Drawer Shelf Toilet GarbageCan
    SprayBottle | T | | Cabinet CounterTop Drawer Shelf Toilet GarbageCan
    Candle | TL | | Cabinet CounterTop Drawer Shelf Toilet SideTable CoffeeTable
    TissueBox | TLB | | CounterTop Shelf Toilet {_SMALL} CoffeeTable TVStand
    AlarmClock | B | | {_SMALL}
    Book | LB | | Bed {_SMALL} CoffeeTable Sofa
    CD | B | | {_SMALL} Safe GarbageCan
    CellPhone | LB | | Bed {_SMALL} Sofa ArmChair
    CreditCard | LB | | {_SMALL} Sofa ArmChair CoffeeTable Safe Ottoman
    KeyChain | LB | | {_SMALL} Sofa ArmChair CoffeeTable Safe Ottoman
    Laptop | LB | | Bed Desk Dresser SideTable Sofa ArmChair CoffeeTable Ottoman
    Pen | B | | {_SMALL} GarbageCan
    Pencil | B | | {_SMALL} GarbageCan
    Pillow | LB | | Bed Sofa ArmChair Ottoman
    RemoteControl | L | | Sofa ArmChair CoffeeTable SideTable Shelf TVStand Dresser Drawer
    Statue | LB | | Shelf SideTable CoffeeTable Dresser Desk
    Watch | LB | | {_SMALL} CoffeeTable Safe
    Newspaper | L | | Sofa ArmChair CoffeeTable SideTable Shelf Ottoman GarbageCan
    Box | LB | container | Desk Dresser SideTable Shelf CoffeeTable Sofa ArmChair
    Vase | L | | Shelf SideTable CoffeeTable Dresser Cabinet
    BasketBall | B | | Bed Desk Dresser
    BaseballBat | B | | Bed Desk SideTable
    TennisRacket | B | | Bed Desk SideTable
    TeddyBear | B | | Bed Dresser Desk ArmChair Shelf
""")
SMALL_OBJECTS = frozenset(
    {
        "Apple",
        "Egg",
        "Tomato",
        "Potato",
        "Fork",
        "Spoon",
        "Knife",
        "ButterKnife",
        "Spatula",
        "Ladle",
        "SaltShaker",
        "PepperShaker",
        "DishSponge",
        "KeyChain",
        "CreditCard",
        "Pen",
        "Pencil",
        "CD",
        "Watch",
        "SoapBar",
    }
)


@dataclass(frozen=True)
class TaskSpec:
    """What a task type needs: rooms that can host it, the target's property and the
    receptacle class that provides it, and the two task-sentence templates."""

    rooms: tuple[str, ...]
    templates: tuple[str, str]
    prop: str | None = None
    tool: str | None = None
    count: int = 1
    lamp: bool = False


TASKS = {
    "pick_and_place_simple": TaskSpec(
        ("kitchen", "livingroom", "bedroom", "bathroom"),
        ("put a {obj} in {recep}", "put some {obj} on {recep}"),
    ),
    "look_at_obj_in_light": TaskSpec(
        ("livingroom", "bedroom"),
        ("look at {obj} under the {toggle}", "examine the {obj} with the {toggle}"),
        lamp=True,
    ),
    "pick_clean_then_place_in_recep": TaskSpec(
        ("kitchen", "bathroom"),
        ("put a clean {obj} in {recep}", "clean some {obj} and put it in {recep}"),
        prop="clean",
        tool="SinkBasin",
    ),
    "pick_heat_then_place_in_recep": TaskSpec(
        ("kitchen",),
        ("put a hot {obj} in {recep}", "heat some {obj} and put it in {recep}"),
        prop="heat",
        tool="Microwave",
    ),
    "pick_cool_then_place_in_recep": TaskSpec(
        ("kitchen",),
        ("put a cool {obj} in {recep}", "cool some {obj} and put it in {recep}"),
        prop="cool",
        tool="Fridge",
    ),
    "pick_two_obj_and_place": TaskSpec(
        ("kitchen", "livingroom", "bedroom", "bathroom"),
        ("put two {obj} in {recep}", "find two {obj} and put them in {recep}"),
        count=2,
    ),
}
assert set(TASKS) == set(TASK_TYPES)


# -- logic files ---------------------------------------------------------------------
LOGIC_FILES = ("alfred.pddl", "alfred.twl2")
SHIPPED_LOGIC = Path(__file__).resolve().parent / "data"
_HOW_TO_GET = (
    "ALFWorld's domain and grammar (alfred.pddl, alfred.twl2) are needed: set "
    "ALFWORLD_DATA to a folder holding logic/alfred.pddl and logic/alfred.twl2, "
    "or pass logic_dir=, or leave both unset for the copies planloop ships"
)


def find_logic_dir(logic_dir: str | os.PathLike | None = None) -> Path:
    """The folder holding ``alfred.pddl`` and ``alfred.twl2``: ``logic_dir``, else
    ``$ALFWORLD_DATA/logic``, else the installed ``alfworld`` package's ``data/`` folder
    (found without importing it), else the copies shipped with planloop. Nothing is
    downloaded."""
    if logic_dir is not None:
        instance_of("logic_dir", logic_dir, (str, os.PathLike), "the path of a folder")
        return _checked(source_path(logic_dir) or Path(logic_dir), "logic_dir")
    if os.environ.get("ALFWORLD_DATA"):
        return _checked(Path(os.environ["ALFWORLD_DATA"]) / "logic", "$ALFWORLD_DATA/logic")
    spec = importlib.util.find_spec("alfworld")
    if spec is not None and spec.submodule_search_locations:
        return _checked(
            Path(list(spec.submodule_search_locations)[0]) / "data",
            "the alfworld package's data folder",
        )
    return _checked(SHIPPED_LOGIC, "planloop's own copy")


def _checked(folder: Path, origin: str) -> Path:
    missing = [name for name in LOGIC_FILES if not (folder / name).is_file()]
    if missing:
        raise MissingPath(f"{', '.join(missing)} not found in {folder} ({origin}). {_HOW_TO_GET}.")
    return folder


# -- scenes ----------------------------------------------------------------------------
@dataclass
class Scene:
    """One sampled room, in THOR ids (``Apple|+00.10|+00.90|-01.25``)."""

    task_type: str
    room: str
    target: str
    goal: str  # receptacle class, or the lamp class for look_at_obj_in_light
    receptacles: dict[str, tuple[str, str]] = field(default_factory=dict)  # id: class, loc
    # id: class, location, receptacle (None for things that only stand somewhere)
    objects: dict[str, tuple[str, str, str | None]] = field(default_factory=dict)
    inside: dict[str, str] = field(default_factory=dict)  # inner object: outer object
    start: str = ""
    locations: list[str] = field(default_factory=list)


class _Ids:
    """Fresh THOR ids and grid locations, never the same twice."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()

    def point(self, near: tuple[float, float, float] | None = None, spread: float = 0.3):
        rng = self.rng
        if near is None:
            return (rng.uniform(-4.5, 4.5), rng.uniform(0.0, 2.2), rng.uniform(-4.5, 4.5))
        x, y, z = (c + rng.uniform(-spread, spread) for c in near)
        return x, max(0.0, y), z

    def thor(self, cls: str, near=None, suffix: str = "") -> tuple[str, tuple]:
        while True:
            point = self.point(near)
            name = "|".join([cls, *map(_coordinate, point)]) + suffix
            if name not in self.used:
                self.used.add(name)
                return name, point

    def location(self, point: tuple[float, float, float] | None = None) -> str:
        rng = self.rng
        while True:
            x, _, z = point if point is not None else self.point()
            name = "loc|{}|{}|{}|{}".format(
                round(x * 4) + rng.randint(-3, 3),
                round(z * 4) + rng.randint(-3, 3),
                rng.randint(0, 3),
                rng.choice((0, 30, 30, 30, 60, -30)),
            )
            if name not in self.used:
                self.used.add(name)
                return name


def _coordinate(value: float) -> str:
    text = f"{abs(value):05.2f}"
    return text if text == "00.00" else ("-" if value < 0 else "+") + text


def mangle(thor_id: str) -> str:
    """A THOR id as ALFWorld writes it in PDDL."""
    for char, word in (
        ("-", "_minus_"),
        ("|", "_bar_"),
        ("+", "_plus_"),
        (".", "_dot_"),
        (",", "_comma_"),
    ):
        thor_id = thor_id.replace(char, word)
    return thor_id


def sample_scene(task_type: str, rng: random.Random) -> Scene:
    """A room for ``task_type``: receptacles, the target objects, distractors, scenery."""
    spec = TASKS[task_type]
    room = rng.choice(spec.rooms)
    classes = _receptacle_classes(room, rng)
    target, goal = _choose_task(spec, room, set(classes), rng)
    scene = Scene(task_type, room, target, goal)
    ids = _Ids(rng)
    points = {}
    for cls in classes:
        if cls in BASINS:
            rid, point = ids.thor(BASINS[cls], suffix=f"|{cls}")
        else:
            rid, point = ids.thor(cls)
        loc = ids.location(point)
        scene.receptacles[rid], points[rid] = (cls, loc), point
        scene.locations.append(loc)
    _share_a_location(scene, rng)
    for rid, (cls, loc) in list(scene.receptacles.items()):
        if cls in BASINS:  # the sink or bathtub itself: the basin's id without its suffix
            scene.objects[rid.rsplit("|", 1)[0]] = (BASINS[cls], loc, None)
    _place_targets(scene, spec, rng, ids, points)
    _place_distractors(scene, rng, ids, points)
    _place_lamps(scene, rng, ids, points)
    for cls in rng.sample(SCENERY[room], rng.randint(2, 4)):
        loc = rng.choice(scene.locations)
        scene.objects[ids.thor(cls)[0]] = (cls, loc, None)
    scene.start = ids.location()
    scene.locations.append(scene.start)
    return scene


def _receptacle_classes(room: str, rng: random.Random) -> list[str]:
    """6 to 16 receptacle classes (one entry per receptacle) for a room."""
    needed, extra = [], []
    for cls, (low, high) in ROOMS[room].items():
        count = rng.randint(low, high)
        needed += [cls] * min(low, count)
        extra += [cls] * (count - low)
    rng.shuffle(extra)
    return needed + extra[: max(0, 16 - len(needed))]


def _choose_task(spec: TaskSpec, room: str, present: set[str], rng: random.Random):
    """(target object class, goal receptacle class or lamp class)."""
    options = []
    for obj in OBJECTS.values():
        if room not in obj.rooms or (spec.prop and spec.prop not in obj.props):
            continue
        sources = _sources(obj, spec, present)
        if spec.lamp:
            if sources and present & LAMP_HOSTS:
                options += [(obj.name, lamp) for lamp in LAMPS]
            continue
        for goal in sorted(obj.places & present - {spec.tool}):
            if sources - {goal}:
                options.append((obj.name, goal))
    if not options:
        raise RuntimeError(f"no task fits a {room}")  # pragma: no cover - catalog bug
    return rng.choice(options)


def _sources(obj: ObjectClass, spec: TaskSpec, present: set[str]) -> frozenset[str]:
    """Receptacle classes the target may start in (never a fridge when it is to be
    cooled: ALFWorld counts what lies in a fridge as cool already)."""
    return (obj.places & present) - ({"Fridge"} if spec.prop == "cool" else set())


def _place(scene: Scene, ids: _Ids, points: dict, cls: str, rid: str) -> str:
    oid = ids.thor(cls, points[rid])[0]
    scene.objects[oid] = (cls, scene.receptacles[rid][1], rid)
    return oid


def _receptacles_of(scene: Scene, classes: Set[str]) -> list[str]:
    return [rid for rid, (cls, _) in scene.receptacles.items() if cls in classes]


def _place_targets(scene, spec: TaskSpec, rng, ids, points) -> None:
    obj = OBJECTS[scene.target]
    present = {cls for cls, _ in scene.receptacles.values()}
    sources = _sources(obj, spec, present) - {scene.goal}
    spots = _receptacles_of(scene, sources)
    for _ in range(rng.randint(spec.count, spec.count + 1)):
        _place(scene, ids, points, obj.name, rng.choice(spots))


def _place_distractors(scene, rng, ids, points) -> None:
    """Other pickupable things of the room, never the target class; small ones are
    sometimes put in a bowl, plate, pan... (``inReceptacleObject``)."""
    present = {cls for cls, _ in scene.receptacles.values()}
    pool = [
        o
        for o in OBJECTS.values()
        if scene.room in o.rooms and o.name != scene.target and o.places & present
    ]
    for obj in rng.sample(pool, min(len(pool), rng.randint(5, 9))):
        for _ in range(rng.choice((1, 1, 2))):
            holders = [
                oid
                for oid, (cls, _, rid) in scene.objects.items()
                if cls in OBJECTS
                and "container" in OBJECTS[cls].props
                and rid
                and oid not in scene.inside.values()
                and scene.receptacles[rid][0] in obj.places
            ]
            if obj.name in SMALL_OBJECTS and holders and rng.random() < 0.3:
                outer = rng.choice(holders)
                scene.inside[_place(scene, ids, points, obj.name, scene.objects[outer][2])] = outer
            else:
                rid = rng.choice(_receptacles_of(scene, set(obj.places)))
                _place(scene, ids, points, obj.name, rid)


def _place_lamps(scene, rng, ids, points) -> None:
    """The task's lamp on a desk, side table... (``look_at_obj_in_light``); elsewhere in
    bedrooms and living rooms sometimes a lamp as a distractor."""
    if scene.task_type == "look_at_obj_in_light":
        lamps = [scene.goal]
    elif scene.room in ("bedroom", "livingroom") and rng.random() < 0.5:
        lamps = [rng.choice(LAMPS)]
    else:
        return
    hosts = _receptacles_of(scene, set(LAMP_HOSTS))
    for lamp in lamps:
        _place(scene, ids, points, lamp, rng.choice(hosts))


def _share_a_location(scene: Scene, rng: random.Random) -> None:
    """Sometimes two receptacles stand at one place, as in THOR (a shelf under a TV)."""
    rids = list(scene.receptacles)
    if len(rids) > 6 and rng.random() < 0.3:
        first, second = rng.sample(rids, 2)
        cls, loc = scene.receptacles[second]
        scene.locations.remove(loc)
        scene.receptacles[second] = (cls, scene.receptacles[first][1])


# -- problem text ----------------------------------------------------------------------
def problem_text(scene: Scene, task_id: str) -> str:
    """The scene as ALFWorld's ``initial_state.pddl`` lays it out."""
    m = mangle
    objects = {m(k): v for k, v in scene.objects.items()}
    receptacles = {m(k): v for k, v in scene.receptacles.items()}
    present = sorted({cls for cls, _, _ in objects.values() if cls in OBJECTS})

    def facts(predicate: str, rows) -> str:
        return "\n        ".join(f"({predicate} {' '.join(row)})" for row in rows)

    def having(prop: str) -> list[tuple[str]]:
        return [
            (o,)
            for o, (cls, _, _) in sorted(objects.items())
            if cls in OBJECTS and prop in OBJECTS[cls].props
        ]

    cool_already = [
        (o,)
        for o, (cls, _, r) in sorted(objects.items())
        if cls == scene.target and r and receptacles[m(r)][0] == "Fridge"
    ]
    held = sorted((o, m(r)) for o, (_, _, r) in objects.items() if r)
    groups = [
        facts("receptacleType", [(r, f"{c}Type") for r, (c, _) in sorted(receptacles.items())])
        + "\n        "
        + facts("objectType", [(o, f"{c}Type") for o, (c, _, _) in sorted(objects.items())])
        + "\n        "
        + facts(
            "canContain",
            [
                (f"{c}Type", f"{o}Type")
                for _, (c, _) in sorted(receptacles.items())
                for o in present
                if c in OBJECTS[o].places
            ],
        )
        + "\n        "
        + facts("pickupable", [(o,) for o, (c, _, _) in sorted(objects.items()) if c in OBJECTS]),
        facts("isReceptacleObject", having("container")),
        facts("openable", [(r,) for r, (c, _) in sorted(receptacles.items()) if c in OPENABLE]),
        "",
        facts("atLocation", [("agent1", m(scene.start))]),
        "",
        facts("cleanable", having("clean")),
        "",
        facts("heatable", having("heat")),
        facts("coolable", having("cool")),
        "",
        facts("isCool", cool_already),
        facts("toggleable", [(o,) for o, (c, _, _) in sorted(objects.items()) if c in LAMPS]),
        "",
        "",
        facts("sliceable", having("slice")),
        "",
        "\n        ".join(
            filter(
                None,
                [
                    facts(
                        "inReceptacleObject", sorted((m(i), m(o)) for i, o in scene.inside.items())
                    ),
                    facts("inReceptacle", held),
                ],
            )
        ),
        "",
        "",
        facts("receptacleAtLocation", [(r, m(loc)) for r, (_, loc) in sorted(receptacles.items())])
        + "\n        "
        + facts("objectAtLocation", [(o, m(loc)) for o, (_, loc, _) in sorted(objects.items())]),
    ]
    declared = [
        "agent1 - agent",
        "\n        ".join(f"{c} - object" for c in OBJECT_CLASSES),
        "\n        ".join(f"{c}Type - otype" for c in OBJECT_CLASSES),
        "\n        ".join(f"{c}Type - rtype" for c in RECEPTACLE_CLASSES),
        "\n",
    ]
    names = (
        [f"{o} - object" for o in sorted(objects)]
        + [f"{r} - receptacle" for r in sorted(receptacles)]
        + [f"{m(loc)} - location" for loc in scene.locations]
    )
    return (
        f"\n(define (problem plan_{task_id})\n(:domain alfred)\n(:objects\n"
        + "\n".join(declared)
        + "\n        "
        + "\n        ".join(names)
        + "\n        )\n    \n\n(:init\n\n\n        "
        + "\n        ".join(groups)
        + "\n        )\n    \n\n"
        + goal_text(scene)
        + "\n    )\n    "
    )


def goal_text(scene: Scene) -> str:
    """The goal of ALFWorld's goal library for the scene's task type."""
    obj, goal = scene.target, scene.goal
    if scene.task_type == "look_at_obj_in_light":
        return _indent(f"""(:goal
             (and
                 (exists (?ot - object
                          ?r - receptacle
                          ?a - agent
                          ?l - location)
                     (and
                         (objectType ?ot {goal}Type)
                         (toggleable ?ot)
                         (isToggled ?ot)
                         (receptacleAtLocation ?r ?l)
                         (atLocation ?a ?l)
                         (inReceptacle ?ot ?r)
                     )
                 )
                 (exists (?o - object
                          ?a - agent)
                     (and
                         (objectType ?o {obj}Type)
                         (holds ?a ?o)
                     )
                 )
             )
        )""")
    if scene.task_type == "pick_two_obj_and_place":
        return _indent(f"""(:goal
                    (and
                        (exists (?r - receptacle)
                            (exists (?o1 - object)
                                (and
                                    (objectType ?o1 {obj}Type)
                                    (receptacleType ?r {goal}Type)
                                    (inReceptacle ?o1 ?r)
                                    (exists (?o2 - object)
                                        (and
                                            (not (= ?o1 ?o2))
                                            (objectType ?o2 {obj}Type)
                                            (receptacleType ?r {goal}Type)
                                            (inReceptacle ?o2 ?r)
                                        )
                                    )
                                )
                            )
                        )
                    )
                )""")
    prop = TASKS[scene.task_type].prop
    if prop is None:
        body = [
            "(inReceptacle ?o ?r)",
            f"(objectType ?o {obj}Type)",
            f"(receptacleType ?r {goal}Type)",
        ]
    else:
        able, state = {
            "clean": ("cleanable", "isClean"),
            "heat": ("heatable", "isHot"),
            "cool": ("coolable", "isCool"),
        }[prop]
        body = [
            f"({able} ?o)",
            f"(objectType ?o {obj}Type)",
            f"(receptacleType ?r {goal}Type)",
            f"({state} ?o)",
            "(inReceptacle ?o ?r)",
        ]
    lines = "\n".join(" " * 28 + line for line in body)
    return _indent(f"""(:goal
            (and
                (exists (?r - receptacle)
                    (exists (?o - object)
                        (and
{lines}
                        )
                    )
                )
            )
        )""")


def _indent(goal: str) -> str:
    return "        " + goal.lstrip()


def task_sentence(scene: Scene, rng: random.Random) -> str:
    """One of the task type's two templates, class names in lower case."""
    template = rng.choice(TASKS[scene.task_type].templates)
    return template.format(
        obj=scene.target.lower(), recep=scene.goal.lower(), toggle=scene.goal.lower()
    )


# -- solving -----------------------------------------------------------------------------
def _rng(task_type: str, seed: int, attempt: int) -> random.Random:
    digest = hashlib.sha256(f"{task_type}/{seed}/{attempt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def winnable(game: dict, timeout: float = 30.0) -> tuple[bool, str]:
    """(True, "") when some plan wins ``game``, else (False, why not): the goal holds
    from the start, or greedy best-first search in-process, which is complete on these
    finite tasks, exhausts them or times out. On the 600 default games it keeps the
    draws that Fast Downward's replayed plan kept (the first of each); its search takes
    about 4 ms where Fast Downward's takes 100."""
    task = load_game(game).task  # reads the domain as Fast Downward does
    if task.is_goal(task.init):
        return False, "the goal holds from the start"
    result = solve(task.domain, task.problem, planner="gbfs", timeout=timeout)
    if not result.solved:
        return False, f"gbfs: {result.status}: {result.message}"
    return True, ""


def walkthrough(game: dict, planner: str = "lama-first", timeout: float = 30.0) -> list[str]:
    """The plan ``planner`` finds for a winnable ``game``, as the engine's commands that
    win it (no-op actions such as look and examine left out). RuntimeError if it finds
    none or its plan does not replay to a win."""
    engine = Engine(load_game(game))
    result = solve(engine.task.domain, engine.task.problem, planner=planner, timeout=timeout)
    if not result.solved:
        raise RuntimeError(f"no walkthrough: {planner}: {result.status}: {result.message}")
    world, commands = engine.initial_world(), []
    for name, args in _useful_steps(result.plan):
        text = _command(engine, world, name, args)
        if text is None:
            if name == GOTO:  # the agent already stands there
                continue
            raise RuntimeError(
                f"no walkthrough: plan step ({name} {' '.join(args)}) is not admissible"
            )
        world = engine.execute(world, text).world
        commands.append(text)
    if not engine.task.is_goal(world.state):
        raise RuntimeError(f"no walkthrough: the {planner} plan does not win in the engine")
    return commands


def _useful_steps(plan) -> list[tuple[str, tuple[str, ...]]]:
    """The plan's steps without no-op actions and without a go to that another go to
    follows at once."""
    steps = [parse_command(step) for step in plan]
    steps = [step for step in steps if step[0] not in NO_OP_ACTIONS]
    return [
        step
        for step, after in pairwise(steps + [("", ())])
        if not (step[0] == GOTO and after[0] == GOTO)
    ]


def _command(engine: Engine, world, name: str, args: tuple[str, ...]) -> str | None:
    """The admissible command of a plan step; a go to is matched by its receptacle
    only (its start may be a skipped go to's end)."""
    for text, action in engine.commands(world).items():
        if action.name == name and (
            action.args == args or name == GOTO and action.args[-1] == args[-1]
        ):
            return text
    return None


def generate_game(
    task_type: str,
    seed: int,
    logic_dir: str | os.PathLike | None = None,
    planner: str = "lama-first",
    timeout: float = 30.0,
    with_walkthrough: bool = True,
) -> dict:
    """A ``game.tw-pddl`` JSON object for ``task_type``, drawn from ``seed`` and checked
    :func:`winnable`; draws that are not are redrawn (up to ``MAX_ATTEMPTS``), then
    RuntimeError. Same arguments, same game. Its ``walkthrough`` is ``planner``'s
    (:func:`walkthrough`), or left empty with ``with_walkthrough=False`` for the caller
    to compute when it is wanted (the environment does)."""
    check_task_types(task_type)
    folder = find_logic_dir(logic_dir)
    domain = read_text(folder / "alfred.pddl")
    grammar = read_text(folder / "alfred.twl2")
    for attempt in range(MAX_ATTEMPTS):
        rng = _rng(task_type, seed, attempt)
        scene = sample_scene(task_type, rng)
        sentence = task_sentence(scene, rng)
        task_id = f"trial_gen_{task_type}_{seed}_{attempt}"
        game = {
            "pddl_domain": domain,
            "grammar": grammar.replace("UNKNOWN GOAL", sentence),
            "pddl_problem": problem_text(scene, task_id),
            "solvable": True,
            "walkthrough": [],
            "task_type": task_type,
            "seed": seed,
            "attempt": attempt,
            "task_id": task_id,
            "task_sentence": sentence,
            "room": scene.room,
            "pddl_params": {
                "object_target": scene.target,
                "parent_target": "" if scene.goal in LAMPS else scene.goal,
                "toggle_target": scene.goal if scene.goal in LAMPS else "",
            },
        }
        won, why = winnable(game, timeout)
        if won:
            if with_walkthrough:
                game["walkthrough"] = walkthrough(game, planner, timeout)
            return game
    raise RuntimeError(
        f"no solvable {task_type} game from seed {seed} in {MAX_ATTEMPTS} attempts (last: {why})"
    )
