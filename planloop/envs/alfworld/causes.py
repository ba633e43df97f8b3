"""Why an ALFWorld command failed, in words (``info["action_error"]["cause"]``).

An unmet precondition gets the sentence of its predicate and polarity, filled with the
game's names for the fact's arguments by their parameter types: an object or a
receptacle by its name, a type as its kind ("a microwave"), a location as the command's
receptacle there or as where the command's object is. Only what the player can know
is told:

- an object the player has not seen named is not discussed, whether the game has one
  or not;
- a command that can never work (a static precondition: the mug cannot be heated, the
  sinkbasin is not a microwave) is told why, and nothing more;
- away from the place a command needs, that place is named, and what is open or
  inside there is not told; nor is what is inside a closed receptacle.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...pddl import Atom, UnmetFact, quote
from ..feedback import not_a_command, slip_cause
from .engine import Engine, Failure, World

FACTS: dict[tuple[str, bool], str | None] = {  # (predicate, wanted) -> sentence
    ("atlocation", True): "You are not {location}.",
    ("receptacleatlocation", True): "You are not at the {receptacle}: go to it first.",
    ("objectatlocation", True): "The {object} is not here.",
    ("opened", True): "The {receptacle} is closed.",
    ("opened", False): "The {receptacle} is already open.",
    ("openable", True): "The {receptacle} cannot be opened or closed.",
    ("openable", False): None,  # the other way to "(or (not (openable r)) (opened r))"
    ("inreceptacle", True): "You see no {object} at the {receptacle}.",
    ("holds", True): "You are not holding the {object}.",
    ("holdsany", False): "Your hands are full: you can carry one thing at a time.",
    ("pickupable", True): "The {object} cannot be picked up.",
    ("toggleable", True): "The {object} has no switch.",
    ("heatable", True): "The {object} cannot be heated.",
    ("coolable", True): "The {object} cannot be cooled.",
    ("cleanable", True): "The {object} cannot be cleaned.",
    ("sliceable", True): "The {object} cannot be sliced.",
    ("receptacletype", True): "The {receptacle} is not {rtype}.",
    ("objecttype", True): "The {object} is not {otype}.",
    ("cancontain", True): "You cannot put {otype} in {rtype}.",
}
PLACES = frozenset({"atlocation", "receptacleatlocation"})  # where the player must be
ON_SITE = frozenset({"opened", "inreceptacle", "objectatlocation"})  # seen only there
CONTENTS = frozenset({"inreceptacle", "objectatlocation"})  # not seen through a closed door
NO_CHANGE = {"gotolocation": "You are already at the {receptacle}."}


def explain(
    engine: Engine, world: World, failure: Failure, admissible: Iterable[str], seen: set[str]
) -> str:
    """The cause of ``failure`` in words; ``seen`` holds the objects the player's texts
    have named."""
    if slip := slip_cause(failure.command, admissible):
        return slip
    names = engine.entities
    unseen = (
        failure.unknown
        if failure.unknown is not None
        else next((names[obj].name for obj in failure.bound.values() if obj not in seen), None)
    )
    if unseen is not None:
        return f"You have seen no {quote(unseen)} so far."
    if failure.action is None:
        return not_a_command(failure.command, ", ".join(dict.fromkeys(engine.forms.values())))
    types = engine.param_types[failure.action]
    if failure.kind == "malformed":
        kind, obj = next(
            (types.get(var, "object"), obj)
            for var, obj in failure.bound.items()
            if not engine.is_a(obj, types.get(var, "object"))
        )
        return (
            f"The {names[obj].name} is not a {kind}: the command is "
            f"{quote(engine.forms[failure.action])}."
        )
    if not failure.unmet:
        named = {types[var]: names[obj].name for var, obj in failure.bound.items()}
        return NO_CHANGE.get(failure.action, "That would change nothing.").format(**named)
    return " ".join(
        dict.fromkeys(
            sentence.format(**_fields(engine, world, failure, u.atom))
            for u in _knowable(engine, failure.unmet)
            if (sentence := FACTS[_key(u)]) is not None  # always: _knowable keeps those said
        )
    )


def _knowable(engine: Engine, unmet: tuple[UnmetFact, ...]) -> list[UnmetFact]:
    """The unmet facts worth telling and known to the player (see the module's notes)."""
    said = [u for u in unmet if FACTS[_key(u)] is not None]
    never = [u for u in said if u.atom.predicate in engine.static_predicates - PLACES]
    if never:
        return never
    away = any(u.atom.predicate in PLACES for u in said)
    closed = any(_key(u) == ("opened", True) for u in said)
    return [
        u
        for u in said
        if not (away and u.atom.predicate in ON_SITE)
        and not (closed and u.atom.predicate in CONTENTS)
    ]


def _fields(engine: Engine, world: World, failure: Failure, atom: Atom) -> dict[str, str]:
    """A fact's arguments in words, keyed by their parameter types."""
    fields = {}
    for param, arg in zip(
        engine.task.domain.predicates[atom.predicate].params, atom.args, strict=True
    ):
        kind = param.types[0]
        if kind == "location":
            fields[kind] = _place(engine, world, failure, arg)
        elif kind in ("rtype", "otype"):
            word = arg.removesuffix("type")
            fields[kind] = ("an " if word[:1] in "aeiou" else "a ") + word
        else:
            fields[kind] = engine.entities[arg].name
    return fields


def _place(engine: Engine, world: World, failure: Failure, location: str) -> str:
    """A location as the player knows it: the command's receptacle there, else the
    place of the command's object."""
    named = list(failure.bound.values())
    there = {r for r, _ in engine.view(world).facts("receptacleatlocation", (1, location))}
    receptacle = next((obj for obj in named if obj in there), None)
    if receptacle is not None:
        return f"at the {engine.entities[receptacle].name}: go to it first"
    return f"where the {engine.entities[named[0]].name} is"


def _key(unmet: UnmetFact) -> tuple[str, bool]:
    return unmet.atom.predicate, unmet.wanted
