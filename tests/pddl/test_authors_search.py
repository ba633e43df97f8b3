"""The authors planner's search (planloop.pddl.dual_bfws): LAPKT's rules for the order
of successors, FF's order of actions, and DUAL-BFWS's second phase."""

from planloop.pddl import dual_bfws
from planloop.pddl.grounding import ground
from planloop.pddl.planners import solve
from planloop.pddl.reader import parse_domain, parse_problem
from planloop.pddl.validate import validate

ROOMS = """(define (domain rooms) (:requirements :strips :typing) (:types location direction)
 (:predicates (at ?l - location) (closed ?d - direction) (open ?d - direction))
 (:action open-door :parameters (?from - location ?to - location ?d - direction)
  :precondition (and (closed ?d) (at ?from)) :effect (and (open ?d) (at ?to)))
 (:action move :parameters (?from - location ?to - location ?d - direction)
  :precondition (and (open ?d) (at ?from)) :effect (and (at ?to) (not (at ?from)))))"""
STREET = """(define (problem p) (:domain rooms)
 (:objects kitchen hall street - location north south east - direction)
 (:init (at kitchen) (closed north) (closed south) (closed east)) (:goal (at street)))"""


def _task(domain: str, problem: str):
    d = parse_domain(domain)
    return ground(d, parse_problem(problem, d))


def test_match_tree_puts_decided_actions_first_then_those_of_the_most_named_fact():
    # precondition facts per action, in LAPKT's action order; fact 1 is named most
    # (first to reach 2), so the walk is: no precondition, then fact 1's subtree
    # (action 0, decided; then action 2, which also needs fact 2), then the rest
    ranks = dual_bfws.successor_ranks([(1,), (2,), (1, 2), ()])
    assert ranks == [1, 3, 2, 0]


def test_a_tie_in_counts_goes_to_the_fact_that_reached_it_first():
    # facts 5 and 7 are each named twice; 7 reaches 2 first (action 1), so it switches
    ranks = dual_bfws.successor_ranks([(7,), (7, 5), (5,)])
    assert ranks.index(0) < ranks.index(2)  # action 0 (needs 7) before action 2 (needs 5)
    assert ranks[2] == 2


def test_ff_order_puts_actions_reached_in_a_later_sweep_first():
    task = _task(ROOMS, STREET)
    order = dual_bfws.ff_order(task)
    first_sweep = [a for a in order if a.args[0] == "kitchen" and a.name == "open-door"]
    later = [a for a in order if a.name == "move"]  # need an open door: a later sweep
    assert later and first_sweep
    assert order.index(later[0]) < order.index(first_sweep[0])
    assert sorted(map(id, order)) == sorted(map(id, task.actions))


def test_authors_plans_are_valid_and_shortest_here():
    result = solve(ROOMS, STREET, planner="authors")
    assert result.status == "solved"
    assert len(result.plan) == 1 and result.plan[0].startswith("(open-door kitchen street")
    assert validate(_task(ROOMS, STREET), list(result.plan)).valid


def test_the_second_phase_plans_where_1_bfws_prunes_itself_out(monkeypatch):
    monkeypatch.setattr(dual_bfws, "one_bfws", lambda *args, **kwargs: None)
    task = _task(ROOMS, STREET)
    plan = dual_bfws.dual_bfws(task, timeout=10)
    assert plan is not None
    assert validate(task, plan).valid
