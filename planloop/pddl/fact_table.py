"""The ground facts of one task, numbered from 0 in the order they are first named."""

from __future__ import annotations

from .model import Atom
from .source import Limits


class FactTable:
    """Fact ids: ``facts[i]`` is the fact of id ``i`` and ``ids`` maps (predicate, args) to
    its id. The table only grows (grounding an action on demand names new facts) and an
    id never changes, so a state bitset stays valid. Its one owner is one task, which
    names facts in it (``Task.fact_id``) as its
    :class:`~planloop.pddl.grounder.Grounder` does; a task of another problem starts from
    a :meth:`copy`, never from the same table."""

    __slots__ = ("facts", "ids", "limits", "objects")

    def __init__(self, limits: Limits, objects: int):
        self.facts: list[Atom] = []
        self.ids: dict[tuple[str, tuple[str, ...]], int] = {}
        self.limits = limits
        self.objects = objects  # the task's object count, for a refusal's message

    def id(self, predicate: str, args: tuple[str, ...]) -> int:
        """The id of the fact ``(predicate args)``, a new one if it was never named; past
        ``limits.max_ground_facts`` facts a :class:`~planloop.pddl.PDDLError`."""
        fid = self.ids.get((predicate, args))
        if fid is None:
            fid = len(self.facts)
            if fid == self.limits.max_ground_facts:  # a state is a bitset of facts
                self.limits.check(
                    "max_ground_facts", fid + 1, "problem", f"ground facts ({self.size()})"
                )
            self.ids[(predicate, args)] = fid
            self.facts.append(Atom(predicate, args))
        return fid

    def size(self) -> str:
        """The task's size, for a refusal: its objects and the facts named so far."""
        return f"{self.objects:,} objects, {len(self.facts):,} facts named so far"

    def copy(self) -> FactTable:
        """A table with the same ids that grows apart from this one."""
        table = FactTable(self.limits, self.objects)
        table.facts, table.ids = list(self.facts), dict(self.ids)
        return table
