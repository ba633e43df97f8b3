"""One test per mistake a language model makes in PDDL: the diagnostic must say what
is wrong and point (line, col) at the offending token.

Every case edits a small, valid, typed logistics domain and problem written below;
expected positions are computed from the test text, never typed in by hand.
"""

from __future__ import annotations

import pytest

from planloop.pddl import (
    Diagnostic,
    PDDLError,
    load,
    parse,
    parse_domain,
    parse_plan,
    parse_problem,
)

DOMAIN = """\
(define (domain depot)
  (:requirements :strips :typing)
  (:types truck crate - object place)
  (:predicates (at ?x - object ?p - place)
               (in ?c - crate ?t - truck)
               (empty ?t - truck))
  (:action load
    :parameters (?c - crate ?t - truck ?p - place)
    :precondition (and (at ?c ?p) (at ?t ?p) (empty ?t))
    :effect (and (in ?c ?t) (not (at ?c ?p)) (not (empty ?t))))
  (:action drive
    :parameters (?t - truck ?from ?to - place)
    :precondition (at ?t ?from)
    :effect (and (at ?t ?to) (not (at ?t ?from)))))
"""

PROBLEM = """\
(define (problem move-one)
  (:domain depot)
  (:objects t1 - truck c1 - crate home away - place)
  (:init (at t1 home) (at c1 home) (empty t1))
  (:goal (in c1 t1)))
"""


# -- helpers -----------------------------------------------------------------------------
def position(text: str, pos: int) -> tuple[int, int]:
    """The 1-based (line, col) of offset ``pos`` in ``text``."""
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def at(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """The 1-based (line, col) where the ``occurrence``-th ``needle`` starts in ``text``."""
    pos = -1
    for _ in range(occurrence):
        pos = text.index(needle, pos + 1)
    return position(text, pos)


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} must occur once"
    return text.replace(old, new)


def diagnostics_of(call, *args, **kwargs) -> tuple[Diagnostic, ...]:
    with pytest.raises(PDDLError) as info:
        call(*args, **kwargs)
    diagnostics = info.value.diagnostics
    assert isinstance(diagnostics, tuple) and diagnostics
    assert all(isinstance(d, Diagnostic) for d in diagnostics)
    return diagnostics


def read_domain(domain: str, strict: bool = False):
    """Read ``domain`` with PROBLEM, whose objects give every type of the domain one: FF
    leaves out an action with a parameter type no object has, so the planner-compatible
    reading reports an action's errors once a problem gives its parameters objects."""
    return parse(domain, PROBLEM, strict=strict)


def strictly(domain: str):
    return read_domain(domain, strict=True)


def tolerated(domain: str, *words: str, place, problem: str = PROBLEM) -> None:
    """A form planners accept: an error at ``place`` when strict, a warning there that
    says how it is read by default."""
    d = only(diagnostics_of(parse, domain, problem, strict=True), *words)
    assert (d.severity, where(d)) == ("error", place)
    w = only([w for part in parse(domain, problem) for w in part.warnings], *words)
    assert (w.severity, where(w)) == ("warning", place) and "; read as " in w.message


def only(diagnostics, *words: str) -> Diagnostic:
    """The one diagnostic whose message mentions every one of ``words``."""
    found = [d for d in diagnostics if all(w.lower() in d.message.lower() for w in words)]
    assert len(found) == 1, f"expected one diagnostic mentioning {words}, got {diagnostics}"
    return found[0]


def where(d: Diagnostic) -> tuple[int | None, int | None]:
    return d.line, d.col


def test_the_base_texts_load_cleanly():
    task = load(DOMAIN, PROBLEM)
    assert "(load c1 t1 home)" in {a.text for a in task.actions}
    assert not task.domain.warnings and not task.problem.warnings


# -- parentheses ---------------------------------------------------------------------------
def test_missing_close_paren_at_the_end_points_at_the_define():
    domain = DOMAIN.rstrip()[:-1]  # the define's own ')' is missing
    d = only(diagnostics_of(read_domain, domain), "unbalanced parentheses", "never closed")
    assert (d.stage, d.severity) == ("domain", "error")
    assert where(d) == at(domain, "(define") == (1, 1)


def test_truncated_output_points_at_the_innermost_unclosed_paren():
    problem = edit(PROBLEM, "(:goal (in c1 t1)))", "(:goal (and (in c1 t1) (at t1 away")
    d = only(diagnostics_of(parse_problem, problem, parse_domain(DOMAIN)), "never closed")
    assert "4 '('" in d.message  # define, :goal, and, at
    assert where(d) == at(problem, "(at t1 away")
    assert d.snippet == "(:goal (and (in c1 t1) (at t1 away"


def test_extra_close_paren_after_the_define_is_pointed_at():
    problem = PROBLEM.rstrip() + ")\n"
    d = only(diagnostics_of(parse_problem, problem, parse_domain(DOMAIN)), "closes nothing")
    assert (d.stage, d.severity) == ("problem", "error")
    assert where(d) == position(problem, len(PROBLEM.rstrip()))


def test_extra_close_paren_in_the_domain_is_pointed_at():
    domain = DOMAIN.rstrip() + " )"
    d = only(diagnostics_of(read_domain, domain), "unbalanced parentheses", "closes nothing")
    assert where(d) == position(domain, len(domain) - 1)


def test_extra_close_paren_inside_the_text_is_reported_as_a_paren_problem():
    domain = edit(DOMAIN, "(at ?t ?p) (empty ?t))", "(at ?t ?p)) (empty ?t))")
    diagnostics = diagnostics_of(read_domain, domain)
    assert any("parenthes" in d.message for d in diagnostics), diagnostics


def test_extra_close_paren_inside_the_problem_is_reported_as_a_paren_problem():
    problem = edit(PROBLEM, "(at t1 home) (at c1", "(at t1 home)) (at c1")
    diagnostics = diagnostics_of(parse_problem, problem, parse_domain(DOMAIN))
    assert any("unbalanced parentheses" in d.message for d in diagnostics), diagnostics


def test_nesting_beyond_any_real_pddl_is_a_diagnostic_not_a_recursion_error():
    deep = "(and " * 500 + "(at ?t ?from)" + ")" * 500
    domain = edit(DOMAIN, ":precondition (at ?t ?from)", ":precondition " + deep)
    d = only(diagnostics_of(read_domain, domain), "nested")
    line, col = at(domain, "(and (and")
    assert d.line == line and d.col > col


# -- names: predicates, arity, objects, types, variables ----------------------------------
def test_unknown_predicate_in_an_action():
    domain = edit(DOMAIN, ":precondition (at ?t ?from)", ":precondition (located ?t ?from)")
    d = only(diagnostics_of(read_domain, domain), "unknown predicate", "'located'")
    assert (d.stage, d.severity) == ("domain", "error")
    assert where(d) == at(domain, "located")
    assert d.snippet == ":precondition (located ?t ?from)"


def test_unknown_predicate_in_the_init():
    problem = edit(PROBLEM, "(empty t1)", "(free t1)")
    d = only(diagnostics_of(parse, DOMAIN, problem), "unknown predicate", "'free'")
    assert (d.stage, d.severity) == ("problem", "error")
    assert where(d) == at(problem, "free")


def test_wrong_arity_in_an_action():
    domain = edit(DOMAIN, "(empty ?t))\n", "(empty ?t ?p))\n")
    d = only(diagnostics_of(read_domain, domain), "wrong arity", "'empty'")
    assert "takes 1" in d.message and "2 given" in d.message
    assert where(d) == at(domain, "empty ?t ?p")


def test_wrong_arity_in_the_init():
    problem = edit(PROBLEM, "(at c1 home)", "(at c1)")
    d = only(diagnostics_of(parse, DOMAIN, problem), "wrong arity", "'at'")
    assert "takes 2" in d.message and "1 given" in d.message
    assert where(d) == at(problem, "at c1)")


def test_undeclared_object_in_the_init():
    problem = edit(PROBLEM, "(at c1 home)", "(at c2 home)")
    d = only(diagnostics_of(parse, DOMAIN, problem), "undeclared object", "'c2'")
    assert (d.stage, d.severity) == ("problem", "error")
    assert where(d) == at(problem, "c2")


def test_undeclared_object_in_the_goal():
    problem = edit(PROBLEM, "(:goal (in c1 t1))", "(:goal (in crate1 t1))")
    d = only(diagnostics_of(parse, DOMAIN, problem), "undeclared object", "'crate1'")
    assert where(d) == at(problem, "crate1")


def test_undeclared_constant_in_the_domain_is_left_to_the_problem():
    domain = edit(DOMAIN, "(at ?t ?to)", "(at ?t depot1)")
    parsed = parse_domain(domain)
    w = only(parsed.warnings, "undeclared constant", "'depot1'")
    assert w.severity == "warning" and where(w) == at(domain, "depot1")
    d = only(diagnostics_of(parse_problem, PROBLEM, parsed), "'depot1'")
    assert d.severity == "error" and where(d) == at(PROBLEM, "(define")
    problem = edit(PROBLEM, "home away - place", "home away depot1 - place")
    assert "(drive t1 home depot1)" in {a.text for a in load(domain, problem).actions}


def test_undeclared_type_of_a_parameter():
    domain = edit(DOMAIN, "?from ?to - place", "?from ?to - location")
    d = only(diagnostics_of(strictly, domain), "undeclared type", "'location'")
    assert (d.stage, d.severity) == ("domain", "error")
    assert where(d) == at(domain, "location")
    w = only(parse_domain(domain).warnings, "undeclared type", "'location'")
    assert where(w) == where(d) and "read as a subtype of 'object'" in w.message


def test_undeclared_type_of_an_object():
    problem = edit(PROBLEM, "c1 - crate", "c1 - box")
    d = only(diagnostics_of(parse, DOMAIN, problem, strict=True), "undeclared type", "'box'")
    assert (d.stage, d.severity) == ("problem", "error")
    assert where(d) == at(problem, "box")
    # read as 'object', which 'in' does not take
    assert "'c1' is object" in str(diagnostics_of(parse, DOMAIN, problem)[0])


def test_undeclared_parent_type():
    domain = edit(
        DOMAIN, "(:types truck crate - object place)", "(:types truck crate - thing place)"
    )
    tolerated(domain, "undeclared type", "'thing'", place=at(domain, "thing"))


def test_undeclared_variable_in_an_action():
    domain = edit(DOMAIN, "(not (at ?t ?from))", "(not (at ?truck ?from))")
    d = only(diagnostics_of(read_domain, domain), "undeclared variable", "'?truck'")
    assert (d.stage, d.severity) == ("domain", "error")
    assert where(d) == at(domain, "?truck")


def test_a_parameter_without_question_mark():
    domain = edit(DOMAIN, "(?t - truck ?from ?to - place)", "(?t - truck from ?to - place)")
    d = only(diagnostics_of(read_domain, domain), "'from'", "must start with '?'")
    assert where(d) == at(domain, "from ?to")


# -- types ------------------------------------------------------------------------------------
def test_type_mismatch_in_the_domain_is_a_warning_by_design():
    domain = edit(DOMAIN, "(empty ?t))\n", "(empty ?c))\n")
    for strict in (True, False):  # Fast Downward accepts it
        w = only(parse(domain, PROBLEM, strict=strict)[0].warnings, "type mismatch", "'?c'")
        assert "crate" in w.message and "truck" in w.message
        assert (w.stage, w.severity) == ("domain", "warning")
        assert where(w) == at(domain, "?c))")


def test_type_mismatch_in_the_problem_is_an_error():
    problem = edit(PROBLEM, "(empty t1)", "(empty c1)")
    d = only(diagnostics_of(parse, DOMAIN, problem), "type mismatch", "'c1'")
    assert "crate" in d.message and "'empty' expects truck" in d.message
    assert (d.stage, d.severity) == ("problem", "error")
    assert where(d) == at(problem, "c1)")


def test_type_mismatch_in_the_goal_is_an_error_too():
    problem = edit(PROBLEM, "(:goal (in c1 t1))", "(:goal (in t1 c1))")
    diagnostics = diagnostics_of(parse, DOMAIN, problem)
    assert where(only(diagnostics, "'t1' is truck")) == at(problem, "t1 c1")
    assert where(only(diagnostics, "'c1' is crate")) == at(problem, "c1))")


def test_second_effect_field_is_an_error():
    domain = edit(
        DOMAIN,
        "  (:action drive",
        """\
  (:action wave
    :parameters ()
    :effect (and)
    :effect (and))
  (:action drive""",
    )
    d = only(diagnostics_of(read_domain, domain), "duplicate", ":effect")
    assert where(d) == at(domain, ":effect (and))")


def test_either_parameter_grounds_over_objects_of_both_types():
    domain = edit(
        DOMAIN,
        "  (:action drive",
        """\
  (:action inspect
    :parameters (?x - (either truck crate) ?p - place)
    :precondition (at ?x ?p)
    :effect (and))
  (:action drive""",
    )
    task = load(domain, PROBLEM)
    inspected = {a.args for a in task.actions if a.name == "inspect"}
    assert inspected == {("t1", "home"), ("t1", "away"), ("c1", "home")}
    assert task.domain.actions["inspect"].params[0].types == ("truck", "crate")
    assert task.action("inspect", ("c1", "away")).args == ("c1", "away")
    with pytest.raises(ValueError):
        task.action("inspect", ("home", "away"))  # a place is neither


def test_either_predicate_argument_accepts_both_types():
    domain = edit(
        DOMAIN, "(at ?x - object ?p - place)", "(at ?x - (either truck crate) ?p - place)"
    )
    task = load(domain, PROBLEM)
    assert not task.domain.warnings and not task.problem.warnings
    problem = edit(PROBLEM, "(at c1 home)", "(at c1 home) (at away home)")
    d = only(diagnostics_of(parse, domain, problem), "type mismatch", "'away'")
    assert "truck or crate" in d.message and where(d) == at(problem, "away home")


# -- duplicates ---------------------------------------------------------------------------
def test_duplicate_predicate():
    domain = edit(DOMAIN, "(empty ?t - truck))", "(empty ?t - truck)\n               (at ?y ?q))")
    d = only(diagnostics_of(read_domain, domain), "predicate 'at' is declared twice")
    assert where(d) == at(domain, "at ?y")
    same = edit(DOMAIN, "(empty ?t - truck))", "(empty ?t - truck)\n  (empty ?t - truck))")
    tolerated(same, "duplicate predicate", "'empty'", place=at(same, "empty ?t", 2))


def test_duplicate_action():
    domain = edit(DOMAIN, "(:action drive", "(:action load")
    d = only(diagnostics_of(read_domain, domain), "duplicate action", "'load'")
    assert where(d) == at(domain, "load", 2)


def test_duplicate_object():
    problem = edit(PROBLEM, "home away - place", "home away - place t1 - truck")
    tolerated(DOMAIN, "object 't1' is declared twice", problem=problem, place=at(problem, "t1", 2))
    problem = edit(PROBLEM, "home away - place", "home away - place t1 - place")
    d = only(diagnostics_of(parse, DOMAIN, problem), "'t1' is declared twice")
    assert where(d) == at(problem, "t1", 2)


def test_duplicate_type():
    domain = edit(DOMAIN, "(:types truck crate", "(:types truck crate crate")
    tolerated(domain, "duplicate type", "'crate'", place=at(domain, "crate", 2))


def test_duplicate_section():
    problem = edit(PROBLEM, "  (:goal", "  (:init (at t1 away))\n  (:goal")
    tolerated(
        DOMAIN, "duplicate section", "':init'", problem=problem, place=at(problem, "(:init", 2)
    )
    assert parse(DOMAIN, problem)[1].init[-1].args == ("t1", "away")  # read as one
    goals = edit(PROBLEM, "  (:goal", "  (:goal (empty t1))\n  (:goal")
    d = only(diagnostics_of(parse, DOMAIN, goals), "duplicate section", "':goal'")
    assert where(d) == at(goals, "(:goal", 2)


# -- missing sections, the wrong domain, empty text ---------------------------------------
def test_missing_goal():
    problem = edit(PROBLEM, "\n  (:goal (in c1 t1)))", ")")
    d = only(diagnostics_of(parse, DOMAIN, problem), "missing", "':goal'")
    assert (d.stage, d.severity) == ("problem", "error")
    assert where(d) == at(problem, "(define") == (1, 1)


def test_missing_init():
    problem = edit(PROBLEM, "  (:init (at t1 home) (at c1 home) (empty t1))\n", "")
    d = only(diagnostics_of(parse, DOMAIN, problem), "missing", "':init'")
    assert where(d) == (1, 1)


def test_an_empty_init_is_not_a_missing_one():
    problem = edit(PROBLEM, "(:init (at t1 home) (at c1 home) (empty t1))", "(:init)")
    assert parse(DOMAIN, problem)[1].init == ()


def test_problem_names_a_different_domain():
    problem = edit(PROBLEM, "(:domain depot)", "(:domain logistics)")
    d = only(diagnostics_of(parse, DOMAIN, problem), "'logistics'", "'depot'")
    assert (d.stage, d.severity) == ("problem", "error")
    assert where(d) == at(problem, "logistics")


def test_problem_given_where_the_domain_belongs():
    d = only(diagnostics_of(read_domain, PROBLEM), "(define (domain NAME) ...)")
    assert where(d) == (1, 1)


@pytest.mark.parametrize("text", ["", "   \n\n\t\n"], ids=["empty", "blank"])
def test_empty_file(text):
    for call, args in ((parse_domain, (text,)), (parse, (DOMAIN, text))):
        d = only(diagnostics_of(call, *args), "empty")
        assert d.severity == "error" and where(d) == (None, None)


def test_text_without_any_define():
    text = "\n\nI could not write this domain, sorry.\n"
    d = only(diagnostics_of(read_domain, text), "no '(define ...)'")
    assert where(d) == (3, 1)


def test_a_line_naming_no_file_is_text_that_is_not_pddl():
    d = only(
        diagnostics_of(read_domain, "no/such/domain.pddl"), "not PDDL", "'no/such/domain.pddl'"
    )
    assert d.stage == "domain" and where(d) == (1, 1)
    only(diagnostics_of(read_domain, "x" * 400), "not PDDL", "x" * 60 + "...")  # too long


def test_an_unreadable_file_is_a_diagnostic(tmp_path):
    binary = tmp_path / "domain.pddl"
    binary.write_bytes(b"\xff\xfe(define \x80")
    only(diagnostics_of(read_domain, str(binary)), "cannot read")
    only(diagnostics_of(read_domain, tmp_path / "missing.pddl"), "no such file")


# -- prose around the PDDL ----------------------------------------------------------------
def test_markdown_fence_and_prose_around_the_problem_load_with_warnings():
    problem = (
        "Sure! Here is the problem file:\n\n```pddl\n"
        + PROBLEM
        + "```\n\nIt moves the crate into the truck. Let me know if it works!\n"
    )
    task = load(DOMAIN, problem)
    assert task.problem.name == "move-one"
    before, after = task.problem.warnings
    assert all(w.severity == "warning" and "ignored" in w.message for w in (before, after))
    assert where(before) == (1, 1) and before.snippet == "Sure! Here is the problem file:"
    assert where(after) == at(problem, "```\n\nIt") and after.snippet == "```"


def test_prose_on_the_same_line_as_the_define():
    domain = "Domain:  " + DOMAIN.rstrip() + "  That is all."
    warnings = parse_domain(domain).warnings
    assert [where(w) for w in warnings] == [(1, 1), at(domain, "That is all")]


def test_a_define_in_a_comment_is_not_the_form():
    domain = "; an older attempt: (define (domain old))\n" + DOMAIN
    parsed = parse_domain(domain)
    assert parsed.name == "depot" and set(parsed.actions) == {"load", "drive"}
    assert not parsed.warnings


# -- what the reader does not support -------------------------------------------------------
def test_unsupported_requirement_is_named():
    domain = edit(DOMAIN, ":strips :typing", ":strips :typing :durative-actions")
    tolerated(
        domain,
        "unsupported requirement",
        "':durative-actions'",
        place=at(domain, ":durative-actions"),
    )


def test_durative_action_section_is_unsupported():
    domain = edit(DOMAIN, "(:action drive", "(:durative-action drive")
    d = only(diagnostics_of(read_domain, domain), "':durative-action'", "not supported")
    assert where(d) == at(domain, "(:durative-action")


def test_unknown_requirement_is_named():
    domain = edit(DOMAIN, ":strips :typing", ":strips :typed")
    tolerated(domain, "unknown requirement", "':typed'", place=at(domain, ":typed"))


def test_numeric_fluents_requirement_is_unsupported():
    domain = edit(DOMAIN, ":strips :typing", ":typing :numeric-fluents")
    tolerated(domain, "':numeric-fluents'", place=at(domain, ":numeric-fluents"))


def test_numeric_effect_is_unsupported():
    domain = edit(DOMAIN, "  (:action load", "  (:functions (fuel ?t - truck))\n  (:action load")
    domain = edit(domain, "(not (at ?t ?from))", "(not (at ?t ?from)) (decrease (fuel ?t) 1)")
    d = only(diagnostics_of(read_domain, domain), "numeric effect", "'decrease'")
    assert where(d) == at(domain, "(decrease")


def test_numeric_precondition_is_unsupported():
    domain = edit(DOMAIN, "  (:action load", "  (:functions (fuel ?t - truck))\n  (:action load")
    domain = edit(
        domain, ":precondition (at ?t ?from)", ":precondition (and (at ?t ?from) (>= (fuel ?t) 1))"
    )
    d = only(diagnostics_of(read_domain, domain), "numeric condition", "'>='")
    assert where(d) == at(domain, "(>=")


def test_action_costs_are_accepted():
    domain = edit(DOMAIN, ":strips :typing", ":strips :typing :action-costs")
    domain = edit(
        domain, "  (:action load", "  (:functions (total-cost) - number)\n  (:action load"
    )
    domain = edit(domain, "(not (at ?t ?from))", "(not (at ?t ?from)) (increase (total-cost) 1)")
    problem = edit(PROBLEM, "(empty t1))", "(empty t1) (= (total-cost) 0))")
    problem = edit(
        problem, "(:goal (in c1 t1)))", "(:goal (in c1 t1))\n  (:metric minimize (total-cost)))"
    )
    task = load(domain, problem)
    assert "(drive t1 home away)" in {a.text for a in task.actions}


# -- case ------------------------------------------------------------------------------------
IPC_DOMAIN = """\
(define (domain BLOCKS)
  (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?x - block ?y - block) (ontable ?x - block) (clear ?x - block)
               (handempty) (holding ?x - block))
  (:action pick-up
    :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action stack
    :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y))))
"""

IPC_PROBLEM = """\
(define (problem BLOCKS-2-0)
(:domain BLOCKS)
(:objects B A - block)
(:INIT (CLEAR A) (CLEAR B) (ONTABLE A) (ONTABLE B) (HANDEMPTY))
(:goal (AND (ON A B)))
)
"""


def test_upper_case_ipc_text_loads():
    task = load(IPC_DOMAIN, IPC_PROBLEM)
    assert task.domain.name == "blocks" and task.problem.domain_name == "blocks"
    assert set(task.objects) == {"a", "b"}
    assert "(pick-up a)" in {a.text for a in task.actions}
    shouting = load(IPC_DOMAIN.upper(), IPC_PROBLEM.upper())
    assert [a.text for a in shouting.actions] == [a.text for a in task.actions]
    assert shouting.facts == task.facts and shouting.init == task.init


def test_mixed_case_names_are_one_name():
    problem = edit(PROBLEM, "(at c1 home)", "(AT C1 Home)")
    assert load(DOMAIN, problem).init == load(DOMAIN, PROBLEM).init


# -- structure the reader cannot take ---------------------------------------------------
def test_a_list_where_a_predicate_name_belongs():
    domain = edit(DOMAIN, "(not (empty ?t))))", "((empty ?t))))")
    d = only(diagnostics_of(read_domain, domain), "found a list")
    assert where(d) == at(domain, "(empty ?t))))")
    problem = edit(PROBLEM, "(:goal (in c1 t1))", "(:goal ((in c1 t1)))")
    d = only(diagnostics_of(parse, DOMAIN, problem), "found a list")
    assert where(d) == at(problem, "(in c1")


def test_a_list_in_the_requirements():
    domain = edit(DOMAIN, "(:requirements :strips :typing)", "(:requirements (:strips))")
    d = only(diagnostics_of(read_domain, domain), "requirement")
    assert where(d) == at(domain, "(:strips)")


def test_every_error_is_reported_at_once():
    problem = edit(PROBLEM, "(at c1 home)", "(at c2 home)")
    problem = edit(problem, "(empty t1)", "(full t1)")
    diagnostics = diagnostics_of(parse, DOMAIN, problem)
    assert where(only(diagnostics, "'c2'")) == at(problem, "c2")
    assert where(only(diagnostics, "'full'")) == at(problem, "full")


# -- plans ----------------------------------------------------------------------------------
def test_plan_formats_that_are_read():
    plan = (
        "; cost = 2 (unit cost)\n1. (load c1 t1 home)\nStep 2: drive(t1, home, away)\n"
        "\n0.000: (DRIVE T1 AWAY HOME) [1]\n- drive t1 home away\n"
    )
    steps = parse_plan(plan)
    assert [(s.name, s.args, s.line) for s in steps] == [
        ("load", ("c1", "t1", "home"), 2),
        ("drive", ("t1", "home", "away"), 3),
        ("drive", ("t1", "away", "home"), 5),
        ("drive", ("t1", "home", "away"), 6),
    ]


def test_plan_with_unreadable_lines_names_each_line():
    plan = "(load c1 t1 home)\nthen drive (away\n(drive t1 home away)\n((drive t1))\n"
    diagnostics = diagnostics_of(parse_plan, plan)
    assert [(d.stage, d.line, d.col) for d in diagnostics] == [("plan", 2, 1), ("plan", 4, 1)]
    assert diagnostics[0].snippet == "then drive (away"
    assert "cannot read a plan step" in diagnostics[0].message
    assert all(d.severity == "error" for d in diagnostics)


def test_type_glued_to_its_dash_gets_a_hint():
    domain = edit(DOMAIN, "?t - truck ?from", "?t -truck ?from")
    d = only(diagnostics_of(read_domain, domain), "'-truck'", "'- truck'")
    assert where(d) == at(domain, "-truck ?from")
