"""Issue 40's expansions of contingent input, each counted against a limit: K-replanner's
``at-most-one`` (kept whole, not a clause per pair), the belief search (a unit per
clause a value updates), a step sensing many atoms (each component updated once),
cp2fsc's ``:variable`` values (bindings against ``max_expansion``), the wall-clock
backstop of a belief budget, and a duplicate ``:variable`` refused at its place."""

from __future__ import annotations

import random
import time
from itertools import product

import pytest
from beliefs import mixed_belief

from planloop.pddl import Limits, PDDLError
from planloop.pddl.belief import Formula, Work
from planloop.pddl.contingent import load_contingent
from planloop.pddl.hidden import hidden_world
from planloop.pddl.model import Atom
from planloop.pddl.reader import parse

WIDE = """(define (domain wide) (:requirements :strips :contingent)
  (:predicates (u ?x) (done)) (:action go :effect (done)))"""


def _wide(n: int, init: str) -> str:
    objects = " ".join(f"o{i}" for i in range(n))
    return f"(define (problem w) (:domain wide) (:objects {objects}) (:init {init}) (:goal (done)))"


def _atoms(n: int) -> str:
    return " ".join(f"(u o{i})" for i in range(n))


def _u(i: int) -> Atom:
    return Atom("u", (f"o{i}",))


# -- at-most-one -------------------------------------------------------------------------
@pytest.mark.parametrize("max_belief", [2**16, 1])  # listed, and a formula
def test_at_most_one_allows_no_atom_or_exactly_one(max_belief):
    n = 9
    ct = load_contingent(WIDE, _wide(n, f"(at-most-one {_atoms(n)})"), max_belief=max_belief)
    bits = [1 << ct.task.fact_id(_u(i)) for i in range(n)]
    assert set(ct.init.worlds()) == {0, *bits}
    assert hidden_world(ct, [_u(3)]) == bits[3]
    with pytest.raises(ValueError, match=r"breaks \(at-most-one"):
        hidden_world(ct, [_u(3), _u(5)])


def test_a_wide_at_most_one_loads_in_linear_work_and_a_huge_one_is_refused_fast():
    """1,000 atoms were 499,500 clauses (no answer in 95 s); 12,000 a MemoryError."""
    start = time.monotonic()
    ct = load_contingent(WIDE, _wide(1_000, f"(at-most-one {_atoms(1_000)})"))
    assert ct.init.unknown.bit_count() == 1_000
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"\(max_belief_work\)") as caught:
        load_contingent(WIDE, _wide(12_000, f"(at-most-one {_atoms(12_000)})"))
    assert "\n" not in str(caught.value) and time.monotonic() - start < 60


# -- the search: a unit per clause visited -------------------------------------------------
def test_the_search_charges_the_clauses_a_value_updates():
    """An ``or`` of each pair of 120 atoms: each value tried updates 119 clauses. A
    value was one unit (an or over every pair of 300 atoms reset in 39 s): now the
    search stops at half the budget in clause visits and the belief is a formula."""
    n = 120
    pairs = " ".join(f"(or (u o{i}) (u o{j}))" for i in range(n) for j in range(i + 1, n))
    ct = load_contingent(WIDE, _wide(n, pairs))
    assert any(isinstance(c, Formula) for c in ct.init.components)
    small = Limits(max_belief_work=50_000)
    with pytest.raises(
        ValueError, match=r"building the initial belief needs .*\(max_belief_work\)"
    ):
        load_contingent(WIDE, _wide(n, pairs), limits=small)


def test_reading_the_clauses_is_charged_before_any_search():
    n = 2_000
    clauses = " ".join(f"(or (u o{i}) (u o{(i + 1) % n}))" for i in range(n))
    with pytest.raises(ValueError, match=r"needs more than 1,000 work units"):
        load_contingent(WIDE, _wide(n, clauses), limits=Limits(max_belief_work=1_000))


def test_listed_components_are_charged_by_the_words_they_hold():
    """40,000 independent two-valued variables took 1.5 GB (each assignment a mask of
    every fact): their words are now work units."""
    domain = """(define (domain w) (:requirements :strips :typing :contingent) (:types t)
  (:predicates (a ?x ?y - t) (b ?x ?y - t) (done))
  (:variable (v ?x ?y - t) (a ?x ?y) (b ?x ?y))
  (:action go :effect (done)))"""
    objects = " ".join(f"o{i}" for i in range(200))
    problem = f"(define (problem p) (:domain w) (:objects {objects} - t) (:init) (:goal (done)))"
    with pytest.raises(ValueError, match=r"\(max_belief_work\)"):
        load_contingent(domain, problem)


# -- sensing many atoms --------------------------------------------------------------------
def _work() -> Work:
    return Work(10**7, "sensing", lambda found: found)


def test_sensing_many_facts_at_once_equals_sensing_them_one_by_one():
    rng = random.Random(0)
    for _ in range(300):
        belief = mixed_belief(rng, range(2, 14), 4, 5)
        world = rng.choice(list(belief.worlds()))
        facts = rng.sample(range(14), rng.randint(1, 8))
        values = {f: bool(world >> f & 1) for f in facts}
        at_once = belief.forked().sense(values, _work())
        one_by_one = belief.forked()
        for f, v in values.items():
            one_by_one = one_by_one.sense({f: v}, _work())
        assert set(at_once.worlds()) == set(one_by_one.worlds())
        assert (at_once.known, at_once.unknown) == (one_by_one.known, one_by_one.unknown)
        assert set(at_once.worlds()) == {
            w for w in belief.worlds() if all(bool(w >> f & 1) == v for f, v in values.items())
        }


def test_one_step_sensing_thousands_of_atoms_is_linear():
    """5,000 atoms observed by one sensing action: no answer in 58 s before."""

    def step_seconds(n: int) -> float:
        constants = " ".join(f"o{i}" for i in range(n))
        domain = f"""(define (domain wide) (:requirements :strips :contingent)
  (:constants {constants}) (:predicates (u ?x) (done))
  (:action look :observe (and {_atoms(n)})))"""
        init = " ".join(f"(unknown (u o{i}))" for i in range(n))
        ct = load_contingent(
            domain, f"(define (problem w) (:domain wide) (:init {init}) (:goal (done)))"
        )
        world = ct.draw_world(0)
        start = time.monotonic()
        belief, _, sensed = ct.step(ct.start(), world, ct.task.action("look", ()))
        seconds = time.monotonic() - start
        assert len(sensed) == n and belief.unknown == 0 and belief.known & ~world == 0
        return seconds

    assert step_seconds(5_000) < 20 * max(step_seconds(500), 0.01) + 5  # 10x atoms: not 100x


# -- cp2fsc's variables ----------------------------------------------------------------------
NESTED = """(define (domain w) (:requirements :strips :typing :contingent) (:types t)
  (:predicates (p {params}) (done))
  (:variable v {value})
  (:action go :effect (done)))"""


def _nested(depth: int) -> str:
    names = [f"?v{i}" for i in range(depth)]
    value = f"(p {' '.join(names)})"
    for name in reversed(names):
        value = f"(forall ({name} - t) {value})"
    return NESTED.format(params=" ".join(f"{v} - t" for v in names), value=value)


def test_variable_values_past_max_expansion_are_refused_before_they_expand():
    """Foralls nested 13 deep over 3 objects (1,594,323 values) took 36 s and 740 MB."""
    problem = "(define (problem p) (:domain w) (:objects a b c - t) (:init) (:goal (done)))"
    start = time.monotonic()
    with pytest.raises(PDDLError, match=r"1,594,324 bindings .*\(max_expansion\)") as caught:
        parse(_nested(13), problem, contingent=True)
    assert "\n" not in str(caught.value) and time.monotonic() - start < 5
    _, read = parse(_nested(8), problem, contingent=True)
    assert len(read.clauses) == 1 and len(read.clauses[0].literals) == 3**8
    with pytest.raises(PDDLError, match=r"6,562 bindings .*\(max_expansion\)"):
        parse(_nested(8), problem, Limits(max_expansion=6_561), contingent=True)


def test_a_duplicate_variable_is_an_error_at_its_name():
    domain = _nested(1).replace(
        "(:variable v", "(:variable w (done))\n  (:obs-variable (v ?x - t) (p ?x))\n  (:variable v"
    )
    problem = "(define (problem p) (:domain w) (:objects a - t) (:init) (:goal (done)))"
    with pytest.raises(PDDLError) as caught:
        parse(domain, problem, contingent=True)
    (found,) = [d for d in caught.value.diagnostics if "duplicate variable 'v'" in d.message]
    assert (found.line, found.col) == (4, 19)  # the name of the second one read


# -- the wall-clock backstop -----------------------------------------------------------------
def test_a_budget_past_its_backstop_is_refused_naming_its_limit():
    work = Work(10**6, "testing", lambda found: f"{found} (max_belief_work)")
    work.spend(10)
    work.deadline = time.monotonic() - 1  # as if the work had run 30 s
    with pytest.raises(ValueError, match=r"^testing needs more than 30 s .* \(max_belief_work\)$"):
        work.spend(1)


def test_every_world_of_a_small_at_most_one_and_or_mix_is_kept():
    """The search over mixed kinds equals brute force."""
    init = "(at-most-one (u o0) (u o1) (u o2)) (or (u o2) (u o3)) (oneof (u o3) (u o4))"
    ct = load_contingent(WIDE, _wide(5, init))
    ids = [ct.task.fact_id(_u(i)) for i in range(5)]
    expected = set()
    for bits in product([0, 1], repeat=5):
        if sum(bits[:3]) <= 1 and (bits[2] or bits[3]) and bits[3] + bits[4] == 1:
            expected.add(sum(b << f for b, f in zip(bits, ids, strict=True)))
    assert set(ct.init.worlds()) == expected
