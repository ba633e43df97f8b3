"""Fact landmarks from the relaxed planning graph."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.pddl import Atom, load, solve
from planloop.pddl.landmarks import fact_landmarks, relaxed_levels

CHOICE_DOMAIN = """(define (domain choice)
  (:predicates (p) (q) (r) (g) (ready) (start))
  (:action via-p :parameters () :precondition (and (p) (ready)) :effect (g))
  (:action via-q :parameters () :precondition (and (q) (ready)) :effect (g))
  (:action get-ready :parameters () :precondition (start) :effect (ready))
  (:action make-p :parameters () :precondition (r) :effect (p))
  (:action make-q :parameters () :precondition (r) :effect (q))
  (:action make-r :parameters () :precondition (start) :effect (r)))"""


def _mystery(instance: int):
    env = gym.make("Mystery-BW-v0")
    _, info = env.reset(options={"instance": instance})
    return info, load(info["domain_pddl"], info["problem_pddl"])


def _names(task, ids) -> list[str]:
    return [str(task.facts[i]) for i in ids]


def test_mystery_landmarks_backchain_from_the_goal_through_shared_preconditions():
    _, task = _mystery(4)  # goal (craves b d) (craves d c); only overcome adds craves
    found = _names(task, fact_landmarks(task))
    assert {"(craves b d)", "(craves d c)"} <= set(found)
    # overcome d c needs (pain d): attack d and feast d x share (province d) and (harmony)
    assert {"(pain d)", "(pain b)", "(province d)", "(harmony)"} <= set(found)
    assert found.index("(pain d)") < found.index("(craves d c)")  # by relaxed level
    # (planet d) is needed by attack d but not by feast d x: not a landmark
    assert "(planet d)" not in found


def test_landmarks_from_a_later_state_include_facts_to_achieve_again():
    _, task = _mystery(4)
    after = task.action("attack", ("d",)).apply(task.init)  # (harmony) is gone
    found = _names(task, fact_landmarks(task, after))
    # both achievers of (pain b) need (harmony) again; overcome b d needs (province d)
    assert {"(harmony)", "(province d)", "(pain b)", "(pain d)"} <= set(found)
    assert "(planet d)" not in found and "(planet b)" not in found


@pytest.mark.parametrize("instance", range(0, 12))
def test_every_landmark_holds_somewhere_on_an_optimal_plan(instance):
    info, task = _mystery(instance)
    plan = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs").plan
    states = [task.init]
    for command in plan:
        name, *args = command.strip("()").split()
        states.append(task.action(name, args).apply(states[-1]))
    for fact in fact_landmarks(task):
        assert any(state >> fact & 1 for state in states), task.facts[fact]


def test_a_fact_with_alternative_achievers_is_not_a_landmark():
    task = load(CHOICE_DOMAIN, "(define (problem c) (:domain choice) (:init (start)) (:goal (g)))")
    # (ready) is shared by both achievers of (g); (p) and (q) are alternatives. (r) is a
    # landmark too, but two steps behind a disjunction: backchaining does not find it.
    # (start) is static, so grounding leaves it out of every precondition.
    assert _names(task, fact_landmarks(task)) == ["(ready)", "(g)"]


def test_landmarks_from_a_later_state_and_of_an_unreachable_goal():
    task = load(CHOICE_DOMAIN, "(define (problem c) (:domain choice) (:init (start)) (:goal (g)))")
    ready = task.init | 1 << task.fact_id(Atom("ready"))
    assert _names(task, fact_landmarks(task, ready)) == ["(ready)", "(g)"]  # true: kept
    stuck = load(CHOICE_DOMAIN, "(define (problem c) (:domain choice) (:init (r)) (:goal (g)))")
    assert fact_landmarks(stuck) == []
    level, usable = relaxed_levels(stuck, stuck.init)
    assert stuck.fact_id(Atom("p")) in level and stuck.fact_id(Atom("g")) not in level
    assert {a.name for a in usable} == {"make-p", "make-q"}  # nothing gives (ready)
