"""Why a task has no plan, when the delete relaxation can prove it: the goal facts no
sequence of actions can make true, and the predicates that no initial fact and no
action that can ever apply make true although actions need them (a missing
``(handempty)`` shows as the predicate every pick-up waits for). Both are sound
(reachability ignores deletes and negative conditions, so whatever it cannot reach is
unreachable); an unsolvable task that only search can prove gets no reason."""

from __future__ import annotations

from .conditions import literal_masks
from .ground_action import bits
from .grounding import Task
from .landmarks import relaxed_levels
from .model import And, Atom, Domain, ForallEffect, Literal, Problem, When


def unreachable_goal_facts(task: Task) -> list[Atom]:
    """The positive goal facts (of a conjunctive goal) that can never become true."""
    masks = literal_masks(task.goal)
    if not masks:
        return []
    level, _ = relaxed_levels(task, task.init)
    return [task.facts[fact] for fact in bits(masks[0]) if fact not in level]


def unreachable_predicates(domain: Domain, problem: Problem) -> dict[str, list[str]]:
    """Predicate -> the actions whose preconditions need it, for each predicate that is
    never true: in no initial fact and added by no action whose needed predicates can
    all become true."""
    reached = {fact.predicate for fact in problem.init}
    needs = {name: _needed(action.precondition) for name, action in domain.actions.items()}
    adds = {name: _added(action.effects) for name, action in domain.actions.items()}
    enabled: set[str] = set()
    grew = True
    while grew:
        grew = False
        for name in domain.actions:
            if name not in enabled and needs[name] <= reached:
                enabled.add(name)
                grew |= not adds[name] <= reached
                reached |= adds[name]
    return {
        predicate: sorted(name for name in domain.actions if predicate in needs[name])
        for predicate in domain.predicates
        if predicate not in reached and any(predicate in n for n in needs.values())
    }


def explain_unsolvable(task: Task) -> str:
    """The reasons above in words, one per line; "" when the relaxation proves nothing."""
    lines = [f"the goal fact {fact} can never become true" for fact in unreachable_goal_facts(task)]
    for predicate, actions in unreachable_predicates(task.domain, task.problem).items():
        lines.append(
            f"no initial fact and no action that can ever apply makes {predicate} "
            f"true, and {', '.join(actions)} need{'s' if len(actions) == 1 else ''} "
            f"it: is an initial fact missing?"
        )
    return "\n".join(lines)


def _needed(formula) -> set[str]:
    """The predicates of the atoms a precondition conjoins (not under not/or/...)."""
    if isinstance(formula, Atom):
        return {formula.predicate}
    if isinstance(formula, And):
        return set().union(*map(_needed, formula.args))
    return set()


def _added(effects) -> set[str]:
    added: set[str] = set()
    for effect in effects:
        if isinstance(effect, Literal):
            if not effect.negated:
                added.add(effect.atom.predicate)
        elif isinstance(effect, (When, ForallEffect)):
            added |= _added(effect.effects)
    return added
