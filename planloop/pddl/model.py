"""A plain, typed model of the PDDL the project reads: domains, problems, formulas.

Names are lowercase. Terms are strings: a variable starts with ``?``, anything else
names an object or constant. A parameter's ``types`` has more than one entry only
for ``(either ...)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Union

from .diagnostics import Diagnostic

ROOT_TYPE = "object"


@dataclass(frozen=True)
class Param:
    name: str
    types: tuple[str, ...] = (ROOT_TYPE,)


@dataclass(frozen=True)
class Atom:
    predicate: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "(" + " ".join((self.predicate,) + self.args) + ")"


@dataclass(frozen=True)
class Equals:
    left: str
    right: str


@dataclass(frozen=True)
class Not:
    arg: "Formula"


@dataclass(frozen=True)
class And:
    args: tuple["Formula", ...]


@dataclass(frozen=True)
class Or:
    args: tuple["Formula", ...]


@dataclass(frozen=True)
class Imply:
    condition: "Formula"
    consequence: "Formula"


@dataclass(frozen=True)
class Exists:
    params: tuple[Param, ...]
    body: "Formula"


@dataclass(frozen=True)
class Forall:
    params: tuple[Param, ...]
    body: "Formula"


Formula = Union[Atom, Equals, Not, And, Or, Imply, Exists, Forall]
TRUE = And(())


def map_formula(f: Formula, leaf, quantified=None) -> Formula:
    """Rebuild ``f`` bottom up: ``leaf(node)`` replaces each Atom and Equals;
    ``quantified(node, body)`` rebuilds each Exists/Forall around its new body
    (by default with the same parameters)."""
    if isinstance(f, (Atom, Equals)):
        return leaf(f)
    if isinstance(f, Not):
        return Not(map_formula(f.arg, leaf, quantified))
    if isinstance(f, (And, Or)):
        return type(f)(tuple(map_formula(a, leaf, quantified) for a in f.args))
    if isinstance(f, Imply):
        return Imply(
            map_formula(f.condition, leaf, quantified), map_formula(f.consequence, leaf, quantified)
        )
    body = map_formula(f.body, leaf, quantified)
    return quantified(f, body) if quantified else type(f)(f.params, body)


@dataclass(frozen=True)
class Literal:
    """An effect that makes ``atom`` true, or false when ``negated``."""

    atom: Atom
    negated: bool = False


@dataclass(frozen=True)
class When:
    condition: Formula
    effects: tuple["Effect", ...]


@dataclass(frozen=True)
class ForallEffect:
    params: tuple[Param, ...]
    effects: tuple["Effect", ...]


Effect = Union[Literal, When, ForallEffect]


@dataclass(frozen=True)
class Predicate:
    name: str
    params: tuple[Param, ...]


@dataclass(frozen=True)
class Action:
    name: str
    params: tuple[Param, ...]
    precondition: Formula
    effects: tuple[Effect, ...]
    observe: tuple[Atom, ...] = ()  # a contingent domain's sensing action: what it tells


@dataclass(frozen=True)
class UnreadAction:
    """An action left out of a domain for its ``errors``, as FF leaves out an action with
    a parameter type no object has (it applies to nothing). A problem that gives every
    one of its ``param_types`` an object turns the errors back into errors."""

    name: str
    param_types: tuple[tuple[str, ...], ...]
    errors: tuple[Diagnostic, ...]


class FrozenDict(dict):
    """A dict that no holder can change: every mutation is a TypeError. Parsed domains
    and problems are shared by text hash across callers (:mod:`.memo`), so one caller's
    ``domain.actions.pop(...)`` must not change what every other holder reads; copy it
    (``dict(domain.actions)``) to change a copy."""

    def _refuse(self, *args, **kwargs):
        raise TypeError(
            "a parsed domain's or problem's mappings cannot be changed (they are shared "
            "with every holder of the same text): change a copy, dict(mapping)"
        )

    __setitem__ = __delitem__ = __ior__ = _refuse  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]

    def __reduce__(self):
        return (FrozenDict, (dict(self),))


def _freeze(instance, *names: str) -> None:
    """Make the dict fields ``names`` of a frozen dataclass instance FrozenDicts."""
    for name in names:
        value = getattr(instance, name)
        if not isinstance(value, FrozenDict):
            object.__setattr__(instance, name, FrozenDict(value))


@dataclass(frozen=True)
class Domain:
    """A parsed domain; its mappings are read-only (:class:`FrozenDict`)."""

    name: str
    requirements: tuple[str, ...]
    types: Mapping[str, str]  # each declared type -> its parent
    constants: Mapping[str, str]  # constant -> its type
    predicates: Mapping[str, Predicate]
    actions: Mapping[str, Action]
    functions: tuple[str, ...] = ()
    external_constants: tuple[str, ...] = ()  # used by actions, left to the problem to declare
    warnings: tuple[Diagnostic, ...] = field(default=(), compare=False)
    unread_actions: tuple[UnreadAction, ...] = ()
    # predicates grounding treats as changing although no action changes them (those whose
    # initial value a contingent problem leaves unknown): never pruned as static
    uncertain_predicates: tuple[str, ...] = ()
    # a contingent domain's multi-valued variables and observed facts (cp2fsc's dialect)
    variables: tuple["Variable", ...] = ()
    derived: tuple["Derived", ...] = ()
    # (type, types) -> is_subtype's answer, kept: a domain never changes
    _subtypes: dict[tuple[str, tuple[str, ...]], bool] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        _freeze(self, "types", "constants", "predicates", "actions")

    def ancestors(self, type_name: str) -> tuple[str, ...]:
        """``type_name`` and every type above it, ending with ``object``."""
        chain = [type_name]
        while chain[-1] != ROOT_TYPE and chain[-1] in self.types and len(chain) <= len(self.types):
            chain.append(self.types[chain[-1]])
        if chain[-1] != ROOT_TYPE:
            chain.append(ROOT_TYPE)
        return tuple(chain)

    def is_subtype(self, type_name: str, of: tuple[str, ...]) -> bool:
        found = self._subtypes.get((type_name, of))
        if found is None:
            found = self._subtypes[(type_name, of)] = any(
                t in of for t in self.ancestors(type_name)
            )
        return found

    def changed_predicates(self) -> set[str]:
        """The predicates some action's effects change, and the uncertain ones; the others
        are static."""
        changed: set[str] = set(self.uncertain_predicates)

        def visit(effects):
            for effect in effects:
                if isinstance(effect, Literal):
                    changed.add(effect.atom.predicate)
                else:
                    visit(effect.effects)

        for action in self.actions.values():
            visit(action.effects)
        return changed


@dataclass(frozen=True)
class Family:
    """The atoms ``atom`` for each binding of ``params`` under which ``condition`` (over
    facts no action changes) holds in ``:init``."""

    params: tuple[Param, ...]
    condition: Formula
    atom: Atom


@dataclass(frozen=True)
class Variable:
    """A multi-valued state variable (cp2fsc's ``:variable``): for each binding of
    ``params``, exactly one atom of its ``values`` holds (with a single value, it may hold
    or not); its value is unknown at first unless ``:init`` names it."""

    name: str
    params: tuple[Param, ...]
    values: tuple[Family, ...]


@dataclass(frozen=True)
class Derived:
    """An observed fact defined by others (cp2fsc's ``:obs-variable``): for each binding of
    ``params``, ``atom`` holds exactly when some atom of ``facts`` does (facts no action
    changes, so neither does it)."""

    params: tuple[Param, ...]
    atom: Atom
    facts: Family


CLAUSE_BOUNDS = {"or": (False, True), "oneof": (True, True), "at-most-one": (True, False)}
"""Each kind of :class:`InitClause`: (at most one literal holds, at least one does)."""


@dataclass(frozen=True)
class InitClause:
    """A contingent problem's constraint on its initial state: ``oneof`` (exactly one of
    ``literals`` holds), ``or`` (at least one does) or ``at-most-one`` (K-replanner's)."""

    kind: str
    literals: tuple[Literal, ...]


@dataclass(frozen=True)
class Problem:
    """A parsed problem; its objects are read-only (:class:`FrozenDict`)."""

    name: str
    domain_name: str
    objects: Mapping[str, str]  # object -> its type (the domain's constants not included)
    init: tuple[Atom, ...]
    goal: Formula
    warnings: tuple[Diagnostic, ...] = field(default=(), compare=False)
    unknown: tuple[Atom, ...] = ()  # a contingent problem's '(unknown a)' atoms
    clauses: tuple[InitClause, ...] = ()  # and its 'oneof' / 'or' / 'at-most-one' ones
    hidden: tuple[tuple[Atom, ...], ...] = ()  # its ':hidden' worlds: the true unknown atoms

    def __post_init__(self) -> None:
        _freeze(self, "objects")
