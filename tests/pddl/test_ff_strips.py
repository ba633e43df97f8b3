"""FF's model of a task as LAPKT receives it (planloop.pddl.ff_strips) and the relevant
fluents of BFWS's #r (planloop.pddl.lapkt_relaxed): NOT- fluents, FF's numbering, a
disjunctive goal's actions, h_add's choice among equally good supporters."""

from planloop.pddl import dual_bfws
from planloop.pddl.ff_strips import ff_strips
from planloop.pddl.ff_templates import ff_dnf
from planloop.pddl.grounding import ground
from planloop.pddl.lapkt_relaxed import RelaxedPlans
from planloop.pddl.model import And, Atom, Exists, Forall, Not, Or, Param
from planloop.pddl.planners import solve
from planloop.pddl.reader import parse_domain, parse_problem
from planloop.pddl.validate import validate

LOCKS = """(define (domain locks) (:requirements :strips :typing :negative-preconditions)
 (:types room)
 (:predicates (at ?r - room) (locked ?r - room) (seen ?r - room))
 (:action go :parameters (?a - room ?b - room)
  :precondition (and (at ?a) (not (locked ?b)))
  :effect (and (at ?b) (not (at ?a)) (seen ?b)))
 (:action unlock :parameters (?r - room)
  :precondition (and (locked ?r)) :effect (not (locked ?r))))"""
LOCKS_P = """(define (problem p) (:domain locks) (:objects a b c - room)
 (:init (at a) (locked c)) (:goal (and (at c) (not (at a)))))"""


def _task(domain: str, problem: str):
    d = parse_domain(domain)
    return ground(d, parse_problem(problem, d))


def _name(task, model, x: int) -> str:
    if x == 2 * model.n:
        return "GOAL"
    return ("NOT-" if x >= model.n else "") + str(task.facts[x % model.n])


def test_a_negated_predicate_gets_not_fluents_with_the_opposite_effects():
    task = _task(LOCKS, LOCKS_P)
    model = ff_strips(task)
    assert model is not None
    unlock = next(i for i, a in enumerate(model.actions) if a and a.name == "unlock")
    assert [_name(task, model, x) for x in model.adds[unlock]] == ["NOT-(locked c)"]
    go = next(i for i, a in enumerate(model.actions) if a and a.args == ("a", "c"))
    # the NOT- effect comes just before the effect on its fact, (seen c) after them
    assert [_name(task, model, x) for x in model.adds[go]] == [
        "(at c)",
        "NOT-(at a)",
        "(seen c)",
    ]
    assert [_name(task, model, x) for x in model.pre[go]] == ["(at a)", "NOT-(locked c)"]
    # (locked b) never holds and no action locks: NOT-(locked b) is always true, no fluent
    go_b = next(i for i, a in enumerate(model.actions) if a and a.args == ("a", "b"))
    assert [_name(task, model, x) for x in model.pre[go_b]] == ["(at a)"]
    assert [_name(task, model, x) for x in model.goal] == ["(at c)", "NOT-(at a)"]
    held = {_name(task, model, x) for x in model.init_vector()}
    assert "(at a)" in held and "NOT-(at b)" in held
    assert "NOT-(at a)" not in held and "NOT-(locked b)" not in held  # always true: none


def test_facts_are_numbered_as_reached_then_the_deleted_initial_ones():
    task = _task(LOCKS, LOCKS_P)
    model = ff_strips(task)
    assert model is not None
    by_number = sorted(model.number, key=model.number.__getitem__)
    names = [_name(task, model, x) for x in by_number]
    # (at a) and (locked c) hold at first and some action deletes them: numbered last
    assert names.index("(at a)") > names.index("(at b)")
    assert names.index("(locked c)") > names.index("NOT-(locked c)")
    # true at first, never deleted (no action locks a room): no fluent at all
    assert "NOT-(locked a)" not in names


def test_the_authors_planner_plans_through_not_fluents():
    result = solve(LOCKS, LOCKS_P, planner="authors")
    assert result.status == "solved"
    assert validate(_task(LOCKS, LOCKS_P), list(result.plan)).valid


ROOMS = """(define (domain rooms) (:requirements :strips :typing) (:types room)
 (:predicates (at ?r - room) (link ?a - room ?b - room))
 (:action go :parameters (?a - room ?b - room)
  :precondition (and (at ?a) (link ?a ?b)) :effect (and (at ?b) (not (at ?a)))))"""
EITHER = """(define (problem p) (:domain rooms) (:objects a b c d - room)
 (:init (at a) (link a b) (link a c) (link b d))
 (:goal (or (at b) (at c) (at d))))"""


def test_a_disjunctive_goal_has_an_action_for_each_way_last_way_first():
    task = _task(ROOMS, EITHER)
    model = ff_strips(task)
    assert model is not None
    assert model.goal == (2 * model.n,)
    goal_actions = [i for i, a in enumerate(model.actions) if a is None]
    assert goal_actions == [0, 1, 2]  # prepended: before every action
    ways = [[_name(task, model, x) for x in model.pre[i]] for i in goal_actions]
    assert ways == [["(at d)"], ["(at c)"], ["(at b)"]]
    result = solve(ROOMS, EITHER, planner="authors")
    assert result.status == "solved" and len(result.plan) == 1  # no goal step in it
    assert validate(task, list(result.plan)).valid


def test_a_way_that_can_never_hold_is_dropped():
    # no link leads to c: the way (at c) is dropped and the goal is (at d) alone
    task = _task(ROOMS, EITHER.replace("(link a c) ", "").replace("(at b) ", ""))
    model = ff_strips(task)
    assert model is not None
    assert [_name(task, model, x) for x in model.goal] == ["(at d)"]
    assert all(a is not None for a in model.actions)


TWINS = """(define (domain twins) (:requirements :strips)
 (:predicates (start) (left) (right) (done))
 (:action go-left :parameters () :precondition (start) :effect (left))
 (:action go-right :parameters () :precondition (start) :effect (right))
 (:action finish-left :parameters () :precondition (left) :effect (done))
 (:action finish-right :parameters () :precondition (right) :effect (done)))"""
TWINS_P = """(define (problem p) (:domain twins) (:init (start)) (:goal (done)))"""


def test_h_add_keeps_the_first_of_equally_good_supporters_in_queue_order():
    task = _task(TWINS, TWINS_P)
    model = ff_strips(task)
    assert model is not None
    relevant = RelaxedPlans(model).relevant(model.init_vector())
    assert relevant is not None
    names = {_name(task, model, x) for x in range(3 * model.n) if relevant >> x & 1}
    # both ways cost 2; the fluent queued first ((right): go-right is first in FF's
    # order, templates being prepended) gives (done) its supporter
    order = [a.name for a in model.actions if a]
    first = "right" if order.index("go-right") < order.index("go-left") else "left"
    assert names == {"(done)", f"({first})"}


def test_a_dead_end_has_no_relevant_fluents():
    once = TWINS.replace(":effect (left))", ":effect (and (left) (not (start))))")
    once = once.replace(":effect (right))", ":effect (and (right) (not (start))))")
    task = _task(once, TWINS_P)
    model = ff_strips(task)
    assert model is not None
    assert RelaxedPlans(model).relevant(model.init_vector()) is not None
    assert RelaxedPlans(model).relevant([]) is None  # (start) gone: (done) out of reach


def test_tasks_beyond_the_model_go_to_the_second_phase():
    when = TWINS.replace(
        ":effect (done))\n (:action finish-right",
        ":effect (when (left) (done)))\n (:action finish-right",
    )
    task = _task(when, TWINS_P)
    assert ff_strips(task) is None
    plan = dual_bfws.dual_bfws(task, timeout=10)
    assert plan is not None and validate(task, plan).valid


def _atoms(ways):
    return [[("not " if negated else "") + str(target) for target, negated in way] for way in ways]


def test_ffs_dnf_lists_hitting_sets_last_first_each_set_back_to_front():
    a, b, c, d = (Atom(x) for x in "abcd")
    ways = ff_dnf(And((a, Or((b, Not(c))), d)), lambda types: [])
    assert _atoms(ways) == [["(d)", "not (c)", "(a)"], ["(d)", "(b)", "(a)"]]
    # without a disjunction inside, a conjunction keeps its order
    assert _atoms(ff_dnf(And((a, And((b, c)))), lambda types: [])) == [["(a)", "(b)", "(c)"]]
    # negations go down to the atoms: not (a or b) is (not a) and (not b)
    assert _atoms(ff_dnf(Not(Or((a, b))), lambda types: [])) == [["not (a)", "not (b)"]]


def test_a_quantifier_expands_over_its_objects_in_declared_order():
    body = Atom("at", ("?r",))
    ways = ff_dnf(Exists((Param("?r", ("room",)),), body), lambda types: ["r1", "r2", "r3"])
    assert _atoms(ways) == [["(at r1)"], ["(at r2)"], ["(at r3)"]]
    every = ff_dnf(Forall((Param("?r", ("room",)),), body), lambda types: ["r1", "r2"])
    assert _atoms(every) == [["(at r1)", "(at r2)"]]


MOVES = """(define (domain moves) (:requirements :strips :negative-preconditions)
 (:predicates (at ?r) (visited ?r))
 (:action go :parameters (?a ?b) :precondition (and (at ?a) (not (at ?b)))
  :effect (and (at ?b) (not (at ?a)) (visited ?b))))"""
UNVISITED = """(define (problem p) (:domain moves) (:objects a b c)
 (:init (at a) (visited a)) (:goal (and (at b) (not (visited b)))))"""


def test_the_authors_planner_proves_a_goal_no_state_reaches_at_once():
    # every move marks where it goes: being at b unvisited is no reachable state, which
    # the invariant check proves before any search
    result = solve(MOVES, UNVISITED, planner="authors", timeout=60)
    assert result.status == "unsolvable" and result.planner == "authors/invariant"


EITHER_WAY = """(define (domain either) (:requirements :strips :disjunctive-preconditions)
 (:predicates (p) (q) (done) (started))
 (:action begin :parameters () :precondition (started) :effect (and (q) (not (started))))
 (:action finish :parameters () :precondition (or (p) (q)) :effect (done)))"""
EITHER_WAY_P = """(define (problem e) (:domain either) (:init (started)) (:goal (done)))"""


def test_a_disjunctive_precondition_is_an_action_copy_for_each_way():
    task = _task(EITHER_WAY, EITHER_WAY_P)
    model = ff_strips(task)
    assert model is not None
    finish = [i for i, a in enumerate(model.actions) if a and a.name == "finish"]
    # (p) is never reached: FF takes only the copy of the way through (q)
    assert [[_name(task, model, x) for x in model.pre[i]] for i in finish] == [["(q)"]]
    both = EITHER_WAY.replace("(and (q) (not (started)))", "(and (p) (q) (not (started)))")
    model = ff_strips(_task(both, EITHER_WAY_P))
    finish = [i for i, a in enumerate(model.actions) if a and a.name == "finish"]
    assert len(finish) == 2 and model.actions[finish[0]] is model.actions[finish[1]]
    result = solve(both, EITHER_WAY_P, planner="authors")
    assert result.plan == ("(begin)", "(finish)")
