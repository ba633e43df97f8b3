"""1-BFWS (``width_first``), the in-process search ``auto`` tries first: valid plans, the
choices the PDDLego+ authors' planner (LAPKT's DUAL-BFWS) made on two of their recorded
calls, and its open list popping equal keys as C++'s ``std::priority_queue`` does."""

import gymnasium as gym

from planloop.pddl import load, solve, validate
from planloop.pddl.search import StdHeap, width_first

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


def test_plans_are_valid_or_none_on_coin_houses():
    """1-BFWS prunes itself out of some houses (None proves nothing there); what it finds
    is valid, and auto then plans every house."""
    found = 0
    for size in range(3, 12):
        env = gym.make("CoinCollector-v0", num_locations=size, include_doors=True)
        env.reset(seed=0)
        domain, problem = env.unwrapped.world_pddl()
        task = load(domain, problem)
        plan = width_first(task, timeout=60)
        if plan is not None:
            found += 1
            assert validate(task, [a.text for a in plan]).valid
        result = solve(domain, problem, planner="auto")
        assert result.solved and validate(task, list(result.plan)).valid
    assert found >= 3


def test_a_pruned_search_falls_back_to_greedy_best_first():
    domain, problem = IPC / "domain.pddl", IPC / "instances" / "instance-10.pddl"
    task = load(domain, problem)
    assert width_first(task, timeout=60) is None
    result = solve(domain, problem, planner="auto")
    assert result.solved and result.planner == "auto/gbfs"
    assert validate(task, list(result.plan)).valid


def test_a_goal_already_true_is_the_empty_plan():
    result = solve(ROOMS, rooms("").replace("(at patio)", "(at kitchen)"), planner="auto")
    assert result.solved and result.plan == ()


def test_equal_keys_pop_as_from_a_cpp_priority_queue():
    """The order libstdc++'s std::priority_queue gives (printed by a C++ program pushing
    these keys with LAPKT's comparer): neither first-in nor last-in first."""
    heap = StdHeap()
    for item, key in enumerate([(1, 1)] * 3 + [(0, 1)] + [(1, 1)] * 4):
        heap.push(key, item)
    popped = []
    while heap:
        popped.append(heap.pop())
    assert popped == [3, 2, 6, 5, 7, 4, 0, 1]
