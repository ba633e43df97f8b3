"""Contingent planning: a task whose initial world is hidden, played by knowledge.

A contingent domain and problem (the CLG / SDR / CPOR dialect, read with
``contingent=True``) ground into a :class:`ContingentTask`: the ground task, its initial
:class:`~.belief.Belief` (the assignments of the unknown facts that satisfy every
``oneof`` and ``or`` of ``:init``: listed, or for a component past ``max_belief`` of them,
a formula), and the facts each sensing action observes. An action
may be taken only when its precondition holds in every world of the belief; the goal is
reached when it holds in every world. A play tracks the belief and the true, hidden
world side by side (see :meth:`ContingentTask.step`).

Each query of the belief (whether an action is known applicable, the admissible actions,
the goal test, a step) and the initial belief spend at most ``Limits.max_belief_work``
work units, :meth:`ContingentTask.gold_path` at most its ``budget``; past it, a
ValueError names the limit and how big the work would be.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, replace

import numpy as np

from . import conditions as cond
from .belief import Belief, Work, formula_of, ids, normal
from .grounding import GroundAction, Task, UnmetFact, ground
from .model import CLAUSE_BOUNDS, Atom, Domain, Problem
from .reader import parse
from .sat import Sat
from .source import DEFAULT_LIMITS, Limits
from .writer import write_domain, write_problem

MAX_BELIEF = 2**16  # the most assignments of one component listed (past it, a formula)
SEARCH_PER_ASSIGNMENT = 4  # values the search for them tries per max_belief, at most
WORDS_PER_UNIT = 16  # machine words of listed assignments built per work unit (~60 ns a word)
GOLD_BUDGET = 10_000_000  # the most work units gold_path spends
NODE_WORDS = 64  # work units of each (world, belief) node gold_path keeps, its belief's aside


@dataclass(frozen=True)
class Sensed:
    """What a sensing action told: ``fact`` has ``value`` in the true world."""

    fact: Atom
    value: bool


class ContingentTask:
    """A contingent problem of a domain, grounded. A component of the belief with more
    than ``max_belief`` assignments (or whose search for them tries more than
    ``SEARCH_PER_ASSIGNMENT`` values per ``max_belief``) is held as a formula;
    ``limits.max_belief_work`` bounds the work of each query of the belief (a ValueError
    naming it past it); an initial belief without worlds is a ValueError.

    A query given ``work`` (a :class:`~.belief.Work`, a search's budget) spends it instead
    of its own ``max_belief_work``."""

    def __init__(
        self,
        domain: Domain,
        problem: Problem,
        limits: Limits = DEFAULT_LIMITS,
        max_belief: int = MAX_BELIEF,
    ):
        self.domain, self.problem, self.max_belief = domain, problem, max_belief
        self.limits = limits
        uncertain = tuple(
            dict.fromkeys(
                problem.unknown
                + tuple(lit.atom for clause in problem.clauses for lit in clause.literals)
            )
        )
        predicates = tuple(sorted({a.predicate for a in uncertain}))
        # grounded from every fact that may be true initially, with the uncertain
        # predicates kept as fluents: no action of any world is pruned
        self.task: Task = ground(
            replace(domain, uncertain_predicates=predicates),
            replace(problem, init=tuple(dict.fromkeys(problem.init + uncertain))),
            limits,
        )
        self.init: Belief = _initial_belief(
            self.task, problem, uncertain, max_belief, self.work("building the initial belief")
        )
        # the facts :init leaves open (under unknown, oneof or or), a mask
        self.uncertain = sum(1 << self.task.fact_id(a) for a in uncertain)
        self._observed: dict[GroundAction, tuple[int, ...]] = {}
        self._extra: dict[GroundAction, cond.Condition] = {}
        goal = cond.literal_masks(self.task.goal)
        self._goal = goal if goal is not None else (0, 0, (False,))

    def work(self, doing: str) -> Work:
        """The budget of one query (``doing``, for the message): ``max_belief_work``."""
        return Work(self.limits.max_belief_work, doing, self._exceeded)

    def _exceeded(self, found: str) -> str:
        return self.limits.exceeded("max_belief_work", found)

    def start(self) -> Belief:
        """The initial belief on a solver of its own: what a play reads then depends on its
        own steps only."""
        return self.init.forked()

    # -- the hidden world ------------------------------------------------------------
    def draw_world(self, seed: int) -> int:
        """A world of the initial belief drawn by ``numpy.random.default_rng(seed)``,
        component by component (see :meth:`~.belief.Belief.draw`): uniform when every
        component is listed."""
        return self.init.draw(np.random.default_rng(seed), self.work("drawing a world"))

    # -- knowledge -------------------------------------------------------------------
    def observed(self, action: GroundAction) -> tuple[int, ...]:
        """The facts (ids) a sensing action observes; () for any other action."""
        found = self._observed.get(action)
        if found is None:
            schema = self.domain.actions[action.name]
            binding = dict(zip((p.name for p in schema.params), action.args, strict=True))
            found = self._observed[action] = tuple(
                self.task.fact_id(Atom(a.predicate, tuple(binding.get(t, t) for t in a.args)))
                for a in schema.observe
            )
        return found

    def is_sensing(self, action: GroundAction) -> bool:
        return bool(self.domain.actions[action.name].observe)

    def knows(self, belief: Belief, action: GroundAction, work: Work | None = None) -> bool:
        """Whether ``action``'s precondition holds in every world of ``belief``."""
        return self._known(
            belief, action, work or self.work(f"deciding whether {action.text} applies")
        )

    def admissible(self, belief: Belief, work: Work | None = None) -> list[GroundAction]:
        """The actions known to be applicable, in grounding order."""
        work = work or self.work("finding the admissible actions")
        return [
            a for a in self.task.applicable(belief.some_world()) if self._known(belief, a, work)
        ]

    def unmet(
        self, belief: Belief, action: GroundAction, work: Work | None = None
    ) -> list[UnmetFact]:
        """The precondition literals not known to hold (whatever their hidden values)."""
        unmet = [(fid, True) for fid in ids(action.pre_pos & ~belief.known)]
        unmet += [(fid, False) for fid in ids(action.pre_neg & (belief.known | belief.unknown))]
        rest = self._rest(action)
        work = work or self.work(f"finding what {action.text} lacks")
        failing = None if rest is True else belief.failing_world(rest, work)
        if failing is not None:
            unmet += [u for u in cond.unmet_literals(rest, failing) if u not in unmet]
        facts = self.task.facts
        return [UnmetFact(facts[fid], wanted) for fid, wanted in unmet]

    def is_goal(self, belief: Belief, work: Work | None = None) -> bool:
        """Whether the goal holds in every world of ``belief``."""
        pos, neg, rest = self._goal
        if pos & ~belief.known or neg & (belief.known | belief.unknown):
            return False
        if not rest:
            return True
        work = work or self.work("testing the goal")
        return belief.failing_world(cond.conjoin(rest), work) is None

    def step(
        self, belief: Belief, world: int, action: GroundAction, work: Work | None = None
    ) -> tuple[Belief, int, tuple[Sensed, ...]]:
        """(belief, world, what was sensed) after an admissible ``action``."""
        work = work or self.work(f"updating the belief by {action.text}")
        if not self.is_sensing(action):
            return belief.apply(action, self.max_belief, work), action.apply(world), ()
        values = {fid: bool(world >> fid & 1) for fid in self.observed(action)}
        sensed = tuple(Sensed(self.task.facts[fid], value) for fid, value in values.items())
        return belief.sense(values, work), world, sensed

    def _known(self, belief: Belief, action: GroundAction, work: Work) -> bool:
        if action.pre_pos & ~belief.known or action.pre_neg & (belief.known | belief.unknown):
            return False
        rest = self._rest(action)
        return rest is True or belief.failing_world(rest, work) is None

    def _rest(self, action: GroundAction) -> cond.Condition:
        """The precondition's parts past its literals, conjoined (True when none)."""
        found = self._extra.get(action)
        if found is None:
            masks = cond.literal_masks(action.precondition)
            found = self._extra[action] = cond.conjoin(masks[2] if masks is not None else (False,))
        return found

    # -- evaluators ------------------------------------------------------------------
    def gold_path(
        self, belief: Belief, world: int, budget: int = GOLD_BUDGET
    ) -> list[GroundAction] | None:
        """A shortest list of actions that makes the goal known from (``belief``,
        ``world``), by breadth-first search over (world, belief); None when there is none.
        The search spends at most ``budget`` work units: its queries' work, and for each
        node it keeps ``NODE_WORDS`` and the words of its belief (a ValueError past it).
        Sensing a fact already known is never tried; ``belief``'s solver is copied, not
        changed."""
        start = (world, belief.forked())
        parents: dict = {start: None}
        work = Work(
            budget,
            "gold_path's search",
            lambda _: (
                f"gold_path's search needs more than its budget of {budget:,} work units "
                f"({len(parents):,} (world, belief) nodes kept); pass a larger budget="
            ),
        )
        if self.is_goal(start[1], work):
            return []
        queue = deque([start])
        while queue:
            node = queue.popleft()
            now_world, now_belief = node
            for action in self.admissible(now_belief, work):
                if self.is_sensing(action) and not any(
                    now_belief.unknown >> fid & 1 for fid in self.observed(action)
                ):
                    continue
                next_belief, next_world, _ = self.step(now_belief, now_world, action, work)
                child = (next_world, next_belief)
                if child in parents:
                    continue
                work.spend(NODE_WORDS + next_belief.stored)
                parents[child] = (node, action)
                if self.is_goal(next_belief, work):
                    return _path(parents, child)
                queue.append(child)
        return None

    def world_pddl(self, world: int) -> tuple[str, str]:
        """``world`` as a plain PDDL task: (domain without its sensing actions, problem
        whose ``:init`` lists the world's true facts)."""
        domain = replace(
            self.domain,
            requirements=tuple(r for r in self.domain.requirements if r != ":contingent"),
            actions={name: a for name, a in self.domain.actions.items() if not a.observe},
        )
        problem = replace(
            self.problem,
            domain_name=domain.name,
            init=tuple(self.task.atoms(world)),
            unknown=(),
            clauses=(),
        )
        return write_domain(domain), write_problem(problem, domain)


def load_contingent(
    domain: str | os.PathLike,
    problem: str | os.PathLike,
    limits: Limits = DEFAULT_LIMITS,
    strict: bool = False,
    max_belief: int = MAX_BELIEF,
) -> ContingentTask:
    """Read a contingent domain and problem (paths or PDDL text) and ground them."""
    return ContingentTask(
        *parse(domain, problem, limits, strict, contingent=True), limits, max_belief
    )


def _initial_belief(
    task: Task, problem: Problem, uncertain: tuple[Atom, ...], max_belief: int, work: Work
) -> Belief:
    """The worlds of ``problem``'s ``:init``: its facts true, each component of the
    uncertain facts (those sharing a clause) in each of its satisfying assignments (a
    formula of its clauses when :func:`_assignments` finds too many), every other fact
    false. A fact both listed and uncertain is true. Reading the clauses costs a work unit
    a literal and a unit an uncertain fact, spent first; a listed component, a unit an
    assignment and one per ``WORDS_PER_UNIT`` machine words of its mask (40,000
    two-valued components over 80,000 facts took 1.5 GB)."""
    work.spend(len(uncertain) + sum(len(c.literals) for c in problem.clauses))
    variables = [task.fact_id(a) for a in uncertain]
    index = {atom: i for i, atom in enumerate(uncertain)}
    known = 0
    for atom in problem.init:
        known |= 1 << task.fact_id(atom)
    clauses = [
        (*CLAUSE_BOUNDS[c.kind], [(index[lit.atom], lit.negated) for lit in c.literals])
        for c in problem.clauses
    ]
    clauses += [(False, True, [(i, False)]) for i, fid in enumerate(variables) if known >> fid & 1]
    for fid in variables:
        known &= ~(1 << fid)
    group = list(range(len(variables)))  # union-find over the variables sharing a clause

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for *_, literals in clauses:
        for var, _ in literals[1:]:
            group[root(var)] = root(literals[0][0])
    members: dict[int, list[int]] = {}
    for i in range(len(variables)):
        members.setdefault(root(i), []).append(i)
    of_group: dict[int, list] = {}
    for clause in clauses:
        of_group.setdefault(root(clause[2][0][0]), []).append(clause)
    parts, formulas, sat = [], [], None
    for key, items in members.items():
        local = {v: j for j, v in enumerate(items)}
        local_clauses = [
            (most, least, [(local[v], neg) for v, neg in lits])
            for most, least, lits in of_group.get(key, [])
        ]
        names = ", ".join(str(task.facts[variables[i]]) for i in items[:4]) + (
            ", ..." if len(items) > 4 else ""
        )
        empty = ValueError(
            f"the initial belief is empty: no assignment of {names} satisfies "
            f"the clauses ('oneof', 'or', 'at-most-one') of ':init'"
        )
        solutions = _assignments(len(items), local_clauses, max_belief, work)
        if solutions is None:
            sat = sat or Sat()
            lits = {variables[i]: sat.new_var() for i in items}
            for most, least, literals in local_clauses:
                signed = [
                    -lits[variables[items[j]]] if negated else lits[variables[items[j]]]
                    for j, negated in literals
                ]
                if least:
                    sat.add([signed], work)
                if most:
                    sat.at_most_one(signed, work)
            if not sat.solve((), work):
                raise empty
            formula, true = formula_of(sat, lits, [], list(lits), work)
            formulas.append(formula)
            known |= true
            continue
        if not solutions:
            raise empty
        words = max(variables[i] for i in items) // 64 + 1  # of each assignment's mask
        work.spend(len(solutions) * (1 + words // WORDS_PER_UNIT))
        masks = [sum(1 << variables[items[j]] for j in ids(s)) for s in solutions]
        parts.append((sum(1 << variables[i] for i in items), masks))
    return normal(known, parts, formulas, sat)


def _assignments(n: int, clauses: list, limit: int, work: Work) -> list[int] | None:
    """The assignments (bit j: variable j true) of ``n`` variables satisfying every
    clause ((at most one holds, at least one holds, literals), literals (variable,
    negated)): each variable alone for one ``oneof`` of them all, else by depth-first
    search with the false value tried first, each value tried a work unit and one per
    clause it is in (the clauses it updates). None (then the component is a formula) when
    :func:`_many` shows more than ``limit`` without a search, or there are more than
    ``limit``, or the search would try more than ``SEARCH_PER_ASSIGNMENT * limit`` values
    or spend half the work left: past those, the formula is the cheaper way
    (K-replanner's invariants over 17-82 facts)."""
    if _many(n, clauses, limit):
        return None
    if [c[:2] for c in clauses] == [(True, True)] and sorted(clauses[0][2]) == [
        (j, False) for j in range(n)
    ]:
        if n > limit:
            return None
        work.spend(n)
        return [1 << j for j in range(n)]
    touching: list[list[tuple[int, bool]]] = [[] for _ in range(n)]
    for c, (*_, literals) in enumerate(clauses):
        for var, negated in literals:
            touching[var].append((c, negated))
    trues = [0] * len(clauses)
    free = [len(literals) for *_, literals in clauses]
    value: list[bool | None] = [None] * n
    tried = [0] * n
    found: list[int] = []
    cost = [1 + len(t) for t in touching]  # work units of a value tried: its clauses
    tried_values, spent = 0, 0
    values, units = SEARCH_PER_ASSIGNMENT * limit, work.left() // 2
    mask = 0  # the variables true now

    def assign(i: int, v: bool) -> bool:
        nonlocal mask
        mask |= v << i
        ok = True
        for c, negated in touching[i]:
            free[c] -= 1
            trues[c] += v != negated
            most, least, _ = clauses[c]
            if (most and trues[c] > 1) or (least and not trues[c] and not free[c]):
                ok = False
        value[i] = v
        return ok

    def unassign(i: int) -> None:
        nonlocal mask
        mask &= ~(1 << i)
        for c, negated in touching[i]:
            free[c] += 1
            trues[c] -= value[i] != negated
        value[i] = None

    i = 0
    while i >= 0:
        if i == n:
            found.append(mask)
            if len(found) > limit:
                work.spend(spent)
                return None
            i -= 1
            continue
        if value[i] is not None:
            unassign(i)
        if tried[i] == 2:
            tried[i] = 0
            i -= 1
            continue
        tried[i] += 1
        tried_values += 1
        spent += cost[i]
        if tried_values > values or spent > units:
            work.spend(spent)
            return None
        if assign(i, tried[i] == 2):
            i += 1
    work.spend(spent)
    return found


def _many(n: int, clauses: list, limit: int) -> bool:
    """Whether ``clauses`` over ``n`` variables (as :func:`_assignments` takes them) have
    more than ``limit`` assignments, by a bound: once the one-literal clauses fix their
    variables, ``or`` clauses of positive literals left, m of them over n' free
    variables, have at least 2^(n' - m) (a true literal per clause, the other variables
    free) and at least 2^n' less the 2^(n' - k) assignments each clause of k literals
    rules out. False when the bound does not apply or does not show it."""
    fixed: dict[int, bool] = {}
    for _, least, literals in clauses:
        if len(literals) == 1 and least:
            var, negated = literals[0]
            if fixed.setdefault(var, not negated) == negated:
                return False  # contradictory: no assignment at all
    free = n - len(fixed)
    left, ruled_out = 0, 0
    for most, _, literals in clauses:
        if most:
            return False
        if any(fixed.get(var) == (not negated) for var, negated in literals):
            continue  # satisfied by a fixed variable
        free_literals = {var: negated for var, negated in literals if var not in fixed}
        if not free_literals or any(free_literals.values()):
            return False  # unsatisfiable here, or a negative literal: no bound
        left += 1
        ruled_out += 1 << (free - len(free_literals))
    return max(1 << max(free - left, 0), (1 << free) - ruled_out) > limit


def _path(parents: dict, node) -> list[GroundAction]:
    path = []
    while parents[node] is not None:
        node, action = parents[node]
        path.append(action)
    return path[::-1]
