"""Fact landmarks from the relaxed planning graph: facts every plan must make true.

Backchaining on a grounded :class:`~planloop.pddl.grounding.Task` (after Hoffmann,
Porteous and Sebastia, 2004). The positive goal literals are landmarks. A landmark
``L`` not true in the start state must be added by some action, the first time it
becomes true, by an action that is reachable in the relaxed planning graph and does
not itself need ``L``; every fact that all such achievers need (their shared positive
precondition literals) therefore holds before that step, and is a landmark too.

Sound: reachability over-approximates (delete effects, negative literals and
non-literal parts of preconditions are ignored, every conditional effect counts), so
no real first achiever is left out, and only literals an action's precondition
conjoins are shared. Not complete: disjunctive landmarks and orderings are not found.
"""

from __future__ import annotations

from .conditions import literal_masks
from .ground_action import GroundAction, bits
from .grounding import Task


def relaxed_levels(task: Task, state: int) -> tuple[dict[int, int], list[GroundAction]]:
    """The relaxed planning graph from ``state``: the first level of each reachable fact,
    and the actions that become applicable (ignoring deletes and negative literals)."""
    level = {fact: 0 for fact in bits(state)}
    reached, pending, usable = state, list(task.actions), []
    depth = 0
    while pending:
        depth += 1
        ready = [a for a in pending if reached & a.pre_pos == a.pre_pos]
        if not ready:
            break
        pending = [a for a in pending if reached & a.pre_pos != a.pre_pos]
        usable.extend(ready)
        added = 0
        for action in ready:
            added |= _adds(action)
        for fact in bits(added & ~reached):
            level[fact] = depth
        reached |= added
    return level, usable


def fact_landmarks(task: Task, state: int | None = None) -> list[int]:
    """The fact ids of landmarks for reaching ``task``'s goal from ``state`` (default: the
    initial state), in the order of their first level in the relaxed planning graph.

    Empty when the goal is relaxed-unreachable (no plan exists) or names no positive
    literal at the top level of a conjunction.
    """
    state = task.init if state is None else state
    masks = literal_masks(task.goal)
    goal = masks[0] if masks else 0
    level, usable = relaxed_levels(task, state)
    if any(fact not in level for fact in bits(goal)):
        return []
    found = set(bits(goal))
    queue = [fact for fact in found if not state >> fact & 1]
    while queue:
        fact = queue.pop()
        bit = 1 << fact
        shared = -1
        for action in usable:
            if _adds(action) & bit and not action.pre_pos & bit:
                shared &= action.pre_pos
        if shared == -1:  # no achiever: unreachable, which the level check rules out
            continue
        for new in bits(shared):
            if new not in found:
                found.add(new)
                if not state >> new & 1:
                    queue.append(new)
    return sorted(found, key=lambda fact: (level[fact], fact))


def _adds(action: GroundAction) -> int:
    """Every fact ``action`` may add, conditional effects included."""
    added = action.add
    for _, _, add, _ in action.conditional:
        added |= add
    return added
