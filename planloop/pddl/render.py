"""Facts, actions and whole problems to natural language, from per-domain templates.

Blocksworld and Mystery Blocksworld read in PlanBench's style ("the red block is
clear", "object a craves object b"); the typed Gripper, Ferry and Logistics domains of
the formalization problem sets have their own ("ball3 is in room2"); any other domain
gets a generic phrasing.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable

from .model import ROOT_TYPE, Action, And, Atom, Domain, Formula, Literal, Not, Problem
from .obfuscate import Renaming
from .writer import effect_text, formula_text

_COLORS = (
    "red",
    "blue",
    "orange",
    "yellow",
    "white",
    "magenta",
    "black",
    "cyan",
    "green",
    "violet",
    "silver",
    "gold",
)


def _block(name: str) -> str:
    if len(name) == 1 and "a" <= name <= "l":
        return f"the {_COLORS[ord(name) - ord('a')]} block"
    return f"block {name}"


def _plain(name: str) -> str:
    return name


@dataclass(frozen=True)
class Templates:
    """``predicates``/``actions`` map a name to a format string over the rendered args."""

    predicates: dict[str, str] = field(default_factory=dict)
    actions: dict[str, str] = field(default_factory=dict)
    obj: Callable[[str], str] = _plain


BLOCKSWORLD = Templates(
    predicates={
        "on": "{0} is on top of {1}",
        "ontable": "{0} is on the table",
        "clear": "{0} is clear",
        "handempty": "the hand is empty",
        "holding": "the hand is holding {0}",
    },
    actions={
        "pick-up": "pick up {0}",
        "put-down": "put down {0}",
        "stack": "stack {0} on top of {1}",
        "unstack": "unstack {0} from on top of {1}",
    },
    obj=_block,
)
MYSTERY = Templates(
    predicates={
        "craves": "object {0} craves object {1}",
        "planet": "planet object {0}",
        "province": "province object {0}",
        "harmony": "harmony",
        "pain": "pain object {0}",
    },
    actions={
        "attack": "attack object {0}",
        "succumb": "succumb object {0}",
        "overcome": "overcome object {0} from object {1}",
        "feast": "feast object {0} from object {1}",
    },
)
GRIPPER = Templates(
    predicates={
        "at-robby": "the robot is in {0}",
        "at": "{0} is in {1}",
        "free": "gripper {0} is free",
        "carry": "gripper {1} is carrying {0}",
    },
    actions={
        "move": "move from {0} to {1}",
        "pick": "pick up {0} in {1} with gripper {2}",
        "drop": "drop {0} in {1} with gripper {2}",
    },
)
FERRY = Templates(
    predicates={
        "at-ferry": "the ferry is at {0}",
        "at": "{0} is at {1}",
        "empty-ferry": "the ferry is empty",
        "on": "{0} is on the ferry",
    },
    actions={
        "sail": "sail from {0} to {1}",
        "board": "board {0} at {1}",
        "debark": "debark {0} at {1}",
    },
)
LOGISTICS = Templates(
    predicates={"in-city": "{0} is located in {1}", "at": "{0} is at {1}", "in": "{0} is in {1}"},
    actions={
        "load-truck": "load {0} into {1} at {2}",
        "unload-truck": "unload {0} from {1} at {2}",
        "drive-truck": "drive {0} from {1} to {2} in {3}",
        "load-airplane": "load {0} into {1} at {2}",
        "unload-airplane": "unload {0} from {1} at {2}",
        "fly-airplane": "fly {0} from {1} to {2}",
    },
)
COIN = Templates(
    predicates={
        "player-at": "the player is in {0}",
        "visited": "{0} has been visited",
        "connected": "{1} is {2} of {0}",
        "door-between": "{0} is between {1} and {2}",
        "closed": "{0} is closed",
        "blocked": "the way from {0} to {1} is blocked",
        "in-room": "{0} is in {1}",
        "holding": "the player holds {0}",
        "free": "inventory slot {0} is free",
    },
    actions={
        "move": "move from {0} to {1}, going {2}",
        "take": "take {0} in {1} into {2}",
        "open-door": "open {0} from {1} to {2}, going {3}",
        "close-door": "close {0} from {1} to {2}, going {3}",
    },
)
GENERIC = Templates()
BY_DOMAIN = {
    "blocksworld-4ops": BLOCKSWORLD,
    "blocks": BLOCKSWORLD,
    "mystery-4ops": MYSTERY,
    "gripper-typed": GRIPPER,
    "ferry-typed": FERRY,
    "logistics-typed": LOGISTICS,
    "coin-collector": COIN,
}


def templates_for(domain_name: str) -> Templates:
    return BY_DOMAIN.get(domain_name, GENERIC)


def _words(name: str) -> str:
    return name.replace("-", " ").replace("_", " ")


def render_fact(fact: Atom, templates: Templates = GENERIC) -> str:
    args = [templates.obj(a) for a in fact.args]
    template = templates.predicates.get(fact.predicate)
    if template is not None:
        return template.format(*args)
    if not args:
        return f"{_words(fact.predicate)} holds"
    if len(args) == 1:
        return f"{args[0]} is {_words(fact.predicate)}"
    return f"{_words(fact.predicate)} holds for {join_phrases(args)}"


def render_action(name: str, args, templates: Templates = GENERIC) -> str:
    template = templates.actions.get(name)
    rendered = [templates.obj(a) for a in args]
    if template is not None:
        return template.format(*rendered)
    return " ".join([_words(name)] + rendered)


def render_facts(facts, templates: Templates = GENERIC) -> str:
    """A list of facts as one sentence: "a, b and c"."""
    return join_phrases([render_fact(f, templates) for f in facts]) or "nothing"


def join_phrases(parts: list[str]) -> str:
    """["a", "b", "c"] -> "a, b and c"."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def render_literal(fact: Atom, positive: bool = True, templates: Templates = GENERIC) -> str:
    """``fact`` in words, or its negation ("ball1 is not in room2") when not ``positive``."""
    text = render_fact(fact, templates)
    if positive:
        return text
    if " is " in text:
        return text.replace(" is ", " is not ", 1)
    if " holds" in text:
        return text.replace(" holds", " does not hold", 1)
    return f"it is not the case that {text}"


def goal_literals(goal: Formula) -> list[tuple[Atom, bool]]:
    """A conjunction of literals as ``(atom, positive)`` pairs, in the goal's order."""
    if isinstance(goal, Atom):
        return [(goal, True)]
    if isinstance(goal, Not) and isinstance(goal.arg, Atom):
        return [(goal.arg, False)]
    if isinstance(goal, And):
        return [literal for part in goal.args for literal in goal_literals(part)]
    raise ValueError(f"only a conjunction of literals can be described, not {goal}")


def describe_problem(
    domain: Domain, problem: Problem, seed: int = 0, templates: Templates | None = None
) -> str:
    """The problem in words: a paragraph each for its objects (by type), its initial facts
    and its goal (a conjunction of literals). A nonzero ``seed`` shuffles the facts within
    each paragraph; 0 keeps the problem's order. ``templates`` default to the domain's."""
    templates = templates_for(domain.name) if templates is None else templates
    init, goal = list(problem.init), goal_literals(problem.goal)
    if seed:
        rng = random.Random(seed)
        rng.shuffle(init)
        rng.shuffle(goal)
    facts = join_phrases([render_fact(f, templates) for f in init]) or "nothing is true"
    wanted = join_phrases([render_literal(a, positive, templates) for a, positive in goal])
    goal_text = f"The goal is that {wanted}." if wanted else "The goal is empty."
    return "\n\n".join(
        [describe_objects(problem.objects, templates), f"Initially, {facts}.", goal_text]
    )


def describe_objects(objects: Mapping[str, str], templates: Templates = GENERIC) -> str:
    """The objects grouped by type, in order of declaration: "There are 2 rooms: ..."."""
    groups: dict[str, list[str]] = {}
    for name, type_name in objects.items():
        groups.setdefault(type_name, []).append(_object_phrase(name, templates))
    if not groups:
        return "The problem has no objects."
    if list(groups) == [ROOT_TYPE]:
        return (
            f"The problem has {_count(len(objects), ROOT_TYPE)}: {join_phrases(groups[ROOT_TYPE])}."
        )
    sentences = [f"The problem has {_count(len(objects), ROOT_TYPE)}."]
    sentences += [
        f"There {'is' if len(names) == 1 else 'are'} {_count(len(names), t)}: "
        f"{join_phrases(names)}."
        for t, names in groups.items()
    ]
    return " ".join(sentences)


def describe_domain(domain: Domain, templates: Templates | None = None) -> str:
    """The actions in words, in PlanBench's manner: each action on placeholder objects
    (x, y, ...), the facts it needs, and the facts it makes true and false. A part that
    is no literal (a disjunction, a conditional effect) is given in PDDL."""
    templates = templates_for(domain.name) if templates is None else templates
    lines = ["The actions, on any objects x, y, ... that fit:"]
    for action in domain.actions.values():
        lines += _describe_action(action, templates)
    return "\n".join(lines)


def _describe_action(action: Action, templates: Templates) -> list[str]:
    names = (
        "xyzwvu" if len(action.params) <= 6 else [f"x{i}" for i in range(1, len(action.params) + 1)]
    )
    place = Renaming(objects={p.name: name for p, name in zip(action.params, names, strict=False)})
    typed = [
        f"{place.objects[p.name]} is {_article(_words(' or '.join(p.types)))}"
        for p in action.params
        if p.types != (ROOT_TYPE,)
    ]
    lines = [
        f"- {render_action(action.name, list(place.objects.values()), templates)}"
        + (f" ({join_phrases(typed)})" if typed else "")
    ]
    effects = [place.effect(e) for e in action.effects]
    added = [
        render_fact(e.atom, templates) for e in effects if isinstance(e, Literal) and not e.negated
    ]
    deleted = [
        render_fact(e.atom, templates) for e in effects if isinstance(e, Literal) and e.negated
    ]
    other = [effect_text(e) for e in effects if not isinstance(e, Literal)]
    for label, phrases in (
        ("needs", _phrases(place.formula(action.precondition), templates)),
        ("makes true", added),
        ("makes false", deleted),
        ("also", other),
    ):
        if phrases:
            lines.append(f"  {label}: {join_phrases(phrases)}")
    return lines


def _phrases(f: Formula, templates: Templates) -> list[str]:
    """A precondition's conjuncts in words (a part that is no literal in PDDL)."""
    if isinstance(f, And):
        return [phrase for part in f.args for phrase in _phrases(part, templates)]
    if isinstance(f, Atom):
        return [render_fact(f, templates)]
    if isinstance(f, Not) and isinstance(f.arg, Atom):
        return [render_literal(f.arg, False, templates)]
    return [formula_text(f)]


def _article(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _object_phrase(name: str, templates: Templates) -> str:
    """How the text names an object, with its PDDL name when the words hide it."""
    text = templates.obj(name)
    return text if name in text.split() else f"{text} ({name})"


def _count(n: int, type_name: str) -> str:
    noun = _words(type_name)
    if n != 1:
        noun = (
            noun[:-1] + "ies"
            if noun.endswith("y") and noun[-2:-1] not in "aeiou"
            else noun + "es"
            if noun.endswith(("s", "x", "z", "ch", "sh"))
            else noun + "s"
        )
    return f"{n} {noun}"
