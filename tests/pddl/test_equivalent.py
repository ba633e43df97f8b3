"""equivalent(): two problems of one domain compared up to a renaming of objects."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planloop.envs.blocksworld import generate_problem
from planloop.pddl import Atom, Equivalence, Problem, equivalent, parse_domain, parse_problem
from planloop.pddl.model import And, Not, map_formula

DATA = Path(__file__).resolve().parents[2] / "planloop" / "envs" / "data"
BLOCKSWORLD = DATA / "blocksworld.pddl"
BLOCKS_TYPED = DATA / "blocks_typed.pddl"

GRIPPER = """
(define (domain gripper-typed)
  (:requirements :strips :typing :negative-preconditions :existential-preconditions)
  (:types room ball gripper)
  (:predicates (at-robby ?r - room) (at ?b - ball ?r - room) (free ?g - gripper)
               (carry ?b - ball ?g - gripper) (connected ?x - room ?y - room))
  (:action move
    :parameters (?from - room ?to - room)
    :precondition (and (at-robby ?from) (connected ?from ?to))
    :effect (and (at-robby ?to) (not (at-robby ?from))))
  (:action pick
    :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (at ?b ?r) (at-robby ?r) (free ?g))
    :effect (and (carry ?b ?g) (not (at ?b ?r)) (not (free ?g))))
  (:action drop
    :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (carry ?b ?g) (at-robby ?r))
    :effect (and (at ?b ?r) (free ?g) (not (carry ?b ?g)))))
"""

# A typed domain with a constant and a static predicate, for random problems.
TYPED = """
(define (domain typed-random)
  (:requirements :strips :typing)
  (:types node item)
  (:constants hub - node)
  (:predicates (mark ?x - item) (link ?a - node ?b - node) (holds ?n - node ?i - item)
               (pair ?i - item ?j - item) (ready))
  (:action take
    :parameters (?n - node ?i - item)
    :precondition (and (holds ?n ?i) (ready))
    :effect (and (mark ?i) (not (holds ?n ?i)))))
"""


def gripper(balls, goal, init=""):
    return f"""(define (problem g) (:domain gripper-typed)
  (:objects rooma roomb - room {" ".join(balls)} - ball left right - gripper)
  (:init (at-robby rooma) (free left) (free right) (connected rooma roomb)
         {" ".join(f"(at {b} rooma)" for b in balls)} {init})
  (:goal {goal}))"""


def blocks(init, goal, objects="a b c"):
    return f"""(define (problem bw) (:domain blocksworld-4ops) (:objects {objects})
  (:init (handempty) {init}) (:goal {goal}))"""


def renamed(problem: Problem, rng: random.Random) -> Problem:
    """``problem`` with fresh object names and its objects, facts and conjuncts shuffled."""
    names = list(problem.objects)
    fresh = [f"n{i}" for i in range(len(names))]
    rng.shuffle(fresh)
    mapping = dict(zip(names, fresh, strict=True))

    def rename(atom):
        return Atom(atom.predicate, tuple(mapping.get(t, t) for t in atom.args))

    objects = list(problem.objects.items())
    init = [rename(f) for f in problem.init]
    goal = map_formula(problem.goal, rename)
    for items in (objects, init):
        rng.shuffle(items)
    if isinstance(goal, And):
        goal = And(tuple(rng.sample(goal.args, len(goal.args))))
    return Problem(
        problem.name, problem.domain_name, {mapping[o]: t for o, t in objects}, tuple(init), goal
    )


def maps_onto(result: Equivalence, a: Problem, b: Problem) -> bool:
    """Whether ``result.mapping`` is a type-respecting bijection taking a's init and goal
    conjuncts onto b's."""
    m = result.mapping

    def rename(f):
        return map_formula(f, lambda x: Atom(x.predicate, tuple(m.get(t, t) for t in x.args)))

    return (
        sorted(m) == sorted(a.objects)
        and sorted(m.values()) == sorted(b.objects)
        and all(a.objects[x] == b.objects[y] for x, y in m.items())
        and {rename(f) for f in a.init} == set(b.init)
        and set(conjuncts(rename(a.goal))) == set(conjuncts(b.goal))
    )


def conjuncts(goal):
    return goal.args if isinstance(goal, And) else (goal,)


# -- hand-made cases -------------------------------------------------------------------
def test_renamed_and_reordered_problem_is_equal():
    a = blocks("(ontable a) (on b a) (clear b) (ontable c) (clear c)", "(and (on a c) (on c b))")
    b = blocks(
        "(clear z) (on y x) (ontable z) (clear y) (ontable x)",
        "(and (on z y) (on x z))",
        objects="z y x",
    )
    result = equivalent(BLOCKSWORLD, a, b)
    assert result and result.equal and result.init_equal and result.goal_equal
    assert result.goal_equivalent and result.reason == ""
    assert result.mapping == {"a": "x", "b": "y", "c": "z"}


def test_accepts_parsed_domain_and_problems():
    domain = parse_domain(BLOCKSWORLD)
    text = blocks("(ontable a) (clear a) (ontable b) (on c b) (clear c)", "(on a c)")
    assert equivalent(domain, parse_problem(text, domain), text)


def test_one_init_atom_differs_and_is_quoted():
    a = blocks("(ontable a) (on b a) (clear b) (ontable c) (clear c)", "(on a c)")
    b = blocks("(ontable x) (on y x) (clear y) (ontable z) (holding z)", "(on x z)", "z y x")
    result = equivalent(BLOCKSWORLD, a, b)
    assert not result and not result.init_equal and result.mapping == {}
    assert result.goal_equal
    assert result.reason == (
        "(clear c) of a's init has no counterpart in b's init (under the "
        "best renaming found it would be (clear z))"
    )


def test_swapped_goal_arguments_differ():
    init = "(ontable a) (on b a) (clear b) (ontable c) (clear c)"
    result = equivalent(BLOCKSWORLD, blocks(init, "(on a c)"), blocks(init, "(on c a)"))
    assert not result and result.init_equal and not result.goal_equal
    assert not result.goal_equivalent
    assert result.reason == "goal differs: (on a c) of a's goal has no counterpart in b's goal"


def test_a_renaming_must_keep_types():
    domain = """(define (domain kinds) (:requirements :typing) (:types ball box)
      (:predicates (in ?x - object ?y - object)))"""

    def problem(objects, init):
        return (
            f"(define (problem p) (:domain kinds) (:objects {objects}) (:init {init}) "
            "(:goal (and)))"
        )

    same = equivalent(
        domain, problem("x - ball y - box", "(in x y)"), problem("y - ball x - box", "(in y x)")
    )
    assert same.mapping == {"x": "y", "y": "x"}
    swapped = equivalent(
        domain, problem("x - ball y - box", "(in x y)"), problem("x - ball y - box", "(in y x)")
    )
    assert not swapped and "(in x y) of a's init" in swapped.reason


def test_extra_object_is_reported_with_its_type():
    result = equivalent(
        BLOCKSWORLD,
        blocks("(ontable a) (clear a)", "(clear a)", "a b"),
        blocks("(ontable a) (clear a)", "(clear a)", "a b c"),
    )
    assert not result
    assert result.reason == "different numbers of objects of type 'object': 2 in a, 3 in b"


def test_domain_name_mismatch():
    domain = parse_domain(BLOCKSWORLD)
    a = parse_problem(blocks("(ontable a) (clear a)", "(clear a)", "a"), domain)
    result = equivalent(domain, a, dataclasses.replace(a, domain_name="other"))
    assert not result and "domain name mismatch" in result.reason


def test_static_goal_atom_true_in_init_is_equivalent_not_equal():
    balls = ["b1", "b2"]
    result = equivalent(
        GRIPPER,
        gripper(balls, "(and (at b1 roomb) (connected rooma roomb))"),
        gripper(balls, "(at b2 roomb)"),
    )
    assert not result and result.init_equal and not result.goal_equal
    assert result.goal_equivalent
    assert "(connected rooma roomb) of a's goal has no counterpart" in result.reason
    assert "same states given the static facts" in result.reason


def test_static_goal_atom_false_in_init_makes_goals_differ():
    balls = ["b1"]
    result = equivalent(
        GRIPPER,
        gripper(balls, "(and (at b1 roomb) (connected roomb rooma))"),
        gripper(balls, "(at b1 roomb)"),
    )
    assert result.init_equal and not result.goal_equivalent


def test_absorbed_disjunct_is_equivalent_by_truth_table():
    balls = ["b1", "b2"]
    result = equivalent(
        GRIPPER,
        gripper(balls, "(or (at b1 roomb) (and (at b1 roomb) (at b2 roomb)))"),
        gripper(balls, "(at b2 roomb)"),
    )
    assert not result and result.goal_equivalent
    assert result.mapping["b1"] == "b2"


def test_quantified_goal_is_expanded_over_the_objects():
    balls = ["b1", "b2"]
    result = equivalent(
        GRIPPER,
        gripper(balls, "(exists (?b - ball) (at ?b roomb))"),
        gripper(balls, "(or (at b2 roomb) (at b1 roomb))"),
    )
    assert result.goal_equivalent and not result.goal_equal


def test_duplicate_and_nested_goal_atoms_are_equal():
    init = "(ontable a) (clear a) (ontable b) (clear b) (ontable c) (clear c)"
    result = equivalent(
        BLOCKSWORLD,
        blocks(init, "(and (on a b) (and (on b c)) (on a b))"),
        blocks(init, "(and (on b c) (on a b))"),
    )
    assert result.equal


def test_init_differs_but_goals_match():
    a = gripper(["b1", "b2"], "(at b1 roomb)")
    b = gripper(["b1", "b2"], "(at b2 roomb)", init="(at-robby roomb)")
    result = equivalent(GRIPPER, a, b)
    assert not result and not result.init_equal and result.goal_equal and result.goal_equivalent
    assert "(at-robby roomb) of b's init has no counterpart in a's init" in result.reason


def test_many_interchangeable_objects():
    balls = [f"ball{i}" for i in range(30)]
    others = [f"x{i}" for i in range(30)]
    random.Random(0).shuffle(others)

    def goal(names):
        return "(and " + " ".join(f"(at {b} roomb)" for b in names) + ")"

    result = equivalent(GRIPPER, gripper(balls, goal(balls)), gripper(others, goal(others)))
    assert result.equal
    stay = equivalent(GRIPPER, gripper(balls, goal(balls)), gripper(others, "(at x3 rooma)"))
    assert stay.init_equal and not stay.goal_equal


def test_forty_blocks_shuffled_and_renamed_are_equal():
    domain = parse_domain(BLOCKS_TYPED)
    a = parse_problem(generate_problem(40, 7, style="ipc"), domain)
    b = renamed(a, random.Random(7))
    result = equivalent(domain, a, b)
    assert result.equal and maps_onto(result, a, b)


# -- properties ------------------------------------------------------------------------
BW = parse_domain(BLOCKSWORLD)
RANDOM_DOMAIN = parse_domain(TYPED)


@st.composite
def blocksworld_problems(draw) -> Problem:
    size = draw(st.integers(2, 26))  # one block admits no goal to generate
    return parse_problem(generate_problem(size, draw(st.integers(0, 10_000))), BW)


@st.composite
def typed_problems(draw) -> Problem:
    nodes = [f"v{i}" for i in range(draw(st.integers(1, 5)))]
    items = [f"i{i}" for i in range(draw(st.integers(1, 6)))]
    terms = {"node": nodes + ["hub"], "item": items}
    shapes = [
        ("mark", ("item",)),
        ("link", ("node", "node")),
        ("holds", ("node", "item")),
        ("pair", ("item", "item")),
        ("ready", ()),
    ]

    def atoms():
        return st.sampled_from(shapes).flatmap(
            lambda shape: st.tuples(*(st.sampled_from(terms[t]) for t in shape[1])).map(
                lambda args: Atom(shape[0], args)
            )
        )

    init = draw(st.lists(atoms(), min_size=1, max_size=25, unique=True))
    goal = draw(
        st.lists(
            st.tuples(st.booleans(), atoms()),
            min_size=1,
            max_size=6,
            unique_by=lambda literal: literal[1],
        )
    )
    objects = {**dict.fromkeys(nodes, "node"), **dict.fromkeys(items, "item")}
    return Problem(
        "p",
        "typed-random",
        objects,
        tuple(init),
        And(tuple(atom if positive else Not(atom) for positive, atom in goal)),
    )


def problems():
    return st.one_of(
        st.tuples(st.just(BW), blocksworld_problems()),
        st.tuples(st.just(RANDOM_DOMAIN), typed_problems()),
    )


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(problems(), st.randoms(use_true_random=False))
def test_a_renamed_shuffled_copy_is_equal(case, rng):
    domain, a = case
    b = renamed(a, rng)
    result = equivalent(domain, a, b)
    assert result.equal and result.reason == "" and maps_onto(result, a, b)


@FAST
@given(problems(), st.randoms(use_true_random=False), st.data())
def test_removing_or_altering_one_init_atom_breaks_equality(case, rng, data):
    domain, a = case
    b = renamed(a, rng)
    index = data.draw(st.integers(0, len(b.init) - 1))
    fact = b.init[index]
    others = [
        p
        for p, d in domain.predicates.items()
        if p != fact.predicate and len(d.params) == len(fact.args)
    ]
    init = list(b.init)
    if others and data.draw(st.booleans()):
        init[index] = Atom(data.draw(st.sampled_from(others)), fact.args)
    else:
        del init[index]
    result = equivalent(domain, a, dataclasses.replace(b, init=tuple(init)))
    assert not result and not result.init_equal and result.reason


@FAST
@given(problems(), st.randoms(use_true_random=False), st.data())
def test_removing_or_negating_one_goal_atom_breaks_equality(case, rng, data):
    domain, a = case
    b = renamed(a, rng)
    goal = list(conjuncts(b.goal))
    index = data.draw(st.integers(0, len(goal) - 1))
    if len(goal) > 1 and data.draw(st.booleans()):
        del goal[index]
    else:
        goal[index] = goal[index].arg if isinstance(goal[index], Not) else Not(goal[index])
    result = equivalent(domain, a, dataclasses.replace(b, goal=And(tuple(goal))))
    assert not result and result.init_equal and not result.goal_equal
    assert result.reason.startswith("goal differs")
