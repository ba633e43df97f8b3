"""A CoinCollector house: rooms, furniture, items, exits and doors, read from a recorded map."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ...pddl.source import read_text
from .. import arguments
from .vocab import DIRECTIONS, FurnitureKind

if TYPE_CHECKING:
    from .view import View


@dataclass(frozen=True)
class Furniture:
    """A piece of furniture; ``items`` lie on a surface, ``hidden`` are out of sight inside."""

    name: str
    kind: FurnitureKind
    items: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exit:
    """Where a direction leads, and the name of the door on the way (None: no door)."""

    to: str
    door: str | None = None


@dataclass(frozen=True)
class Room:
    name: str
    furniture: tuple[Furniture, ...]
    loose: tuple[str, ...] = ()  # items lying directly in the room (the coin)
    exits: Mapping[str, Exit] = field(default_factory=dict)  # in north/south/east/west order


@dataclass(frozen=True)
class House:
    rooms: tuple[Room, ...]
    start: str = "kitchen"
    open_doors: frozenset[frozenset[str]] = frozenset()  # doors (their two rooms) open at start

    def room(self, name: str) -> Room:
        return self._by_name[name]

    @cached_property
    def _by_name(self) -> dict[str, Room]:
        return {room.name: room for room in self.rooms}

    @cached_property
    def views(self) -> dict[tuple, View]:
        """What its rooms have shown, by room and state (filled by ``World``): a house
        never changes, so they hold for every game in it."""
        return {}

    @property
    def coin_room(self) -> str | None:
        return next((room.name for room in self.rooms if "coin" in room.loose), None)


def load_layout(source: str | os.PathLike | Mapping) -> House:
    """The house of a recorded game: a transcript file path, its JSON object or its ``map``."""
    arguments.instance_of(
        "layout",
        source,
        (str, os.PathLike, Mapping),
        "a transcript path, its JSON object or its map",
    )
    try:
        data = (
            source
            if isinstance(source, Mapping)
            else json.loads(read_text(arguments.path("layout", source)))
        )
        data = data.get("map", data)
        rooms = tuple(_room(room) for room in data["rooms"])
        open_doors = frozenset(
            frozenset(side["room"] for side in door["between"])
            for door in data.get("doors", ())
            if door.get("starts_open")
        )
        return House(rooms, data.get("start_room", rooms[0].name), open_doors)
    except (AttributeError, IndexError, KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(
            f"layout is not a TextWorld Express transcript or map: "
            f"{type(exc).__name__}: {str(exc):.200}"
        ) from None


def _room(data: Mapping) -> Room:
    furniture, loose = [], []
    for obj in data["objects"]:
        if obj["name"] == "coin":
            loose.append("coin")
        else:
            furniture.append(
                Furniture(
                    obj["name"],
                    obj["kind"],
                    tuple(item["name"] for item in obj.get("on_it", ())),
                    tuple(obj.get("hidden_inside", ())),
                )
            )
    exits = {
        d: Exit(x["to"], (x.get("door") or {}).get("name"))
        for d in DIRECTIONS
        if (x := data.get("exits", {}).get(d))
    }
    return Room(data["name"], tuple(furniture), tuple(loose), exits)
