"""Sparse ground actions and the state-by-state bookkeeping of Task (issue 25): every
answer must equal the one a pass over all facts and all actions gives."""

import random
from pathlib import Path

import gymnasium as gym
import pytest
from adl_domain import DOMAIN as ADL_DOMAIN
from adl_domain import PROBLEM as ADL_PROBLEM

import planloop  # noqa: F401  (registers the environments)
from planloop.envs.blocksworld import generate_problem
from planloop.pddl import Atom, Limits, PDDLError, load
from planloop.pddl.grounding import _SuccessorGenerator
from planloop.pddl.memo import clear_all

from conftest import DATA, IPC

ALFWORLD_GAMES = sorted((DATA / "alfworld" / "games").glob("*/game.tw-pddl"))


def alfworld_task(game: Path):
    env = gym.make("ALFWorld-v0", game_file=game)
    env.reset()
    return load(*env.unwrapped.world_pddl())


def brute_true_ids(task, state: int) -> list[int]:
    predicates = {p: i for i, p in enumerate(task.domain.predicates)}
    order = {o: i for i, o in enumerate(task.objects)}
    true = [i for i in range(len(task.facts)) if state >> i & 1]
    return sorted(
        true,
        key=lambda i: (
            predicates.get(task.facts[i].predicate, len(predicates)),
            [order.get(a, len(order)) for a in task.facts[i].args],
        ),
    )


def walk_and_jump(task, steps: int, seed: int):
    """States of a random walk from the initial state, with a jump back to the initial
    state or to an earlier state every 7 steps (the bookkeeping's slow path)."""
    rng, state, seen = random.Random(seed), task.init, [task.init]
    for step in range(steps):
        if step % 7 == 6:
            state = rng.choice(seen)
        else:
            applicable = task.applicable(state)
            if not applicable:
                state = task.init
            else:
                state = task.apply(state, rng.choice(applicable))
        seen.append(state)
        yield state


TASKS = {
    "blocks-20": lambda: load(IPC / "domain.pddl", generate_problem(20, 3, style="ipc")),
    "adl": lambda: load(ADL_DOMAIN, ADL_PROBLEM),
    **{f"alfworld-{g.parent.name}": (lambda g=g: alfworld_task(g)) for g in ALFWORLD_GAMES[:3]},
}


@pytest.mark.parametrize("name", sorted(TASKS))
def test_applicable_actions_and_true_facts_match_a_pass_over_everything(name, monkeypatch):
    monkeypatch.setattr(_SuccessorGenerator, "LINEAR_LIMIT", 0)  # keyed by facts, always
    clear_all()
    task = TASKS[name]()
    for state in walk_and_jump(task, 150, seed=len(name)):
        assert task.applicable(state) == [a for a in task.actions if a.applicable(state)]
        assert task.true_ids(state) == brute_true_ids(task, state)


def test_masks_built_on_demand_agree_with_the_fact_ids():
    task = load(IPC / "domain.pddl", generate_problem(20, 3, style="ipc"))
    for action in task.actions[::97]:
        assert action.pre_pos == sum(1 << f for f in action.pre)
        assert action.add == sum(1 << f for f in action.adds)
        assert action.delete == sum(1 << f for f in action.deletes)
        assert action.applicable(task.init) == (action in task.applicable(task.init))


def test_a_precondition_keeps_its_own_order():
    domain = """(define (domain d) (:predicates (p) (q) (r))
      (:action a :parameters () :precondition (and (not (p)) (q) (or (p) (r)))
       :effect (and (p) (not (q)) (not (r)))))"""
    problem = "(define (problem x) (:domain d) (:init (q) (r)) (:goal (p)))"
    task = load(domain, problem)
    (action,) = task.actions
    p, q = task.fact_id(Atom("p")), task.fact_id(Atom("q"))
    assert action.pre == (q,) and action.pre_not == (p,)
    assert [part[0] for part in action.precondition[1]] == ["not", "atom", "or"]
    after = task.apply(task.init, action)
    assert [str(u) for u in task.unmet(after, action)] == ["(not (p))", "(q)"]


@pytest.mark.slow
def test_a_400_block_blocksworld_loads_with_the_default_limits_and_with_explicit_ones():
    problem = generate_problem(400, 0, style="ipc")
    domain = (IPC / "domain.pddl").read_text()
    for limits in ({}, {"limits": {"max_ground_actions": 330_000}}):
        env = gym.make("PDDL-v0", domain=domain, problem=problem, **limits)
        _, info = env.reset(seed=0)
        task = env.unwrapped.task
        assert len(task.actions) == 320_800 and len(task.facts) == 161_201
        obs, _, _, _, info = env.step(info["admissible_actions"][0])
        assert obs.startswith("Done: ") and info["admissible_actions"]
        env.close()


def test_a_task_past_a_limit_states_its_size_and_the_keyword_that_raises_it():
    problem = generate_problem(30, 0, style="ipc")
    with pytest.raises(PDDLError) as caught:
        load(IPC / "domain.pddl", problem, limits=Limits(max_ground_actions=1_000))
    message = str(caught.value)
    assert "1,001 ground actions" in message and "30 objects" in message
    assert "limits=Limits(max_ground_actions=...)" in message
    assert "limits={'max_ground_actions': ...}" in message
    with pytest.raises(ValueError, match="max_ground_facts"):
        gym.make(
            "PDDL-v0",
            domain=IPC / "domain.pddl",
            problem=problem,
            limits={"max_ground_facts": 100},
        ).reset()


QUANTIFIED_DOMAIN = """(define (domain q) (:requirements :adl :typing)
  (:types node tag)
  (:predicates (linked ?x ?y - node) (ready ?y - node) (done ?x - node) (marked ?t - tag))
  (:action finish :parameters (?x - node)
    :precondition (exists (?y - node) (and (not (linked ?x ?y)) (ready ?y)))
    :effect (done ?x))
  (:action never :parameters (?x - node)
    :precondition (exists (?t - tag) (marked ?t))
    :effect (done ?x))
  (:action always :parameters (?x - node)
    :precondition (forall (?t - tag) (marked ?t))
    :effect (ready ?x)))"""
QUANTIFIED_PROBLEM = """(define (problem q1) (:domain q)
  (:objects a b c - node)
  (:init (linked a b) (linked a c) (linked b a) (ready a))
  (:goal (done c)))"""


def test_a_quantifier_is_planned_per_value_of_the_bound_variables_its_pools_read():
    """The pool of ?y is filtered by (not (linked ?x ?y)), which reads the action's ?x:
    each ?x gets its own disjuncts, though the quantifier's join is planned once."""
    task = load(QUANTIFIED_DOMAIN, QUANTIFIED_PROBLEM)
    ready = {o: task.fact_id(Atom("ready", (o,))) for o in "abc"}
    finish = {a.args[0]: a.precondition for a in task._grounded if a.name == "finish"}
    assert finish["a"] == ("atom", ready["a"])
    assert finish["b"] == ("or", (("atom", ready["b"]), ("atom", ready["c"])))
    assert finish["c"] == ("or", tuple(("atom", ready[o]) for o in "abc"))
    # a quantifier over a type without objects: exists never holds, forall always does
    assert not [a for a in task._grounded if a.name == "never"]
    assert sorted(a.args for a in task.actions if a.name == "always") == [("a",), ("b",), ("c",)]
