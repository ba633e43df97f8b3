"""Grounding and simulation: STRIPS, typing with hierarchies and either, constants,
equality, negative preconditions, quantifiers, conditional effects, action costs."""

import pytest
from adl_domain import DOMAIN, PROBLEM

from planloop.envs.blocksworld import generate_problem
from planloop.pddl import ActionLookupError, Atom, load, parse, validate


@pytest.fixture
def task():
    return load(DOMAIN, PROBLEM)


def names(actions):
    return sorted(a.text for a in actions)


def test_either_type_accepts_both_types_and_nothing_else(task):
    assert task.action("drive", ("t1", "home", "shop")) in task.actions
    assert task.action("drive", ("c1", "shop", "home")).args[0] == "c1"
    with pytest.raises(ActionLookupError, match="must be truck or car"):
        task.action("drive", ("p1", "home", "shop"))


def test_equality_and_static_facts_prune_grounding(task):
    drives = {a.args[1:] for a in task.actions if a.name == "drive"}
    assert ("home", "home") not in drives  # (not (= ?from ?to))
    assert ("home", "depot") not in drives  # no road: a static fact


def test_static_precondition_prunes_and_explains(task):
    state = task.init
    assert "(drive t1 home shop)" in names(task.applicable(state))
    car = task.action("drive", ("c1", "shop", "home"))
    assert not car.applicable(state)
    assert [str(u) for u in task.unmet(state, car)] == ["(fueled c1)"]


def test_conditional_forall_effect_with_nested_when(task):
    state = task.init
    for command in ["(load p1 t1 home)", "(drive t1 home shop)", "(unload-all t1 shop)"]:
        state = task.action(*_split(command)).apply(state)
    assert Atom("pkg-at", ("p1", "shop")) in task.atoms(state)
    assert Atom("in", ("p1", "t1")) not in task.atoms(state)
    assert Atom("delivered", ("p1",)) not in task.atoms(state)  # inner when: not the depot


def test_negated_existential_precondition(task):
    state = task.action("load", ("p1", "t1", "home")).apply(task.init)
    state = task.action("drive", ("t1", "home", "shop")).apply(state)
    blocked = task.action("load", ("p2", "t1", "shop"))
    assert not blocked.applicable(state)
    assert [str(u) for u in task.unmet(state, blocked)] == ["(not (in p1 t1))"]


def test_full_plan_is_valid(task):
    plan = [
        "(load p1 t1 home)",
        "(drive t1 home shop)",
        "(drive t1 shop depot)",
        "(unload-all t1 depot)",
        "(drive t1 depot shop)",
        "(load p2 t1 shop)",
        "(drive t1 shop depot)",
        "(unload-all t1 depot)",
    ]
    report = validate(task, plan)
    assert report.valid, report.advice
    assert not validate(task, plan[:-1]).valid


def test_universal_precondition(task):
    alarm = task.action("sound-alarm", ())
    assert alarm.applicable(task.init)  # nothing at the depot yet
    state = task.init | (1 << task.fact_id(Atom("pkg-at", ("p1", "depot"))))
    assert not alarm.applicable(state)
    # (imply a b) is (or (not a) b): either repair is offered
    assert [str(u) for u in task.unmet(state, alarm)] == [
        "(not (pkg-at p1 depot))",
        "(delivered p1)",
    ]


def test_action_costs_do_not_change_applicability():
    domain, problem = parse(DOMAIN, PROBLEM)
    assert ":action-costs" in domain.requirements
    assert all("total-cost" not in str(e) for a in domain.actions.values() for e in a.effects)


def test_lookup_errors_name_the_problem(task):
    with pytest.raises(ActionLookupError, match="unknown action 'fly'") as err:
        task.action("fly", ("t1",))
    assert err.value.kind == "unknown"
    with pytest.raises(ActionLookupError, match="takes 3 argument"):
        task.action("drive", ("t1",))
    with pytest.raises(ActionLookupError, match="unknown object 'moon'"):
        task.action("drive", ("t1", "home", "moon"))
    with pytest.raises(ActionLookupError, match="must be truck") as err:
        task.action("load", ("p1", "c1", "home"))
    assert err.value.kind == "malformed"


def test_statically_impossible_action_is_explained(task):
    action = task.action("drive", ("t1", "home", "depot"))  # pruned: no road
    assert not action.applicable(task.init)
    assert "(road home depot)" in [str(u) for u in task.unmet(task.init, action)]


def test_goal_test_and_missing_goal_facts(task):
    assert not task.is_goal(task.init)
    assert sorted(str(u) for u in task.unmet_goal(task.init)) == [
        "(delivered p1)",
        "(delivered p2)",
    ]


def test_fifty_block_ipc_problem_grounds_every_action(data_dir):
    problem = generate_problem(50, seed=1, style="ipc")
    task = load(data_dir / "ipc2000-blocks" / "domain.pddl", problem)
    assert len(task.objects) == 50
    assert len(task.actions) == 50 * 2 + 50 * 50 * 2  # (stack a a) too: no inequality
    assert validate(task, []).failure == "goal"


def _split(command):
    words = command.strip("()").split()
    return words[0], tuple(words[1:])
