"""The state of a CoinCollector game and its rules: valid commands and their effects."""

from __future__ import annotations

from collections import deque

from . import text
from .causes import Refusal, refusal
from .layout import House
from .names import SLOTS, fact
from .view import View, room_view

FULL = tuple(fact("free", slot) for slot in SLOTS)  # what taking with a full inventory lacks


class World:
    """One game in a house: where the player is, which doors are open, where items lie.

    ``view`` is what the current room shows, built once for each state of the room (its
    doors and items) and kept in ``house.views`` for every game in the house.
    ``execute`` applies a command already known to be valid and returns the game's
    answer and, when the game refused it, why.
    """

    def __init__(self, house: House):
        self.house = house
        self.room = house.start
        self.passable = {  # room -> direction -> no door on the way, or an open one
            room.name: {
                d: x.door is None or frozenset((room.name, x.to)) in house.open_doors
                for d, x in room.exits.items()
            }
            for room in house.rooms
        }
        self.on = {
            (room.name, i): list(f.items)
            for room in house.rooms
            for i, f in enumerate(room.furniture)
        }
        self.loose = {room.name: list(room.loose) for room in house.rooms}
        self.inventory: list[str] = []
        self.inventory_text = text.inventory_text(self.inventory)
        self.score = 0.0
        self.items = frozenset(
            item
            for room in house.rooms
            for item in (*room.loose, *(i for f in room.furniture for i in (*f.items, *f.hidden)))
        )
        self.visited = {house.start}
        self._exits = {(room.name, d): x for room in house.rooms for d, x in room.exits.items()}
        doors: dict[frozenset[str], list[tuple[str, str]]] = {}
        for (name, d), x in self._exits.items():
            if x.door is not None:
                doors.setdefault(frozenset((name, x.to)), []).append((name, d))
        self._sides = {side: tuple(sides) for sides in doors.values() for side in sides}
        self._contents = {room.name: tuple(self.visible_items(room.name)) for room in house.rooms}
        self._keys: dict[str, tuple] = {}  # each room's state, as the key of its view
        for room in house.rooms:
            self._rekey(room.name)
        self.view = self._view()
        self.known_links = set(self.view.links)  # (room, direction) seen leading somewhere

    # -- what the player sees ---------------------------------------------------------
    def _view(self) -> View:
        """The current room's view, built once per state of the room in this house."""
        key = self._keys[self.room]
        view = self.house.views.get(key)
        if view is None:
            room = self.house.room(self.room)
            on = [self.on[room.name, i] for i in range(len(room.furniture))]
            passable = self.passable[room.name]
            view = self.house.views[key] = room_view(room, on, self.loose[room.name], passable)
        return view

    def _rekey(self, room: str) -> None:
        """Note a change to ``room``'s doors or items."""
        self._keys[room] = (room, tuple(self.passable[room].values()), self._contents[room])

    def visible_items(self, room_name: str | None = None) -> list[str]:
        """Takeable items of a room, in the order the room lists them."""
        name = room_name or self.room
        room = self.house.room(name)
        items = [item for i in range(len(room.furniture)) for item in self.on[name, i]]
        return items + self.loose[name]

    # -- effects ----------------------------------------------------------------------
    def execute(self, command: str) -> tuple[str, Refusal | None]:
        """Apply a valid command: the game's answer, and why if it refused."""
        refused = self.view.refusals.get(command)
        if refused is not None:
            return refused.message, refused
        if command == "look around":
            return self.view.description, None
        if command == "inventory":
            return self.inventory_text, None
        verb, _, rest = command.partition(" ")
        if verb == "take":
            return self._take(rest)
        direction = rest.rsplit(" ", 1)[-1]
        if verb == "move":
            return self._move(direction)
        return self._toggle_door(direction, verb == "open")

    def _move(self, direction: str) -> tuple[str, None]:
        """A move the view does not refuse: through no door, or an open one."""
        self.room = self._exits[self.room, direction].to
        self.visited.add(self.room)
        self.view = self._view()
        self.known_links |= self.view.links
        return self.view.description, None

    def _toggle_door(self, direction: str, opening: bool) -> tuple[str, None]:
        """Open a closed door or close an open one (the view refuses the rest)."""
        exit_ = self._exits[self.room, direction]
        door = exit_.door
        assert door is not None  # "open/close door to" is a valid command only at a door
        for room, d in self._sides[self.room, direction]:
            self.passable[room][d] = opening
            self._rekey(room)
        self.view = self._view()
        if opening:
            self.known_links.add((self.room, direction))
            return text.opened(door, exit_.to), None
        return text.closed(door, exit_.to), None

    def _take(self, item: str) -> tuple[str, Refusal | None]:
        if len(self.inventory) >= text.CAPACITY:
            room = self.house.room(self.room)
            return text.INVENTORY_FULL, refusal(room, f"take {item}", text.INVENTORY_FULL, FULL)
        if item in self.loose[self.room]:
            self.loose[self.room].remove(item)
        else:
            place = next(
                key for key, items in self.on.items() if key[0] == self.room and item in items
            )
            self.on[place].remove(item)
        self.inventory.append(item)
        self.inventory_text = text.inventory_text(self.inventory)
        self.score = float(self.inventory.count("coin"))
        self._contents[self.room] = tuple(self.visible_items())
        self._rekey(self.room)
        self.view = self._view()
        return text.taken(item), None

    # -- reference solution -----------------------------------------------------------
    def gold_path(self) -> list[str] | None:
        """A shortest winning command list from now (opening doors on the way), [] once
        won, None when the coin can no longer be taken."""
        if "coin" in self.inventory:
            return []
        target = next((r for r, items in self.loose.items() if "coin" in items), None)
        if target is None or len(self.inventory) >= text.CAPACITY:
            return None
        parents: dict[str, tuple[str, str] | None] = {self.room: None}
        queue = deque([self.room])
        while queue:
            here = queue.popleft()
            for d, x in self.house.room(here).exits.items():
                if x.to not in parents:
                    parents[x.to] = (here, d)
                    queue.append(x.to)
        commands = ["take coin"]
        room = target
        while (parent := parents[room]) is not None:
            here, d = parent
            commands.append(f"move {d}")
            if not self.passable[here][d]:
                commands.append(f"open door to {d}")
            room = here
        return commands[::-1]
