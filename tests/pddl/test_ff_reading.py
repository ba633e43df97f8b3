"""read_ff: files read as the PDDLego+ authors' FF-based parser reads them, one rule a test."""

import pytest

from planloop.pddl import PDDLError, solve
from planloop.pddl.ff_reading import read_ff
from planloop.pddl.source import DEFAULT_LIMITS

DOMAIN = """(define (domain rooms)
  (:requirements :strips :typing)
  (:types room door - object)
  (:predicates (at ?r - room) (conn ?a - room ?b - room) (shut ?d - door))
  (:action move
    :parameters (?a - room ?b - room)
    :precondition (and (at ?a) (conn ?a ?b))
    :effect (and (at ?b) (not (at ?a)))))"""


def problem(objects: str, init: str = "(at a) (conn a b)", goal: str = "(at b)") -> str:
    return (
        f"(define (problem p) (:domain rooms)\n  (:objects {objects})\n"
        f"  (:init {init})\n  (:goal {goal}))"
    )


def refused(df: str, pf: str) -> list:
    with pytest.raises(PDDLError) as info:
        read_ff(df, pf, DEFAULT_LIMITS)
    return [d for d in info.value.diagnostics if d.severity == "error"]


def test_an_object_declared_under_two_types_is_in_both():
    pf = problem("a b - room b - door", "(at a) (conn a b) (shut b)")
    d, p = read_ff(DOMAIN, pf, DEFAULT_LIMITS)
    assert p.objects["b"] == "room+door"
    assert solve(DOMAIN, pf, planner="authors").plan == ("(move a b)",)


def test_a_variable_whose_type_has_objects_of_another_type_is_refused():
    df = DOMAIN.replace("(?a - room ?b - room)", "(?a - room ?b - object)")
    error = refused(df, problem("a b - room d - door"))[0]
    assert error.message.startswith("type of variable '?b' (object) does not match argument 2")
    assert (error.stage, error.line) == ("domain", 5)


def test_a_variable_of_object_type_is_accepted_when_every_object_fits():
    df = DOMAIN.replace("(?a - room ?b - room)", "(?a - room ?b - object)")
    _, p = read_ff(df, problem("a b - room"), DEFAULT_LIMITS)
    assert solve(df, problem("a b - room"), planner="authors").plan == ("(move a b)",)
    assert set(p.objects) == {"a", "b"}


def test_an_untyped_object_in_a_typed_argument_of_a_fact_is_refused():
    error = refused(DOMAIN, problem("a - room b"))[0]
    assert error.message == "type mismatch: 'b' as argument 2 of 'conn', which expects room"
    assert (error.stage, error.line, error.col) == ("problem", 3, 17)


def test_an_action_with_a_parameter_of_an_empty_type_is_no_action():
    df = DOMAIN.replace("(?a - room ?b - room)", "(?a - room ?b - room ?d - door)")
    d, p = read_ff(df, problem("a b - room"), DEFAULT_LIMITS)
    assert "move" not in d.actions
    [warning] = [w for w in d.warnings if "FF skips it" in w.message]
    assert warning.message.startswith("parameter '?d' of action 'move' has type 'door'")
    assert solve(df, problem("a b - room"), planner="authors").status == "unsolvable"


def test_the_errors_of_an_action_that_is_no_action_do_not_count():
    df = DOMAIN.replace(":effect (and (at ?b)", ":effect (and (at ?b) (nosuch ?b)").replace(
        "(?a - room ?b - room)", "(?a - room ?b - room ?d - door)"
    )
    d, _ = read_ff(df, problem("a b - room"), DEFAULT_LIMITS)
    assert "move" not in d.actions
    [error] = refused(df, problem("a b - room d - door"))
    assert error.message == "unknown predicate 'nosuch'"


def test_a_predicate_of_an_empty_type_cannot_be_used():
    [error] = refused(DOMAIN, problem("a b - room", goal="(and (at b) (shut a))"))
    assert "'shut' is declared with an argument of a type no object has" in error.message


def test_a_negative_literal_last_in_init_is_the_authors_crash():
    [error] = refused(DOMAIN, problem("a b - room", "(at a) (conn a b) (not (at b))"))
    assert "the authors' solver crashes" in error.message
    assert (error.line, error.col) == (3, 28)


def test_a_negative_literal_before_the_last_fact_is_dropped():
    d, p = read_ff(DOMAIN, problem("a b - room", "(not (at b)) (at a) (conn a b)"), DEFAULT_LIMITS)
    assert len(p.init) == 2


def test_paths_are_read_as_texts(tmp_path):
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(problem("a b - room"))
    result = solve(tmp_path / "d.pddl", str(tmp_path / "p.pddl"), planner="authors")
    assert result.plan == ("(move a b)",)


def test_a_character_ffs_lexer_skips_splits_the_name_it_stands_in():
    # lex-fct_pddl.l's catch-all rule skips `|`: |b| is the object b
    pf = problem("a |b| - room", init="(at a) (conn a |b|)", goal="(at |b|)")
    _, p = read_ff(DOMAIN, pf, DEFAULT_LIMITS)
    assert set(p.objects) == {"a", "b"}
    assert solve(DOMAIN, pf, planner="authors").plan == ("(move a b)",)


EXPLORE = """(define (domain explore) (:requirements :strips :typing) (:types location direction)
 (:predicates (at ?l - location) (visited ?l - location) (link ?a - location ?b - location ?d - direction))
 (:action move :parameters (?a - location ?b - location ?d - direction)
  :precondition (and (at ?a) (link ?a ?b ?d)) :effect (and (at ?b) (not (at ?a)) (visited ?b))))"""
EVERYWHERE = """(define (problem p) (:domain explore)
 (:objects kitchen corridor - location west east - direction)
 (:init (at kitchen) (visited kitchen) (link kitchen corridor west))
 (:goal (forall (?l - location) (visited ?l))))"""


def test_a_goal_quantifier_ranges_over_its_type():
    # FF reads (forall (?l - location) ...) over the two locations, not every object
    _, problem = read_ff(EXPLORE, EVERYWHERE, DEFAULT_LIMITS)
    assert problem.goal.params[0].types != ("object",)
    result = solve(EXPLORE, EVERYWHERE, planner="authors")
    assert result.plan == ("(move kitchen corridor west)",)


def _refused(domain: str, problem: str = EVERYWHERE) -> str:
    with pytest.raises(PDDLError) as caught:
        read_ff(domain, problem, DEFAULT_LIMITS)
    return str(caught.value)


def test_a_requirement_ffs_parser_does_not_list_is_refused():
    message = _refused(EXPLORE.replace(":strips :typing", ":strips :typing :disjunctive"))
    assert "':disjunctive'" in message and "authors' solver refuses" in message
    assert "none" in _refused(EXPLORE.replace("(:requirements :strips :typing)", "(:requirements)"))
    read_ff(EXPLORE.replace(":strips", ":STRIPS :adl"), EVERYWHERE, DEFAULT_LIMITS)  # listed


def test_an_empty_condition_or_effect_is_refused_where_ff_wants_one():
    empty = EXPLORE.replace(":precondition (and (at ?a) (link ?a ?b ?d))", ":precondition ()")
    assert "empty () as a condition or effect in :precondition" in _refused(empty)
    inside = EXPLORE.replace("(visited ?b))))", "(visited ?b) ())))")
    assert "in :effect" in _refused(inside)
    assert "in :goal" in _refused(
        EXPLORE, EVERYWHERE.replace("(forall (?l - location) (visited ?l))", "()")
    )
    read_ff(EXPLORE.replace("(and (at ?a) (link ?a ?b ?d))", "(and)"), EVERYWHERE, DEFAULT_LIMITS)


def test_a_keyword_of_ffs_lexer_is_no_name():
    # (problem problem): FF's problem lexer reads the second word as its keyword
    message = _refused(EXPLORE, EVERYWHERE.replace("(problem p)", "(problem problem)"))
    assert "'problem' is a word FF's lexer reads as a keyword" in message
    named = EVERYWHERE.replace("(:domain explore)", "(:domain domain)")
    assert "keyword" in _refused(EXPLORE.replace("(domain explore)", "(domain domain)"), named)
    # a word only the domain's lexer knows is a name in a problem ('domain', 'when')
    read_ff(EXPLORE, EVERYWHERE.replace("west", "domain").replace("east", "when"), DEFAULT_LIMITS)


def test_of_several_types_sections_only_the_last_counts():
    # the first section made fridge a receptacle; FF's parser keeps only the last one,
    # so the fridge is no receptacle there and (closed fridge1) is a type mismatch
    split = """(define (domain kitchen) (:requirements :strips :typing)
     (:types receptacle thing) (:types fridge - receptacle) (:types knife - thing)
     (:predicates (closed ?r - receptacle) (at ?r - receptacle))
     (:action go :parameters (?a - receptacle ?b - receptacle) :precondition (at ?a)
      :effect (and (at ?b) (not (at ?a)))))"""
    problem = """(define (problem p) (:domain kitchen) (:objects shelf1 - receptacle
     fridge1 - fridge) (:init (at shelf1) (closed fridge1)) (:goal (at shelf1)))"""
    assert "fridge1" in _refused(split, problem).lower()
    one = split.replace(
        ") (:types fridge - receptacle) (:types knife - thing)",
        " fridge - receptacle knife - thing)",
    )
    read_ff(one, problem, DEFAULT_LIMITS)
