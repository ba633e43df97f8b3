"""A ground action: one action schema with its arguments bound, over a task's fact ids,
and the bitsets of fact ids it is tested and applied with."""

from __future__ import annotations

from typing import Iterable

from . import conditions as cond


class GroundAction:
    """One action with its arguments bound: its precondition's literals and its effects
    as fact-id tuples (``pre``, ``pre_not``, ``adds``, ``deletes``), the rest of its
    precondition as a compiled test, and ``when`` effects as ``conditional``.

    The bitset masks (``pre_pos``, ``pre_neg``, ``add``, ``delete``) are built on first
    use: a mask is as wide as the task's facts, and a large task's actions mostly go
    unused. They derive from the fact-id tuples alone, so every task that shares the
    action (see :meth:`~planloop.pddl.grounding.Task.with_problem`) may build and read
    them."""

    __slots__ = (
        "name",
        "args",
        "pre",
        "pre_not",
        "extra",
        "extra_test",
        "adds",
        "deletes",
        "conditional",
        "_precondition",
        "_text",
        "_pre_pos",
        "_pre_neg",
        "_add",
        "_delete",
    )
    _precondition: cond.Condition | None
    _text: str | None
    _pre_pos: int | None
    _pre_neg: int | None
    _add: int | None
    _delete: int | None

    def __init__(
        self,
        name: str,
        args: tuple[str, ...],
        precondition: cond.Condition,
        adds: tuple[int, ...],
        deletes: tuple[int, ...],
        conditional: tuple,
    ):
        self.name, self.args = name, args
        literals = cond.literal_ids(precondition)
        self.pre, self.pre_not, self.extra = literals if literals else ((), (), NEVER)
        self.extra_test = cond.compile_condition(cond.conjoin(self.extra)) if self.extra else None
        # a conjunction of distinct atoms (most actions) is rebuilt from them when asked for
        atoms_only = (
            not self.pre_not
            and not self.extra
            and type(precondition) is tuple
            and precondition[0] == "and"
            and len(precondition[1]) == len(self.pre)
        )
        self._precondition = None if atoms_only else precondition
        self.adds, self.deletes = adds, deletes
        self.conditional = conditional  # ((test, condition, add mask, delete mask), ...)
        self._text = self._pre_pos = self._pre_neg = self._add = self._delete = None

    def _rebuilt(self) -> cond.Condition:
        literals = [cond.atom(f) for f in self.pre]
        literals += [cond.negate(cond.atom(f)) for f in self.pre_not]
        return cond.conjoin(literals + list(self.extra))

    @property
    def precondition(self) -> cond.Condition:
        return self._rebuilt() if self._precondition is None else self._precondition

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "(" + " ".join((self.name,) + self.args) + ")"
        return self._text

    @property
    def pre_pos(self) -> int:
        if self._pre_pos is None:
            self._pre_pos = mask(self.pre)
        return self._pre_pos

    @property
    def pre_neg(self) -> int:
        if self._pre_neg is None:
            self._pre_neg = mask(self.pre_not)
        return self._pre_neg

    @property
    def add(self) -> int:
        if self._add is None:
            self._add = mask(self.adds)
        return self._add

    @property
    def delete(self) -> int:
        if self._delete is None:
            self._delete = mask(self.deletes)
        return self._delete

    def applicable(self, state: int) -> bool:
        pos = self.pre_pos if self._pre_pos is None else self._pre_pos  # (a step's hot path)
        return (
            state & pos == pos
            and not state & (self.pre_neg if self._pre_neg is None else self._pre_neg)
            and (self.extra_test is None or self.extra_test(state))
        )

    def apply(self, state: int) -> int:
        if not self.conditional:
            delete = self.delete if self._delete is None else self._delete
            return (state & ~delete) | (self.add if self._add is None else self._add)
        add, delete = self.add, self.delete
        for test, _, c_add, c_delete in self.conditional:
            if test(state):
                add |= c_add
                delete |= c_delete
        return (state & ~delete) | add

    def __repr__(self) -> str:
        return f"GroundAction{self.text}"


NEVER = (False,)  # the rest of a precondition that cannot hold


def mask(ids: Iterable[int]) -> int:
    """The bitset of the fact ids ``ids``."""
    ids = list(ids)
    if len(ids) < 16:
        bitset = 0
        for fid in ids:
            bitset |= 1 << fid
        return bitset
    digits = bytearray(max(ids) // 8 + 1)
    for fid in ids:
        digits[fid >> 3] |= 1 << (fid & 7)
    return int.from_bytes(digits, "little")


def bits(mask: int) -> list[int]:
    """The fact ids in the bitset ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
