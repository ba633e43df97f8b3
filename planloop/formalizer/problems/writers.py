"""Built-in problem writers that need no model, answering the loop's messages.

``reference_writer`` answers the reference problem (the ground truth: every metric is
1). ``defect_writer`` first answers the reference with one known defect, then, once
the loop has fed a check's diagnostics back, the reference itself; a defect the
checks cannot see (a swapped goal argument that stays solvable, renamed objects) is
kept, and the metrics alone show it.
"""

from __future__ import annotations

from dataclasses import replace

from ...llm import ScriptedModel
from ...pddl import RelaxedTask, Renaming, ground, write_problem
from ...pddl.heuristics import INF
from ...pddl.model import And, Atom, Domain, Problem

DEFECTS = (
    "syntax",
    "undeclared_object",
    "wrong_arity",
    "missing_fact",
    "swapped_goal",
    "renamed_objects",
)


def reference_writer(reference_text: str) -> ScriptedModel:
    return ScriptedModel(lambda messages: reference_text, name="groundtruth")


def defect_writer(defect: str, domain: Domain, reference: Problem) -> ScriptedModel:
    """Answers ``reference`` with ``defect`` first, then without it."""
    flawed, fixed = inject(defect, domain, reference), write_problem(reference, domain)
    return ScriptedModel(
        lambda messages: flawed if len(messages) <= 2 else fixed, name="scripted-defects"
    )


def inject(defect: str, domain: Domain, problem: Problem) -> str:
    """The text of ``problem`` with ``defect`` (one of DEFECTS)."""
    if defect not in DEFECTS:
        raise ValueError(f"unknown defect {defect!r}; choose one of {', '.join(DEFECTS)}")
    if defect == "syntax":
        return write_problem(problem, domain).rstrip().rstrip(")")  # the last paren is lost
    return write_problem(_DEFECTS[defect](domain, problem), domain)


def _undeclared_object(domain: Domain, problem: Problem) -> Problem:
    used = next(a for fact in problem.init for a in fact.args if a in problem.objects)
    return replace(problem, objects={o: t for o, t in problem.objects.items() if o != used})


def _wrong_arity(domain: Domain, problem: Problem) -> Problem:
    index = next(i for i, fact in enumerate(problem.init) if fact.args)
    fact = problem.init[index]
    init = list(problem.init)
    init[index] = Atom(fact.predicate, fact.args + fact.args[:1])
    return replace(problem, init=tuple(init))


def _missing_fact(domain: Domain, problem: Problem) -> Problem:
    """The problem without the first initial fact whose absence makes the goal
    unreachable even ignoring delete effects (so surely unsolvable)."""
    for index in range(len(problem.init)):
        fewer = replace(problem, init=problem.init[:index] + problem.init[index + 1 :])
        task = ground(domain, fewer)
        if RelaxedTask(task).h_add(task.init) == INF:
            return fewer
    raise ValueError(f"no single initial fact of {problem.name} is needed to reach its goal")


def _swapped_goal(domain: Domain, problem: Problem) -> Problem:
    goal = problem.goal.args if isinstance(problem.goal, And) else (problem.goal,)
    found = next(
        (
            (i, fact)
            for i, fact in enumerate(goal)
            if isinstance(fact, Atom) and len(fact.args) >= 2 and fact.args[0] != fact.args[1]
        ),
        None,
    )
    if found is None:
        raise ValueError(f"the goal of {problem.name} has no atom with two arguments to swap")
    index, atom = found
    swapped = Atom(atom.predicate, (atom.args[1], atom.args[0], *atom.args[2:]))
    return replace(problem, goal=And(goal[:index] + (swapped,) + goal[index + 1 :]))


def _renamed_objects(domain: Domain, problem: Problem) -> Problem:
    """Every object prefixed (which keeps their order, so a planner's ties fall alike)."""
    return Renaming(objects={o: f"obj-{o}" for o in problem.objects}).problem(problem)


_DEFECTS = {
    "undeclared_object": _undeclared_object,
    "wrong_arity": _wrong_arity,
    "missing_fact": _missing_fact,
    "swapped_goal": _swapped_goal,
    "renamed_objects": _renamed_objects,
}
