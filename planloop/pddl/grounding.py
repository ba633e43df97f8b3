"""Grounding: a domain and a problem become a :class:`Task` over integer fact ids.

A :class:`~planloop.pddl.grounder.Grounder` binds the actions (see there); a
delete-relaxed reachability pass then drops actions that can never fire. States are
Python ints used as bitsets.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable, Sequence

from ..errors import PlanloopError
from . import conditions as cond
from .collection import collection_paused
from .deadline import Check
from .diagnostics import quote
from .ground_action import GroundAction, bits, mask
from .grounder import Grounder, Statics
from .memo import Memo
from .model import Atom, Domain, Problem
from .source import DEFAULT_LIMITS, Limits

__all__ = ["ActionLookupError", "GroundAction", "Task", "UnmetFact", "ground", "true_fact_ids"]

_FEW_CHANGES = 64  # Task._true updates its last set for at most this many changed facts


class ActionLookupError(PlanloopError, ValueError):
    """An action that cannot be instantiated: ``kind`` is ``unknown`` or ``malformed``."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


@dataclass(frozen=True)
class UnmetFact:
    atom: Atom
    wanted: bool

    def __str__(self) -> str:
        return str(self.atom) if self.wanted else f"(not {self.atom})"


class Task:
    """A grounded planning task: facts, actions, initial state and goal.

    Its data: ``problem``, ``init`` (a bitset of fact ids), ``goal``, ``actions`` (those a
    delete-relaxed plan reaches), and ``facts``, which only grows (an action instantiated
    on demand may name new facts) and whose ids never change. What it holds and who owns it:

    - its :class:`~planloop.pddl.grounder.Grounder` (its own): the fact table behind
      ``facts``, the compiled formulas, the work budget and ``check``, a deadline for the
      grounding done in the constructor only (see there for the limits);
    - the grounder's :class:`~planloop.pddl.grounder.Statics`: the objects (read-only),
      static facts and the caches derived from them alone, shared with every task
      :meth:`with_problem` derives;
    - ``_grounded``, every action grounding instantiated (a tuple, shared likewise), and
      ``_by_key`` and ``_successors``, indexes of ``actions`` never changed once built,
      shared with a derived task that keeps the same actions;
    - caches of its own: ``_on_demand`` ((name, args) -> an action grounding pruned,
      instantiated when asked for), ``_display_keys`` (fact id -> its sort key in
      :meth:`atoms`) and ``_last_true`` (see :meth:`_true`)."""

    def __init__(
        self,
        domain: Domain,
        problem: Problem,
        limits: Limits = DEFAULT_LIMITS,
        check: Check | None = None,
    ):
        self.limits = limits
        grounder = Grounder(Statics(domain, problem), limits, check)
        with collection_paused():
            self._start(problem, grounder, None)

    def _start(self, problem: Problem, grounder: Grounder, base: Task | None) -> None:
        """Take ``problem``'s initial state and goal; ground the actions, or take the
        ``base`` task's; keep those a delete-relaxed plan reaches."""
        self.problem = problem
        self._grounder = grounder
        self._fact_table = grounder.facts
        self.facts: list[Atom] = grounder.facts.facts
        self._display_keys: dict[int, tuple] = {}  # fact id -> its sort key in atoms()
        self._last_true: tuple[int, frozenset[int]] | None = None  # see _true
        init = frozenset(self.fact_id(fact) for fact in problem.init)
        self.init: int = mask(init)
        self.goal: cond.Condition = grounder.ground_goal(problem.goal)
        self._goal_test = cond.compile_condition(self.goal)
        self._grounded: tuple[GroundAction, ...] = (
            tuple(grounder.ground_all()) if base is None else base._grounded
        )
        self.actions: list[GroundAction] = _prune_unreachable(init, self._grounded)
        self._by_key: Mapping[str, Mapping[tuple[str, ...], GroundAction]]  # name -> args ->
        self._successors: _SuccessorGenerator
        if base is not None and base.actions == self.actions:
            self._by_key, self._successors = base._by_key, base._successors
        else:
            by_key: dict[str, dict[tuple[str, ...], GroundAction]] = {
                name: {} for name in self.domain.actions
            }
            for a in self.actions:
                by_key[a.name][a.args] = a
            self._by_key, self._successors = by_key, _SuccessorGenerator(self.actions)
        self._on_demand: dict[tuple[str, tuple[str, ...]], GroundAction] = {}
        grounder.stop_checking()

    @property
    def domain(self) -> Domain:
        return self._grounder.shared.domain

    @property
    def objects(self) -> Mapping[str, str]:
        """Object -> its type: the domain's constants, then the problem's objects; read-only."""
        return self._grounder.shared.objects

    @property
    def instantiated(self) -> int:
        """How many actions grounding instantiated (before the unreachable were dropped)."""
        return len(self._grounded)

    def with_problem(self, problem: Problem) -> Task | None:
        """The task of ``problem``, another problem of this domain, without grounding again
        when it declares the same objects in the same order and the same static facts
        (a formalization loop's next round often does); else None. It shares this task's
        statics and ground actions (see :class:`Task`); its fact table is a copy of this
        task's, so its fact ids extend this task's rather than start from its own initial
        state, and the facts either task names later are its own."""
        if not self._grounder.shared.fits(problem):
            return None
        task = Task.__new__(Task)
        task.limits = self.limits
        task._start(problem, self._grounder.for_problem(), self)
        return task

    # -- facts ---------------------------------------------------------------------
    def fact_id(self, fact: Atom) -> int:
        return self._fact_table.id(fact.predicate, fact.args)

    def atoms(self, state: int) -> list[Atom]:
        """The facts true in ``state``, in a stable order (predicate, then objects)."""
        facts = self.facts
        return [facts[i] for i in self.true_ids(state)]

    def true_ids(self, state: int) -> list[int]:
        """The ids of the facts true in ``state``, in the order of :meth:`atoms`."""
        facts, keys = self._true(state), self._display_keys
        shared = self._grounder.shared
        predicates, objects = shared.predicate_order, shared.object_order
        for fid in facts.difference(keys):  # facts never shown before
            fact = self.facts[fid]
            keys[fid] = (
                predicates.get(fact.predicate, len(predicates)),
                tuple([objects.get(a, len(objects)) for a in fact.args]),
                fid,
            )
        return sorted(facts, key=keys.__getitem__)

    def _true(self, state: int) -> frozenset[int]:
        """The ids of the facts true in ``state``. The last state asked about is kept, so
        a state one step away costs the facts that changed (and a few word-wide bitwise
        operations), not a pass over every fact."""
        last = self._last_true
        if last is not None and last[0] == state:
            return last[1]
        changed = 0 if last is None else state ^ last[0]
        if last is not None and changed.bit_count() <= _FEW_CHANGES:
            flipped = []
            while changed:
                fid = changed.bit_length() - 1
                changed ^= 1 << fid
                flipped.append(fid)
            facts = last[1].symmetric_difference(flipped)
        else:
            facts = frozenset(true_fact_ids(state))
        self._last_true = (state, facts)
        return facts

    # -- the dynamics --------------------------------------------------------------
    def applicable(self, state: int) -> list[GroundAction]:
        """The actions applicable in ``state``, in grounding order."""
        return self._successors.applicable(state, self._true)

    def apply(self, state: int, action: GroundAction) -> int:
        return action.apply(state)

    def is_goal(self, state: int) -> bool:
        return self._goal_test(state)

    def unmet(self, state: int, action: GroundAction) -> list[UnmetFact]:
        """The precondition facts that keep ``action`` from applying in ``state``."""
        return self._unmet(action.precondition, state)

    def unmet_goal(self, state: int) -> list[UnmetFact]:
        return self._unmet(self.goal, state)

    def _unmet(self, condition, state: int) -> list[UnmetFact]:
        return [
            UnmetFact(self.facts[fid], wanted)
            for fid, wanted in cond.unmet_literals(condition, state)
        ]

    def action(self, name: str, args: tuple[str, ...] | list[str]) -> GroundAction:
        """The ground action ``name(args)``, instantiated on demand if grounding pruned it.

        Raises :class:`ActionLookupError` for an unknown action or object, a wrong
        number of arguments or an argument of the wrong type.
        """
        name, args = name.lower(), tuple(a.lower() for a in args)
        found = self._by_key.get(name, {}).get(args) or self._on_demand.get((name, args))
        if found is not None:
            return found
        problems = self.lookup_problems(name, args)
        if problems:
            kind, message = problems[0]
            raise ActionLookupError(
                "unknown" if kind.startswith("unknown") else "malformed", message
            )
        grounded = self._grounder.instantiate(self.domain.actions[name], args)
        self._on_demand[(name, args)] = grounded
        return grounded

    def lookup_problems(
        self, name: str, args: tuple[str, ...] | list[str]
    ) -> list[tuple[str, str]]:
        """What keeps ``name(args)`` from naming an action of this task, as ``(kind,
        message)`` pairs: ``unknown_action`` or ``arity`` alone, else every argument's
        ``unknown_object`` or ``type`` problem; [] when it names one."""
        schema = self.domain.actions.get(name)
        if schema is None:
            return [("unknown_action", f"unknown action {quote(name)}")]
        if len(args) != len(schema.params):
            return [
                (
                    "arity",
                    f"{quote(name)} takes {len(schema.params)} argument(s), {len(args)} given",
                )
            ]
        problems = []
        for arg, param in zip(args, schema.params, strict=True):
            if arg not in self.objects:
                problems.append(("unknown_object", f"unknown object {quote(arg)}"))
            elif not self.domain.is_subtype(self.objects[arg], param.types):
                problems.append(
                    (
                        "type",
                        f"{quote(arg)} is a {self.objects[arg]}, but parameter "
                        f"{param.name} of {quote(name)} must be "
                        f"{' or '.join(param.types)}",
                    )
                )
        return problems

    def objects_of(self, types: tuple[str, ...]) -> list[str]:
        """The objects of ``types``, in declaration order."""
        return list(self._grounder.shared.objects_of(types))


class _SuccessorGenerator:
    """Finds applicable actions by looking only at those keyed by a true fact.

    Each action is keyed by its positive precondition fact shared with the fewest
    other actions; a state's true facts select the candidates, tested against the set
    of them. Below ``LINEAR_LIMIT`` actions a plain scan of the masks is faster, and is
    used.
    """

    LINEAR_LIMIT = 256

    def __init__(self, actions: list[GroundAction]):
        self.actions = actions
        self.linear = (
            [(a.pre_pos, a.pre_neg, a.extra_test, a) for a in actions]
            if len(actions) <= self.LINEAR_LIMIT
            else None
        )
        uses: dict[int, int] = {}
        for action in actions:
            for fid in action.pre:
                uses[fid] = uses.get(fid, 0) + 1
        self.groups: dict[int, list[int]] = {}
        self.unkeyed: list[int] = []
        for index, a in enumerate(actions):
            if a.pre:
                self.groups.setdefault(min(a.pre, key=uses.__getitem__), []).append(index)
            else:
                self.unkeyed.append(index)

    def applicable(self, state: int, true: Callable[[int], frozenset[int]]) -> list[GroundAction]:
        """The actions applicable in ``state``, whose true fact ids ``true(state)`` gives
        (asked only above the linear limit)."""
        if self.linear is not None:
            return [
                a
                for pos, neg, test, a in self.linear
                if state & pos == pos and not state & neg and (test is None or test(state))
            ]
        facts = true(state)
        actions, groups = self.actions, self.groups
        found = [i for i in self.unkeyed if _holds(actions[i], facts, state)]
        for fid in facts:
            group = groups.get(fid)
            if group:
                found.extend(i for i in group if _holds(actions[i], facts, state))
        found.sort()
        return [actions[i] for i in found]


def _holds(action: GroundAction, facts: frozenset[int], state: int) -> bool:
    """Whether ``action`` applies in ``state``, whose true fact ids are ``facts``."""
    return (
        facts.issuperset(action.pre)
        and facts.isdisjoint(action.pre_not)
        and (action.extra_test is None or action.extra_test(state))
    )


def true_fact_ids(state: int) -> list[int]:
    """The ids of the facts true in ``state``, highest first: one scan of its binary
    digits in C, however wide the state."""
    digits = bin(state)
    top = len(digits) - 1
    found = []
    at = digits.find("1", 2)
    while at != -1:
        found.append(top - at)
        at = digits.find("1", at + 1)
    return found


_GROUNDED = threading.local()  # per thread: a Task grows some of its indexes lazily
GROUNDED_PER_THREAD = 4  # tasks kept by each thread (a 100-block one is tens of MB)


def ground(
    domain: Domain, problem: Problem, limits: Limits = DEFAULT_LIMITS, check: Check | None = None
) -> Task:
    """Ground ``problem`` of ``domain`` into a :class:`Task` within ``limits`` (such as
    ``max_ground_actions``), calling ``check`` now and then while it grounds (see
    :class:`Task`). Grounding the same Domain and Problem objects again in the same thread
    returns the same Task, deadline or not (the reader returns the same objects for the
    same text, so reading and grounding a task twice costs once); each thread keeps its
    last :data:`GROUNDED_PER_THREAD`, and a grounding that ``check`` stops keeps nothing."""
    memo = getattr(_GROUNDED, "memo", None)
    if memo is None:
        memo = _GROUNDED.memo = Memo(GROUNDED_PER_THREAD)
    kept_domain, kept_problem, task = memo.get(
        (id(domain), id(problem), limits),
        lambda: (domain, problem, Task(domain, problem, limits, check)),
    )
    if kept_domain is not domain or kept_problem is not problem:  # ids reused since
        return Task(domain, problem, limits, check)
    return task


def _prune_unreachable(init: frozenset[int], actions: Sequence[GroundAction]) -> list[GroundAction]:
    """Drop actions whose positive preconditions no delete-relaxed plan reaches: each
    action waits on its unreached precondition facts and each fact is reached once."""
    waiting: dict[int, list[int]] = {}  # fact -> the actions it is missing from
    missing = []
    ready = []
    for i, a in enumerate(actions):
        needs = [fid for fid in a.pre if fid not in init]
        missing.append(len(needs))
        for fid in needs:
            waiting.setdefault(fid, []).append(i)
        if not needs:
            ready.append(i)
    reached = set(init)
    while ready:
        a = actions[ready.pop()]
        gained = list(a.adds)
        for _, _, c_add, _ in a.conditional:
            gained.extend(bits(c_add))
        for fid in gained:
            if fid in reached:
                continue
            reached.add(fid)
            for i in waiting.pop(fid, ()):
                missing[i] -= 1
                if not missing[i]:
                    ready.append(i)
    return [a for a, m in zip(actions, missing, strict=True) if not m]
