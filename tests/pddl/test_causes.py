"""Causes first: an error that follows from a form read as planners read it (an
undeclared type read as ``object``, a name declared twice and narrowed) carries that
form's warning, in the reader's diagnostics, the CLI, ``check()``'s failure, the
PDDLego+ feedback to the model and the MCP answer; on one line (a study's table or log)
the diagnostics are numbered and capped with a count of the rest."""

import json

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.cli import main as cli
from planloop.formalizer import (
    CheckFailure,
    Files,
    ModelWriter,
    Prompt,
    Request,
    check,
    ground_truth_writer,
)
from planloop.llm import ScriptedModel
from planloop.mcp.sandbox import unreadable
from planloop.pddl import Diagnostic, PDDLError, parse
from planloop.pddl.diagnostics import summary
from planloop.policies import PDDLegoPolicy, run_episode

DOMAIN = """(define (domain bw)
  (:requirements :strips :typing)
  (:types block)
  (:predicates (clear ?x - block) (ontable ?x - block) (on ?x ?y - block) (handempty)
               (holding ?x - block))
  (:action pickup :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (clear ?x)) (not (ontable ?x)) (not (handempty)) (holding ?x)))
  (:action stack :parameters (?x ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y))))
"""
CUBES = """(define (problem cubes) (:domain bw)
  (:objects a b c - cube)
  (:init (clear a) (clear b) (clear c) (ontable a) (ontable b) (ontable c) (handempty))
  (:goal (and (on a b) (on b c))))
"""


def errors(domain=DOMAIN, problem=CUBES, strict=False) -> tuple[Diagnostic, ...]:
    with pytest.raises(PDDLError) as info:
        parse(domain, problem, strict=strict)
    return info.value.diagnostics


def test_a_type_mismatch_names_the_undeclared_type_behind_it():
    found = errors()
    assert len(found) == 10 and all(d.message.startswith("type mismatch") for d in found)
    for d in found:
        assert (d.cause.line, d.cause.col) == (2, 21) and d.cause.severity == "warning"
        assert d.cause.message == "undeclared type 'cube'; read as 'object'"
    first = found[0]
    assert first.headline() == (
        "problem error: line 3, col 17: type mismatch: 'a' is object but 'clear' expects "
        "block (because of line 2, col 21: undeclared type 'cube'; read as 'object')"
    )
    assert str(first) == first.headline() + "\n    " + first.snippet


def test_strict_reading_names_the_undeclared_type_itself():
    found = errors(strict=True)
    assert found[0].message == "undeclared type 'cube'" and found[0].line == 2
    assert all(d.cause is None for d in found)


def test_a_narrowed_declaration_is_the_cause_of_what_follows():
    domain = DOMAIN.replace("(:types block)", "(:types block place)\n  (:constants hall)")
    domain = domain.replace("(handempty)\n", "(handempty) (in ?x - block ?p - place)\n", 1)
    problem = CUBES.replace("a b c - cube", "a b c - block hall - block").replace(
        "(handempty))", "(handempty) (in a hall))"
    )
    (found,) = errors(domain, problem)
    assert found.message == "type mismatch: 'hall' is block but 'in' expects place"
    assert found.cause.message == (
        "object 'hall' is already a constant of the domain; read as one object of type 'block'"
    )


def test_a_constant_of_an_undeclared_type_in_the_domain():
    domain = DOMAIN.replace("(:types block)", "(:types block)\n  (:constants table - surface)")
    domain = domain.replace("(clear ?x) (ontable ?x)", "(clear ?x) (ontable ?x) (clear table)")
    (found,) = errors(domain, CUBES.replace("- cube", "- block"))
    assert found.stage == "domain" and found.cause.line == 4
    assert found.cause.message == "undeclared type 'surface'; read as a subtype of 'object'"


def test_a_type_kept_from_an_earlier_declaration_has_no_cause():
    """``a - block a - cube``: 'a' stays a block; what 'cube' reads as is not behind an
    error about 'a'."""
    problem = CUBES.replace("a b c - cube", "a - block a b c - cube")
    found = errors(problem=problem)
    assert [d.cause for d in found if "'a'" in d.message] == []
    assert {d.cause.message for d in found} == {"undeclared type 'cube'; read as 'object'"}


def test_a_summary_is_one_line_numbered_and_capped():
    found = errors()
    line = summary(found)
    assert "\n" not in line and line.endswith(" [and 7 more]")
    assert line.startswith("[1] problem error: line 3, col 17: type mismatch: 'a' is object")
    assert " [2] problem error: line 3, col 27" in line and " [4] " not in line
    assert line.count("undeclared type 'cube'") == 3
    assert summary(found[:1]) == found[0].headline()
    assert summary(found[:2]).startswith("[1] ") and "more" not in summary(found[:2])
    assert PDDLError(found).summary(limit=1).endswith("[and 9 more]")


@pytest.mark.parametrize("strict", [[], ["--strict"]])
def test_planloop_solve_names_the_type(tmp_path, capsys, strict):
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(CUBES)
    assert cli(["solve", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), *strict]) == 2
    err = capsys.readouterr().err
    assert "cube" in err.split("\n")[0]


def test_check_fails_with_the_cause_and_sums_up_on_one_line():
    with pytest.raises(CheckFailure) as info:
        check(Files(DOMAIN, CUBES), None, [], planner="bfs")
    failure = info.value
    assert failure.stage == "syntax" and len(failure.errors) == 10
    assert "(because of line 2, col 21: undeclared type 'cube'" in failure.message
    line = failure.summary()
    assert line.startswith("syntax: [1] problem error: line 3") and line.endswith("[and 7 more]")
    planner = CheckFailure("planner", "the planner failed:\nerror: exit 30")
    assert planner.summary() == "planner: the planner failed: error: exit 30"


def coin_model(env, fixed_after: int) -> ScriptedModel:
    """True CoinCollector files, their rooms typed ``place`` (never declared) in the
    first ``fixed_after`` replies."""
    writer = ground_truth_writer(env, "coin")

    def reply(messages):
        files = writer.write(Request("", "start", (), ())).files
        pf = files.pf if model.calls > fixed_after else files.pf.replace("- room", "- place")
        return json.dumps({"df": files.df, "pf": pf})

    model = ScriptedModel(reply)
    return model


def test_the_model_is_told_the_cause_and_the_stop_reason_is_one_line():
    env = gym.make("CoinCollector-v0", num_locations=2)
    model = coin_model(env, fixed_after=1)
    policy = PDDLegoPolicy(ModelWriter(model, Prompt("coin", "detailed")), planner="bfs")
    episode = run_episode(env, policy, seed=1, max_steps=20)
    assert episode.won and episode.details["solver_errors"] == 1
    told = model.prompts[1][-1]["content"]
    assert "(because of line 3, col 23: undeclared type 'place'; read as 'object')" in told

    model = coin_model(env, fixed_after=99)
    policy = PDDLegoPolicy(
        ModelWriter(model, Prompt("coin", "detailed")), planner="bfs", max_solver_retries=0
    )
    stop = run_episode(env, policy, seed=1, max_steps=20).details["stop"]
    assert stop.startswith("solver error not fixed after 0 retries: syntax: [1] problem error")
    assert "\n" not in stop and "undeclared type 'place'" in stop and "more]" in stop


def test_the_mcp_answer_says_where_the_cause_is():
    exc = PDDLError(errors())
    assert unreadable(exc, set()) == (
        "problem error at line 3, col 17: type mismatch: 'a' is object but 'clear' expects "
        "block (because of line 2, col 21: undeclared type 'cube'; read as 'object') "
        "(and 9 more)"
    )
    # a file's content is never quoted: only where the cause is
    assert unreadable(exc, {"problem"}) == (
        "the problem file has an error at line 3, col 17, which follows from a form read as "
        "planners read it at line 2, col 21 (and 9 more)"
    )
