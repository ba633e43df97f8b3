"""A seeded generator of TextWorld-Express-like houses (not TextWorld Express's own RNG)."""

from __future__ import annotations

import random

from .. import arguments
from .layout import Exit, Furniture, House, Room
from .vocab import (
    DIRECTIONS,
    FURNITURE,
    ITEMS,
    KITCHEN_CHOICE,
    LINKS,
    OPPOSITE,
    ROOM_ORDER,
    STEP,
    furniture_kind,
)

MAX_DISTRACTORS = 10


def generate_house(
    num_locations: int,
    include_doors: bool,
    num_distractor_items: int,
    seed: int,
    fold: str = "train",
) -> House:
    """A house of ``num_locations`` rooms (kitchen first) laid out as a tree on a grid, so
    that north/south/east/west are consistent; the same arguments give the same house."""
    check_house(num_locations, include_doors, num_distractor_items, fold)
    rng = random.Random(f"coin:{num_locations}:{seed}")
    names = ROOM_ORDER[:num_locations]
    links = _place_rooms(names, rng)
    doors = {
        pair: rng.choice(LINKS[pair])
        for pair in sorted(
            {frozenset((a, b)) for a, ex in links.items() for b in ex.values()}, key=sorted
        )
        if include_doors and LINKS.get(pair)
    }
    furniture = {
        name: [f if f else rng.choice(KITCHEN_CHOICE) for f in FURNITURE[name]] for name in names
    }
    coin_room = rng.choice(names)
    placed: dict[tuple[str, int], list[str]] = {}
    spots = [(name, i) for name in names for i in range(len(furniture[name]))]
    items_rng = random.Random(f"coin:{seed}:{fold}:{num_distractor_items}")
    for item in items_rng.sample(ITEMS[fold], num_distractor_items):
        placed.setdefault(items_rng.choice(spots), []).append(item)
    rooms = []
    for name in names:
        pieces = []
        for i, piece in enumerate(furniture[name]):
            kind, items = furniture_kind(piece), tuple(placed.get((name, i), ()))
            pieces.append(
                Furniture(
                    piece,
                    kind,
                    items if kind == "surface" else (),
                    () if kind == "surface" else items,
                )
            )
        exits = {
            d: Exit(links[name][d], doors.get(frozenset((name, links[name][d]))))
            for d in DIRECTIONS
            if d in links[name]
        }
        rooms.append(Room(name, tuple(pieces), ("coin",) if name == coin_room else (), exits))
    return House(tuple(rooms), names[0])


def check_house(num_locations, include_doors, num_distractor_items, fold) -> None:
    """A TypeError or ValueError naming the first of the house's parameters that is wrong."""
    arguments.integer("num_locations", num_locations, 1, len(ROOM_ORDER))
    arguments.boolean("include_doors", include_doors)
    arguments.integer("num_distractor_items", num_distractor_items, 0, MAX_DISTRACTORS)
    arguments.choice("fold", fold, sorted(ITEMS))


def _place_rooms(names, rng: random.Random) -> dict[str, dict[str, str]]:
    """Attach each room to an earlier one it may neighbour, on a free grid cell."""
    cells = {names[0]: (0, 0)}
    taken = {(0, 0)}
    links: dict[str, dict[str, str]] = {names[0]: {}}
    for name in names[1:]:
        options = [
            (other, d)
            for other in cells
            for d in DIRECTIONS
            if _shift(cells[other], d) not in taken
        ]
        allowed = [(other, d) for other, d in options if frozenset((other, name)) in LINKS]
        other, d = rng.choice(allowed or options)
        cells[name] = _shift(cells[other], d)
        taken.add(cells[name])
        links[other][d] = name
        links[name] = {OPPOSITE[d]: other}
    return links


def _shift(cell: tuple[int, int], direction: str) -> tuple[int, int]:
    dx, dy = STEP[direction]
    return cell[0] + dx, cell[1] + dy
