"""Plan steps to game commands, by structure: the step's action name against the
commands' verbs, its arguments against the things the commands name.

Nothing here knows one model's action names. A command is a verb and the phrases
between its prepositions (``take mug 1 from countertop 1`` -> ``take``, ``mug 1``,
``countertop 1``); a step ``(pickupobject agent1 loc3 mug1 countertop_1)`` names a
command when its action name holds the verb (or a synonym) and every phrase of the
command is one of its arguments or part of its action name, compared without case,
spaces or punctuation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..pddl import parse_command

_PREPOSITIONS = frozenset({"to", "from", "in", "on", "into", "onto", "with", "under", "at",
                           "in/on"})
_VERB_GROUPS = (
    {"go", "goto", "move", "walk", "travel", "navigate"},
    {"take", "pick", "pickup", "grab", "get", "collect"},
    {"put", "move", "place", "drop"},
    {"open"}, {"close", "shut"},
    {"heat", "warm"}, {"cool", "chill"}, {"clean", "wash", "rinse"},
    {"use", "toggle", "turn", "switch"},
    {"examine", "inspect", "look"}, {"slice", "cut"}, {"inventory"},
)
_DIRECTIONS = ("north", "south", "east", "west")


def squash(text: str) -> str:
    """Lowercase letters and digits only: ``Countertop_1`` -> ``countertop1``."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _synonyms(verb: str) -> set[str]:
    found = {verb}
    for group in _VERB_GROUPS:
        if verb in group:
            found |= group
    return found


@dataclass(frozen=True)
class _Command:
    text: str
    verb: str
    phrases: tuple[str, ...]  # as displayed, e.g. "mug 1"

    @classmethod
    def read(cls, text: str) -> "_Command":
        words = text.split()
        phrases, current = [], []
        for word in words[1:]:
            if word.lower() in _PREPOSITIONS:
                phrases.append(" ".join(current))
                current = []
            else:
                current.append(word)
        phrases.append(" ".join(current))
        return cls(text, words[0].lower() if words else "", tuple(p for p in phrases if p))


class CommandMapper:
    """Maps plan steps to commands. ``learn`` every list of valid commands the game
    shows; ``command_for`` then prefers a valid command of the moment, then one seen
    before, then one built from a seen command's form with the step's arguments (so a
    step the game will refuse is still sent, and the game's own answer is the
    simulation error)."""

    def __init__(self):
        self._known: dict[str, _Command] = {}
        self._things: dict[str, str] = {d: d for d in _DIRECTIONS}  # squashed -> displayed

    def learn(self, commands) -> None:
        for text in commands:
            if text not in self._known:
                command = self._known[text] = _Command.read(text)
                for phrase in command.phrases:
                    self._things.setdefault(squash(phrase), phrase)

    def examples(self, limit: int = 8) -> list[str]:
        """One known command per verb, for messages."""
        seen: dict[str, str] = {}
        for command in self._known.values():
            seen.setdefault(command.verb, command.text)
        return list(seen.values())[:limit]

    def command_for(self, step: str, valid) -> str | None:
        """The command ``step`` (``(name args)``) stands for, or None."""
        try:
            name, args = parse_command(step)
        except ValueError:
            return None
        name, args = squash(name), [squash(a) for a in args]
        now = [self._known.get(c) or _Command.read(c) for c in valid]  # read once, by learn
        for pool in (now, self._known.values()):
            best = max((c for c in pool if self._fits(c, name, args)),
                       key=lambda c: sum(squash(p) in args for p in c.phrases), default=None)
            if best is not None:
                return best.text
        return self._build(name, args)

    @staticmethod
    def _verb_fits(command: _Command, name: str) -> bool:
        return bool(command.verb) and any(s in name for s in _synonyms(command.verb))

    def _fits(self, command: _Command, name: str, args: list[str]) -> bool:
        if not command.phrases and any(a in self._things for a in args):
            return False  # ``look`` does not stand for (examine book_1)
        return self._verb_fits(command, name) and all(
            squash(p) in args or squash(p) in name for p in command.phrases)

    def _build(self, name: str, args: list[str]) -> str | None:
        """A seen command's form filled with the step's arguments that name things the
        commands name (directions, objects), in order."""
        things = [a for a in args if a in self._things]
        for command in self._known.values():
            if not self._verb_fits(command, name):
                continue
            slots = [p for p in command.phrases if squash(p) not in name]
            if slots and len(slots) == len(things):
                text = command.text
                for slot, thing in zip(slots, things):
                    text = text.replace(slot, "\0" + thing, 1)
                for thing in things:
                    text = text.replace("\0" + thing, self._things[thing], 1)
                return text
        return None
