"""A domain's text read into a :class:`~.model.Domain`: its requirements, types,
constants, predicates and actions (with the contingent dialects' sections, see
:mod:`.dialects`); :func:`.reader.parse_domain` is the way in."""

from __future__ import annotations

import os
from dataclasses import replace

from . import dialects
from .collection import collection_paused
from .diagnostics import quote
from .formula_reader import FormulaReader
from .model import ROOT_TYPE, Action, And, Domain, Param, Predicate, UnreadAction
from .reading import Reader, count_names, declare, entries, has_objects, read_sections
from .sexpr import SList, Sym
from .source import Limits

SUPPORTED_REQUIREMENTS = frozenset(
    {
        ":strips",
        ":typing",
        ":negative-preconditions",
        ":disjunctive-preconditions",
        ":equality",
        ":existential-preconditions",
        ":universal-preconditions",
        ":quantified-preconditions",
        ":conditional-effects",
        ":adl",
        ":action-costs",
    }
)
UNSUPPORTED_REQUIREMENTS = frozenset(
    {
        ":durative-actions",
        ":duration-inequalities",
        ":continuous-effects",
        ":numeric-fluents",
        ":fluents",
        ":object-fluents",
        ":derived-predicates",
        ":timed-initial-literals",
        ":preferences",
        ":constraints",
    }
)


@collection_paused()
def read_domain(
    source: str | os.PathLike, limits: Limits, strict: bool, contingent: bool
) -> Domain:
    """The domain of ``source`` (a path or PDDL text), read afresh (:func:`.reader.parse_domain`
    keeps it); a PDDLError holds every error found."""
    r, form, name, found = read_sections(source, "domain", limits, strict, contingent)
    for key, parts in found.items():
        if key not in (
            ":requirements",
            ":types",
            ":constants",
            ":predicates",
            ":functions",
            ":action",
        ) and not (contingent and key in _DIALECT_DOMAIN):
            what = "derived predicates are" if key == ":derived" else f"section {quote(key)} is"
            r.error(f"{what} not supported", parts[0])
    requirements = _requirements(r, entries(found, ":requirements"))
    body = entries(found, ":types")
    limits.check("max_types", count_names(body), "domain", "types")
    types = _types(r, body, limits)
    body = entries(found, ":constants")
    limits.check("max_objects", count_names(body), "domain", "constants")
    constants = declare(
        r, r.declarations(body, variables=False, known_types=types), types, "constant"
    )
    predicates = _predicates(r, entries(found, ":predicates"), types)
    functions = tuple(str(n[0]) for n in entries(found, ":functions") if isinstance(n, SList) and n)
    fr = FormulaReader(r, (types, predicates, functions), constants)
    actions: dict[str, Action] = {}
    unread: list[UnreadAction] = []
    models: dict = {}  # an action's sensing model: its rules and scope
    for node in found.get(":action", []) + found.get(":sensor", []):
        before = len(r.errors)
        if node[0] == ":sensor":
            action = dialects.read_sensor(r, fr, node)
        else:
            action = _read_action(r, fr, node, models)
        if action is None:
            continue
        if action.name in actions:
            r.error(f"duplicate action {quote(action.name)}", node[1])
        empty = [p.types for p in action.params if not has_objects(types, constants, p.types)]
        if len(r.errors) > before and empty and not r.strict:
            unread.append(_leave_out(r, action, before, empty[0]))
            continue
        actions[action.name] = action
    for node in found.get(":default-sensing-model", [])[:1]:  # cp2fsc: each action's but
        if len(node) != 2:  # those with a sensing model of their own or an ':observe'
            r.error("expected '(:default-sensing-model RULES)'", node)
            continue
        rules = dialects.rules(r, fr, node[1], {}, "a ':default-sensing-model'")
        for name, action in actions.items():
            if name not in models and not action.observe:
                models[name] = (rules, {})
    variables, derived = _read_variables(r, fr, found, actions, models, predicates)
    r.raise_if_errors()
    return Domain(
        str(name),
        requirements,
        types,
        constants,
        predicates,
        actions,
        functions,
        tuple(fr.external_constants),
        tuple(r.warnings),
        tuple(unread),
        variables=variables,
        derived=derived,
    )


_DIALECT_DOMAIN = (":sensor", ":variable", ":obs-variable", ":default-sensing-model")


def _read_variables(r: Reader, fr: FormulaReader, found, actions, models, predicates):
    """cp2fsc's ``:variable`` and ``:obs-variable`` sections, and the sensing models of
    ``actions`` compiled (replacing ``actions``' entries): (the state variables, the
    facts the observations define)."""
    variables, observable = [], set()
    names: set[str] = set()
    for key in (":variable", ":obs-variable"):
        for node in found.get(key, []):
            variable = dialects.read_variable(r, fr, node)
            if variable is None:
                continue
            if variable.name in names:
                where = node[1][0] if isinstance(node[1], SList) else node[1]
                r.error(f"duplicate variable {quote(variable.name)}", where)
                continue
            names.add(variable.name)
            if key == ":obs-variable":
                observable |= {value.atom.predicate for value in variable.values}
            else:
                variables.append((variable, node))
    moving = {v.atom.predicate for variable, _ in variables for v in variable.values}
    moving |= observable | {
        lit.atom.predicate for a in actions.values() for lit in dialects.effect_literals(a.effects)
    }
    fixed = set(predicates) - moving
    for variable, node in variables:
        dialects.check_values(r, variable, node, fixed)
    compiled, derived = dialects.compile_sensing(r, actions, models, observable, fixed)
    actions.clear()
    actions.update(compiled)
    return tuple(v for v, _ in variables), derived


def _leave_out(r: Reader, action: Action, before: int, empty: tuple[str, ...]) -> UnreadAction:
    """Move the errors since ``before`` into an UnreadAction (FF's reading of an action
    whose parameter type ``empty`` no constant has), with a warning for the first."""
    errors = tuple(r.errors[before:])
    del r.errors[before:]
    first = errors[0]
    r.warnings.append(
        replace(
            first,
            severity="warning",
            message=(
                f"{first.message}; read as no action {quote(action.name)}, as FF reads it while no "
                f"object has type {quote(' or '.join(empty))}"
            ),
        )
    )
    return UnreadAction(action.name, tuple(p.types for p in action.params), errors)


def _requirements(r: Reader, body) -> tuple[str, ...]:
    requirements = []
    for req in body:
        if not isinstance(req, Sym):
            r.error("expected a requirement such as ':strips', found a list", req)
        elif req in SUPPORTED_REQUIREMENTS or (r.contingent and req == ":contingent"):
            requirements.append(str(req))
        else:
            defect = "unsupported" if req in UNSUPPORTED_REQUIREMENTS else "unknown"
            # what it would allow is refused where it is used
            r.tolerate(
                f"{defect} requirement {quote(req)}",
                "not required: what it adds is refused where it is used",
                req,
            )
    return tuple(dict.fromkeys(requirements))


def _types(r: Reader, body, limits: Limits) -> dict[str, str]:
    """Each declared type -> its parent. A type listed among its own subtypes is a type of
    its own; a parent never declared is a subtype of ``object``; a type declared twice
    under one parent (or under ``object`` and a parent) is declared once."""
    types: dict[str, str] = {}
    pairs = r.typed_list(body, variables=False, known_types=_AnyType())
    for type_name, parents in pairs:
        if len(parents) != 1:
            r.error("a type's parent cannot be '(either ...)'", type_name)
        parent, old = parents[0], types.get(type_name)
        if type_name == ROOT_TYPE:
            continue
        if parent == type_name:
            r.tolerate(
                f"type {quote(type_name)} is listed among its own subtypes",
                "a type of its own",
                type_name,
            )
            types.setdefault(str(type_name), ROOT_TYPE)
        elif old is not None and ROOT_TYPE not in (old, parent) and old != parent:
            r.error(
                f"type {quote(type_name)} is declared twice, under {quote(old)} and under "
                f"{quote(parent)}",
                type_name,
            )
        elif old is None or r.tolerate(
            f"duplicate type {quote(type_name)}", "one declaration", type_name
        ):
            types[str(type_name)] = parent if old in (None, ROOT_TYPE) else old
    for parent in dict.fromkeys(parents[0] for _, parents in pairs):
        if parent != ROOT_TYPE and parent not in types:
            r.undeclared_type(parent, types)
    _check_type_depth(r, types, body, limits)
    return types


def _predicates(r: Reader, body, types: dict[str, str]) -> dict[str, Predicate]:
    predicates: dict[str, Predicate] = {}
    for node in body:
        if not isinstance(node, SList) or not node or not isinstance(node[0], Sym):
            r.error("expected a predicate declaration '(name ?x ...)'", node)
            continue
        pairs = r.typed_list(node[1:], variables=True, known_types=types)
        predicate = Predicate(str(node[0]), tuple(Param(str(n), t) for n, t in pairs))
        if node[0] in predicates:
            if [p.types for p in predicates[node[0]].params] != [p.types for p in predicate.params]:
                r.error(
                    f"predicate {quote(node[0])} is declared twice, with different arguments",
                    node[0],
                )
            else:
                r.tolerate(f"duplicate predicate {quote(node[0])}", "one declaration", node[0])
            continue
        predicates[str(node[0])] = predicate
    return predicates


class _AnyType:
    """Accepts every type name: in ':types' a parent may be declared later."""

    def __contains__(self, item) -> bool:
        return True


def _check_type_depth(r: Reader, types: dict[str, str], body, limits: Limits) -> None:
    """An error for each cycle of parents (``a - b``, ``b - a``), naming its types once;
    :class:`PDDLError` for a type more than ``limits.max_type_depth`` deep. Each type is
    walked once."""
    nodes: dict[str, Sym] = {}
    for node in body:
        if isinstance(node, Sym):
            nodes.setdefault(str(node), node)
    depth: dict[str, int] = {}  # types above each type; -1 on a cycle
    for start in types:
        path, on_path, t = [], set(), start
        while t in types and t not in depth and t not in on_path:
            path.append(t)
            on_path.add(t)
            t = types[t]
        if t in on_path:
            cycle = path[path.index(t) :]
            r.error(
                f"the types {', '.join(quote(c) for c in cycle)} are each other's "
                f"ancestors ({' - '.join(cycle + [t])})",
                nodes.get(cycle[0]),
            )
            depth.update((c, -1) for c in cycle)
            path = path[: path.index(t)]
        above = depth.get(t, 0)
        for n in reversed(path):
            above = -1 if above < 0 else above + 1
            depth[n] = above
        if depth[start] > limits.max_type_depth:
            r.errors.append(
                r.diagnostic(
                    limits.exceeded(
                        "max_type_depth", f"type {quote(start)} has {depth[start]:,} types above it"
                    ),
                    nodes.get(start),
                )
            )
            r.raise_if_errors()


def _read_action(
    r: Reader, fr: FormulaReader, node: SList, models: dict | None = None
) -> Action | None:
    """An action; in the contingent reading, a ``:sensing-model``'s rules and scope go
    to ``models`` (name -> them) for :func:`.dialects.compile_sensing`."""
    if len(node) < 2 or not isinstance(node[1], Sym):
        r.error("expected '(:action NAME ...)'", node)
        return None
    name = node[1]
    fields: dict[str, object] = {}
    items = node[2:]
    i = 0
    while i < len(items):
        key = items[i]
        if not isinstance(key, Sym) or not key.startswith(":"):
            r.error(
                f"expected ':parameters', ':precondition' or ':effect' in action {quote(name)}", key
            )
            return None
        if i + 1 >= len(items):
            r.error(f"{quote(key)} of action {quote(name)} has no value", key)
            return None
        value, i = items[i + 1], i + 2
        if r.contingent and key == ":observe":  # atoms, maybe several without an 'and'
            value = [value]
            while i < len(items) and not (isinstance(items[i], Sym) and items[i].startswith(":")):
                value.append(items[i])
                i += 1
        if key not in (":parameters", ":precondition", ":effect") and not (
            r.contingent and key in (":observe", ":sensing-model")
        ):
            r.error(f"unsupported action field {quote(key)}", key)
            continue
        if key in fields:
            r.error(f"duplicate {quote(key)} in action {quote(name)}", key)
        fields[str(key)] = value
    params, scope = fr.params(fields.get(":parameters", SList()), {})
    precondition = (
        fr.formula(fields[":precondition"], scope) if ":precondition" in fields else And(())
    )
    if ":observe" in fields:
        if ":effect" in fields:
            r.error(
                f"sensing action {quote(name)} has an ':effect': a sensing action only observes",
                name,
            )
        if ":sensing-model" in fields:
            r.error(f"action {quote(name)} has both ':observe' and ':sensing-model'", name)
        return Action(
            str(name),
            params,
            precondition,
            (),
            dialects.observed(r, fr, fields[":observe"], scope),  # type: ignore[arg-type]
        )
    if ":sensing-model" in fields and models is not None:
        models[str(name)] = (
            dialects.rules(r, fr, fields[":sensing-model"], scope, "a ':sensing-model'"),
            scope,
        )
    elif ":effect" not in fields:
        r.error(f"action {quote(name)} has no ':effect'", name)
    effects = fr.effect(fields[":effect"], scope) if ":effect" in fields else []
    return Action(str(name), params, precondition, tuple(effects))
