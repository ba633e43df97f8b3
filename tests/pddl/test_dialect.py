"""The planner-compatible reading, on PDDL real models wrote: each form Fast Downward or
FF accepts is read as they read it, with a warning at its line and column, and refused
with an error at the same place when strict; the planner then finds the plan that the
PDDLego+ authors' solver found on the same files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planloop.pddl import PDDLError, parse, solve

CASES = json.loads(
    (Path(__file__).parents[1] / "data" / "real_model_pddl" / "cases.json").read_text()
)
# case -> words of its warning (and of the strict error)
FORMS = {
    "own_subtype": ("is listed among its own subtypes",),
    "undeclared_type": ("undeclared type",),
    "duplicate_type": ("duplicate type",),
    "duplicate_section": ("duplicate section",),
    "constant_twice": ("constant", "is declared twice"),
    "object_twice": ("object", "is declared twice"),
    "object_is_constant": ("is already a constant of the domain",),
    "negative_init": ("a negative literal in ':init'",),
    "glued_variable": ("no space before the variable",),
    "unused_requirement": ("requirement",),
    "type_mismatch_in_an_action": ("type mismatch",),
    "unknown_predicate_in_left_out_action": ("unknown predicate", "read as no action"),
}


def matching(diagnostics, words):
    return [d for d in diagnostics if all(w in d.message for w in words)]


@pytest.mark.parametrize("name", sorted(FORMS))
def test_a_tolerated_form_is_a_warning_with_its_place(name):
    case, words = CASES[name], FORMS[name]
    domain, problem = parse(case["domain"], case["problem"])
    warned = matching(domain.warnings + problem.warnings, words)
    assert warned, f"no warning {words} in {domain.warnings + problem.warnings}"
    for w in warned:
        text = case["domain"] if w.stage == "domain" else case["problem"]
        assert w.severity == "warning" and 1 <= w.col <= len(text.split("\n")[w.line - 1])


@pytest.mark.parametrize("name", sorted(set(FORMS) - {"type_mismatch_in_an_action"}))
def test_strict_reading_refuses_it(name):
    """Refused on a line the warning names (a glued variable is refused later, where
    the symbol it makes is used)."""
    case, words = CASES[name], FORMS[name]
    domain, problem = parse(case["domain"], case["problem"])
    lines = {(w.stage, w.line) for w in matching(domain.warnings + problem.warnings, words)}
    with pytest.raises(PDDLError) as info:
        parse(case["domain"], case["problem"], strict=True)
    refused = {(d.stage, d.line) for d in info.value.diagnostics if d.severity == "error"}
    assert name == "glued_variable" or lines & refused


def test_a_variable_of_another_type_in_an_action_is_a_warning():
    """Fast Downward grounds it all the same (ALFWorld's own domain has such atoms)."""
    case = CASES["type_mismatch_in_an_action"]
    domain, _ = parse(case["domain"], case["problem"])
    assert matching(domain.warnings, ("type mismatch",)) and "heatobject" in domain.actions


def test_an_action_ff_leaves_out_is_left_out():
    """FF skips an action with a parameter type no object has, without reading its body:
    its errors are warnings, and the action is not in the domain."""
    case = CASES["unknown_predicate_in_left_out_action"]
    domain, _ = parse(case["domain"], case["problem"])
    left_out = {a.name for a in domain.unread_actions}
    assert left_out and not left_out & set(domain.actions)
    with pytest.raises(PDDLError):
        parse(case["domain"], case["problem"], strict=True)


def test_a_left_out_action_comes_back_as_errors_once_its_types_have_objects():
    case = CASES["unknown_predicate_in_left_out_action"]  # heatobject's ?r is one
    problem = case["problem"].replace("(:objects", "(:objects oven1 - microwavereceptacle", 1)
    with pytest.raises(PDDLError) as info:
        parse(case["domain"], problem)
    [error] = info.value.diagnostics
    assert (error.stage, error.message) == ("domain", "unknown predicate 'heated'")
    assert "(heated ?o)" in case["domain"].split("\n")[error.line - 1]


@pytest.mark.parametrize("name", sorted(FORMS))
def test_the_planner_finds_a_plan_as_the_authors_solver_did(name):
    case = CASES[name]
    result = solve(case["domain"], case["problem"], planner="auto", timeout=120)
    assert result.status == "solved", result.message


def test_a_type_cycle_names_only_its_types():
    domain = """(define (domain d) (:requirements :typing)
      (:types room - place place - room box - room thing)
      (:predicates (in ?b - box)) (:action a :parameters (?b - box) :effect (in ?b)))"""
    with pytest.raises(PDDLError) as info:
        parse(domain, "(define (problem p) (:domain d) (:init) (:goal (and)))")
    [cycle] = [d for d in info.value.diagnostics if "ancestor" in d.message]
    assert "'room'" in cycle.message and "'place'" in cycle.message
    assert "'box'" not in cycle.message and (cycle.line, cycle.col) == (2, 15)


CONTRADICTION_DOMAIN = """(define (domain d)
  (:predicates (p ?x) (q ?x))
  (:action go :parameters (?x) :precondition (p ?x) :effect (q ?x)))"""
CONTRADICTIONS = [  # (:init sections, contingent, the word for the fact's other value, place)
    ("(:init (p a) (not (p a)))", False, "true", (2, 16)),
    ("(:init (not (p a)) (p a))", False, "true", (2, 22)),
    ("(:init (p a))\n  (:init (q a) (not (p a)))", False, "true", (3, 16)),
    ("(:init (unknown (p a)) (not (p a)))", True, "unknown", (2, 26)),
    ("(:init (and (not (p a)) (unknown (p a))))", True, "unknown", (2, 27)),
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("init,contingent,other,place", CONTRADICTIONS)
def test_a_fact_both_asserted_and_denied_in_init_is_an_error(
    init, contingent, other, place, strict
):
    """Fast Downward refuses it ("p(a) is true and false"), whatever the reading: an error
    at the later of the two, naming the fact and the earlier one's place (a strict reading
    refuses a second ':init' before reading it)."""
    problem = f"(define (problem x) (:domain d) (:objects a)\n  {init}\n  (:goal (q a)))"
    with pytest.raises(PDDLError) as info:
        parse(CONTRADICTION_DOMAIN, problem, strict=strict, contingent=contingent)
    if strict and init.count(":init") == 2:
        [error] = info.value.diagnostics
        assert error.message == "duplicate section ':init'" and error.line == 3
        return
    [error] = [d for d in info.value.diagnostics if "and false" in d.message]
    assert f"'(p a)' is both {other} and false in ':init'" in error.message
    assert (error.line, error.col) == place and "also at line" in error.message


def test_a_negative_literal_of_an_unlisted_fact_is_still_tolerated():
    problem = """(define (problem x) (:domain d) (:objects a b)
      (:init (p a) (not (p b)) (not (q a))) (:goal (q a)))"""
    _, read = parse(CONTRADICTION_DOMAIN, problem)
    assert [w.line for w in read.warnings if "negative literal" in w.message] == [2, 2]
    assert {str(a) for a in read.init} == {"(p a)"}
