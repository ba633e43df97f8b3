"""Plan steps to game commands, by structure: the step's action name against the
commands' verbs, its arguments against the things the commands name.

Nothing here knows one model's action names. A command is a verb and the phrases
between its prepositions (``take mug 1 from countertop 1`` -> ``take``, ``mug 1``,
``countertop 1``); a step ``(pickupobject agent1 loc3 mug1 countertop_1)`` names a
command when its action name holds the verb (or a synonym) and every phrase of the
command is one of its arguments or part of its action name, compared without case,
spaces or punctuation.

Given the domain, the effects decide first: a step ``(gotolocation agent1 cabinet_1
fridge_1)`` of an action adding ``(at ?to)`` and deleting ``(at ?from)`` stands for ``go
to fridge 1`` (its destination), never for ``go to cabinet 1`` (its origin), even when
only the origin's command is valid now.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..pddl import Atom, Domain, parse_command
from ..pddl.model import Action, Literal

_PREPOSITIONS = frozenset(
    {"to", "from", "in", "on", "into", "onto", "with", "under", "at", "in/on"}
)
_VERB_GROUPS = (
    {"go", "goto", "move", "walk", "travel", "navigate"},
    {"take", "pick", "pickup", "grab", "get", "collect"},
    {"put", "move", "place", "drop"},
    {"open"},
    {"close", "shut"},
    {"heat", "warm"},
    {"cool", "chill"},
    {"clean", "wash", "rinse"},
    {"use", "toggle", "turn", "switch"},
    {"examine", "inspect", "look"},
    {"slice", "cut"},
    {"inventory"},
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
        phrases: list[str] = []
        current: list[str] = []
        for word in words[1:]:
            if word.lower() in _PREPOSITIONS:
                phrases.append(" ".join(current))
                current = []
            else:
                current.append(word)
        phrases.append(" ".join(current))
        return cls(text, words[0].lower() if words else "", tuple(p for p in phrases if p))


def _as_step(command: str) -> tuple[str, ...] | None:
    """A command written as a plan step, ``(name args)``, as lowercase words; None for
    one that is not (a text game's ``move east``)."""
    if not command.strip().startswith("("):
        return None
    try:
        name, args = parse_command(command)
    except ValueError:
        return None
    return (name.lower(), *map(str.lower, args))


@dataclass(frozen=True)
class Choice:
    """The command a plan step stands for (None when none does) and why."""

    command: str | None
    reason: str


def _literals(effects) -> Iterator[Literal]:
    """Every literal of ``effects``, inside conditional and universal effects too."""
    for effect in effects:
        if isinstance(effect, Literal):
            yield effect
        else:
            yield from _literals(effect.effects)


def effect_roles(action: Action) -> tuple[dict[str, Atom], dict[str, Atom]]:
    """The parameters ``action`` adds and those it moves away from, each with its effect.

    Origin: named by a delete effect of a predicate whose add effects name other
    parameters. Added: named by an add effect, by no delete effect of the same predicate,
    and no origin. ``(at ?to)``, ``(not (at ?from))`` and ``(visited ?from)`` ->
    ({?to: (at ?to)}, {?from: (at ?from)}).
    """
    literals = list(_literals(action.effects))
    params = {p.name for p in action.params}
    named = {
        neg: {
            (lit.atom.predicate, t): lit.atom
            for lit in literals
            if lit.negated == neg
            for t in lit.atom.args
            if t in params
        }
        for neg in (False, True)
    }
    moved = {pred for pred, _ in named[False]}
    origins = {
        t: atom
        for (pred, t), atom in named[True].items()
        if pred in moved and (pred, t) not in named[False]
    }
    added: dict[str, Atom] = {}
    for (pred, t), atom in named[False].items():
        if (pred, t) not in named[True] and t not in origins:
            added.setdefault(t, atom)  # the first such effect
    return added, origins


@dataclass(frozen=True)
class _Roles:
    """The step's arguments (squashed) its action adds and moves away from, each with
    (parameter, effect); ``untold`` says why the effects tell nothing when they do not."""

    added: dict[str, tuple[str, Atom]]
    origins: dict[str, tuple[str, Atom]]
    untold: str

    @classmethod
    def of(cls, domain: Domain | None, name: str, args) -> "_Roles":
        if domain is None:
            return cls({}, {}, "no domain to tell the destination")
        action = domain.actions.get(name)
        if action is None or len(action.params) != len(args):
            return cls({}, {}, f"the domain has no action {name} of {len(args)} parameters")
        added, origins = effect_roles(action)
        bound = [(squash(a), p.name) for p, a in zip(action.params, args, strict=True)]
        into = {a: (p, added[p]) for a, p in bound if p in added}
        return cls(
            into,
            {a: (p, origins[p]) for a, p in bound if p in origins and a not in into},
            "the effects do not tell them apart",
        )

    def only_origin(self, named: list[str]) -> bool:
        """Whether the arguments a command names are all origins."""
        return bool(named) and all(a in self.origins for a in named)


class CommandMapper:
    """Maps plan steps to commands. ``learn`` every list of valid commands the game
    shows; ``choose`` then prefers, given the domain, the command naming what the step's
    action adds and never one naming only what it moves away from; then a valid command
    of the moment, then one seen before, then one built from a seen command's form with
    the step's arguments (so a step the game will refuse is still sent, and the game's
    own answer is the simulation error)."""

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

    def command_for(self, step: str, valid, domain: Domain | None = None) -> str | None:
        """The command ``step`` (``(name args)``) stands for, or None."""
        return self.choose(step, valid, domain).command

    def choose(self, step: str, valid, domain: Domain | None = None) -> Choice:
        """The command ``step`` stands for and why; ``domain`` (the one the plan is of)
        tells a move's destination from its origin."""
        try:
            name, raw_args = parse_command(step)
        except ValueError:
            return Choice(None, f"{step!r} is not a plan step")
        same = next(
            (c for c in valid if _as_step(c) == (name.lower(), *map(str.lower, raw_args))), None
        )
        if same is not None:  # the game's commands are plan steps (a PDDL environment's)
            return Choice(same, "the step is a command of the game as written")
        roles = _Roles.of(domain, name, raw_args)
        name, args = squash(name), [squash(a) for a in raw_args]
        now = {c: self._known.get(c) or _Command.read(c) for c in valid}  # read once, by learn
        pool = list(now.values()) + [c for t, c in self._known.items() if t not in now]
        fits = [c for c in pool if self._fits(c, name, args)]
        if fits:
            return _pick(fits, now, args, roles)
        built = self._build(name, [a for a in args if a not in roles.origins])
        if built is None:
            return Choice(None, f"no command the game has shown fits {step}")
        text, form = built
        return Choice(text, f"{text}: built from the form of {form!r}, as no command fits")

    @staticmethod
    def _verb_fits(command: _Command, name: str) -> bool:
        return bool(command.verb) and any(s in name for s in _synonyms(command.verb))

    def _fits(self, command: _Command, name: str, args: list[str]) -> bool:
        if not command.phrases and any(a in self._things for a in args):
            return False  # ``look`` does not stand for (examine book_1)
        return self._verb_fits(command, name) and all(
            squash(p) in args or squash(p) in name for p in command.phrases
        )

    def _build(self, name: str, args: list[str]) -> tuple[str, str] | None:
        """A seen command's form filled with the step's arguments that name things the
        commands name (directions, objects), in order; with the form's command."""
        things = [a for a in args if a in self._things]
        for command in self._known.values():
            if not self._verb_fits(command, name):
                continue
            slots = [p for p in command.phrases if squash(p) not in name]
            if slots and len(slots) == len(things):
                text = command.text
                for slot, thing in zip(slots, things, strict=True):
                    text = text.replace(slot, "\0" + thing, 1)
                for thing in things:
                    text = text.replace("\0" + thing, self._things[thing], 1)
                return text, command.text
        return None


def _named(command: _Command, args: list[str]) -> list[str]:
    """The step's arguments (squashed) that ``command`` names."""
    return [a for a in map(squash, command.phrases) if a in args]


def _pick(fits: list[_Command], now: dict, args: list[str], roles: _Roles) -> Choice:
    """The best of ``fits``: not naming only the origin, then naming the destination,
    then valid now, then naming the most arguments, then first in the game's order. The
    reason says what set it above the runner-up."""

    def key(c: _Command) -> tuple[bool, int, bool, int]:
        named = _named(c, args)
        return (
            not roles.only_origin(named),
            sum(a in roles.added for a in named),
            c.text in now,
            len(named),
        )

    best, *rest = sorted(fits, key=key, reverse=True)  # stable: the game's order on ties
    if not key(best)[0]:
        return Choice(
            None, "no command names the step's destination: " + _origin(best, args, roles)
        )
    where = "" if best.text in now else " (seen before, not valid now)"
    if not rest:
        return Choice(best.text, f"{best.text}{where}: the only command that fits")
    runner = rest[0]
    decided = next(
        (i for i, (b, r) in enumerate(zip(key(best), key(runner), strict=True)) if b != r), None
    )
    if decided == 0:
        why = "; ".join(
            filter(None, (_destination(best, args, roles), _origin(runner, args, roles)))
        )
    elif decided == 1:
        why = f"{_destination(best, args, roles)}, not {runner.text!r}"
    elif decided == 2:
        why = f"valid now, unlike {runner.text!r}"
    elif decided == 3:
        why = f"names more of the step's arguments than {runner.text!r}"
    else:
        why = f"first of {1 + len(rest)} that fit alike, in the game's order ({roles.untold})"
    return Choice(best.text, f"{best.text}{where}: {why}")


def _destination(command: _Command, args: list[str], roles: _Roles) -> str:
    """``destination ?to, added by (at ?to)``, or "" when ``command`` names none."""
    found = [roles.added[a] for a in _named(command, args) if a in roles.added]
    return f"destination {found[0][0]}, added by {found[0][1]}" if found else ""


def _origin(command: _Command, args: list[str], roles: _Roles) -> str:
    """``'go to bed 1' names the origin ?from, deleted by (not (at ?from))``."""
    param, atom = roles.origins[_named(command, args)[0]]
    return f"{command.text!r} names the origin {param}, deleted by (not {atom})"
