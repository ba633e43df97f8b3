"""A replanner for contingent PDDL environments (``ContingentPDDL-v0``) within one time
budget per episode.

It reads only the step interface: the domain and problem in ``info`` (actions, objects,
goal, the initial clauses), what the agent knows (``known_facts``, ``unknown_facts``,
``belief_size``) and the admissible commands. Each step it

1. senses an unknown fact when an admissible sensing command observes one;
2. follows its plan while the next step is admissible and no assumption that the rest of
   the plan or the goal names has proved false;
3. else plans again (``planloop.pddl.solve``; by default ``auto``, in-process search
   racing Fast Downward) on classical tasks over what it knows (an unknown fact is false
   and its twin ``pl-unknown-...`` true; a precondition, an effect's condition and the
   goal count only where known):
   - the unknown facts blocking a step (or a goal that holds only by assumption) it first
     tries to learn: a plan to where a sensing command observes an unknown fact tied to
     them (up to RELEVANCE_DEPTH clauses of the problem away, or made unknown by a
     conditional effect on them), which may not delete or risk a fact that the goal or
     another action needs and no action restores;
   - what it cannot learn is *stuck* (no longer assumed, while its knowledge stays the
     same), and so is, until it is known, a fact DOUBT_AFTER plans set out to learn; it
     assumes every other unknown fact as the actions and goal would have it (false when
     they only ever need it false, as a wall; else true) and plans for the goal;
   - with no plan for the goal, it learns whatever it can.
4. A state of knowledge met more than LOOP_LIMIT times is a loop: what it was learning or
   assuming there is stuck; met more than 2 * LOOP_LIMIT times, it gives up.

One deadline bounds the episode: each planner call gets the time left of ``budget``
seconds (counted from :meth:`reset`), and once it has passed the policy gives up.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace

from ..pddl import Atom, Domain, Problem, parse_command, parse_domain, parse_problem, solve
from ..pddl.model import (
    Action,
    And,
    Effect,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    Imply,
    Literal,
    Not,
    Or,
    Predicate,
    When,
)
from .base import GIVE_UP, PolicyBase

LOOP_LIMIT = 3  # visits of one state of knowledge before it counts as a loop
DOUBT_AFTER = 2  # plans to learn a fact, after which it is no longer assumed while unknown
RELEVANCE_DEPTH = 3  # clauses between a blocking fact and a sensed fact worth learning
UNKNOWN, RELEVANT = "pl-unknown-", "pl-relevant-"  # twin predicates of the classical tasks
LEARNED = Atom("pl-learned")  # the goal of a plan to learn
SPOILED = Atom("pl-spoiled")  # a plan to learn lost a precious fact (see _knowledge_domain)
GHOST = "pl-learn-"  # the actions reaching LEARNED: a sensing command, where it would help

Key = tuple[frozenset[str], frozenset[str], object]  # unknown, known false, belief size


class ContingentReplanner(PolicyBase):
    """Sense what is unknown, plan assuming the rest, learn what blocks, replan; within
    ``budget`` seconds an episode (see the module's docstring)."""

    def __init__(self, planner: str = "auto", budget: float = 60.0):
        self.planner, self.budget = planner, budget
        self.name = f"contingent-replanner:{planner}"
        self.planner_calls = self.loops = 0
        self.stopped = ""  # why it gave up: budget, loop, no plan, blocked
        self._deadline = 0.0
        self._task: _Task | None = None
        self._plan: list[str] = []
        self._targets: frozenset[str] = frozenset()  # what the plan is to learn
        self._assumed: frozenset[str] = frozenset()  # the unknown facts the plan assumes
        self._hoped: frozenset[str] = frozenset()  # those of them it assumes true
        self._stuck: dict[Key, set[str]] = {}
        self._tries: Counter[str] = Counter()  # plans made to learn each fact
        self._visits: Counter[tuple[frozenset[str], Key]] = Counter()

    def finish(self, obs: str, info: dict) -> None:
        """Keep what the runner records of the episode in ``details``."""
        self.details = {
            "planner_calls": self.planner_calls,
            "loops": self.loops,
            "stopped": self.stopped,
        }

    def reset(self, obs: str, info: dict) -> None:
        self._deadline = time.monotonic() + self.budget
        if "unknown_facts" not in info:
            raise ValueError(
                "ContingentReplanner needs a contingent environment "
                "(info['known_facts'] and info['unknown_facts'])"
            )
        domain = parse_domain(info["domain_pddl"], contingent=True)
        problem = parse_problem(info["problem_pddl"], domain, contingent=True)
        self._task = _Task.of(domain, problem, info["unknown_facts"])
        self._plan, self._targets = [], frozenset()
        self._assumed, self._hoped = frozenset(), frozenset()
        self._stuck, self._tries, self._visits = {}, Counter(), Counter()
        self.planner_calls = self.loops = 0
        self.stopped = ""

    def _started(self) -> _Task:
        """The task :meth:`reset` read."""
        if self._task is None:
            raise RuntimeError("call reset() first")
        return self._task

    def act(self, obs: str, info: dict) -> str:
        if time.monotonic() >= self._deadline:
            return self._stop("budget")
        admissible = info["admissible_actions"]
        known, unknown = frozenset(info["known_facts"]), frozenset(info["unknown_facts"])
        # a state of knowledge: what is unknown and what is known false (the sensed facts
        # among them), and the belief's size (-1 for a formula, which that size cannot tell)
        key = (unknown, frozenset(info.get("known_false", ())), info.get("belief_size"))
        stuck = self._stuck.setdefault(key, set())
        self._visits[known, key] += 1
        visits = self._visits[known, key]
        if visits > 2 * LOOP_LIMIT:
            return self._stop("loop")
        if visits == LOOP_LIMIT + 1:  # what it was learning or assuming here got nowhere
            self.loops += 1
            stuck |= self._targets or self._assumed
            self._plan = []
        sensing = self._useful_sensing(admissible, unknown)
        if sensing is not None:
            return sensing
        wrong = (self._hoped - unknown - known) | ((self._assumed - self._hoped) & known)
        if wrong and self._relies_on(wrong) or (self._targets and not self._targets & unknown):
            self._plan = []  # an assumption it needs proved false, or what it was to learn is known
        if self._plan and self._plan[0] in admissible:
            return self._plan.pop(0)
        blockers = self._named(self._plan[0], unknown) if self._plan else frozenset()
        return self._replan(admissible, known, unknown, stuck, blockers)

    def _replan(
        self,
        admissible: list[str],
        known: frozenset[str],
        unknown: frozenset[str],
        stuck: set[str],
        blockers: frozenset[str],
    ) -> str:
        """The first step of a new plan: to learn ``blockers`` (unknown facts blocking the
        last plan), else to the goal, else to learn anything; GIVE_UP when there is none.
        Each round that finds no step makes more facts ``stuck``."""
        task = self._started()
        doubted = {fact for fact in unknown if self._tries[fact] >= DOUBT_AFTER}
        while time.monotonic() < self._deadline:
            targets = blockers - stuck - doubted
            if targets:
                plan = self._learning(targets, known, unknown, widen=True)
                if plan:
                    self._tries.update(targets)
                    return self._follow(plan, targets=targets)
                stuck |= targets
            assumed = unknown - stuck - doubted
            hoped = frozenset(f for f in assumed if _atom(f).predicate not in task.falsy)
            plan = self._planned(
                task.planning, known | hoped, unknown - assumed, frozenset(), task.goal
            )
            if plan is None:
                if time.monotonic() >= self._deadline:
                    break
                plan = self._learning(unknown - stuck, known, unknown, widen=False)
                return (
                    self._follow(plan, targets=unknown - stuck) if plan else self._stop("no plan")
                )
            if plan and plan[0] in admissible:
                return self._follow(plan, assumed=assumed, hoped=hoped)
            if plan:
                blockers = self._named(plan[0], unknown) & assumed
            else:  # the goal holds by assumption only
                blockers = _mentioned(task.problem.goal, {}, assumed)
            if not blockers:
                return self._stop("blocked")
        return self._stop("budget")

    def _follow(
        self,
        plan: list[str],
        targets: frozenset[str] = frozenset(),
        assumed: frozenset[str] = frozenset(),
        hoped: frozenset[str] = frozenset(),
    ) -> str:
        """Start ``plan``, which learns ``targets`` or assumes ``assumed`` (``hoped``
        true, the rest false)."""
        self._plan, self._targets = plan[1:], targets
        self._assumed, self._hoped = assumed, hoped
        return plan[0]

    def _stop(self, reason: str) -> str:
        self.stopped, self._plan = reason, []
        return GIVE_UP

    def _learning(
        self, targets: frozenset[str], known: frozenset[str], unknown: frozenset[str], widen: bool
    ) -> list[str] | None:
        """The steps to where a sensing command observes an unknown fact relevant to
        ``targets`` (those near them by the problem's clauses when ``widen``), or None."""
        task = self._started()
        relevant = task.around(targets) & unknown if widen else targets
        if not relevant:
            return None
        plan = self._planned(task.learning, known, unknown, relevant, LEARNED)
        # the last step is the ghost of the sensing command, which act() then chooses;
        # a ghost alone would be a sensing command act() did not find admissible
        return plan[:-1] if plan and len(plan) > 1 else None

    def _named(
        self, command: str, facts: frozenset[str], conditions: bool = False
    ) -> frozenset[str]:
        """The facts of ``facts`` that the precondition of ``command`` names (or the
        conditions of its effects, when ``conditions``)."""
        try:
            name, args = parse_command(command)
        except ValueError:
            return frozenset()
        action = self._started().domain.actions.get(name)
        if action is None:
            return frozenset()
        named = [action.precondition]
        if conditions:
            named += [w.condition for w in _whens(action.effects)]
        binding = dict(zip((p.name for p in action.params), args, strict=False))
        return _mentioned(And(tuple(named)), binding, facts)

    def _relies_on(self, facts: frozenset[str]) -> bool:
        """Whether the rest of the plan, or the goal, names one of ``facts``."""
        goal = self._started().problem.goal
        return bool(_mentioned(goal, {}, facts)) or any(
            self._named(step, facts, conditions=True) for step in self._plan
        )

    def _useful_sensing(self, admissible: list[str], unknown: frozenset[str]) -> str | None:
        """The first admissible sensing command that observes an unknown fact."""
        for command in admissible:
            name, args = parse_command(command)
            schema = self._started().domain.actions.get(name)
            if schema is None or not schema.observe:
                continue
            binding = dict(zip((p.name for p in schema.params), args, strict=True))
            if any(
                str(Atom(a.predicate, tuple(binding.get(t, t) for t in a.args))) in unknown
                for a in schema.observe
            ):
                return command
        return None

    def _planned(
        self,
        domain: Domain,
        facts: frozenset[str],
        unknown: frozenset[str],
        relevant: frozenset[str],
        goal: Formula,
    ) -> list[str] | None:
        """A plan of ``domain`` for ``goal`` from ``facts`` true, ``unknown`` unknown and
        ``relevant`` relevant, within the time left; None when there is none."""
        left = self._deadline - time.monotonic()
        if left <= 0:
            return None
        uncertain = self._started().uncertain
        init = [_atom(f) for f in facts]
        for prefix, twins in ((UNKNOWN, unknown), (RELEVANT, relevant)):
            init += [_twin(prefix, a) for a in map(_atom, twins) if a.predicate in uncertain]
        problem = replace(
            self._started().problem,
            domain_name=domain.name,
            init=tuple(init),
            goal=goal,
            unknown=(),
            clauses=(),
        )
        self.planner_calls += 1
        result = solve(domain, problem, planner=self.planner, timeout=left)
        return list(result.plan) if result.solved and result.plan is not None else None


@dataclass(frozen=True)
class _Task:
    """The contingent task an episode plays, and the classical domains planned in."""

    domain: Domain
    problem: Problem
    planning: Domain  # the domain over knowledge (sensing left out)
    learning: Domain  # the same with relevance, and a ghost of each sensing action
    goal: Formula  # the goal, known
    uncertain: frozenset[str]  # the predicates whose facts may be unknown
    falsy: frozenset[str]  # the predicates the actions and goal only ever need false
    neighbours: dict[str, frozenset[str]]  # fact -> the facts sharing a clause with it

    @classmethod
    def of(cls, domain: Domain, problem: Problem, unknown: list[str]) -> _Task:
        """The task of ``domain`` and ``problem``, ``unknown`` the facts unknown at reset."""
        acting = [a for a in domain.actions.values() if not a.observe]
        uncertain = {_atom(fact).predicate for fact in unknown}
        uncertain |= {a.predicate for a in problem.unknown}
        uncertain |= {lit.atom.predicate for c in problem.clauses for lit in c.literals}
        conditional = [(w.condition, w.effects) for a in acting for w in _whens(a.effects)]
        while True:  # what a condition on an uncertain fact changes is uncertain too
            more = {
                lit.atom.predicate
                for condition, effects in conditional
                if {a.predicate for a in _atoms(condition)} & uncertain
                for lit in _literals(effects)
            } - uncertain
            if not more:
                break
            uncertain |= more
        observed = {atom.predicate for a in domain.actions.values() for atom in a.observe}
        added = {e.atom.predicate for a in acting for e in _literals(a.effects) if not e.negated}
        needed, needed_false = _required(problem.goal), _required(problem.goal, False)
        for a in acting:
            needed |= _required(a.precondition) - {
                e.atom.predicate for e in _literals(a.effects) if e.negated
            }
            needed_false |= _required(a.precondition, False)
        wanted = _required(problem.goal).union(*(_required(a.precondition) for a in acting))
        neighbours: dict[str, set[str]] = defaultdict(set)
        for clause in problem.clauses:
            facts = {str(literal.atom) for literal in clause.literals}
            for fact in facts:
                neighbours[fact] |= facts - {fact}
        planning = _Compiler(frozenset(uncertain), learning=False, precious=frozenset())
        learning = replace(planning, learning=True, precious=frozenset(needed - added - observed))
        return cls(
            domain,
            problem,
            planning.domain(domain),
            learning.domain(domain),
            planning.known(problem.goal),
            frozenset(uncertain),
            frozenset(needed_false - wanted),
            {fact: frozenset(near) for fact, near in neighbours.items()},
        )

    def around(self, facts: frozenset[str]) -> frozenset[str]:
        """``facts`` and those up to RELEVANCE_DEPTH clauses away."""
        seen, frontier = set(facts), set(facts)
        for _ in range(RELEVANCE_DEPTH):
            frontier = {n for f in frontier for n in self.neighbours.get(f, ())} - seen
            seen |= frontier
        return frozenset(seen)


@dataclass(frozen=True)
class _Compiler:
    """Writes a contingent domain over states of knowledge: a fact known true is true; an
    unknown one (only of an ``uncertain`` predicate) is false and its UNKNOWN twin true.
    When ``learning``, facts may also be RELEVANT, and losing a fact of a ``precious``
    predicate (one no action adds, needed true by the goal or by an action that does not
    delete it: stepping where a wumpus may be risks ``alive``) is SPOILED."""

    uncertain: frozenset[str]
    learning: bool
    precious: frozenset[str]

    def domain(self, domain: Domain) -> Domain:
        """``domain`` over knowledge, its sensing actions left out; when learning, each
        observed atom of a sensing action has a ghost action reaching LEARNED where the
        atom is unknown and relevant and nothing is SPOILED."""
        twins = [UNKNOWN] + ([RELEVANT] if self.learning else [])
        predicates = dict(domain.predicates)
        for prefix in twins:
            predicates.update(
                {
                    prefix + p.name: Predicate(prefix + p.name, p.params)
                    for p in domain.predicates.values()
                    if p.name in self.uncertain
                }
            )
        actions = {
            name: replace(
                a, precondition=self.known(a.precondition), effects=self.effects(a.effects)
            )
            for name, a in domain.actions.items()
            if not a.observe
        }
        if self.learning:
            for flag in (LEARNED, SPOILED):
                predicates[flag.predicate] = Predicate(flag.predicate, ())
            for a in domain.actions.values():
                for i, atom in enumerate(a.observe):
                    if atom.predicate not in self.uncertain:
                        continue
                    ghost = f"{GHOST}{i}-{a.name}"
                    useful = (_twin(UNKNOWN, atom), _twin(RELEVANT, atom), Not(SPOILED))
                    pre = And((self.known(a.precondition), *useful))
                    actions[ghost] = Action(ghost, a.params, pre, (Literal(LEARNED),))
        return replace(domain, requirements=(":adl",), predicates=predicates, actions=actions)

    def known(self, f: Formula, positive: bool = True) -> Formula:
        """A formula that holds where ``f`` is known true (known false when not
        ``positive``); a disjunction is known when one of its parts is."""
        if isinstance(f, Atom):
            if positive:
                return f
            return And((Not(f), Not(_twin(UNKNOWN, f)))) if self._uncertain(f) else Not(f)
        if isinstance(f, Equals):
            return f if positive else Not(f)
        if isinstance(f, Not):
            return self.known(f.arg, not positive)
        if isinstance(f, (And, Or)):
            junction = type(f) if positive else (Or if isinstance(f, And) else And)
            return junction(tuple(self.known(a, positive) for a in f.args))
        if isinstance(f, Imply):
            return self.known(Or((Not(f.condition), f.consequence)), positive)
        quantifier = type(f) if positive else (Forall if isinstance(f, Exists) else Exists)
        return quantifier(f.params, self.known(f.body, positive))

    def effects(self, effects: tuple[Effect, ...]) -> tuple[Effect, ...]:
        """``effects`` on knowledge: a literal makes its fact known; a ``when`` applies
        where its condition is known, and where the condition is unknown (see
        :meth:`blurred`) makes what it changes unknown. Deleting a precious fact that may
        hold is SPOILED."""
        out: list[Effect] = []
        for e in effects:
            if isinstance(e, Literal):
                out.append(e)
                if self._uncertain(e.atom):
                    out.append(Literal(_twin(UNKNOWN, e.atom), negated=True))
                if e.negated and e.atom.predicate in self.precious:
                    held = (
                        Or((e.atom, _twin(UNKNOWN, e.atom))) if self._uncertain(e.atom) else e.atom
                    )
                    out.append(When(held, (Literal(SPOILED),)))
            elif isinstance(e, ForallEffect):
                out.append(ForallEffect(e.params, self.effects(e.effects)))
            else:
                out.append(When(self.known(e.condition), self.effects(e.effects)))
                if any(self._uncertain(a) for a in _atoms(e.condition)):
                    out += self.blurred(e.condition, e.effects)
        return tuple(out)

    def blurred(self, condition: Formula, effects: tuple[Effect, ...]) -> list[Effect]:
        """What ``(when condition effects)`` does where ``condition`` is unknown: each fact
        it would change and does not hold already becomes unknown (SPOILED when a precious
        one held); when learning, relevant too where a fact of the condition is."""
        unsure = And((Not(self.known(condition)), Not(self.known(condition, positive=False))))
        sources = tuple(
            _twin(RELEVANT, a) for a in _atoms(condition, quantified=False) if self._uncertain(a)
        )
        out: list[Effect] = []
        for e in effects:
            if isinstance(e, ForallEffect):
                out.append(ForallEffect(e.params, tuple(self.blurred(condition, e.effects))))
            elif isinstance(e, When):
                out += self.blurred(And((condition, e.condition)), e.effects)
            else:
                unknown = Literal(_twin(UNKNOWN, e.atom))
                if e.negated:  # a fact known true (unknown ones are false) may turn false
                    spoiled = (Literal(SPOILED),) if e.atom.predicate in self.precious else ()
                    out.append(When(And((unsure, e.atom)), (e, unknown, *spoiled)))
                else:
                    out.append(When(And((unsure, Not(e.atom))), (unknown,)))
                if self.learning and sources:
                    relevant = Literal(_twin(RELEVANT, e.atom))
                    out.append(When(And((unsure, Or(sources))), (relevant,)))
        return out

    def _uncertain(self, atom: Atom) -> bool:
        return atom.predicate in self.uncertain


def _whens(effects: tuple[Effect, ...]) -> list[When]:
    """The conditional effects of ``effects``, nested ones too."""
    out: list[When] = []
    for e in effects:
        if isinstance(e, When):
            out += [e, *_whens(e.effects)]
        elif isinstance(e, ForallEffect):
            out += _whens(e.effects)
    return out


def _literals(effects: tuple[Effect, ...]) -> list[Literal]:
    """The literals of ``effects``, conditional ones too."""
    out: list[Literal] = []
    for e in effects:
        out += [e] if isinstance(e, Literal) else _literals(e.effects)
    return out


def _required(f: Formula, positive: bool = True) -> set[str]:
    """The predicates of the atoms that ``f`` needs true (needs false, when not
    ``positive``)."""
    if isinstance(f, Atom):
        return {f.predicate} if positive else set()
    if isinstance(f, Not):
        return _required(f.arg, not positive)
    if isinstance(f, (And, Or)):
        return set().union(*(_required(part, positive) for part in f.args))
    if isinstance(f, Imply):
        return _required(f.condition, not positive) | _required(f.consequence, positive)
    if isinstance(f, (Exists, Forall)):
        return _required(f.body, positive)
    return set()


def _atoms(f: Formula, quantified: bool = True) -> list[Atom]:
    """The atoms of ``f`` (those under a quantifier too when ``quantified``)."""
    if isinstance(f, (Exists, Forall)):
        return _atoms(f.body, quantified) if quantified else []
    if isinstance(f, Atom):
        return [f]
    if isinstance(f, Not):
        return _atoms(f.arg, quantified)
    if isinstance(f, (And, Or)):
        return [a for part in f.args for a in _atoms(part, quantified)]
    if isinstance(f, Imply):
        return _atoms(f.condition, quantified) + _atoms(f.consequence, quantified)
    return []


def _mentioned(f: Formula, binding: dict[str, str], facts: frozenset[str]) -> frozenset[str]:
    """The facts of ``facts`` that an atom of ``f`` names, its variables bound by
    ``binding`` (a variable left free matches any object)."""
    patterns: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for atom in _atoms(f):
        patterns[atom.predicate].append(tuple(binding.get(t, t) for t in atom.args))
    found = set()
    for fact in facts:
        atom = _atom(fact)
        for args in patterns.get(atom.predicate, ()):
            if len(args) == len(atom.args) and all(
                a.startswith("?") or a == b for a, b in zip(args, atom.args, strict=True)
            ):
                found.add(fact)
                break
    return frozenset(found)


def _twin(prefix: str, atom: Atom) -> Atom:
    return Atom(prefix + atom.predicate, atom.args)


def _atom(text: str) -> Atom:
    name, *args = text.strip("()").split()
    return Atom(name, tuple(args))
