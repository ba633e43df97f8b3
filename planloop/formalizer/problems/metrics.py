"""How a written problem compares with the reference, judged exactly.

Per candidate, as the paper benchmarking NL-to-PDDL with planner-in-the-loop feedback
defines them (eq. 6-18): ``svr`` (it parses, eq. 6), ``psr`` (it parses and the planner
solves it, eq. 7; None when it does not parse, so that the rate is over the parsed
ones), ``tsr`` (eq. 8: Jaccard overlap of the initial and goal atoms as written, goal
ones with their sign), ``cr`` (eq. 9-18: the planners' outcomes agree and, when the
reference is solvable, the plan lengths are within ``max(1, ceil(0.05 c_ref))`` and the
plans are similar: the larger of the normalised Levenshtein similarity and the multiset
Jaccard of the grounded action strings as written is at least 0.8; unit costs). Objects
count by their names: a candidate that renames every object shares no atom and no
action with the reference.

Beside them, ``tsr_matched`` and ``cr_matched`` (the same after renaming the
candidate's objects to the reference's, see :func:`match_objects`: they tell a renaming
from a wrong fact), ``eq`` (the same problem up to a renaming of objects) and
``goal_eq`` (the same set of goal states under that renaming, even where the goal
atoms differ).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ...pddl import Equivalence, equivalent
from ...pddl.model import Atom, Domain, Problem, map_formula
from ...pddl.render import goal_literals
from .verify import Verdict

TAU = 0.8  # plan-structure similarity threshold
RHO = 0.05  # relative plan-length tolerance
METRICS = ("svr", "psr", "tsr", "cr", "tsr_matched", "cr_matched", "eq", "goal_eq")
# a problem whose episode ended on a model error: no candidate, a failure in every rate
MODEL_ERROR = {
    "svr": 0,
    "psr": 0,
    "tsr": 0.0,
    "cr": 0,
    "tsr_matched": 0.0,
    "cr_matched": 0,
    "eq": 0,
    "goal_eq": 0,
}


@dataclass(frozen=True)
class Reference:
    """The reference problem and what the fixed planner made of it."""

    problem: Problem
    solved: bool
    plan: tuple[str, ...] = ()


def levenshtein(a: Sequence, b: Sequence) -> int:
    """The edit distance between two sequences (insertions, deletions, substitutions)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def plan_similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """Sim (eq. 13-15): max(1 - Levenshtein / longer length, multiset Jaccard) over the
    grounded action strings; 1 for two empty plans."""
    if not a and not b:
        return 1.0
    edit = 1 - levenshtein(a, b) / max(len(a), len(b))
    count_a, count_b = Counter(a), Counter(b)
    bag = sum((count_a & count_b).values()) / sum((count_a | count_b).values())
    return max(edit, bag)


def length_tolerance(reference_length: int) -> int:
    """epsilon (eq. 18): max(1, ceil(0.05 c_ref))."""
    return max(1, math.ceil(RHO * reference_length))


def consistent(reference: Reference, solved: bool, plan: Sequence[str]) -> bool:
    """Outcome-aware consistency (eq. 10-12, 16, 17) of a candidate's planner result
    with the reference's: the plans compared as given."""
    if solved != reference.solved:
        return False
    if not reference.solved:
        return True
    return (
        abs(len(plan) - len(reference.plan)) <= length_tolerance(len(reference.plan))
        and plan_similarity(plan, reference.plan) >= TAU
    )


def match_objects(
    domain: Domain, candidate: Problem, reference: Problem, found: Equivalence | None = None
) -> dict[str, str]:
    """Candidate object -> reference object: the renaming when the problems are
    equivalent (``found``, if already known); otherwise equal names of one type first,
    then each remaining object to the free reference object of its type whose facts look
    most alike (same predicates at the same places), ties by name."""
    found = found or equivalent(domain, candidate, reference)
    if found.equal:
        return dict(found.mapping)
    mapping = {o: o for o, kind in candidate.objects.items() if reference.objects.get(o) == kind}
    free = {o: kind for o, kind in reference.objects.items() if o not in mapping.values()}
    mine, theirs = _profiles(candidate), _profiles(reference)
    for obj in sorted(set(candidate.objects) - set(mapping)):
        options = [o for o, kind in free.items() if kind == candidate.objects[obj]]
        if options:
            best = max(sorted(options), key=lambda o: sum((mine[obj] & theirs[o]).values()))
            mapping[obj] = best
            del free[best]
    return mapping


def _profiles(problem: Problem) -> dict[str, Counter]:
    """Each object's (part, predicate, position) occurrences in the initial state and goal."""
    profiles: dict[str, Counter] = {o: Counter() for o in problem.objects}
    facts = [("init", fact) for fact in problem.init] + [
        ("goal", atom) for _, atom in signed_goal(problem.goal)
    ]
    for part, fact in facts:
        for position, arg in enumerate(fact.args):
            if arg in profiles:
                profiles[arg][(part, fact.predicate, position)] += 1
    return profiles


def signed_goal(goal) -> list[tuple[bool, Atom]]:
    """(negated, atom) for each literal of a conjunctive goal; for any other goal, every
    atom of the formula, unsigned."""
    try:
        return [(not positive, atom) for atom, positive in goal_literals(goal)]
    except ValueError:
        leaves: list = []

        def keep(leaf):
            leaves.append(leaf)
            return leaf

        map_formula(goal, keep)
        return [(False, leaf) for leaf in leaves if isinstance(leaf, Atom)]


def atom_set(problem: Problem, rename: dict[str, str] | None = None) -> set[tuple]:
    """The initial and goal atoms (goal ones with their sign), objects renamed by
    ``rename`` (as written without it)."""
    rename = rename or {}

    def key(part: str, negated: bool, atom: Atom) -> tuple:
        return part, negated, atom.predicate, tuple(rename.get(a, a) for a in atom.args)

    return {key("init", False, fact) for fact in problem.init} | {
        key("goal", negated, atom) for negated, atom in signed_goal(problem.goal)
    }


def rename_plan(plan: Sequence[str], rename: dict[str, str]) -> list[str]:
    renamed = []
    for step in plan:
        name, *args = step.strip("()").split()
        renamed.append("(" + " ".join([name, *(rename.get(a, a) for a in args)]) + ")")
    return renamed


def jaccard(mine: set, theirs: set) -> float:
    """|mine & theirs| / |mine | theirs| to 4 places; 1 for two empty sets."""
    union = mine | theirs
    return round(len(mine & theirs) / len(union), 4) if union else 1.0


def score(domain: Domain, reference: Reference, verdict: Verdict) -> dict:
    """The metrics of one candidate (see the module docstring)."""
    candidate = verdict.problem
    if candidate is None:  # not verdict.parsed
        agree = int(consistent(reference, False, ()))
        return {
            "svr": 0,
            "psr": None,
            "tsr": 0.0,
            "cr": agree,
            "tsr_matched": 0.0,
            "cr_matched": agree,
            "eq": 0,
            "goal_eq": 0,
        }
    plan = verdict.plan or ()
    same = equivalent(domain, candidate, reference.problem)
    rename = match_objects(domain, candidate, reference.problem, same)
    theirs = atom_set(reference.problem)
    return {
        "svr": 1,
        "psr": int(verdict.solved),
        "tsr": jaccard(atom_set(candidate), theirs),
        "cr": int(consistent(reference, verdict.solved, plan)),
        "tsr_matched": jaccard(atom_set(candidate, rename), theirs),
        "cr_matched": int(consistent(reference, verdict.solved, rename_plan(plan, rename))),
        "eq": int(same.equal),
        "goal_eq": int(bool(same.goal_equivalent)),
    }
