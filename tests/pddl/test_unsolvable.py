"""Why a task has no plan, when the delete relaxation proves it."""

from planloop.envs.blocksworld import blocksworld_domain
from planloop.pddl import Atom, ground, parse_problem
from planloop.pddl.unsolvable import (
    explain_unsolvable,
    unreachable_goal_facts,
    unreachable_predicates,
)

DOMAIN = blocksworld_domain()


def task(init: str, goal: str):
    return ground(
        DOMAIN,
        parse_problem(
            f"(define (problem p) (:domain blocksworld-4ops) "
            f"(:objects a b c) (:init {init}) (:goal (and {goal})))",
            DOMAIN,
        ),
    )


def test_a_missing_handempty_is_named_with_the_actions_that_need_it():
    stuck = task("(ontable a) (ontable b) (clear a) (clear b) (ontable c) (clear c)", "(on a b)")
    assert unreachable_goal_facts(stuck) == [Atom("on", ("a", "b"))]
    assert unreachable_predicates(DOMAIN, stuck.problem) == {
        "handempty": ["pick-up", "unstack"],
        "holding": ["put-down", "stack"],
        "on": ["unstack"],
    }
    assert explain_unsolvable(stuck).splitlines()[:2] == [
        "the goal fact (on a b) can never become true",
        "no initial fact and no action that can ever apply makes handempty true, and "
        "pick-up, unstack need it: is an initial fact missing?",
    ]


def test_nothing_is_claimed_when_only_search_shows_there_is_no_plan():
    init = "(handempty) (ontable a) (ontable b) (clear a) (clear b) (ontable c) (clear c)"
    assert explain_unsolvable(task(init, "(on a b) (on b a)")) == ""  # a cycle: relaxed-fine
    assert explain_unsolvable(task(init, "(on a b)")) == ""  # solvable
