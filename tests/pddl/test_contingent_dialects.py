"""The contingent suites' other dialects: several atoms to ``:observe``, K-replanner's
sensors and invariants, cp2fsc's multi-valued variables, ``:hidden`` worlds. Each form
reads into sensing actions, unknown atoms and clauses, and each malformed one is an error
with its line and column."""

from __future__ import annotations

import pytest

from planloop.pddl import PDDLError, parse
from planloop.pddl.contingent import load_contingent
from planloop.pddl.hidden import hidden_world, read_hidden
from planloop.pddl.model import Atom, InitClause, Literal


def _atom(text: str) -> Atom:
    name, *args = text.strip("()").split()
    return Atom(name, tuple(args))


def _clauses(problem) -> set[tuple[str, tuple[tuple[str, bool], ...]]]:
    return {
        (c.kind, tuple((str(lit.atom), lit.negated) for lit in c.literals)) for c in problem.clauses
    }


def _error(domain: str, problem: str, words: str) -> tuple[int | None, int | None]:
    """The (line, col) of the one error whose message holds ``words``."""
    with pytest.raises(PDDLError) as caught:
        load_contingent(domain, problem)
    found = [d for d in caught.value.diagnostics if words in d.message]
    assert found, [d.message for d in caught.value.diagnostics]
    return found[0].line, found[0].col


# -- several atoms to observe ---------------------------------------------------------
SENSE = """(define (domain d) (:requirements :strips :contingent)
  (:predicates (p ?x) (q ?x) (r))
  (:constants a b)
  (:action look :observe (p a) (q a))
  (:action act :parameters (?x) :precondition (p ?x) :effect (r)))"""
PLAIN = "(define (problem p) (:domain d) (:init (unknown (p a)) (unknown (q a))) (:goal (r)))"


def test_observe_takes_several_atoms_without_and():
    domain, _ = parse(SENSE, PLAIN, contingent=True)
    anded, _ = parse(SENSE.replace("(p a) (q a)", "(and (p a) (q a))"), PLAIN, contingent=True)
    assert domain.actions["look"].observe == (_atom("(p a)"), _atom("(q a)"))
    assert domain.actions["look"] == anded.actions["look"]


def test_observe_of_a_non_atom_is_an_error_at_its_place():
    domain = SENSE.replace("(p a) (q a)", "(p a)\n    (or (q a) (p b))")
    assert _error(domain, PLAIN, "':observe' takes an atom") == (5, 5)


# -- K-replanner ----------------------------------------------------------------------
CORRIDOR = """(define (domain corridor)
  (:requirements :typing)
  (:types cell)
  (:predicates (at ?c - cell) (adj ?a ?b - cell) (open ?c - cell) (warm ?c - cell))
  (:action move
    :parameters (?a ?b - cell)
    :precondition (and (at ?a) (adj ?a ?b) (open ?b))
    :effect (and (not (at ?a)) (at ?b)))
  (:sensor look
    :parameters (?a ?b - cell)
    :condition (and (at ?a) (adj ?a ?b))
    :sense (open ?b) (warm ?b)))"""


def _corridor(init: str, more: str = "") -> str:
    return f"""(define (problem c3) (:domain corridor) (:objects c1 c2 c3 - cell)
  (:init (at c1) (adj c1 c2) (adj c2 c3) (open c1)
         {init})
  {more}
  (:goal (at c3)))"""


def test_a_sensor_is_a_sensing_action_of_its_name():
    domain, _ = parse(CORRIDOR, _corridor("(unknown (open c2))"), contingent=True)
    look = domain.actions["look"]
    assert [p.name for p in look.params] == ["?a", "?b"] and look.effects == ()
    assert look.observe == (Atom("open", ("?b",)), Atom("warm", ("?b",)))
    assert str(look.precondition.args[1]) == "(adj ?a ?b)"


@pytest.mark.parametrize(
    "sensor, words, where",
    [
        ("(:sensor look :parameters (?a - cell) :condition (at ?a))", "has no ':sense'", (9, 12)),
        (
            "(:sensor look :parameters (?a - cell) :effect (at ?a))",
            "expected ':parameters'",
            (9, 41),
        ),
        ("(:sensor look :sense (or (open c1)))", "':observe' takes an atom", (9, 24)),
        ("(:sensor :sense (open c1))", "expected '(:sensor NAME", (9, 3)),
    ],
)
def test_a_malformed_sensor_is_an_error_at_its_place(sensor, words, where):
    domain = CORRIDOR[: CORRIDOR.index("(:sensor")] + sensor + ")"
    assert _error(domain, _corridor("(unknown (open c2))"), words) == where


def test_invariants_are_clauses_and_an_atom_only_negated_is_false():
    _, problem = parse(
        CORRIDOR,
        _corridor(
            "(invariant (open c2) (open c3)) (at-most-one (open c2) (open c3))\n"
            "(exactly-one (warm c2) (warm c3)) (at-least-one (warm c1) (not (open c3)))\n"
            "(invariant (not (warm c1)) (not (warm c3)))"
        ),
        contingent=True,
    )
    assert _clauses(problem) == {
        ("or", (("(open c2)", False), ("(open c3)", False))),
        ("at-most-one", (("(open c2)", False), ("(open c3)", False))),
        ("oneof", (("(warm c2)", False), ("(warm c3)", False))),
        ("or", (("(warm c1)", False), ("(open c3)", True))),
        ("or", (("(warm c1)", True), ("(warm c3)", True))),
    }
    only_negated = _corridor("(invariant (open c2) (not (warm c2)))")
    _, problem = parse(CORRIDOR, only_negated, contingent=True)
    assert InitClause("or", (Literal(_atom("(warm c2)"), True),)) in problem.clauses


def test_invariant_tautologies_make_atoms_unknown():
    ct = load_contingent(
        CORRIDOR, _corridor("(invariant (open c2) (not (open c2))) (not (open c3))")
    )
    assert hidden_world(ct, [_atom("(open c2)")]) != hidden_world(ct, [])
    with pytest.raises(ValueError, match=r"\(open c3\) true, but it is false in every world"):
        hidden_world(ct, [_atom("(open c3)")])


def test_a_malformed_invariant_is_an_error_at_its_place():
    problem = _corridor("(invariant (open c2)\n         (and (open c3)))")
    assert _error(CORRIDOR, problem, "'invariant' in ':init' takes atoms") == (4, 10)


# -- :hidden ----------------------------------------------------------------------------
def test_hidden_sections_of_a_problem_are_its_worlds():
    text = _corridor(
        "(oneof (open c2) (open c3))",
        "(:hidden (open c3))\n  (:hidden (open c2) (not (open c3)))",
    )
    ct = load_contingent(CORRIDOR, text)
    assert ct.problem.hidden == ((_atom("(open c3)"),), (_atom("(open c2)"),))
    worlds = {hidden_world(ct, w) for w in ct.problem.hidden}
    assert len(worlds) == 2


def test_a_malformed_hidden_section_is_an_error_at_its_place():
    text = _corridor("(oneof (open c2) (open c3))", "(:hidden (open c9))")
    assert _error(CORRIDOR, text, "undeclared object 'c9'") == (4, 18)
    text = _corridor("(oneof (open c2) (open c3))", "(:hidden (or (open c2)))")
    assert _error(CORRIDOR, text, "':hidden' lists atoms") == (4, 12)


def test_hidden_files_read_bare_sections_problems_and_lists_of_atoms(tmp_path):
    ct = load_contingent(CORRIDOR, _corridor("(oneof (open c2) (open c3))"))
    bare = "; two worlds\n(:hidden (open c2))\n(:hidden (open c3))"
    path = tmp_path / "hidden.pddl"
    path.write_text(f"(define (problem c3)\n{bare})")
    expected = ((_atom("(open c2)"),), (_atom("(open c3)"),))
    assert read_hidden(bare, ct.domain, ct.problem) == expected
    assert read_hidden(path, ct.domain, ct.problem) == expected
    assert read_hidden(["(open c3)"], ct.domain, ct.problem) == expected[1:]
    with pytest.raises(PDDLError, match=r"line 2, col 3: wrong arity"):
        read_hidden("(:hidden\n (open c2 c3))", ct.domain, ct.problem)
    with pytest.raises(PDDLError, match=r"line 1, col 1: expected '\(:hidden atom"):
        read_hidden("hidden (open c2)", ct.domain, ct.problem)


def test_a_world_outside_the_initial_belief_names_what_it_breaks():
    ct = load_contingent(CORRIDOR, _corridor("(oneof (open c2) (open c3)) (or (warm c2))"))
    ok = hidden_world(ct, [_atom("(open c2)"), _atom("(warm c2)")])
    assert ok >> ct.task.fact_id(_atom("(open c2)")) & 1
    assert not ok >> ct.task.fact_id(_atom("(open c3)")) & 1
    assert ok >> ct.task.fact_id(_atom("(at c1)")) & 1  # what :init lists
    with pytest.raises(ValueError, match=r"breaks \(oneof \(open c2\) \(open c3\)\)"):
        hidden_world(ct, [_atom("(open c2)"), _atom("(open c3)"), _atom("(warm c2)")])
    with pytest.raises(ValueError, match=r"\(warm c3\) true, but it is false in every world"):
        hidden_world(ct, [_atom("(open c2)"), _atom("(warm c3)")])
    with pytest.raises(ValueError, match=r"breaks \(or \(warm c2\)\)"):
        hidden_world(ct, [_atom("(open c2)")])  # what it does not name is false


def test_constants_in_a_problem_are_its_objects_with_a_warning():
    text = _corridor("(unknown (open c4))").replace(
        "(:objects c1 c2 c3 - cell)", "(:objects c1 c2 c3 - cell) (:constants c4 - cell)"
    )
    _, problem = parse(CORRIDOR, text, contingent=True)
    assert "c4" in problem.objects
    assert any("':constants' in a problem" in w.message for w in problem.warnings)


def test_a_denied_atom_of_a_clause_is_false():
    ct = load_contingent(CORRIDOR, _corridor("(or (open c2) (open c3)) (not (open c2))"))
    with pytest.raises(ValueError, match=r"breaks \(or \(not \(open c2\)\)\)"):
        hidden_world(ct, [_atom("(open c2)")])
    assert hidden_world(ct, [_atom("(open c3)")])


# -- cp2fsc's multi-valued variables -----------------------------------------------------
ROOMS = """(define (domain rooms)
  (:types room colour)
  (:predicates (at ?r - room) (adj ?a ?b - room) (paint ?r - room ?c - colour)
               (cat ?r - room) (noise ?r - room) (dark) (quiet) (mark ?c - colour))
  (:variable place (forall (?r - room) (at ?r)))
  (:variable (wall ?r - room) (forall (?c - colour) (when (mark ?c) (paint ?r ?c))))
  (:variable cat-place (forall (?r - room) (cat ?r)))
  (:variable lights (dark))
  (:obs-variable (heard ?r - room) (noise ?r))
  (:obs-variable silence (quiet))
  (:action move
    :parameters (?a ?b - room)
    :precondition (and (at ?a) (adj ?a ?b))
    :effect (and (not (at ?a)) (at ?b))
    :sensing-model (forall (?c - colour) (paint ?b ?c)))
  (:action listen
    :parameters (?r - room)
    :precondition (at ?r)
    :sensing-model
      (and (forall (?s - room) (when (and (adj ?r ?s) (cat ?s)) (noise ?r)))
           (when (forall (?s - room) (or (not (adj ?r ?s)) (not (cat ?s)))) (not (noise ?r)))))
  (:action switch :precondition (dark) :sensing-model (when (dark) (quiet))))"""
HOUSE = """(define (problem house) (:domain rooms)
  (:objects r1 r2 r3 - room red blue green - colour)
  (:init (at r1) (adj r1 r2) (adj r2 r1) (adj r2 r3) (adj r3 r2) (mark red) (mark blue)
         (not (dark)))
  (:goal (at r3)))"""


def test_variables_are_oneofs_of_their_values_unknown_unless_init_names_them():
    domain, problem = parse(ROOMS, HOUSE, contingent=True)
    walls = {c for c in _clauses(problem) if "paint" in c[1][0][0]}
    assert walls == {
        ("oneof", ((f"(paint {r} red)", False), (f"(paint {r} blue)", False)))
        for r in ("r1", "r2", "r3")
    }  # (mark green) does not hold: green is no value
    assert ("oneof", tuple((f"(cat {r})", False) for r in ("r1", "r2", "r3"))) in _clauses(problem)
    assert not any("(at " in str(c) for c in problem.clauses)  # :init names the place
    assert _atom("(dark)") not in problem.unknown  # a boolean, denied
    _, lit = parse(ROOMS, HOUSE.replace("(not (dark))", ""), contingent=True)
    assert lit.unknown == (_atom("(dark)"),)


def test_a_default_sensing_model_is_each_action_s_without_one_of_its_own():
    """cp2fsc's ``:default-sensing-model`` (Localize's): an action with no sensing model
    of its own senses by it, as if it were written in the action."""
    own = "(:action switch :precondition (dark) :sensing-model (when (dark) (quiet)))"
    default = (
        "(:default-sensing-model (when (dark) (quiet)))\n"
        "  (:action switch :precondition (dark) :effect (and))"
    )
    assert own in ROOMS
    written, _ = parse(ROOMS, HOUSE, contingent=True)
    defaulted, _ = parse(ROOMS.replace(own, default), HOUSE, contingent=True)
    sensing = {n: a for n, a in written.actions.items() if a.observe}
    assert sensing and {n: a for n, a in defaulted.actions.items() if a.observe} == sensing


def test_sensing_models_become_sensing_actions():
    domain, _ = parse(ROOMS, HOUSE, contingent=True)
    assert domain.actions["move"].observe == ()  # it acts; its sensing is move-sense
    sense = domain.actions["move-sense"]
    assert [p.name for p in sense.params] == ["?a", "?b", "?c"]
    assert sense.observe == (_atom("(paint ?b ?c)"),)
    assert {str(c) for c in sense.precondition.args} >= {"(adj ?a ?b)", "(at ?b)"}
    assert "(at ?a)" not in {str(c) for c in sense.precondition.args}  # move changes it
    assert domain.actions["listen"].observe == (_atom("(noise ?r)"),)  # defined by cats
    assert domain.actions["switch"].observe == (_atom("(dark)"),)  # quiet tells dark


def test_an_observation_defined_by_fixed_facts_is_a_fact_of_the_belief():
    ct = load_contingent(ROOMS, HOUSE)
    paint = [_atom(f"(paint {r} red)") for r in ("r1", "r2", "r3")]
    cat = hidden_world(ct, [_atom("(cat r3)"), *paint])
    assert cat >> ct.task.fact_id(_atom("(noise r2)")) & 1  # r3 is next to r2 only
    assert not cat >> ct.task.fact_id(_atom("(noise r1)")) & 1
    with pytest.raises(ValueError, match=r"breaks \(or \(not \(noise r1\)\) \(cat r2\)\)"):
        hidden_world(ct, [_atom("(cat r3)"), *paint, _atom("(noise r1)")])


@pytest.mark.parametrize(
    "change, words, where",
    [
        (
            ("(forall (?c - colour) (paint ?b ?c))", "(when (cat ?b) (paint ?b red))"),
            "observes (paint ?b red) under a condition on facts that change",
            (15, 35),
        ),
        (
            ("(when (mark ?c) (paint ?r ?c))", "(when (cat ?r) (paint ?r ?c))"),
            "a value of 'wall' is chosen by a condition on facts that change",
            (6, 3),
        ),
        (
            ("(when (dark) (quiet))", "(when (and (dark) (cat r1)) (quiet))"),
            "observes (quiet) when several facts",
            (22, 83),
        ),
        (
            ("(when (dark) (quiet))", "(and (when (at r1) (quiet)) (when (at r2) (quiet)))"),
            "observes (quiet) when several facts",
            (22, 74),
        ),
        (
            ("(:variable lights (dark))", "(:variable (lights) (dark))\n  (:variable)"),
            "expected '(:variable NAME VALUE ...)'",
            (9, 3),
        ),
        (
            ("(:obs-variable silence (quiet))", "(:default-sensing-model)"),
            "expected '(:default-sensing-model RULES)'",
            (10, 3),
        ),
    ],
)
def test_a_form_the_compilation_cannot_keep_exact_is_an_error_at_its_place(change, words, where):
    old, new = change
    assert old in ROOMS
    assert _error(ROOMS.replace(old, new), HOUSE, words) == where


def test_the_ordinary_reader_refuses_the_dialects():
    with pytest.raises(PDDLError, match="section ':sensor' is not supported"):
        parse(CORRIDOR, _corridor("(open c2)"))
    plain = CORRIDOR[: CORRIDOR.index("(:sensor")] + ")"
    with pytest.raises(PDDLError, match="section ':hidden' is not supported in a problem"):
        parse(plain, _corridor("(open c2)", "(:hidden (open c3))"))
    with pytest.raises(PDDLError, match="unknown predicate 'invariant'"):
        parse(plain, _corridor("(invariant (open c2))"))
