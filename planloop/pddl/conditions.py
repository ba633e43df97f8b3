"""Ground conditions over fact ids: build, simplify, compile to fast tests, explain.

A ground condition is ``True``, ``False``, ``("atom", fact_id)``, ``("not", c)``,
``("and", (c, ...))`` or ``("or", (c, ...))``. States are Python ints used as bitsets.
"""

from __future__ import annotations

from typing import Callable, Union

Condition = Union[bool, tuple]


def atom(fact_id: int) -> Condition:
    return ("atom", fact_id)


def negate(c: Condition) -> Condition:
    if c is True or c is False:
        return not c
    if c[0] == "not":
        return c[1]
    return ("not", c)


def conjoin(parts) -> Condition:
    return _junction("and", parts, absorbing=False)


def disjoin(parts) -> Condition:
    return _junction("or", parts, absorbing=True)


def _junction(kind: str, parts, absorbing: bool) -> Condition:
    flat = []
    for part in parts:
        if part is absorbing:
            return absorbing
        if part is (not absorbing):
            continue
        if part[0] == kind:
            flat.extend(part[1])
        else:
            flat.append(part)
    if not flat:
        return not absorbing
    if len(flat) == 1:
        return flat[0]
    return (kind, tuple(flat))


def literal_ids(
    c: Condition,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[Condition, ...]] | None:
    """Split a conjunction into (positive fact ids, negated fact ids, other parts), each
    in its order without repeats; None if False."""
    if c is False:
        return None
    parts = () if c is True else (c[1] if c[0] == "and" else (c,))
    pos: dict[int, None] = {}
    neg: dict[int, None] = {}
    rest = []
    for part in parts:
        if part[0] == "atom":
            pos[part[1]] = None
        elif part[0] == "not" and part[1][0] == "atom":
            neg[part[1][1]] = None
        else:
            rest.append(part)
    return tuple(pos), tuple(neg), tuple(rest)


def literal_masks(c: Condition) -> tuple[int, int, tuple[Condition, ...]] | None:
    """Split a conjunction into (positive mask, negative mask, other parts); None if False."""
    literals = literal_ids(c)
    if literals is None:
        return None
    pos, neg, rest = literals
    return sum(1 << f for f in pos), sum(1 << f for f in neg), rest


def compile_condition(c: Condition) -> Callable[[int], bool]:
    """A function state -> bool that tests ``c``."""
    if c is True or c is False:
        value = c
        return lambda s: value
    kind = c[0]
    if kind == "atom":
        bit = 1 << c[1]
        return lambda s: bool(s & bit)
    if kind == "not":
        inner = compile_condition(c[1])
        return lambda s: not inner(s)
    if kind == "or":
        tests = tuple(compile_condition(p) for p in c[1])
        return lambda s: any(t(s) for t in tests)
    masks = literal_masks(c)
    assert masks is not None  # c is not False (returned above)
    pos, neg, rest = masks
    tests = tuple(compile_condition(p) for p in rest)
    if not tests:
        return lambda s: s & pos == pos and not s & neg
    return lambda s: s & pos == pos and not s & neg and all(t(s) for t in tests)


def unmet_literals(c: Condition, state: int) -> list[tuple[int, bool]]:
    """The literals (fact id, wanted value) that keep ``c`` false in ``state``.

    For a disjunction every false disjunct's literals are listed: any one repair is
    enough. A condition that can never hold (a false static fact) has none to list.
    """
    if c is True or c is False:
        return []
    kind = c[0]
    if kind == "atom":
        return [] if state >> c[1] & 1 else [(c[1], True)]
    if kind == "not":
        inner = c[1]
        if inner[0] == "atom":
            return [(inner[1], False)] if state >> inner[1] & 1 else []
        return [] if not holds(inner, state) else _negated_unmet(inner, state)
    out: list[tuple[int, bool]] = []
    if kind == "and" or not holds(c, state):
        for part in c[1]:
            if not holds(part, state):
                out.extend(p for p in unmet_literals(part, state) if p not in out)
    return out


def _negated_unmet(c: Condition, state: int) -> list[tuple[int, bool]]:
    """Literals that make ``c`` true in ``state`` (so that ``not c`` fails)."""
    assert not isinstance(c, bool)  # a negated condition or a junction's part: a tuple
    if c[0] == "atom":
        return [(c[1], False)]
    if c[0] == "not":
        return unmet_literals(c[1], state)
    return [lit for part in c[1] if holds(part, state) for lit in _negated_unmet(part, state)]


def holds(c: Condition, state: int) -> bool:
    return compile_condition(c)(state)
