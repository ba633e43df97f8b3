"""The authors planner's search (planloop.pddl.dual_bfws): LAPKT's rules for the order
of successors, FF's order of actions, and DUAL-BFWS's second phase."""

from planloop.pddl import dual_bfws, ff_strips
from planloop.pddl.ff_templates import Templates
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


def test_ffs_action_list_puts_actions_reached_in_a_later_sweep_first():
    task = _task(ROOMS, STREET)
    order = [a for a in ff_strips.ff_strips(task).actions if a]
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


def _keys(task):
    """Each action's place in FF's template list (its operator's first way)."""
    templates = Templates(task, ff_strips._fluent_predicates(task))
    keys = {}
    for a in task.actions:
        schema = task.domain.actions[a.name]
        binding = dict(zip((p.name for p in schema.params), a.args, strict=True))
        keys[a] = templates.key(schema, 0, templates.ways[a.name][0], binding)
    return keys


def _templates(task, name):
    keys = _keys(task)
    return [a.args for a in sorted(task.actions, key=keys.__getitem__) if a.name == name]


def test_ff_templates_list_an_operator_in_the_domain_order_and_its_objects_as_declared():
    # FF's parser prepends objects and operators, inst_easy.c prepends each template it
    # makes: the list comes out in the domain's order, first parameter slowest, objects
    # in their declared order
    task = _task(ROOMS, STREET)
    keys = _keys(task)
    ordered = sorted(task.actions, key=keys.__getitem__)
    names = [a.name for a in ordered]
    assert names.index("move") == names.count("open-door")
    opens = _templates(task, "open-door")
    assert opens[:4] == [
        ("kitchen", "kitchen", "north"),
        ("kitchen", "kitchen", "south"),
        ("kitchen", "kitchen", "east"),
        ("kitchen", "hall", "north"),
    ]


LINKED = """(define (domain linked) (:requirements :strips :typing) (:types room)
 (:predicates (at ?r - room) (link ?a - room ?b - room) (lit ?r - room))
 (:action go :parameters (?a - room ?b - room)
  :precondition (and (at ?a) (link ?a ?b)) :effect (and (at ?b) (not (at ?a))))
 (:action light :parameters (?r - room)
  :precondition (and (lit ?r)) :effect (at ?r)))"""
LINKED_P = """(define (problem p) (:domain linked) (:objects a b c - room)
 (:init (at a) (link a b) (link a c) (link b c) (lit b) (lit c)) (:goal (at c)))"""


def test_ff_templates_bind_static_preconditions_to_init_facts_last_first():
    # a static precondition binds its parameters to the :init facts in turn, the
    # templates so made listed back to front; a static unary one is a type whose
    # objects come in :init's order when they are all of the parameter's type
    task = _task(LINKED, LINKED_P)
    assert _templates(task, "go") == [("b", "c"), ("a", "c"), ("a", "b")]
    assert _templates(task, "light") == [("c",), ("b",)]  # not c, b in declared order


EXPLORE = """(define (domain explore) (:requirements :strips :typing) (:types location direction)
 (:predicates (at ?l - location) (door-open ?a - location ?b - location ?d - direction))
 (:action open-door :parameters (?a - location ?b - location ?d - direction)
  :precondition (and (at ?a)) :effect (door-open ?a ?b ?d))
 (:action move :parameters (?a - location ?b - location ?d - direction)
  :precondition (and (at ?a) (door-open ?a ?b ?d)) :effect (and (at ?b) (not (at ?a)))))"""
EXPLORE_P = """(define (problem p) (:domain explore)
 (:objects kitchen living_room unknown - location north south - direction)
 (:init (at kitchen) (door-open kitchen living_room north)) (:goal (at unknown)))"""


def test_a_fact_always_true_is_no_precondition_so_the_first_direction_wins():
    # FF drops (door-open kitchen living_room north), true at first and never deleted,
    # from the move that needs it; the match tree then splits on (at kitchen) and the
    # first open-door to the unknown room is north's (the PDDLego+ authors' plan)
    result = solve(EXPLORE, EXPLORE_P, planner="authors")
    assert result.plan == ("(open-door kitchen unknown north)", "(move kitchen unknown north)")
