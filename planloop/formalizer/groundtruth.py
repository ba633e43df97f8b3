"""The ground-truth formalizer: the true PDDL of what has been observed so far, read
from the environment's hidden world, with the same sub-goal rules as the detailed
prompt. It is the pipeline's upper bound and its end-to-end test (environment,
planner, loops and command mapping), recorded as ``groundtruth``, never as a model.

It reads ``world_pddl()`` and ``observed_facts()`` of the environment (reference
policies may; see DESIGN.md), and ALFWorld's display names, so that its files name
things as the game does (``cabinet_1`` for "cabinet 1"), as a model would.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import replace

from ..pddl import parse, parse_command, parse_domain, solve, write_problem
from ..pddl.model import And, Atom, Exists, Formula
from .extract import Files
from .matching import ASSUMED_PREFIX
from .request import Draft, Request

NAME = "groundtruth"
_ALWAYS_KNOWN = frozenset({"agent", "otype", "rtype"})  # the agent and the type names


def _atom(text: str) -> Atom:
    name, args = parse_command(text)
    return Atom(name.lower(), tuple(a.lower() for a in args))


class _GroundTruth(ABC):
    """Shared: the world read once per request, the problem written with a goal."""

    name = NAME
    prompt_version = f"{NAME}/detailed"

    def __init__(self, env, planner: str = "auto"):
        self.env = env.unwrapped
        self.planner = planner

    def write(self, request: Request) -> Draft:
        domain_text, world = self._world()
        domain = parse_domain(domain_text)
        observed = {_atom(f) for f in self.env.observed_facts()}
        return Draft(Files(domain_text, self._formalize(domain_text, domain, world, observed)))

    def _text(self, domain, world, objects: dict, init: set[Atom], goal: Formula) -> str:
        """The problem file of ``objects``, ``init`` and ``goal``, in the game's names."""
        problem = replace(world, objects=objects, init=tuple(sorted(init, key=str)), goal=goal)
        return self._rename(write_problem(problem, domain), world)

    def _world(self):
        """The hidden world's domain text, and its problem as reading its text gives it
        (handed over unwritten by an env with ``world_model()``, such as ALFWorld's)."""
        if hasattr(self.env, "world_model"):
            return self.env.world_model()
        domain_text, problem_text = self.env.world_pddl()
        return domain_text, parse(domain_text, problem_text)[1]

    def _rename(self, text: str, world) -> str:
        return text

    @abstractmethod
    def _formalize(self, domain_text: str, domain, world, observed) -> str:
        """The problem file to hand over (see :meth:`_text`)."""


class CoinGroundTruth(_GroundTruth):
    """CoinCollector: the observed house, a room assumed behind every exit whose far
    side is unknown; the goal is the coin once seen, else the nearest unvisited room.
    ``coin_taken=True`` (the coin taken for the agent when a step shows it, PDDLego+'s
    harness): the goal is the nearest unvisited room, or the coin's room once the coin
    has been seen elsewhere (one in view at the start is taken only when a later step
    shows it again)."""

    def __init__(self, env, planner: str = "auto", coin_taken: bool = False):
        super().__init__(env, planner)
        self.coin_taken = coin_taken

    def _formalize(self, domain_text, domain, world, observed):
        init = set(observed)
        visited = {a.args[0] for a in observed if a.predicate == "visited"}
        here = next(a.args[0] for a in observed if a.predicate == "player-at")
        objects = {
            o: t
            for o, t in world.objects.items()
            if any(o in a.args for a in observed) or t == "slot"
        }
        for link in [a for a in world.init if a.predicate == "connected"]:
            room, far, direction = link.args
            if room in visited and link not in observed:
                unknown = f"{ASSUMED_PREFIX}-{direction}-of-{room}"
                objects[unknown] = "room"
                init.add(Atom("connected", (room, unknown, direction)))
                init |= self._door(world, room, far, unknown, objects)
        coin = [a for a in observed if a.predicate == "in-room" and a.args[0] == "coin"]
        if not self.coin_taken and (coin or Atom("holding", ("coin",)) in observed):
            goal = And((Atom("holding", ("coin",)),))
        elif coin and coin[0].args[1] != here:  # seen, not taken: back to where it lies
            goal = And((Atom("player-at", (coin[0].args[1],)),))
        else:
            target = _nearest(here, init, visited)
            goal = And((Atom("player-at", (target,)),)) if target else And(())
        return self._text(domain, world, objects, init, goal)

    @staticmethod
    def _door(world, room, far, unknown, objects) -> set[Atom]:
        """The door on the passage from ``room`` to ``far``, as seen from ``room``."""
        facts = set()
        for fact in world.init:
            if fact.predicate == "door-between" and fact.args[1:] == (room, far):
                door = fact.args[0]
                objects[door] = "door"
                facts.add(Atom("door-between", (door, room, unknown)))
                if Atom("closed", (door,)) in world.init:
                    facts |= {Atom("closed", (door,)), Atom("blocked", (room, unknown))}
        return facts


def _nearest(start: str, init: set[Atom], visited: set[str]) -> str | None:
    """The unvisited room fewest known passages away (ties: by name)."""
    links: dict[str, list[str]] = {}
    for a in sorted(init, key=str):
        if a.predicate == "connected":
            links.setdefault(a.args[0], []).append(a.args[1])
    seen, frontier = {start}, deque([start])
    while frontier:
        room = frontier.popleft()
        if room not in visited:
            return room
        for nxt in links.get(room, []):
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return None


class ALFWorldGroundTruth(_GroundTruth):
    """ALFWorld: the observed facts, with the agent's place and the places of the
    receptacles it has seen; the goal is the task's once the planner can reach it,
    else the next receptacle to search (those that can hold the task's object type
    first): go there, and open it if it is closed; examine it when it shares its place
    with another receptacle (arriving shows only one of them)."""

    def __init__(self, env, planner: str = "auto"):
        super().__init__(env, planner)
        self._searched: set[str] = set()

    def _formalize(self, domain_text, domain, world, observed):
        shown = {arg for a in observed for arg in a.args}
        for fact in world.init:
            if fact.predicate == "atlocation":  # the agent knows where it is
                shown.update(fact.args)
            elif fact.predicate == "receptacleatlocation" and fact.args[0] in shown:
                shown.add(fact.args[1])
        shown |= {o for o, t in world.objects.items() if t in _ALWAYS_KNOWN}
        shown |= set(domain.constants)
        init = {a for a in world.init if all(arg in shown for arg in a.args)}
        objects = {o: t for o, t in world.objects.items() if o in shown}
        # the text handed over is the one asked about: the policy's planner then reads
        # and grounds what was read and grounded here
        text = self._text(domain, world, objects, init, world.goal)
        if solve(domain_text, text, planner=self.planner, timeout=30).solved:
            return text
        return self._text(domain, world, objects, init, self._search_goal(world, init, objects))

    def _search_goal(self, world, init, objects) -> Formula:
        agent = next(a.args[0] for a in init if a.predicate == "atlocation")
        wanted = _object_types(world.goal)
        holds = {a.args[0] for a in init if a.predicate == "cancontain" and a.args[1] in wanted}
        kinds = {a.args[0]: a.args[1] for a in init if a.predicate == "receptacletype"}
        place = {a.args[0]: a.args[1] for a in init if a.predicate == "receptacleatlocation"}
        names = self._names(world)
        candidates = sorted(
            (
                r
                for r, t in objects.items()
                if t == "receptacle" and r not in self._searched and r in place
            ),
            key=lambda r: (kinds.get(r) not in holds, names.get(r, r)),
        )
        for target in candidates:
            self._searched.add(target)
            goal = {Atom("atlocation", (agent, place[target]))}
            if Atom("openable", (target,)) in init and Atom("opened", (target,)) not in init:
                goal.add(Atom("opened", (target,)))
            shared = sum(where == place[target] for where in place.values()) > 1
            if shared or goal <= init:  # arriving may show another receptacle: look at it
                if Atom("checked", (target,)) in init:
                    continue
                goal.add(Atom("checked", (target,)))
            return And(tuple(sorted(goal, key=str)))
        return world.goal  # nothing left to search: the planner says it is unreachable

    def _names(self, world) -> dict[str, str]:
        """Object and receptacle id -> the game's name for it, as a PDDL name
        (``cabinet_1``)."""
        return {
            oid: entity.name.replace(" ", "_")
            for oid, entity in self.env.game.entities.items()
            if world.objects.get(oid) in ("object", "receptacle")
        }

    def _rename(self, text: str, world) -> str:
        names = self._names(world)
        return re.sub(r"[^\s()]+", lambda m: names.get(m.group(0), m.group(0)), text)


def _object_types(goal: Formula) -> set[str]:
    """The object types a goal asks for: ``t`` in every ``(objecttype ?o t)``."""
    if isinstance(goal, Atom):
        return {goal.args[1]} if goal.predicate == "objecttype" else set()
    if isinstance(goal, Exists):
        return _object_types(goal.body)
    if isinstance(goal, And):
        return set().union(*map(_object_types, goal.args))
    return set()


WRITERS = {"coin": CoinGroundTruth, "alfworld": ALFWorldGroundTruth}


def ground_truth_writer(
    env, family: str, planner: str = "auto", coin_taken: bool = False
) -> _GroundTruth:
    """The ground-truth formalizer for ``env`` of ``family`` (``coin``, ``alfworld``);
    ``planner`` is what ALFWorld's writer asks whether the task's goal is in reach;
    ``coin_taken``: see :class:`CoinGroundTruth`."""
    if family not in WRITERS:
        raise ValueError(f"no ground-truth formalizer for {family!r}: one of {sorted(WRITERS)}")
    if family == "coin":
        return CoinGroundTruth(env, planner, coin_taken)
    return WRITERS[family](env, planner)
