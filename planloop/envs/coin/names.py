"""How the game's rooms, doors and items are named as PDDL objects and facts."""

from __future__ import annotations

from .text import CAPACITY

SLOTS = tuple(f"slot{i}" for i in range(1, CAPACITY + 1))  # inventory places


def pddl_name(name: str) -> str:
    """``living room`` -> ``living_room``; ``used Q-tip`` -> ``used_q-tip``."""
    return name.lower().replace(" ", "_")


def door_object(door: str, room: str, other: str) -> str:
    """One object per door, named after the door and its two rooms."""
    return "_".join(pddl_name(part) for part in (door, *sorted((room, other))))


def fact(predicate: str, *args: str) -> str:
    return "(" + " ".join((predicate, *(pddl_name(arg) for arg in args))) + ")"
