"""Hostile PDDL (issue 22): each is refused by a work limit naming its keyword, or stops
at the timeout; no test times anything."""

import pytest

from planloop.pddl import Limits, PDDLError, load, parse, parse_plan, solve, validate
from planloop.pddl.deadline import SearchTimeout
from planloop.pddl.grounding import ground

OBJECTS = " ".join(f"o{i}" for i in range(20))


def forall_domain(variables: int, in_effect: bool = False) -> str:
    names = " ".join(f"?v{i}" for i in range(variables))
    if in_effect:
        pre, eff = "()", f"(and (g) (forall ({names}) (when (done) (p ?v0))))"
    else:
        pre, eff = f"(forall ({names}) (or (= ?v0 ?v1) (done)))", "(g)"
    return f"""(define (domain q) (:requirements :adl) (:predicates (p ?x) (g) (done))
      (:action a :parameters () :precondition {pre} :effect {eff})
      (:action b :parameters () :precondition () :effect (done)))"""


PROBLEM = f"(define (problem q1) (:domain q) (:objects {OBJECTS}) (:init) (:goal (g)))"


def chain_domain(n: int) -> str:
    types = " ".join(f"t{i + 1} - t{i}" for i in reversed(range(n)))
    return f"""(define (domain c) (:requirements :typing) (:types {types})
      (:predicates (p ?x - t0) (g))
      (:action a :parameters (?x - t{n}) :precondition (p ?x) :effect (g)))"""


def chain_problem(n: int) -> str:
    return f"(define (problem c1) (:domain c) (:objects o - t{n}) (:init (p o)) (:goal (g)))"


# six parameters over 20 objects, no binding of which passes: 64,000,000 tried
MANY = """(define (domain m) (:requirements :adl) (:predicates (g))
  (:action a :parameters (?a ?b ?c ?d ?e ?f)
   :precondition (and (= ?a ?f) (not (= ?a ?f))) :effect (g)))"""
MANY_PROBLEM = f"(define (problem m1) (:domain m) (:objects {OBJECTS}) (:init) (:goal (g)))"


def refused(keyword: str, call, *args, **kwargs) -> str:
    with pytest.raises(PDDLError) as info:
        call(*args, **kwargs)
    message = str(info.value)
    assert f"({keyword}); to accept more, pass limits=Limits({keyword}=...)" in message
    return message


@pytest.mark.parametrize("in_effect", [False, True])
def test_a_forall_over_5_variables_is_refused_before_it_expands(in_effect):
    message = refused("max_expansion", load, forall_domain(5, in_effect), PROBLEM)
    assert "action 'a'" in message and "20^5 = 3,200,000 bindings" in message
    result = solve(forall_domain(5, in_effect), PROBLEM, planner="bfs", timeout=3)
    assert result.status == "invalid_input" and "max_expansion" in result.message


def test_a_forall_within_the_limit_is_grounded_and_solved():
    assert load(forall_domain(3), PROBLEM).actions
    assert solve(forall_domain(3), PROBLEM, planner="auto", timeout=30).solved


@pytest.mark.slow
@pytest.mark.parametrize("planner", ["auto", "bfs"])
def test_the_timeout_bounds_grounding_when_the_limit_is_raised(planner):
    limits = Limits(max_expansion=10**12)
    result = solve(forall_domain(6), PROBLEM, planner=planner, timeout=1, limits=limits)
    assert result.status == "timeout"


def test_grounding_stops_at_its_check():
    calls = []

    def check():
        calls.append(1)
        if len(calls) == 3:
            raise SearchTimeout()

    domain, problem = parse(forall_domain(5), PROBLEM)
    with pytest.raises(SearchTimeout):
        ground(domain, problem, Limits(max_expansion=10**12), check)


@pytest.mark.slow
def test_action_parameters_tried_count_against_the_limit():
    message = refused("max_expansion", load, MANY, MANY_PROBLEM)
    assert "grounding action 'a' expands" in message
    assert solve(MANY, MANY_PROBLEM, planner="auto", timeout=3).status in ("timeout", "unsolvable")


@pytest.mark.slow
def test_many_ground_actions_are_refused():
    domain = MANY.replace("(and (= ?a ?f) (not (= ?a ?f)))", "()")
    refused("max_ground_actions", load, domain, MANY_PROBLEM)


def test_a_deep_when_nesting_is_solved():
    depth = 45
    effect = "(g)"
    for i in reversed(range(depth)):
        effect = f"(when (c{i}) {effect})"
    setters = " ".join(
        f"(:action m{i} :parameters () :precondition () :effect (c{i}))" for i in range(depth)
    )
    domain = f"""(define (domain w) (:requirements :adl)
      (:predicates {" ".join(f"(c{i})" for i in range(depth))} (g))
      (:action a :parameters () :precondition () :effect {effect}) {setters})"""
    problem = "(define (problem w1) (:domain w) (:init) (:goal (g)))"
    assert solve(domain, problem, planner="auto", timeout=60).solved
    refused("max_expansion", load, domain, problem, Limits(max_expansion=10))


def test_an_8000_type_chain_is_refused_by_its_depth():
    message = refused("max_type_depth", parse, chain_domain(8000), chain_problem(8000))
    assert "8,001 types above it" in message
    result = solve(chain_domain(8000), chain_problem(8000), planner="auto", timeout=3)
    assert result.status == "invalid_input" and "max_type_depth" in result.message


def test_an_8000_type_chain_is_read_and_solved_with_the_limit_raised():
    limits = Limits(max_type_depth=10_000)
    assert solve(
        chain_domain(8000), chain_problem(8000), planner="auto", timeout=30, limits=limits
    ).solved


def test_too_many_types_are_refused():
    refused("max_types", parse, chain_domain(50), chain_problem(50), Limits(max_types=49))


def test_plan_text_past_the_byte_limit_is_refused():
    task = load(forall_domain(2), PROBLEM)
    assert validate(task, "(b)\n(a)\n").valid
    plan = "(b)\n(a)\n" * 1000
    refused("max_bytes", validate, task, plan, Limits(max_bytes=1000))
    refused("max_bytes", parse_plan, plan.encode(), Limits(max_bytes=1000))


def test_limits_must_be_positive_ints():
    with pytest.raises(ValueError, match="max_expansion"):
        Limits(max_expansion=0)
    with pytest.raises(ValueError, match="max_bytes"):
        Limits(max_bytes=1.5)


def test_a_non_ascii_name_is_refused_where_it_is_written():
    domain = forall_domain(2).replace("(p ?x)", "(p\u00e9 ?x)")
    with pytest.raises(PDDLError) as info:
        parse(domain, PROBLEM)
    diagnostic = info.value.diagnostics[0]
    assert diagnostic.line == 1 and "is not ASCII" in diagnostic.message
    assert "p\\xe9" in diagnostic.message
    for planner in ("auto", "bfs", "lama-first"):
        assert solve(domain, PROBLEM, planner=planner, timeout=10).status == "invalid_input"
