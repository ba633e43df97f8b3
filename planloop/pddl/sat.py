"""The incremental SAT solver behind the belief's formula components (CaDiCaL 1.9.5 through
PySAT).

A :class:`Sat` only ever gains clauses, and every clause added after a belief was built
on it is conservative: it defines fresh variables (a fact's value after a step, the
truth of a condition) or constrains only fresh ones, so each belief that reads a set of
variables keeps its meaning while the solver grows. What one belief knows beyond the
clauses (what was sensed) it passes as assumptions.

Expressions over the solver's variables are ground conditions (see
:mod:`~planloop.pddl.conditions`) whose atoms name variables. Each call spends work
units of a :class:`~planloop.pddl.belief.Work`, about one a microsecond here as elsewhere
in the belief: ``CALL_WORK`` per solver call and one more per ``VARIABLES_PER_UNIT``
variables (a call assigns them all), ``CONFLICT_WORK`` per conflict (a call stops where
the budget ends), one per clause added and per ``LITERALS_PER_UNIT`` literals of a model
read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from . import conditions as cond


class Work(Protocol):
    """The budget a SAT call spends (a belief query's,
    :class:`planloop.pddl.belief.Work`): what is ``left``, and ``spend``, which raises a
    ValueError past the budget (``needed()`` saying what the work would need)."""

    def left(self) -> int: ...

    def spend(self, units: int, needed: Callable[[], str] | None = None) -> None: ...


SOLVER = "cadical195"
CALL_WORK = 64  # work units of a solver call (100-150 us on Wumpus 10-20 here)
VARIABLES_PER_UNIT = 8  # and one more per this many variables (4 ms a call at 40,000)
LITERALS_PER_UNIT = 4  # a model's literals read per work unit
CONFLICT_WORK = 16  # of each conflict (about 40 us proving 9 pigeons fit no 8 holes)
PAIRWISE = 6  # an at-most-one of up to this many literals is encoded pairwise


def literal(lit: int) -> cond.Condition:
    """The expression of a signed literal."""
    return ("atom", lit) if lit > 0 else ("not", ("atom", -lit))


class Sat:
    """A growing CNF (``clauses``, its variables numbered 1 .. ``top``) in an incremental
    solver."""

    def __init__(self, clauses: Sequence[Sequence[int]] = (), top: int = 0):
        from pysat.solvers import Solver  # 0.1 s to import: only once a formula is needed

        self.top = top
        self.clauses: list[list[int]] = [list(c) for c in clauses]
        self._solver = Solver(name=SOLVER, bootstrap_with=self.clauses)
        self._defined: dict[cond.Condition, int] = {}
        self._model: list[int] = []

    def fork(self) -> Sat:
        """A new solver of the same clauses."""
        return Sat(self.clauses, self.top)

    def __reduce__(self):  # a copy or a pickle is a fork
        return Sat, (self.clauses, self.top)

    def new_var(self) -> int:
        self.top += 1
        return self.top

    def add(self, clauses: Iterable[Sequence[int]], work: Work) -> None:
        """Add ``clauses``, a work unit each."""
        added = [list(c) for c in clauses]
        work.spend(len(added))
        self.clauses += added
        self._solver.append_formula(added)

    def exactly_one(self, lits: Sequence[int], work: Work) -> None:
        """Constrain exactly one of ``lits`` to hold."""
        self.add([list(lits)], work)
        self.at_most_one(lits, work)

    def at_most_one(self, lits: Sequence[int], work: Work) -> None:
        """Constrain at most one of ``lits`` to hold: a clause for each pair of up to
        ``PAIRWISE`` of them, else a sequential counter (3 clauses a literal)."""
        if len(lits) <= PAIRWISE:
            clauses = [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1 :]]
        else:  # s_i: one of the first i+1 literals holds
            s = [self.new_var() for _ in lits[:-1]]
            clauses = [[-lits[0], s[0]]]
            for i in range(1, len(lits) - 1):
                clauses += [[-lits[i], s[i]], [-s[i - 1], s[i]], [-lits[i], -s[i - 1]]]
            clauses.append([-lits[-1], -s[-1]])
        self.add(clauses, work)

    def define(self, expr: cond.Condition, work: Work) -> bool | int:
        """``expr`` as True, False or one literal equivalent to it (a fresh variable
        defined by clauses for each junction, kept for the same ``expr``)."""
        if expr is True or expr is False:
            return expr
        return self._lit(expr, work)

    def _lit(self, expr: cond.Condition, work: Work) -> int:
        assert expr is not True and expr is not False  # constants are folded by conjoin
        kind, arg = expr
        if kind == "atom":
            return arg
        if kind == "not":
            return -self._lit(arg, work)
        found = self._defined.get(expr)
        if found is None:
            parts = [self._lit(p, work) for p in arg]
            found = self._defined[expr] = self.new_var()
            sign = 1 if kind == "and" else -1  # "or" is "and" with every literal negated
            self.add(
                [[-sign * found, sign * p] for p in parts]
                + [[sign * found] + [-sign * p for p in parts]],
                work,
            )
        return found

    def solve(self, assumptions: Sequence[int], work: Work) -> bool:
        """Whether the clauses and ``assumptions`` are satisfiable (:meth:`value` reads
        the last model found); a call past ``work``'s budget is a ValueError."""
        work.spend(CALL_WORK + self.top // VARIABLES_PER_UNIT)
        conflicts = max(work.left() // CONFLICT_WORK, 1)
        before = self._conflicts()
        self._solver.conf_budget(conflicts)
        found = self._solver.solve_limited(assumptions=list(assumptions))
        if found is None:
            work.spend(
                work.left() + 1, lambda: f"a SAT search of more than {conflicts:,} conflicts"
            )
        work.spend((self._conflicts() - before) * CONFLICT_WORK)
        if found:
            self._model = self._solver.get_model()
        return bool(found)

    def _conflicts(self) -> int:
        return self._solver.accum_stats()["conflicts"]

    def value(self, lit: int) -> bool:
        """The value of ``lit`` in the last model found."""
        index = abs(lit) - 1  # a variable no clause names yet is false
        return (index < len(self._model) and self._model[index] > 0) == (lit > 0)

    def backbone(
        self, assumptions: Sequence[int], lits: Mapping[int, int], check: Iterable[int], work: Work
    ) -> tuple[int, dict[int, bool]]:
        """(the keys of ``lits`` true in a model, as a mask; the value of each key of
        ``check`` that is the same in every model): a model, then for each key not yet
        seen both ways, a model with it flipped or the proof that there is none. No
        model at all is a ValueError (an empty belief)."""
        if not self.solve(assumptions, work):
            raise ValueError("the belief is empty: no world satisfies what is known")
        work.spend(len(lits) // LITERALS_PER_UNIT)
        first = {f: self.value(lit) for f, lit in lits.items()}
        sample = sum(1 << f for f, v in first.items() if v)
        open_ = dict.fromkeys(check)
        fixed: dict[int, bool] = {}
        implied: list[int] = []  # the backbone literals found, assumed to help later calls
        for f in list(open_):
            if f not in open_:
                continue
            lit = lits[f] if first[f] else -lits[f]
            if self.solve([*assumptions, *implied, -lit], work):
                work.spend(len(open_) // LITERALS_PER_UNIT)
                for g in list(open_):
                    if self.value(lits[g]) != first[g]:
                        del open_[g]
            else:
                del open_[f]
                fixed[f] = first[f]
                implied.append(lit)
        return sample, fixed

    def models(self, assumptions: Sequence[int], lits: Mapping[int, int], work: Work) -> list[int]:
        """Every assignment of the keys of ``lits`` (masks) some model has, sorted: each
        model found is blocked under a fresh activation literal, disabled at the end."""
        act = self.new_var()
        found = []
        while self.solve([*assumptions, act], work):
            mask = sum(1 << f for f, lit in lits.items() if self.value(lit))
            found.append(mask)
            block = [-lit if mask >> f & 1 else lit for f, lit in lits.items()]
            self.add([[-act, *block]], work)
        self.add([[-act]], work)
        return sorted(found)
