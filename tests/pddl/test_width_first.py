"""1-BFWS (``width_first``), the in-process search ``auto`` tries first: valid plans, the
choices the PDDLego+ authors' planner (LAPKT's DUAL-BFWS) made on two of their recorded
calls, and its open list popping equal keys as C++'s ``std::priority_queue`` does."""

import gymnasium as gym
import pytest

from planloop.pddl import load, solve, validate
from planloop.pddl.search import _StdHeap, width_first

from conftest import IPC

ROOMS = """(define (domain rooms)
  (:requirements :typing :negative-preconditions)
  (:types location direction)
  (:predicates (at ?l - location) (closed ?l - location ?d - direction))
  (:action open-door
    :parameters (?loc1 - location ?loc2 - location ?dir - direction)
    :precondition (and (at ?loc1) (closed ?loc1 ?dir))
    :effect (not (closed ?loc1 ?dir)))
  (:action move
    :parameters (?from - location ?to - location ?dir - direction)
    :precondition (and (at ?from) (not (closed ?from ?dir)))
    :effect (and (at ?to) (not (at ?from)))))"""


def rooms(closed: str) -> str:
    return f"""(define (problem p) (:domain rooms)
  (:objects kitchen pantry patio - location north south east west - direction)
  (:init (at kitchen) {closed})
  (:goal (at patio)))"""


def test_the_one_step_plan_the_authors_planner_found():
    """Their planner moved east at once; a lazy greedy search opened the south door first."""
    problem = rooms("(closed kitchen north) (closed kitchen south) (closed kitchen west)")
    result = solve(ROOMS, problem, planner="auto")
    assert result.plan == ("(move kitchen patio east)",)


def test_among_equal_moves_the_last_grounded_as_the_authors_planner_chose():
    """Moves that differ only in a direction reach one state: the first generated is
    kept, and their planner kept the last direction declared."""
    result = solve(ROOMS, rooms("(closed kitchen south)"), planner="auto")
    assert result.plan == ("(move kitchen patio west)",)


@pytest.mark.parametrize("size", [3, 7, 11])
def test_plans_are_valid_on_coin_houses(size):
    env = gym.make("CoinCollector-v0", num_locations=size, include_doors=True)
    env.reset(seed=size)
    domain, problem = env.unwrapped.world_pddl()
    task = load(domain, problem)
    plan = width_first(task, timeout=60)
    assert plan is not None and validate(task, [a.text for a in plan]).valid


def test_plans_are_valid_on_blocksworld():
    task = load(IPC / "domain.pddl", IPC / "instances" / "instance-10.pddl")
    plan = width_first(task, timeout=60)
    assert plan is not None and validate(task, [a.text for a in plan]).valid


def test_a_goal_already_true_is_the_empty_plan():
    result = solve(ROOMS, rooms("").replace("(at patio)", "(at kitchen)"), planner="auto")
    assert result.solved and result.plan == ()


def test_equal_keys_pop_as_from_a_cpp_priority_queue():
    """The order libstdc++'s std::priority_queue gives (printed by a C++ program pushing
    these keys with LAPKT's comparer): neither first-in nor last-in first."""
    heap = _StdHeap()
    for item, key in enumerate([(1, 1)] * 3 + [(0, 1)] + [(1, 1)] * 4):
        heap.push(key, item)
    popped = []
    while heap:
        popped.append(heap.pop())
    assert popped == [3, 2, 6, 5, 7, 4, 0, 1]
