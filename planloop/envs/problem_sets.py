"""Problem sets for natural-language-to-PDDL formalization: a domain, and problems of it.

A sized set generates a problem from ``(size, seed)``: ``size`` is the number of objects
the problem declares in ``:objects`` (the domain's constants are not counted), the same
arguments give the same text, and every problem is solvable. A fixed set (Baking) only
has its ``problems()``.

- ``blocksworld``: IPC-2000's typed Blocksworld (domain ``blocks``); size = blocks, >= 2.
  Blocks are ``a``..``z`` up to 26 and ``b1``..``bN`` past that.
- ``gripper``: rooms, balls and two grippers (``left``, ``right``); size >= 5, with
  ``max(2, size // 5)`` rooms and the rest balls. The goal moves a random half or more
  of the balls to other rooms, and half the time names the robot's final room.
- ``ferry``: locations and cars, one ferry carrying one car at a time; size >= 3, with
  ``max(2, size // 4)`` locations. The goal moves half or more of the cars, and half the
  time names the ferry's final location.
- ``logistics``: cities with an airport and a truck each, more locations, one airplane,
  packages; size >= 8, with ``max(2, size // 10)`` cities and a third of the rest extra
  locations. The goal moves half or more of the packages elsewhere, across cities too.
- ``baking``: the four fixed problems of ``Baking-v0``.
- ``coin``: CoinCollector's hidden worlds, problem ``i`` from seed ``i`` (houses of 7
  rooms with doors and 3 distractor items: 13 to 18 objects), no size.

Towers of Hanoi is left out: its plans double with every disc, so 10 objects and up
are out of a planner's reach. CoinCollector's houses stop short of 40 objects (11 rooms,
their doors, 11 items and 2 slots), so they come by seed alone; ALFWorld's hidden worlds
are left out: their goals are quantified, which no description in words renders.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Callable

from ..pddl import Domain, Problem, Templates, describe_problem, parse_domain, parse_problem
from . import baking
from .blocksworld import generate_problem as blocksworld_problem
from .coin.generate import generate_house
from .coin.symbolic import DOMAIN as COIN_DOMAIN
from .coin.symbolic import problem_text
from .coin.world import World

MAX_SIZE = 1000  # objects in a generated problem (1,000: generated and described in 0.13 s)


@dataclass(frozen=True)
class ProblemSet:
    """A formalization domain: its PDDL (a data file, or ``domain_source``), and a
    generator by size, a generator by seed alone (``seeded``), or a fixed list of
    problems."""

    name: str
    domain_file: str = ""  # under planloop/envs/data/
    generator: Callable[[int, random.Random], str] | None = None
    min_size: int = 1
    fixed: Callable[[], tuple[str, ...]] = tuple
    seeded: Callable[[int], str] | None = None  # problem i from seed i, without a size
    domain_source: Callable[[], str] | None = None
    templates: Templates | None = None  # None: the domain's own (render.templates_for)

    @property
    def sized(self) -> bool:
        return self.generator is not None

    def domain_text(self) -> str:
        return self.domain_source() if self.domain_source else _data_text(self.domain_file)

    def domain(self) -> Domain:
        return _parsed_domain(self.domain_text())

    def generate(self, size: int, seed: int) -> str:
        """A solvable problem declaring exactly ``size`` objects, the same for the same
        ``(size, seed)``."""
        if self.generator is None:
            raise ValueError(f"{self.name} has fixed problems only: use problems()")
        if not self.min_size <= size <= MAX_SIZE:
            raise ValueError(
                f"{self.name} problems have {self.min_size} to {MAX_SIZE} objects "
                f"(planloop.envs.problem_sets.MAX_SIZE), not {size}"
            )
        rng = random.Random(f"planloop-{self.name}-{size}-{seed}")
        return _name_problem(self.generator(size, rng), f"{self.name}-{size}-{seed}")

    def problems(self) -> tuple[str, ...]:
        """The fixed problems' texts (none for a generated set)."""
        return self.fixed()

    def parse(self, problem_text: str) -> Problem:
        return parse_problem(problem_text, self.domain())

    def describe(self, problem: Problem | str, seed: int = 0) -> str:
        """The problem (parsed, or its text) in words (see
        :func:`planloop.pddl.describe_problem`)."""
        if isinstance(problem, str):
            problem = self.parse(problem)
        return describe_problem(self.domain(), problem, seed, self.templates)


@lru_cache(maxsize=None)
def _data_text(filename: str) -> str:
    return (resources.files("planloop.envs") / "data" / filename).read_text()


@lru_cache(maxsize=None)
def _parsed_domain(text: str) -> Domain:
    return parse_domain(text)


def _name_problem(text: str, name: str) -> str:
    return re.sub(r"\(problem [^)\s]+\)", f"(problem {name})", text, count=1)


def _problem(
    domain: str, objects: list[tuple[list[str], str]], init: list[str], goal: list[str]
) -> str:
    """PDDL problem text; the name is set by :meth:`ProblemSet.generate`."""
    lines = ["(define (problem p)", f"  (:domain {domain})", "  (:objects"]
    lines += [f"    {' '.join(names)} - {kind}" for names, kind in objects if names]
    lines += ["  )", "  (:init"] + [f"    {f}" for f in init] + ["  )"]
    lines += ["  (:goal (and"] + [f"    {f}" for f in goal] + ["  ))", ")", ""]
    return "\n".join(lines)


def _names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(1, n + 1)]


def _some(rng: random.Random, items: list[str]) -> list[str]:
    """A random half or more of ``items``, in their order."""
    chosen = set(rng.sample(items, rng.randint((len(items) + 1) // 2, len(items))))
    return [item for item in items if item in chosen]


def _elsewhere(rng: random.Random, places: list[str], here: str) -> str:
    return rng.choice([p for p in places if p != here])


def _blocksworld(size: int, rng: random.Random) -> str:
    return blocksworld_problem(size, rng.getrandbits(64), style="ipc").lower()


def _gripper(size: int, rng: random.Random) -> str:
    rooms = _names("room", max(2, size // 5))
    balls = _names("ball", size - 2 - len(rooms))
    robot = rng.choice(rooms)
    where = {ball: rng.choice(rooms) for ball in balls}
    init = [f"(at-robby {robot})", "(free left)", "(free right)"]
    init += [f"(at {ball} {room})" for ball, room in where.items()]
    goal = [f"(at {b} {_elsewhere(rng, rooms, where[b])})" for b in _some(rng, balls)]
    if rng.random() < 0.5:
        goal.append(f"(at-robby {rng.choice(rooms)})")
    return _problem(
        "gripper-typed",
        [(rooms, "room"), (balls, "ball"), (["left", "right"], "gripper")],
        init,
        goal,
    )


def _ferry(size: int, rng: random.Random) -> str:
    places = _names("loc", max(2, size // 4))
    cars = _names("car", size - len(places))
    where = {car: rng.choice(places) for car in cars}
    init = [f"(at-ferry {rng.choice(places)})", "(empty-ferry)"]
    init += [f"(at {car} {place})" for car, place in where.items()]
    goal = [f"(at {c} {_elsewhere(rng, places, where[c])})" for c in _some(rng, cars)]
    if rng.random() < 0.5:
        goal.append(f"(at-ferry {rng.choice(places)})")
    return _problem("ferry-typed", [(places, "location"), (cars, "car")], init, goal)


def _logistics(size: int, rng: random.Random) -> str:
    cities = _names("city", max(2, size // 10))
    airports, trucks = _names("airport", len(cities)), _names("truck", len(cities))
    rest = size - 3 * len(cities) - 1
    places = _names("loc", rest // 3)
    packages = _names("pkg", rest - len(places))
    city_of = dict(zip(airports, cities, strict=True)) | {p: rng.choice(cities) for p in places}
    everywhere = airports + places
    init = [f"(in-city {place} {city})" for place, city in city_of.items()]
    init += [
        f"(at {truck} {rng.choice([p for p in everywhere if city_of[p] == city])})"
        for truck, city in zip(trucks, cities, strict=True)
    ]
    init.append(f"(at plane1 {rng.choice(airports)})")
    where = {pkg: rng.choice(everywhere) for pkg in packages}
    init += [f"(at {pkg} {place})" for pkg, place in where.items()]
    goal = [f"(at {p} {_elsewhere(rng, everywhere, where[p])})" for p in _some(rng, packages)]
    objects = [
        (cities, "city"),
        (airports, "airport"),
        (places, "location"),
        (trucks, "truck"),
        (["plane1"], "airplane"),
        (packages, "package"),
    ]
    return _problem("logistics-typed", objects, init, goal)


def _coin_world(seed: int) -> str:
    """The hidden world of a CoinCollector house: 7 rooms with doors, 3 distractors."""
    house = generate_house(7, True, 3, seed=seed)
    return _name_problem(problem_text(World(house)), f"coin-{seed}")


DOMAINS: dict[str, ProblemSet] = {
    s.name: s
    for s in (
        ProblemSet("blocksworld", "blocks_typed.pddl", _blocksworld, min_size=2),
        ProblemSet("gripper", "gripper.pddl", _gripper, min_size=5),
        ProblemSet("ferry", "ferry.pddl", _ferry, min_size=3),
        ProblemSet("logistics", "logistics.pddl", _logistics, min_size=8),
        ProblemSet(
            "baking", "baking/domain.pddl", fixed=baking.problem_texts, templates=baking.TEMPLATES
        ),
        ProblemSet("coin", seeded=_coin_world, domain_source=lambda: COIN_DOMAIN),
    )
}


def problem_set(name: str) -> ProblemSet:
    """The registered set called ``name``."""
    if name not in DOMAINS:
        raise ValueError(f"unknown problem set {name!r}; known: {', '.join(DOMAINS)}")
    return DOMAINS[name]
