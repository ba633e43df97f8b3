"""TSR and CR as the NL-to-PDDL paper defines them (eq. 8-18): atoms and grounded action
strings as written, so that a renaming scores nothing and only the name-matched scores
see that it is the same problem. Every figure is worked out by hand on a two-ball
gripper problem."""

import pytest

from planloop.envs.problem_sets import problem_set
from planloop.formalizer.problems import Reference, inject, plan_similarity, score, verify
from planloop.pddl import parse_problem, solve

GRIPPER = problem_set("gripper")
DOMAIN = GRIPPER.domain()
# 5 initial atoms and 1 goal atom, every one naming an object
TWO_BALLS = """(define (problem two-balls) (:domain gripper-typed)
  (:objects rooma roomb - room ball1 ball2 - ball left right - gripper)
  (:init (at-robby rooma) (free left) (free right) (at ball1 rooma) (at ball2 rooma))
  (:goal (and (at ball1 roomb))))"""
WRONG_BALL = TWO_BALLS.replace("(:goal (and (at ball1 roomb)))", "(:goal (and (at ball2 roomb)))")


@pytest.fixture(scope="module")
def reference():
    result = solve(GRIPPER.domain_text(), TWO_BALLS, planner="lama-first", timeout=60)
    return Reference(parse_problem(TWO_BALLS, DOMAIN), result.solved, tuple(result.plan))


def scored(reference, text):
    verdict = verify(DOMAIN, text)
    assert verdict.ok  # both candidates parse, plan and validate: only the metrics tell
    return verdict, score(DOMAIN, reference, verdict)


def test_a_candidate_with_renamed_objects_shares_no_atom_and_no_action(reference):
    renamed = inject("renamed_objects", DOMAIN, reference.problem)
    verdict, metrics = scored(reference, renamed)
    # 3 steps each, every action string differs: edit similarity 0, multiset Jaccard 0
    assert len(verdict.plan) == len(reference.plan) == 3
    assert plan_similarity(verdict.plan, reference.plan) == 0.0
    assert metrics == {
        "svr": 1,
        "psr": 1,
        "tsr": 0.0,
        "cr": 0,
        "tsr_matched": 1.0,
        "cr_matched": 1,
        "eq": 1,
        "goal_eq": 1,
    }


def test_a_goal_on_the_wrong_ball_shares_five_atoms_of_seven_and_a_third_of_the_plan(reference):
    verdict, metrics = scored(reference, WRONG_BALL)
    # pick, move, drop of ball2 against the same of ball1: only the move is shared, so
    # edit similarity 1 - 2/3 and multiset Jaccard 1/5; 1/3 is under 0.8
    assert [step.split()[0] for step in verdict.plan] == ["(pick", "(move", "(drop"]
    assert all("ball2" in step for step in (verdict.plan[0], verdict.plan[2]))
    assert plan_similarity(verdict.plan, reference.plan) == pytest.approx(1 / 3)
    # the goal's atom differs: 5 shared of 7. Both balls start in rooma, so swapping their
    # names makes it the reference: EQ and the name-matched scores call it right
    assert metrics == {
        "svr": 1,
        "psr": 1,
        "tsr": round(5 / 7, 4),
        "cr": 0,
        "tsr_matched": 1.0,
        "cr_matched": 1,
        "eq": 1,
        "goal_eq": 1,
    }
