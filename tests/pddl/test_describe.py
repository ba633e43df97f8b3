"""describe_problem: a problem in words, paragraph by paragraph, that a reader can rebuild."""

import re

import pytest

import planloop.pddl
from planloop.envs.baking import TEMPLATES as BAKING
from planloop.envs.blocksworld import blocksworld_domain, generate_problem
from planloop.envs.problem_sets import DOMAINS
from planloop.pddl import Atom, describe_problem, parse_domain, parse_problem, render_fact
from planloop.pddl.render import goal_literals, render_literal, templates_for

SIZED = [name for name, s in DOMAINS.items() if s.sized]
GRIPPER = DOMAINS["gripper"]


def paragraphs(text: str) -> tuple[str, str, str]:
    objects, init, goal = text.split("\n\n")
    return objects, init, goal


def phrases(paragraph: str, opening: str) -> list[str]:
    """``"<opening>a, b and c."`` -> ["a", "b", "c"] (the templates here have no ', ' or
    ' and ')."""
    assert paragraph.startswith(opening) and paragraph.endswith(".")
    body = paragraph[len(opening) : -1]
    head, _, last = body.rpartition(" and ")
    return head.split(", ") + [last] if head else [last]


def declared(objects_paragraph: str) -> dict[str, list[str]]:
    """ "There are 2 rooms: room1 and room2." -> {"rooms": ["room1", "room2"]}."""
    groups = re.findall(r"There (?:is|are) \d+ ([\w ]+?): (.+?)\.(?: |$)", objects_paragraph)
    return {noun: phrases(f"{names}.", "") for noun, names in groups}


def test_exported():
    assert planloop.pddl.describe_problem is describe_problem
    assert "describe_problem" in planloop.pddl.__all__


def test_gripper_example_reads_naturally():
    text = GRIPPER.describe(GRIPPER.generate(10, 0))
    objects, init, goal = paragraphs(text)
    assert objects.startswith("The problem has 10 objects. There are 2 rooms: room1 and room2.")
    assert "There are 2 grippers: left and right." in objects
    assert init.startswith("Initially, the robot is in room1, gripper left is free, ")
    assert goal.startswith("The goal is that ball1 is in room1, ")


@pytest.mark.parametrize("name", SIZED)
@pytest.mark.parametrize("size", [10, 20, 30, 40])
def test_every_object_and_fact_can_be_read_back(name, size):
    s = DOMAINS[name]
    for seed in (0, 1):
        problem = s.parse(s.generate(size, seed))
        templates = templates_for(s.domain().name)
        init = [render_fact(f, templates) for f in problem.init]
        goal = [
            render_literal(a, positive, templates) for a, positive in goal_literals(problem.goal)
        ]
        literals = [(f, True) for f in problem.init] + goal_literals(problem.goal)
        meaning = dict(zip(init + goal, literals, strict=True))
        assert len(meaning) == len(set(literals))  # no two literals read alike
        for text_seed in (0, 7):
            objects, init_text, goal_text = paragraphs(
                s.describe(s.generate(size, seed), text_seed)
            )
            read_init = phrases(init_text, "Initially, ")
            read_goal = phrases(goal_text, "The goal is that ")
            if text_seed == 0:
                assert (read_init, read_goal) == (init, goal)
            assert (sorted(read_init), sorted(read_goal)) == (sorted(init), sorted(goal))
            names = [n for group in declared(objects).values() for n in group]
            assert sorted(re.sub(r".*\((\w+)\)$|.* (\w+)$", r"\1\2", n) for n in names) == sorted(
                problem.objects
            )


def test_objects_are_grouped_by_type_with_counts():
    text = DOMAINS["logistics"].describe(DOMAINS["logistics"].generate(10, 0))
    groups = declared(paragraphs(text)[0])
    assert list(groups) == ["cities", "airports", "location", "trucks", "airplane", "packages"]
    assert "There is 1 airplane: plane1." in text


def test_seed_shuffles_facts_but_not_objects():
    problem_text = GRIPPER.generate(30, 4)
    texts = {seed: GRIPPER.describe(problem_text, seed) for seed in (0, 1, 2)}
    assert texts[1] == GRIPPER.describe(problem_text, 1)
    assert len(set(texts.values())) == 3
    assert len({paragraphs(t)[0] for t in texts.values()}) == 1


def test_planbench_blocks_are_named_in_the_object_list():
    domain = blocksworld_domain()
    problem = parse_problem(generate_problem(4, 0), domain)
    objects, init, _ = paragraphs(describe_problem(domain, problem))
    assert objects == (
        "The problem has 4 objects: the red block (a), the blue block (b), "
        "the orange block (c) and the yellow block (d)."
    )
    assert "the hand is empty" in init


DOMAIN = """(define (domain toy) (:requirements :strips :typing :negative-preconditions)
  (:types box)
  (:predicates (on ?x - box ?y - box) (shiny ?x - box) (ready))
  (:action a :parameters (?x - box) :precondition (ready) :effect (shiny ?x)))"""


def toy(goal: str, objects: str = "b1 b2 - box", init: str = "(ready) (on b1 b2)"):
    domain = parse_domain(DOMAIN)
    problem = parse_problem(
        f"""(define (problem t) (:domain toy) (:objects {objects})
        (:init {init}) (:goal {goal}))""",
        domain,
    )
    return domain, problem


def test_negative_goals_in_templates_and_generic_wording():
    text = GRIPPER.describe("""(define (problem g) (:domain gripper-typed)
        (:objects room1 room2 - room ball1 - ball left - gripper)
        (:init (at-robby room1) (free left) (at ball1 room1))
        (:goal (and (not (at ball1 room1)) (not (carry ball1 left)) (at-robby room2))))""")
    assert paragraphs(text)[2] == (
        "The goal is that ball1 is not in room1, gripper left is "
        "not carrying ball1 and the robot is in room2."
    )
    domain, problem = toy("(and (not (shiny b1)) (not (ready)) (not (on b2 b1)) (shiny b2))")
    assert paragraphs(describe_problem(domain, problem))[2] == (
        "The goal is that b1 is not shiny, ready does not hold, on does not hold for b2 and "
        "b1 and b2 is shiny."
    )


def test_negation_without_is_or_holds():
    mystery = templates_for("mystery-4ops")
    assert (
        render_literal(Atom("craves", ("a", "b")), False, mystery)
        == "it is not the case that object a craves object b"
    )


def test_single_goal_atom_empty_goal_and_plural_nouns():
    domain, problem = toy("(shiny b1)", "b1 - box", "(ready) (on b1 b1)")
    objects, init, goal = paragraphs(describe_problem(domain, problem))
    assert objects == "The problem has 1 object. There is 1 box: b1."
    assert init == "Initially, ready holds and on holds for b1 and b1."
    assert (
        paragraphs(describe_problem(*toy("(ready)", init="")))[1] == "Initially, nothing is true."
    )
    assert goal == "The goal is that b1 is shiny."
    assert paragraphs(describe_problem(*toy("(and)")))[2] == "The goal is empty."
    assert "There are 2 boxes: b1 and b2." in describe_problem(*toy("(and)"))


def test_goals_other_than_conjunctions_of_literals_are_refused():
    with pytest.raises(ValueError, match="conjunction of literals"):
        describe_problem(*toy("(or (shiny b1) (shiny b2))"))


def test_baking_with_its_templates_mentions_every_fact():
    s = DOMAINS["baking"]
    for problem_text in s.problems():
        problem = s.parse(problem_text)
        text = s.describe(problem_text, seed=3)
        for fact in problem.init:
            assert render_fact(fact, BAKING) in text
        for atom, positive in goal_literals(problem.goal):
            assert render_literal(atom, positive, BAKING) in text
        assert all(name in text for name in problem.objects)
