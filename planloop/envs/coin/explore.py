"""A CoinCollector house read from the game's own texts: walk every room, open every
closed door to see where it leads, and write down what each room description says. This
is how ``backend="twx"`` knows the hidden world of a TextWorld Express game (whose
simulator shows no map): the result is a ``map`` for :func:`~.layout.load_layout`, in the
format of the recorded transcripts."""

from __future__ import annotations

import re
from collections.abc import Callable

from ...errors import PlanloopError
from .text import OBJECT_PREFIXES
from .vocab import DIRECTIONS

Step = Callable[[str], tuple[str, str]]  # command -> (the game's answer, the room's look)

_ROOM = re.compile(r"You are in the (.+?)\. ")
_EXIT = re.compile(
    r"To the (?P<d>North|South|East|West) you see a closed (?P<closed>.+?)\. "
    r"|Through an open (?P<open>.+?), to the (?P<od>North|South|East|West) you see the (?P<oto>.+?)\. "
    r"|To the (?P<pd>North|South|East|West) you see the (?P<to>.+?)\. "
)
_REVEALED = re.compile(r"You open the (.+?), revealing the (.+?)\. ")
_ARTICLE = re.compile(r"^an? ")


class UnreadableHouse(PlanloopError, ValueError):
    """A text that does not read as CoinCollector's."""


def explore(look: str, step: Step) -> dict:
    """The house around the room ``look`` describes, as a ``map``: every room reached
    through its exits (``step`` plays a command and returns the game's answer and the
    description of the room the player is then in). Doors are opened on the way, so the
    game is left in another state than it started in: reset it afterwards. Items hidden
    inside furniture show in no text and are not in the map."""
    rooms: dict[str, dict] = {}
    doors: dict[frozenset[str], dict] = {}

    def visit(look: str) -> str:
        name, objects, exits = read_room(look)
        room: dict = {"name": name, "objects": objects, "exits": {}}
        rooms[name] = room
        for direction, (to, door, is_open) in exits.items():
            if to is None:  # a closed door hides the room behind it
                answer, _ = step(f"open door to {direction}")
                revealed = _REVEALED.fullmatch(answer)
                if revealed is None or revealed.group(1) != door:
                    raise UnreadableHouse(f"opening the {door} answered {answer!r:.200}")
                to = revealed.group(2)
            exit_: dict = {"to": to, "door": None}
            if door is not None:
                pair = frozenset((name, to))
                if pair not in doors:  # seen first from here, before it was touched
                    doors[pair] = {"name": door, "starts_open": is_open, "between": []}
                doors[pair]["between"].append({"room": name, "direction": direction})
                exit_["door"] = {"name": door, "starts_open": doors[pair]["starts_open"]}
            room["exits"][direction] = exit_
        for direction, exit_ in room["exits"].items():
            if exit_["to"] in rooms:
                continue
            _, there = step(f"move {direction}")
            if visit(there) != exit_["to"]:
                raise UnreadableHouse(f"moving {direction} from the {name} led elsewhere")
            back = next(
                (d for d, x in rooms[exit_["to"]]["exits"].items() if x["to"] == name), None
            )
            if back is None or read_room(step(f"move {back}")[1])[0] != name:
                raise UnreadableHouse(f"no way back from the {exit_['to']} to the {name}")
        return name

    start = visit(look)
    return {
        "start_room": start,
        "coin_room": next(
            (r["name"] for r in rooms.values() if any(o["name"] == "coin" for o in r["objects"])),
            None,
        ),
        "rooms": list(rooms.values()),
        "doors": list(doors.values()),
    }


def read_room(look: str) -> tuple[str, list[dict], dict[str, tuple[str | None, str | None, bool]]]:
    """(room name, its objects as the map lists them, its exits: direction -> (the room
    it names or None behind a closed door, the door's name or None, whether it is
    open)), read from a room description."""
    head, newline, tail = look.partition("\n")
    found = _ROOM.match(head)
    if found is None or not newline:
        raise UnreadableHouse(f"not a room description: {look!r:.200}")
    objects = []
    body = head[found.end() :]
    sentences = body.split(". ")
    if sentences[-1] != "":
        raise UnreadableHouse(f"a room description that does not end a sentence: {look!r:.200}")
    for i, sentence in enumerate(sentences[:-1]):
        prefix = OBJECT_PREFIXES[i % len(OBJECT_PREFIXES)]
        if not sentence.startswith(prefix):
            raise UnreadableHouse(f"object {i} of the {found.group(1)} reads {sentence!r:.200}")
        objects.append(_object(sentence[len(prefix) :]))
    exits: dict[str, tuple[str | None, str | None, bool]] = {}
    at = 0
    while at < len(tail):
        match = _EXIT.match(tail, at)
        if match is None:
            raise UnreadableHouse(f"the exits of the {found.group(1)} read {tail[at:]!r:.200}")
        if match.group("closed"):
            exits[match.group("d").lower()] = (None, match.group("closed"), False)
        elif match.group("open"):
            exits[match.group("od").lower()] = (match.group("oto"), match.group("open"), True)
        else:
            exits[match.group("pd").lower()] = (match.group("to"), None, True)
        at = match.end()
    return found.group(1), objects, {d: exits[d] for d in DIRECTIONS if d in exits}


def _object(phrase: str) -> dict:
    """One object of a room description, as the map lists it."""
    if phrase.endswith(" that is closed"):
        return {"name": _bare(phrase[: -len(" that is closed")]), "kind": "closed_container"}
    if phrase.endswith(", that has nothing on it"):
        name = _bare(phrase[: -len(", that has nothing on it")])
        return {"name": name, "kind": "surface", "on_it": []}
    surface = re.fullmatch(r"(.+?) that has (.+) on it", phrase)
    if surface is not None:
        items = [_bare(item.removeprefix("and ")) for item in surface.group(2).split(", ")]
        return {
            "name": _bare(surface.group(1)),
            "kind": "surface",
            "on_it": [{"name": item} for item in items],
        }
    return {"name": _bare(phrase), "kind": "thing"}


def _bare(phrase: str) -> str:
    return _ARTICLE.sub("", phrase, count=1)
