"""What a CoinCollector room shows in one state: its description, its valid commands and
those of them the game refuses there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from . import text
from .causes import Refusal, refusal
from .layout import Room
from .names import door_object, fact


class View(NamedTuple):
    """A room as the player finds it; ``links`` are the exits whose far room it names."""

    description: str
    actions: tuple[str, ...]  # in TextWorld Express's canonical (unshuffled) order
    commands: frozenset[str]
    refusals: Mapping[str, Refusal]  # the move and door commands refused here
    links: frozenset[tuple[str, str]]  # (room, direction)


def room_view(
    room: Room,
    on: Sequence[Sequence[str]],
    loose: Sequence[str],
    passable: Mapping[str, bool],
) -> View:
    """``room`` with the items ``on`` each piece of its furniture, the ``loose`` ones,
    and whether each exit is ``passable`` (no door, or an open one)."""
    objects = [text.furniture_phrase(f, items) for f, items in zip(room.furniture, on, strict=True)]
    objects += [text.item_phrase(item) for item in loose]
    exits = [text.exit_sentence(d, x.to, x.door, passable[d]) for d, x in room.exits.items()]
    actions = ["look around", "inventory"] + [f"move {d}" for d in room.exits]
    for d, x in room.exits.items():
        if x.door is not None:
            actions += [f"open door to {d}", f"close door to {d}"]
    actions += [f"take {item}" for items in (*on, loose) for item in items]
    return View(
        text.room_description(room.name, objects, exits),
        tuple(actions),
        frozenset(actions),
        _refusals(room, passable),
        frozenset((room.name, d) for d in room.exits if passable[d]),
    )


def _refusals(room: Room, passable: Mapping[str, bool]) -> dict[str, Refusal]:
    """Moves through closed doors; opening an open door, closing a closed one."""
    refused = {}
    for d, x in room.exits.items():
        if x.door is None:
            continue
        closed = fact("closed", door_object(x.door, room.name, x.to))
        if passable[d]:
            refused[f"open door to {d}"] = (text.ALREADY_OPEN, (closed,))
        else:
            refused[f"move {d}"] = (
                text.DOOR_CLOSED,
                (f"(not {fact('blocked', room.name, x.to)})",),
            )
            refused[f"close door to {d}"] = (text.ALREADY_CLOSED, (f"(not {closed})",))
    return {command: refusal(room, command, *answer) for command, answer in refused.items()}
