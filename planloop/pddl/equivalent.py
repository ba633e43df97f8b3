"""Whether two problems of one domain are the same task up to a renaming of objects.

Each problem becomes a set of labelled hyperedges over its objects (the init facts, and
the goal's atoms with their polarity). Colour refinement over both at once (type, then
the labels and positions an object takes part in, then its neighbours' colours, until
stable) splits the objects into classes; a depth-first search then pairs each object
with one of the same class, checking every edge whose objects are all paired.
"""

from __future__ import annotations

import heapq
import os
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice, product
from typing import Callable, Iterator

from .diagnostics import quote
from .model import (
    TRUE,
    And,
    Atom,
    Domain,
    Equals,
    Exists,
    Forall,
    Formula,
    Imply,
    Not,
    Or,
    Problem,
    map_formula,
)
from .reader import parse_domain, parse_problem
from .source import DEFAULT_LIMITS, Limits

FALSE = Or(())
MAX_MAPPINGS = 1_000  # renamings tried before the goal is judged different
MAX_NODES = 50_000  # search steps, over all searches of one comparison, before giving up
MAX_TABLE_ATOMS = 18  # goal atoms up to which equivalence is decided by truth tables
MAX_EXPANSION = 100_000  # atoms a goal's quantifiers may expand to
MAX_SWAP_OBJECTS = 100  # objects of one type whose pairs are tried to improve an explanation

Edge = tuple[tuple, tuple[str, ...]]  # (label, args)
ObjectMap = dict[str, str]  # an object of one side -> its image on the other


@dataclass(frozen=True)
class Equivalence:
    """What :func:`equivalent` found.

    ``equal``: the init facts and the goals match under one renaming (``mapping``, a's
    objects -> b's; empty when no renaming matches the init facts). ``goal_equal``: the
    goals match structurally (under ``mapping``, or when the init facts differ, under a
    renaming of their own); ``goal_equivalent``: they hold in the same states (see
    :func:`equivalent`). ``reason`` says why they are not equal; "" when they are.
    """

    equal: bool
    mapping: ObjectMap = field(default_factory=dict)
    init_equal: bool = False
    goal_equal: bool = False
    goal_equivalent: bool = False
    reason: str = ""

    def __bool__(self) -> bool:
        return self.equal


def equivalent(
    domain: str | os.PathLike | Domain,
    problem_a: str | os.PathLike | Problem,
    problem_b: str | os.PathLike | Problem,
    limits: Limits = DEFAULT_LIMITS,
) -> Equivalence:
    """Whether ``problem_a`` and ``problem_b`` (paths, PDDL text or parsed problems) of
    ``domain`` are one task up to a renaming of objects, whatever their order and the
    order of their facts.

    A renaming maps each object to one of exactly the same declared type; the domain's
    constants map to themselves. Goals are compared with conjunctions and disjunctions
    read as sets (nested ones flattened, duplicates dropped). ``goal_equivalent`` tells
    whether the goals hold in the same states under the renaming: each goal's
    quantifiers are expanded over the objects, its atoms of static predicates (that no
    action changes) and its equalities are replaced by their truth in the problem's own
    init, and the two propositional formulas left are compared by truth tables when they
    have at most 18 atoms between them, else by their normal forms (exact for
    conjunctions of literals, else it may miss an equivalence). At most 1,000 renamings
    are tried for the goal.
    """
    d = domain if isinstance(domain, Domain) else parse_domain(domain, limits)
    a, b = (
        p if isinstance(p, Problem) else parse_problem(p, d, limits) for p in (problem_a, problem_b)
    )
    reason = _header_reason(a, b)
    if reason:
        return Equivalence(False, reason=reason)
    return _compare(_Side(d, a), _Side(d, b))


def _header_reason(a: Problem, b: Problem) -> str:
    """Why no renaming can exist: another domain, or other numbers of objects per type."""
    if a.domain_name != b.domain_name:
        return (
            f"domain name mismatch: a is a problem of {quote(a.domain_name)}, "
            f"b of {quote(b.domain_name)}"
        )
    count_a, count_b = Counter(a.objects.values()), Counter(b.objects.values())
    for t in sorted(count_a.keys() | count_b.keys()):
        if count_a[t] != count_b[t]:
            return (
                f"different numbers of objects of type {quote(t)}: {count_a[t]} in a, "
                f"{count_b[t]} in b"
            )
    return ""


class _Side:
    """One problem as the comparison sees it."""

    def __init__(self, domain: Domain, problem: Problem):
        self.domain, self.problem = domain, problem
        self.objects = problem.objects
        self.init_order = tuple(dict.fromkeys(problem.init))
        self.init = frozenset(self.init_order)
        self.goal = problem.goal

    @cached_property
    def simple(self) -> Formula | None:
        """The goal simplified by :func:`_simplify`."""
        return _simplify(self.domain, self.problem, self.init)

    def graph(self, goal: Formula | None = None, init: bool = True) -> _Graph:
        """The init facts (when ``init``) and ``goal``'s literals as labelled edges."""
        edges: set[Edge] = {(("init", f.predicate), f.args) for f in self.init} if init else set()
        if goal is not None:
            edges |= {(("goal", positive, f.predicate), f.args) for positive, f in _literals(goal)}
        return _Graph(self.objects, edges)


def _compare(a: _Side, b: _Side) -> Equivalence:
    """Search a renaming for init and goal, then for init alone, and explain."""
    goal_b = _key(b.goal)

    def structural(m: ObjectMap) -> bool:
        return _key(_rename(a.goal, m)) == goal_b

    def semantic(m: ObjectMap) -> bool:
        # Searched with only when both goals simplified (_semantic_search, ``tables``).
        assert a.simple is not None and b.simple is not None
        return _same_states(_rename(a.simple, m), b.simple)

    budget = _Budget(MAX_NODES)
    found = _Search(a.graph(a.goal), b.graph(b.goal), budget).first(structural)[1]
    if found is not None:
        return Equivalence(True, found, True, True, True)
    init = _Search(a.graph(), b.graph(), budget)
    first = same = _semantic_search(a, b, semantic, budget, init=True)
    if same is None:
        tables = (
            a.simple is not None
            and b.simple is not None
            and not _literal_conjunction(a.simple, b.simple)
        )
        first, same = init.first(semantic if tables else None)
        same = same if tables else None
    if first is not None:
        reason = _goal_reason(a.goal, b.goal, same or first)
        if same is not None:
            reason += "; the goals hold in the same states given the static facts"
        return Equivalence(False, same or first, True, False, same is not None, reason)
    decided = budget.left >= 0
    goal_equal = (
        _Search(a.graph(a.goal, init=False), b.graph(b.goal, init=False), budget).first(structural)[
            1
        ]
        is not None
    )
    goal_equivalent = goal_equal or _semantic_search(a, b, semantic, budget, init=False) is not None
    reason = (
        _init_reason(a, b, _best_effort(a.graph(), b.graph()))
        if decided
        else f"undecided: no renaming found within {MAX_NODES:,} search steps (they may still be equal)"
    )
    return Equivalence(False, {}, False, goal_equal, goal_equivalent, reason)


def _semantic_search(a: _Side, b: _Side, semantic, budget: _Budget, init: bool) -> ObjectMap | None:
    """A renaming (matching the init facts too when ``init``) that maps the atoms of
    the simplified goals onto each other and under which they hold in the same states."""
    if a.simple is None or b.simple is None:
        return None
    return _Search(a.graph(a.simple, init), b.graph(b.simple, init), budget).first(semantic)[1]


def _literal_conjunction(*formulas: Formula) -> bool:
    """Whether each formula is a literal or a conjunction of literals (or a constant)."""

    def literal(f):
        return isinstance(f, Atom) or isinstance(f, Not) and isinstance(f.arg, Atom)

    return all(
        literal(f) or isinstance(f, And) and all(map(literal, f.args)) or f == FALSE
        for f in formulas
    )


# -- the search --------------------------------------------------------------------
class _Graph:
    """A problem's objects and labelled hyperedges, indexed by edge and position."""

    def __init__(self, objects: Mapping[str, str], edges: set[Edge]):
        self.objects = objects
        self.edges = edges
        self.incident: dict[str, list[tuple]] = {x: [] for x in objects}
        self.fixed_terms: set[str] = set()
        for label, args in edges:
            for pos, term in enumerate(args):
                if term in objects:
                    self.incident[term].append((label, pos, args))
                else:
                    self.fixed_terms.add(term)
        self.fixed = {e for e in edges if not any(t in objects for t in e[1])}

    @cached_property
    def index(self) -> dict[tuple, set[str]]:
        """(label, position, the other args) -> the objects at that position."""
        index = defaultdict(set)
        for label, args in self.edges:
            for pos, term in enumerate(args):
                if term in self.objects:
                    index[label, pos, args[:pos] + args[pos + 1 :]].add(term)
        return index


@dataclass
class _Budget:
    """What a comparison may still spend: search steps, or atoms of an expansion."""

    left: int


class _Search:
    """The renamings of ``ga``'s objects onto ``gb``'s that map every edge onto an edge."""

    def __init__(self, ga: _Graph, gb: _Graph, budget: _Budget):
        self.ga, self.gb, self.budget = ga, gb, budget

    def first(
        self, ok: Callable[[ObjectMap], bool] | None
    ) -> tuple[ObjectMap | None, ObjectMap | None]:
        """(The first renaming, the first of at most MAX_MAPPINGS that ``ok`` accepts)."""
        first = None
        for m in islice(self.mappings(), MAX_MAPPINGS):
            first = m if first is None else first
            if ok is None or ok(m):
                return first, m
        return first, None

    def mappings(self) -> Iterator[ObjectMap]:
        ga, gb = self.ga, self.gb
        if ga.fixed != gb.fixed or len(ga.edges) != len(gb.edges):
            return
        colours = _refine(ga, gb)
        if colours is None:
            return
        ca, cb = colours
        classes = defaultdict(list)
        for obj in sorted(cb):
            classes[cb[obj]].append(obj)
        order = _order(ga, ca, classes)
        if not order:
            yield {}
            return
        mapping: ObjectMap = {}
        used: set[str] = set()

        def candidates(x: str) -> Iterator[str]:
            return iter(_candidates(ga, gb, x, mapping, used, classes[ca[x]], ca[x], cb))

        stack = [candidates(order[0])]
        while stack:
            x = order[len(stack) - 1]
            if x in mapping:
                used.discard(mapping.pop(x))
            y = next(stack[-1], None)
            if y is None:
                stack.pop()
                continue
            self.budget.left -= 1
            if self.budget.left < 0:
                return
            mapping[x] = y
            used.add(y)
            if len(stack) == len(order):
                yield dict(mapping)
            else:
                stack.append(candidates(order[len(stack)]))


def _candidates(
    ga: _Graph,
    gb: _Graph,
    x: str,
    mapping: ObjectMap,
    used: set[str],
    same_colour: list[str],
    colour: int,
    cb: dict[str, int],
) -> list[str]:
    """``gb``'s free objects of ``x``'s class under which each edge of ``x`` whose other
    objects are paired maps onto an edge of ``gb``."""
    pool, repeated = None, []
    for label, pos, args in ga.incident[x]:
        others = args[:pos] + args[pos + 1 :]
        pending = [t for t in others if t in ga.objects and t not in mapping]
        if not pending:
            found = gb.index.get((label, pos, tuple(mapping.get(t, t) for t in others)), set())
            pool = set(found) if pool is None else pool & found
            if not pool:
                return []
        elif all(t == x for t in pending):
            repeated.append((label, args))
    ys = same_colour if pool is None else sorted(y for y in pool if cb[y] == colour)
    return [
        y
        for y in ys
        if y not in used
        and all(
            (label, tuple(y if t == x else mapping.get(t, t) for t in args)) in gb.edges
            for label, args in repeated
        )
    ]


def _refine(ga: _Graph, gb: _Graph) -> tuple[dict[str, int], dict[str, int]] | None:
    """Both graphs' stable colourings, from one shared palette; None when their colour
    counts differ, so that no renaming exists."""
    codes: dict = {}
    ca, cb = _initial_colours(ga, codes), _initial_colours(gb, codes)
    count = 0
    while True:
        if Counter(ca.values()) != Counter(cb.values()):
            return None
        new_count = len(set(ca.values()))
        if new_count in (count, len(ca)):
            return ca, cb
        count = new_count
        ca, cb = _refine_step(ga, ca, codes), _refine_step(gb, cb, codes)


def _initial_colours(g: _Graph, codes: dict) -> dict[str, int]:
    """Colour each fixed term (constant, variable) by its name and each object by its
    type and the positions of the labels it takes."""
    colours = {t: codes.setdefault(("fixed", t), len(codes)) for t in g.fixed_terms}
    for x, t in g.objects.items():
        signature = t, tuple(sorted((label, pos) for label, pos, _ in g.incident[x]))
        colours[x] = codes.setdefault(signature, len(codes))
    return colours


def _refine_step(g: _Graph, colours: dict[str, int], codes: dict) -> dict[str, int]:
    """Colour each object by its colour and its edges' labels and colours."""
    new = {t: colours[t] for t in g.fixed_terms}
    for x in g.objects:
        signature = (
            colours[x],
            tuple(
                sorted(
                    (label, pos, tuple(colours[t] for t in args))
                    for label, pos, args in g.incident[x]
                )
            ),
        )
        new[x] = codes.setdefault(signature, len(codes))
    return new


def _order(g: _Graph, colours: dict[str, int], classes: dict[int, list]) -> list[str]:
    """The objects in search order: smallest class first, then most edges to those
    already placed (so that placed neighbours narrow the candidates)."""
    size = {x: len(classes[colours[x]]) for x in g.objects}
    links: dict[str, int | None] = dict.fromkeys(g.objects, 0)
    heap = [(size[x], 0, x) for x in g.objects]
    heapq.heapify(heap)
    order: list[str] = []
    while heap:
        _, negative_links, x = heapq.heappop(heap)
        if links[x] is None or -negative_links != links[x]:
            continue
        links[x] = None
        order.append(x)
        for _, _, args in g.incident[x]:
            for t in args:
                n = links.get(t)
                if n is not None:
                    links[t] = n + 1
                    heapq.heappush(heap, (size[t], -(n + 1), t))
    return order


def _best_effort(ga: _Graph, gb: _Graph) -> ObjectMap:
    """A renaming that matches many edges, found greedily, to explain a mismatch: each
    object in search order goes to the free object that keeps most of its edges to
    objects already placed, then keeps its colour for more rounds of refinement."""
    levels = _colour_levels(ga, gb)
    last = levels[-1][0]
    classes = defaultdict(list)
    for x in ga.objects:
        classes[last[x]].append(x)
    by_colour: list[defaultdict[int, list[str]]] = [defaultdict(list) for _ in levels]
    for obj in sorted(gb.objects):
        for index, (_, cb) in zip(by_colour, levels, strict=True):
            index[cb[obj]].append(obj)
    free = set(gb.objects)
    mapping: ObjectMap = {}
    y: str | None

    def agreement(x: str, y: str) -> int:
        return sum(ca[x] == cb[y] for ca, cb in levels)

    for x in _order(ga, last, classes):
        near = sorted(y for y in _near(ga, gb, x, mapping) & free if gb.objects[y] == ga.objects[x])
        if near:
            y = max(near, key=lambda y: (_kept(ga, gb, x, y, mapping), agreement(x, y), y == x))
        else:
            y = next(
                (
                    y
                    for index, (ca, _) in zip(reversed(by_colour), reversed(levels), strict=True)
                    for y in index[ca[x]]
                    if y in free
                ),
                None,
            ) or min((y for y in free if gb.objects[y] == ga.objects[x]), default=None)
        if y is not None:
            mapping[x] = y
            free.discard(y)
    return _swap_improved(ga, gb, mapping)


def _swap_improved(ga: _Graph, gb: _Graph, mapping: ObjectMap) -> ObjectMap:
    """``mapping`` with the images of two objects of one type swapped while that keeps
    more edges (for types of at most MAX_SWAP_OBJECTS objects)."""
    groups = defaultdict(list)
    for x in mapping:
        groups[ga.objects[x]].append(x)
    pairs = [
        (x1, x2)
        for group in groups.values()
        if len(group) <= MAX_SWAP_OBJECTS
        for i, x1 in enumerate(group)
        for x2 in group[i + 1 :]
    ]
    improved = True
    while improved:
        improved = False
        for x1, x2 in pairs:
            edges = {(label, args) for x in (x1, x2) for label, _, args in ga.incident[x]}
            before = _count_kept(edges, mapping, gb)
            mapping[x1], mapping[x2] = mapping[x2], mapping[x1]
            if _count_kept(edges, mapping, gb) > before:
                improved = True
            else:
                mapping[x1], mapping[x2] = mapping[x2], mapping[x1]
    return mapping


def _count_kept(edges, mapping: ObjectMap, gb: _Graph) -> int:
    return sum((label, tuple(mapping.get(t, t) for t in args)) in gb.edges for label, args in edges)


def _colour_levels(ga: _Graph, gb: _Graph) -> list[tuple[dict[str, int], dict[str, int]]]:
    """Both graphs' colourings after each round of refinement, from one palette, until
    neither splits further (their counts may differ)."""
    codes: dict = {}
    levels = [(_initial_colours(ga, codes), _initial_colours(gb, codes))]
    while True:
        ca, cb = levels[-1]
        step = _refine_step(ga, ca, codes), _refine_step(gb, cb, codes)
        if all(
            len(set(new.values())) == len(set(old.values()))
            for new, old in zip(step, levels[-1], strict=True)
        ):
            return levels
        levels.append(step)


def _near(ga: _Graph, gb: _Graph, x: str, mapping: ObjectMap) -> set[str]:
    """``gb``'s objects that would keep one of ``x``'s edges to objects already paired."""
    near: set[str] = set()
    for label, pos, args in ga.incident[x]:
        others = args[:pos] + args[pos + 1 :]
        if all(t in mapping or t not in ga.objects for t in others):
            near |= gb.index.get((label, pos, tuple(mapping.get(t, t) for t in others)), set())
    return near


def _kept(ga: _Graph, gb: _Graph, x: str, y: str, mapping: ObjectMap) -> int:
    """How many of ``x``'s edges to paired objects become edges of ``gb`` with x -> y."""
    kept = 0
    for label, _, args in ga.incident[x]:
        image = tuple(
            y if t == x else mapping.get(t, t if t not in ga.objects else None) for t in args
        )
        kept += None not in image and (label, image) in gb.edges
    return kept


# -- explanations ------------------------------------------------------------------
def _init_reason(a: _Side, b: _Side, m: ObjectMap) -> str:
    inverse = {y: x for x, y in m.items()}
    for fact in a.init_order:
        image = _rename(fact, m)
        if image not in b.init:
            renamed = (
                f" (under the best renaming found it would be {image})" if image != fact else ""
            )
            return f"{fact} of a's init has no counterpart in b's init{renamed}"
    for fact in b.init_order:
        if _rename(fact, inverse) not in a.init:
            return f"{fact} of b's init has no counterpart in a's init"
    return "no renaming of the objects maps a's init onto b's init"


def _goal_reason(goal_a: Formula, goal_b: Formula, m: ObjectMap) -> str:
    inverse = {y: x for x, y in m.items()}
    literals_a, literals_b = set(_literals(goal_a)), set(_literals(goal_b))
    for positive, atom in _literals(goal_a):
        if (positive, _rename(atom, m)) not in literals_b:
            return (
                f"goal differs: {_literal_text(positive, atom)} of a's goal has no "
                f"counterpart in b's goal"
            )
    for positive, atom in _literals(goal_b):
        if (positive, _rename(atom, inverse)) not in literals_a:
            return (
                f"goal differs: {_literal_text(positive, atom)} of b's goal has no "
                f"counterpart in a's goal"
            )
    return "goal differs: the goals have the same atoms in a different structure"


def _literal_text(positive: bool, atom: Atom) -> str:
    return str(atom) if positive else f"(not {atom})"


# -- formulas ----------------------------------------------------------------------
def _literals(f: Formula, positive: bool = True) -> Iterator[tuple[bool, Atom]]:
    """The atoms of ``f`` with their polarity (false under an odd number of negations)."""
    if isinstance(f, Atom):
        yield positive, f
    elif isinstance(f, Not):
        yield from _literals(f.arg, not positive)
    elif isinstance(f, (And, Or)):
        for arg in f.args:
            yield from _literals(arg, positive)
    elif isinstance(f, Imply):
        yield from _literals(f.condition, not positive)
        yield from _literals(f.consequence, positive)
    elif isinstance(f, (Exists, Forall)):
        yield from _literals(f.body, positive)


def _rename(f, m: ObjectMap):
    """``f`` (an atom or a formula) with its objects renamed by ``m``."""

    def leaf(node):
        if isinstance(node, Atom):
            return Atom(node.predicate, tuple(m.get(t, t) for t in node.args))
        return Equals(m.get(node.left, node.left), m.get(node.right, node.right))

    return leaf(f) if isinstance(f, Atom) else map_formula(f, leaf)


def _key(f: Formula):
    """A hashable normal form: conjunctions and disjunctions as sets, nested ones
    flattened, a single member standing for itself."""
    if isinstance(f, Atom):
        return f
    if isinstance(f, Equals):
        return "=", frozenset((f.left, f.right))
    if isinstance(f, Not):
        return "not", _key(f.arg)
    if isinstance(f, Imply):
        return "imply", _key(f.condition), _key(f.consequence)
    if isinstance(f, (And, Or)):
        members = frozenset(_members(f))
        return next(iter(members)) if len(members) == 1 else (type(f).__name__, members)
    return type(f).__name__, f.params, _key(f.body)


def _members(f: And | Or) -> Iterator:
    for arg in f.args:
        if type(arg) is type(f):
            yield from _members(arg)
        else:
            yield _key(arg)


def _simplify(domain: Domain, problem: Problem, init: frozenset[Atom]) -> Formula | None:
    """The problem's goal with its quantifiers expanded over the objects and its
    equalities and static atoms replaced by their truth in ``init``, folded; None when
    the expansion would exceed MAX_EXPANSION atoms."""
    static = set(domain.predicates) - domain.changed_predicates()
    terms = {**domain.constants, **problem.objects}
    budget = _Budget(MAX_EXPANSION)

    def expand(quantifier, body):
        pools = [
            [o for o, t in terms.items() if domain.is_subtype(t, p.types)]
            for p in quantifier.params
        ]
        bindings = list(product(*pools))
        budget.left -= len(bindings) * sum(1 for _ in _literals(body))
        if budget.left < 0:
            raise OverflowError
        names = [p.name for p in quantifier.params]
        parts = tuple(_rename(body, dict(zip(names, values, strict=True))) for values in bindings)
        return Or(parts) if isinstance(quantifier, Exists) else And(parts)

    def truth(leaf):
        if isinstance(leaf, Equals):
            return leaf.left == leaf.right
        return leaf in init if leaf.predicate in static else None

    try:
        return _fold(map_formula(problem.goal, lambda leaf: leaf, expand), truth)
    except OverflowError:
        return None


def _fold(f: Formula, truth: Callable) -> Formula:
    """``f`` (quantifier-free) with each leaf whose ``truth`` is known replaced by it, and
    the constants, double negations, implications and complementary literals folded away."""
    if isinstance(f, (Atom, Equals)):
        value = truth(f)
        return f if value is None else TRUE if value else FALSE
    if isinstance(f, Not):
        arg = _fold(f.arg, truth)
        return (
            FALSE
            if arg == TRUE
            else TRUE
            if arg == FALSE
            else arg.arg
            if isinstance(arg, Not)
            else Not(arg)
        )
    if isinstance(f, Imply):
        return _fold(Or((Not(f.condition), f.consequence)), truth)
    assert isinstance(f, (And, Or))  # quantifier-free, as said above: only And, Or are left
    unit, zero = (TRUE, FALSE) if isinstance(f, And) else (FALSE, TRUE)
    args: list[Formula] = []
    for arg in f.args:
        arg = _fold(arg, truth)
        if arg == zero:
            return zero
        if arg != unit:
            args.extend(arg.args if isinstance(arg, (And, Or)) and type(arg) is type(f) else (arg,))
    members = set(args)
    if any(isinstance(arg, Not) and arg.arg in members for arg in args):
        return zero
    return args[0] if len(args) == 1 else type(f)(tuple(args))


def _same_states(f: Formula, g: Formula) -> bool:
    """Whether the folded formulas ``f`` and ``g`` hold under the same assignments of
    their atoms: by truth tables up to MAX_TABLE_ATOMS atoms, else by normal forms."""
    if _key(f) == _key(g):
        return True
    atoms = list({atom for _, atom in _literals(f)} | {atom for _, atom in _literals(g)})
    if len(atoms) > MAX_TABLE_ATOMS:
        return False
    full = (1 << (1 << len(atoms))) - 1
    columns = {
        atom: full // ((1 << (2 << i)) - 1) * (((1 << (1 << i)) - 1) << (1 << i))
        for i, atom in enumerate(atoms)
    }
    return _table(f, columns, full) == _table(g, columns, full)


def _table(f: Formula, columns: dict[Atom, int], full: int) -> int:
    """``f``'s truth table: bit i is its value under the i-th assignment of its atoms."""
    if isinstance(f, Atom):
        return columns[f]
    if isinstance(f, Not):
        return full ^ _table(f.arg, columns, full)
    assert isinstance(f, (And, Or))  # folded by _fold: only atoms, Not, And and Or are left
    table = full if isinstance(f, And) else 0
    for arg in f.args:
        table = (
            table & _table(arg, columns, full)
            if isinstance(f, And)
            else table | _table(arg, columns, full)
        )
    return table
