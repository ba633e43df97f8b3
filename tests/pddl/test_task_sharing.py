"""What two tasks of one domain share (issue 33): Task.with_problem shares the read-only
statics and the ground actions, and nothing either task writes afterwards."""

import pytest

from planloop.pddl import Atom, parse
from planloop.pddl.grounding import Task

DOMAIN = """(define (domain roads)
  (:predicates (road ?a ?b) (at ?x) (visited ?x))
  (:action go :parameters (?a ?b)
    :precondition (and (at ?a) (road ?a ?b))
    :effect (and (not (at ?a)) (at ?b) (visited ?b))))"""


def problem(start: str) -> str:
    return f"""(define (problem trip) (:domain roads) (:objects x y z)
  (:init (road x y) (road y z) (at {start})) (:goal (visited z)))"""


@pytest.fixture
def tasks() -> tuple[Task, Task]:
    first = Task(*parse(DOMAIN, problem("x")))
    second = first.with_problem(parse(DOMAIN, problem("y"))[1])
    assert second is not None
    return first, second


def texts(actions) -> list[str]:
    return [a.text for a in actions]


def test_the_derived_task_shares_the_statics_and_ground_actions_only(tasks):
    first, second = tasks
    assert second._grounder.shared is first._grounder.shared
    assert second._grounded is first._grounded
    assert second._grounder is not first._grounder
    assert second._grounder._compiled is not first._grounder._compiled
    assert second.facts is not first.facts and second.facts == first.facts
    assert texts(second.applicable(second.init)) == ["(go y z)"]
    assert texts(first.applicable(first.init)) == ["(go x y)"]


def test_facts_one_task_names_later_stay_its_own(tasks):
    first, second = tasks
    before = list(first.facts)
    back = second.action("go", ("z", "x"))  # pruned by grounding: instantiated on demand
    assert Atom("visited", ("x",)) in second.facts
    assert first.facts == before and not first._on_demand
    first.action("go", ("z", "y"))
    assert Atom("road", ("z", "y")) in first.facts
    assert Atom("road", ("z", "y")) not in second.facts
    assert [str(u) for u in second.unmet(second.init, back)] == ["(at z)", "(road z x)"]


def test_stepping_one_task_leaves_the_other_as_it_was(tasks):
    first, second = tasks
    state = second.apply(second.init, second.action("go", ("y", "z")))
    assert second.is_goal(state)
    assert [str(a) for a in second.atoms(state)] == [
        "(road x y)",
        "(road y z)",
        "(at z)",
        "(visited z)",
    ]
    assert [str(a) for a in first.atoms(first.init)] == ["(road x y)", "(road y z)", "(at x)"]
    assert not first.is_goal(first.init)


def test_what_the_tasks_share_cannot_be_changed(tasks):
    first, second = tasks
    with pytest.raises(TypeError):
        second.objects["w"] = "object"  # type: ignore[index]
    with pytest.raises(AttributeError):
        second._grounder.shared.static["road"].add(("z", "x"))  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        second._grounded.append(second._grounded[0])  # type: ignore[attr-defined]
    second.objects_of(("object",)).append("w")
    assert first.objects_of(("object",)) == ["x", "y", "z"]
    assert first.objects is second.objects and "w" not in first.objects


def test_another_object_list_or_static_fact_shares_nothing(tasks):
    first, _ = tasks
    other = problem("x").replace("(road y z)", "(road z y)")
    assert first.with_problem(parse(DOMAIN, other)[1]) is None
    assert first.with_problem(parse(DOMAIN, problem("x").replace("x y z", "z y x"))[1]) is None
