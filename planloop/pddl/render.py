"""Facts and actions to natural language, from per-domain templates.

Blocksworld and Mystery Blocksworld read in PlanBench's style ("the red block is
clear", "object a craves object b"); any other domain gets a generic phrasing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .model import Atom

_COLORS = ("red", "blue", "orange", "yellow", "white", "magenta", "black", "cyan", "green",
           "violet", "silver", "gold")


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
    predicates={"on": "{0} is on top of {1}", "ontable": "{0} is on the table",
                "clear": "{0} is clear", "handempty": "the hand is empty",
                "holding": "the hand is holding {0}"},
    actions={"pick-up": "pick up {0}", "put-down": "put down {0}",
             "stack": "stack {0} on top of {1}", "unstack": "unstack {0} from on top of {1}"},
    obj=_block,
)
MYSTERY = Templates(
    predicates={"craves": "object {0} craves object {1}", "planet": "planet object {0}",
                "province": "province object {0}", "harmony": "harmony",
                "pain": "pain object {0}"},
    actions={"attack": "attack object {0}", "succumb": "succumb object {0}",
             "overcome": "overcome object {0} from object {1}",
             "feast": "feast object {0} from object {1}"},
)
GENERIC = Templates()
BY_DOMAIN = {"blocksworld-4ops": BLOCKSWORLD, "blocks": BLOCKSWORLD,
             "mystery-4ops": MYSTERY}


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
