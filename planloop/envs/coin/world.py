"""The state of a CoinCollector game and its rules: descriptions, valid commands, effects."""

from __future__ import annotations

from collections import deque

from . import text
from .layout import House
from .names import SLOTS, door_object, fact


class World:
    """One game in a house: where the player is, which doors are open, where items lie.

    ``execute`` applies a command already known to be valid and returns the game's answer
    and, when the game refused it, the failed preconditions as PDDL facts.
    """

    def __init__(self, house: House):
        self.house = house
        self.room = house.start
        self.open_doors = set(house.open_doors)
        self.on = {
            (room.name, i): list(f.items)
            for room in house.rooms
            for i, f in enumerate(room.furniture)
        }
        self.loose = {room.name: list(room.loose) for room in house.rooms}
        self.inventory: list[str] = []
        self.items = frozenset(
            item
            for room in house.rooms
            for item in (*room.loose, *(i for f in room.furniture for i in (*f.items, *f.hidden)))
        )
        self.visited = {house.start}
        self.known_links: set[tuple[str, str]] = set()  # (room, direction) seen leading somewhere
        self._seen: tuple | None = None  # look(), valid_actions(), inventory_text() until a change
        self._rooms: dict[str, tuple[str, list[str]]] = {}  # description, valid commands
        self._describe_seen()

    # -- what the player sees ---------------------------------------------------------
    def door_open(self, room: str, direction: str) -> bool:
        return frozenset((room, self.house.room(room).exits[direction].to)) in self.open_doors

    def look(self) -> str:
        return self._view()[0]

    def _view(self) -> tuple[str, list[str], str]:
        """The room description, the valid commands and the inventory, rebuilt only after
        a change."""
        if self._seen is None:
            room = self._rooms.get(self.room)
            if room is None:  # a room changes only when its items or doors do
                room = self._rooms[self.room] = (self._describe(), self._valid_actions())
            self._seen = (*room, text.inventory_text(self.inventory))
        return self._seen

    def _describe(self) -> str:
        room = self.house.room(self.room)
        objects = [
            text.furniture_phrase(f, self.on[room.name, i]) for i, f in enumerate(room.furniture)
        ]
        objects += [text.item_phrase(item) for item in self.loose[room.name]]
        exits = [
            text.exit_sentence(d, x.to, x.door, self.door_open(room.name, d))
            for d, x in room.exits.items()
        ]
        return text.room_description(room.name, objects, exits)

    def inventory_text(self) -> str:
        return self._view()[2]

    def visible_items(self, room_name: str | None = None) -> list[str]:
        """Takeable items of a room, in the order the room lists them."""
        name = room_name or self.room
        room = self.house.room(name)
        items = [item for i in range(len(room.furniture)) for item in self.on[name, i]]
        return items + self.loose[name]

    def valid_actions(self) -> list[str]:
        """The valid commands in TextWorld Express's canonical (unshuffled) order."""
        return list(self._view()[1])

    def _valid_actions(self) -> list[str]:
        exits = self.house.room(self.room).exits
        actions = ["look around", "inventory"] + [f"move {d}" for d in exits]
        for d, x in exits.items():
            if x.door is not None:
                actions += [f"open door to {d}", f"close door to {d}"]
        return actions + [f"take {item}" for item in self.visible_items()]

    @property
    def score(self) -> float:
        return float(self.inventory.count("coin"))

    # -- effects ----------------------------------------------------------------------
    def execute(self, command: str) -> tuple[str, list[str]]:
        """Apply a valid command: the game's answer, and the unmet facts if it refused."""
        if command == "look around":
            return self.look(), []
        if command == "inventory":
            return self.inventory_text(), []
        self._seen = None  # every other command may change the room or its contents
        verb, _, rest = command.partition(" ")
        if verb == "take":
            return self._take(rest)
        direction = rest.rsplit(" ", 1)[-1]
        if verb == "move":
            return self._move(direction)
        return self._toggle_door(direction, verb == "open")

    def _move(self, direction: str) -> tuple[str, list[str]]:
        exit_ = self.house.room(self.room).exits[direction]
        if exit_.door is not None and not self.door_open(self.room, direction):
            return text.DOOR_CLOSED, [f"(not {fact('blocked', self.room, exit_.to)})"]
        self.room = exit_.to
        self.visited.add(self.room)
        self._describe_seen()
        return self.look(), []

    def _toggle_door(self, direction: str, opening: bool) -> tuple[str, list[str]]:
        exit_ = self.house.room(self.room).exits[direction]
        door = exit_.door
        assert door is not None  # "open/close door to" is a valid command only at a door
        key = frozenset((self.room, exit_.to))
        closed_fact = fact("closed", door_object(door, self.room, exit_.to))
        if opening == (key in self.open_doors):
            if opening:
                return text.ALREADY_OPEN, [closed_fact]
            return text.ALREADY_CLOSED, [f"(not {closed_fact})"]
        self._rooms.pop(self.room, None)
        self._rooms.pop(exit_.to, None)
        if opening:
            self.open_doors.add(key)
            self.known_links.add((self.room, direction))
            return text.opened(door, exit_.to), []
        self.open_doors.discard(key)
        return text.closed(door, exit_.to), []

    def _take(self, item: str) -> tuple[str, list[str]]:
        if len(self.inventory) >= text.CAPACITY:
            return text.INVENTORY_FULL, [fact("free", slot) for slot in SLOTS]
        if item in self.loose[self.room]:
            self.loose[self.room].remove(item)
        else:
            place = next(
                key for key, items in self.on.items() if key[0] == self.room and item in items
            )
            self.on[place].remove(item)
        self.inventory.append(item)
        self._rooms.pop(self.room, None)
        return text.taken(item), []

    def _describe_seen(self) -> None:
        """Record the exits whose far room the current room's description names."""
        for d, x in self.house.room(self.room).exits.items():
            if x.door is None or self.door_open(self.room, d):
                self.known_links.add((self.room, d))

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
            if self.house.room(here).exits[d].door is not None and not self.door_open(here, d):
                commands.append(f"open door to {d}")
            room = here
        return commands[::-1]
