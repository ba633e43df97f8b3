"""Why a CoinCollector command failed, in words (``info["action_error"]["cause"]``).

An unmet fact gets the sentence of its predicate and polarity; a command outside the
valid ones is explained from the valid list, which is what the room shows. Sentences
speak of what the player knows: the direction and the door's name the room shows, the
item the command names. They never name the room behind a door, and "You see no X
here." is said alike of an item elsewhere in the house and of one in no house at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ...pddl import quote
from ..feedback import not_a_command, slip_cause
from .layout import Room
from .text import CAPACITY
from .vocab import DIRECTION_VERBS, DIRECTIONS

FACTS = {  # (predicate, wanted) -> sentence
    ("blocked", False): "The {door} to the {direction} is closed.",
    ("closed", True): "The {door} to the {direction} is already open.",
    ("closed", False): "The {door} to the {direction} is already closed.",
    ("in-room", True): "You see no {item} here.",
    ("free", True): f"Your inventory is full: you can carry {CAPACITY} items at most.",
    ("connected", True): "There is no way to the {direction} from {here}.",
    ("door-between", True): "There is no door to the {direction}.",
}
COMMANDS = (
    "look around, inventory, move <direction>, open door to <direction>, "
    "close door to <direction>, take <item>"
)


class Refusal(NamedTuple):
    """A command the game refuses: its answer, the unmet facts and the cause in words."""

    message: str
    unmet: tuple[str, ...]
    cause: str


def refusal(room: Room, command: str, message: str, unmet: tuple[str, ...]) -> Refusal:
    """``command``, refused in ``room`` with ``message`` for want of ``unmet``."""
    return Refusal(message, unmet, fact_cause(room, command, unmet))


def fact_cause(room: Room, command: str, unmet: Sequence[str]) -> str:
    """The sentences of the unmet facts of ``command`` in ``room`` (about the exit or the
    item the command names)."""
    direction = command.rsplit(" ", 1)[-1]
    exit_ = room.exits.get(direction)
    fields = {"direction": direction, "door": exit_ and exit_.door, "item": _item(command)}
    return " ".join(dict.fromkeys(FACTS[_key(fact)].format(**fields) for fact in unmet))


def command_cause(command: str, valid: Sequence[str], here: str) -> str:
    """Why ``command``, not among the ``valid`` ones, fails: a slip of a valid command;
    a move or door command the room has no exit or door for (``here`` names the room);
    an item not in sight; else not a command of the game."""
    verb, _, direction = command.rpartition(" ")
    if slip := slip_cause(command, valid):
        return slip
    if verb in DIRECTION_VERBS:
        if direction not in DIRECTIONS:
            return f"{quote(direction)} is not a direction: say north, south, east or west."
        static = "door-between" if f"move {direction}" in valid else "connected"
        return FACTS[static, True].format(direction=direction, here=here)
    if _item(command).strip():
        return FACTS["in-room", True].format(item=_item(command))
    return not_a_command(command, COMMANDS)


def _key(fact: str) -> tuple[str, bool]:
    """``(not (blocked a b))`` -> ``("blocked", False)``."""
    wanted = not fact.startswith("(not ")
    return fact.removeprefix("(not ").lstrip("(").split()[0], wanted


def _item(command: str) -> str:
    """The item a ``take`` command names (printable and short), else ``""``."""
    return quote(command[5:], mark="") if command.startswith("take ") else ""
