"""The sentences of TextWorld Express's CoinCollector, word for word."""

from __future__ import annotations

from collections.abc import Sequence

from .layout import Furniture

TASK = "Your task is to search the environment and find the coin.  Once you find the coin, take it."
UNKNOWN = "Unknown action: I'm not sure what you mean."
DOOR_CLOSED = "You can't move there, the door is closed. "
ALREADY_OPEN = "That is already open. "
ALREADY_CLOSED = "That is already closed. "
CAPACITY = 2
INVENTORY_FULL = (
    f"Your inventory currently has {CAPACITY} items, and is full.  You can't pick up another item. "
)
OBJECT_PREFIXES = (
    "In one part of the room you see ",
    "There is also ",
    "You also see ",
    "In another part of the room you see ",
)


def item_phrase(name: str) -> str:
    """An item with its article: ``an`` before a lower-case vowel, else ``a``."""
    return ("an " if name[:1] in "aeiou" else "a ") + name


def item_list(names: Sequence[str]) -> str:
    """``a x`` / ``a x, and a y`` / ``a w, a x, and a y``."""
    phrases = [item_phrase(name) for name in names]
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + ", and " + phrases[-1]


def furniture_phrase(furniture: Furniture, items: Sequence[str]) -> str:
    article = "an " if furniture.name == "oven" else "a "
    if furniture.kind == "closed_container":
        return f"{article}{furniture.name} that is closed"
    if furniture.kind == "surface":
        if not items:
            return f"{article}{furniture.name}, that has nothing on it"
        return f"{article}{furniture.name} that has {item_list(items)} on it"
    return article + furniture.name


def exit_sentence(direction: str, room: str, door: str | None, is_open: bool) -> str:
    word = direction.capitalize()
    if door is None:
        return f"To the {word} you see the {room}. "
    if is_open:
        return f"Through an open {door}, to the {word} you see the {room}. "
    return f"To the {word} you see a closed {door}. "


def room_description(room: str, objects: Sequence[str], exits: Sequence[str]) -> str:
    """``objects`` are object phrases in order; ``exits`` exit sentences in order."""
    parts = [f"You are in the {room}. "]
    parts += [OBJECT_PREFIXES[i % 4] + phrase + ". " for i, phrase in enumerate(objects)]
    return "".join(parts) + "\n" + "".join(exits)


def inventory_text(items: Sequence[str]) -> str:
    lines = [f"  {item_phrase(item)}\n" for item in items]
    lines = lines or ["  Your inventory is currently empty.\n"]
    return f"Inventory (maximum capacity is {CAPACITY} items): \n" + "".join(lines)


def opened(door: str, room: str) -> str:
    return f"You open the {door}, revealing the {room}. "


def closed(door: str, room: str) -> str:
    return f"You close the {door} to the {room}. "


def taken(item: str) -> str:
    return f"You take the {item}."
