"""Loading an ALFWorld game file (``game.tw-pddl``): the task, the grammar, the names."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from ...pddl import Limits, Task, ground, parse_domain, parse_problem
from ...pddl.model import ROOT_TYPE, Domain, Literal, When
from ...pddl.source import DEFAULT_LIMITS, read_text
from ..arguments import instance_of
from .grammar import Entity, Grammar

TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)


def check_task_types(task_types) -> tuple[str, ...]:
    """The task types asked for (one name or several; None for all), each checked."""
    if task_types is None:
        return TASK_TYPES
    instance_of(
        "task_types",
        task_types,
        (str, list, tuple, set, frozenset),
        "a task type or a list of them",
        optional=True,
    )
    chosen = (task_types,) if isinstance(task_types, str) else tuple(task_types)
    unknown = [t for t in chosen if t not in TASK_TYPES]
    if unknown or not chosen:
        raise ValueError(f"unknown task types {unknown}; choose from {', '.join(TASK_TYPES)}")
    return chosen


_TASK_LINE = re.compile(r"Your task is to: (.*)\.$", re.S)


@dataclass(frozen=True)
class Game:
    """One game: its grounded task, text grammar, displayed names and walkthrough."""

    path: Path | None
    task: Task
    grammar: Grammar
    entities: dict[str, Entity]
    walkthrough: tuple[str, ...]
    sentence: str
    task_type: str | None

    @property
    def name(self) -> str:
        return self.path.parent.name if self.path is not None else ""


def load_game(source: str | os.PathLike | dict, limits: Limits = DEFAULT_LIMITS) -> Game:
    """Read a ``game.tw-pddl`` file (or its JSON object) and ground its task within
    ``limits``."""
    path = None
    if isinstance(source, dict):
        data = source
    else:
        path = Path(source)
        data = json.loads(read_text(path))
    domain = parse_domain(fast_downward_reading(data["pddl_domain"]), limits)
    task = ground(domain, parse_problem(data["pddl_problem"], domain, limits), limits)
    grammar = Grammar.parse(data["grammar"])
    task_rule = grammar.rules.get("task", [])
    found = _TASK_LINE.match(task_rule[0].rhs) if task_rule else None
    return Game(
        path=path,
        task=task,
        grammar=grammar,
        entities=display_names(task),
        walkthrough=tuple(data.get("walkthrough") or ()),
        sentence=found.group(1) if found else "",
        task_type=task_type_of(path) if path else data.get("task_type"),
    )


def fast_downward_reading(domain: str) -> str:
    """The domain as Fast Downward reads it: a name glued to a comma (``?l - location,``)
    is a type name of its own, which no object has (declared a subtype of the name, so
    that the atoms it fills are well typed). ALFWorld's ``examineObject`` relies on this:
    its ``exists (?l - location, ?r - receptacle)`` disjunct never holds."""
    text = re.sub(r";[^\n]*", "", domain)
    glued = sorted(set(re.findall(r"([A-Za-z][\w-]*),", text)))
    if not glued:
        return text
    text = re.sub(r"([A-Za-z][\w-]*),\s*", r"\1-comma ", text)
    declared = " ".join(f"{name}-comma - {name}" for name in glued)
    return re.sub(r"\(:types", f"(:types {declared}", text, count=1, flags=re.I)


def planners_domain(task: Task) -> Domain:
    """``task``'s domain as PDDL that the strict reading accepts without a warning, meaning
    what planners make of ALFWorld's: the names its actions use as constants
    (``SinkBasinType``, ...) declared as constants of their types in the problem (which
    leaves them out of its objects), and each predicate argument that an effect fills with
    a variable of another type (``look`` marks a location ``checked``) typed ``object``."""
    domain = task.domain
    widened: set[tuple[str, int]] = set()  # (predicate, argument index)

    def visit(effects, scope: dict[str, tuple[str, ...]]) -> None:
        for effect in effects:
            if isinstance(effect, Literal):
                params = domain.predicates[effect.atom.predicate].params
                for i, arg in enumerate(effect.atom.args):
                    types = scope.get(arg, (ROOT_TYPE,))
                    if ROOT_TYPE not in types and not any(
                        domain.is_subtype(t, params[i].types) for t in types
                    ):
                        widened.add((effect.atom.predicate, i))
            elif isinstance(effect, When):
                visit(effect.effects, scope)
            else:
                visit(effect.effects, {**scope, **{p.name: p.types for p in effect.params}})

    for action in domain.actions.values():
        visit(action.effects, {p.name: p.types for p in action.params})
    predicates = {
        name: replace(
            predicate,
            params=tuple(
                replace(p, types=(ROOT_TYPE,)) if (name, i) in widened else p
                for i, p in enumerate(predicate.params)
            ),
        )
        for name, predicate in domain.predicates.items()
    }
    constants = dict(domain.constants)
    constants.update((c, task.objects[c]) for c in domain.external_constants)
    return replace(domain, predicates=predicates, constants=constants, external_constants=())


def display_names(task: Task) -> dict[str, Entity]:
    """ALFWorld's demangled names: the id up to its first ``_bar_`` (plus ``basin`` for
    basins), numbered 1..n from the largest id of each name down to the smallest."""
    ids = sorted({arg for fact in task.problem.init for arg in fact.args})
    by_name: dict[str, list[str]] = {}
    for obj in ids:
        name = obj.split("_bar_", 1)[0] + ("basin" if "basin" in obj else "")
        by_name.setdefault(name, []).append(obj)
    entities = {}
    for name, members in by_name.items():
        for number, obj in enumerate(reversed(members), start=1):
            entities[obj] = Entity(obj, f"{name} {number}")
    for obj in task.objects:
        entities.setdefault(obj, Entity(obj, obj))
    return entities


def task_type_of(path: Path) -> str | None:
    """The task type named by a game's task folder (``pick_heat_then_place_in_recep-Egg-
    ...``), in the flat or the released layout, else by its ``traj_data.json``."""
    for folder in (path.parent, path.parent.parent):
        prefix = folder.name.split("-", 1)[0]
        if prefix in TASK_TYPES or prefix.startswith("pick_and_place_with_movable"):
            return prefix
    traj = path.parent / "traj_data.json"
    if traj.is_file():
        return json.loads(read_text(traj)).get("task_type")
    return None
