"""Goals that no reachable state satisfies, proved without grounding or search.

A language model often writes an exploration goal such as ``(exists (?r) (and (at ?r)
(not (visited ?r))))`` in a domain whose every move to ``?r`` also marks ``?r``
visited: the goal is reachable in the delete relaxation, so only an exhaustive search
could refute it, and the visited sets make that search exponential.

Here two literals that the goal conjoins are shown never to hold together, by
induction over the lifted domain (a mutex invariant): not both hold initially, and
every effect that can make one of them true leaves the other false, because the same
action surely makes the other false (an unconditional effect) or its precondition
needs the other false and no effect of the action can make it true. Literals are
matched by unifying their terms, types are ignored and anything unusual (a quantified
effect on the two predicates, literals over different variables, two negative
literals) gives up, so a proof is sound: the goal has no plan.
"""

from __future__ import annotations

from collections.abc import Iterator

from .deadline import Check
from .model import (
    And,
    Atom,
    Domain,
    Effect,
    Exists,
    ForallEffect,
    Formula,
    Literal,
    Not,
    Or,
    Problem,
    When,
)

Lit = tuple[bool, Atom]  # (holds when true, atom)
_GOAL = "goal:"  # prefix that keeps the goal's variables apart from an action's


def impossible_pair(
    domain: Domain, problem: Problem, check: Check | None = None
) -> tuple[str, str] | None:
    """Two literals (as PDDL text) that the goal needs together and that no reachable
    state has, when that makes the whole goal unreachable; else None. ``check`` is called
    before each pair of literals (it may raise SearchTimeout: pairs grow with the square
    of the goal)."""
    return _impossible(problem.goal, domain, frozenset(problem.init), check or _no_check)


def _no_check() -> None:
    pass


def _impossible(
    f: Formula, domain: Domain, init: frozenset[Atom], check: Check
) -> tuple[str, str] | None:
    if isinstance(f, Exists):
        return _impossible(f.body, domain, init, check)
    if isinstance(f, Or):
        each = [_impossible(part, domain, init, check) for part in f.args]
        return each[0] if each and None not in each else None
    if not isinstance(f, And):
        return None
    for part in f.args:
        if (found := _impossible(part, domain, init, check)) is not None:
            return found
    literals = list(_literals(f))
    for i, a in enumerate(literals):
        for b in literals[i + 1 :]:
            check()
            if mutex(domain, init, a, b):
                return _text(a), _text(b)
    return None


def _literals(f: And) -> Iterator[Lit]:
    """The literals a conjunction conjoins, nested conjunctions included."""
    for part in f.args:
        if isinstance(part, And):
            yield from _literals(part)
        elif (literal := _literal(part)) is not None:
            yield literal[0], _rename(literal[1])


def _rename(atom: Atom) -> Atom:
    return Atom(atom.predicate, tuple(_GOAL + t if t.startswith("?") else t for t in atom.args))


def _text(literal: Lit) -> str:
    positive, atom = literal
    text = str(Atom(atom.predicate, tuple(t.removeprefix(_GOAL) for t in atom.args)))
    return text if positive else f"(not {text})"


def mutex(domain: Domain, init: frozenset[Atom], a: Lit, b: Lit) -> bool:
    """Whether no state reachable from ``init`` makes both literals true, for every value
    of their variables (proved, see the module's docstring; False when not proved)."""
    if _variables(a[1]) != _variables(b[1]) or not (a[0] or b[0]):
        return False
    if _hold_together(init, a, b) or _hold_together(init, b, a):
        return False
    return all(
        _preserves(action, a, b) and _preserves(action, b, a) for action in domain.actions.values()
    )


def _variables(atom: Atom) -> set[str]:
    return {t for t in atom.args if _is_variable(t)}


def _hold_together(init: frozenset[Atom], a: Lit, b: Lit) -> bool:
    """Whether ``init`` makes both true for some value of their variables (``a``
    positive; else False, and the call with the two swapped decides)."""
    if not a[0]:
        return False
    for fact in init:
        if (
            fact.predicate == a[1].predicate
            and (match := _unify(a[1].args, fact.args, {})) is not None
        ):
            other = Atom(b[1].predicate, tuple(_resolve(t, match) for t in b[1].args))
            if (other in init) == b[0]:
                return True
    return False


def _preserves(action, made: Lit, other: Lit) -> bool:
    """Whether each effect of ``action`` that can make ``made`` true leaves ``other``
    false (for the same values of their variables)."""
    for effect, quantified in _effect_literals(action.effects):
        if effect.atom.predicate != made[1].predicate or effect.negated == made[0]:
            continue
        if quantified:
            return False
        match = _unify(made[1].args, effect.atom.args, {})
        if match is not None and not _falsified(action, other, match):
            return False
    return True


def _falsified(action, other: Lit, match: dict[str, str]) -> bool:
    """Whether ``other`` (its terms bound by ``match``) is false once ``action`` ran."""
    positive, atom = other
    args = _resolved(atom.args, match)
    can_make_true = any(
        e.atom.predicate == atom.predicate and e.negated != positive
        for e, _ in _effect_literals(action.effects)
    )
    makes_false = any(
        isinstance(e, Literal) and e.negated == positive and _same(e.atom, atom, args, match)
        for e in action.effects
    )
    if makes_false and (not positive or not can_make_true):  # an add overrides a delete
        return True
    needs_false = any(
        literal[0] != positive and _same(literal[1], atom, args, match)
        for literal in map(_literal, _conjuncts(action.precondition))
        if literal
    )
    return needs_false and not can_make_true


def _same(candidate: Atom, atom: Atom, args: tuple[str, ...], match: dict[str, str]) -> bool:
    return candidate.predicate == atom.predicate and _resolved(candidate.args, match) == args


def _literal(f: Formula) -> Lit | None:
    if isinstance(f, Atom):
        return True, f
    if isinstance(f, Not) and isinstance(f.arg, Atom):
        return False, f.arg
    return None


def _effect_literals(
    effects: tuple[Effect, ...], quantified: bool = False
) -> Iterator[tuple[Literal, bool]]:
    """Every literal effect, conditional or not, and whether a ``forall`` binds it."""
    for effect in effects:
        if isinstance(effect, Literal):
            yield effect, quantified
        elif isinstance(effect, When):
            yield from _effect_literals(effect.effects, quantified)
        elif isinstance(effect, ForallEffect):
            yield from _effect_literals(effect.effects, True)


def _conjuncts(f: Formula) -> Iterator[Formula]:
    if isinstance(f, And):
        for part in f.args:
            yield from _conjuncts(part)
    else:
        yield f


def _resolve(term: str, match: dict[str, str]) -> str:
    while term in match:
        term = match[term]
    return term


def _resolved(terms: tuple[str, ...], match: dict[str, str]) -> tuple[str, ...]:
    return tuple(_resolve(t, match) for t in terms)


def _unify(
    left: tuple[str, ...], right: tuple[str, ...], match: dict[str, str]
) -> dict[str, str] | None:
    """A most general unifier of two term lists (variables start with ``?`` or the goal
    prefix), extending ``match``; None when they cannot be equal."""
    if len(left) != len(right):
        return None
    match = dict(match)
    for x, y in zip(left, right, strict=True):
        x, y = _resolve(x, match), _resolve(y, match)
        if x == y:
            continue
        if _is_variable(x):
            match[x] = y
        elif _is_variable(y):
            match[y] = x
        else:
            return None
    return match


def _is_variable(term: str) -> bool:
    return term.startswith(("?", _GOAL))
