"""write_domain/write_problem round trips; obfuscation is a bijection; rendering."""

import random
import re

import pytest
from adl_domain import DOMAIN, PROBLEM

from planloop.pddl import (
    PLANBENCH_MYSTERY,
    Atom,
    load,
    make_renaming,
    parse,
    parse_domain,
    parse_problem,
    render_action,
    render_fact,
    solve,
    templates_for,
    validate,
    write_domain,
    write_problem,
)

from conftest import IPC, PLANBENCH

CASES = [
    (
        PLANBENCH / "blocksworld" / "generated_domain.pddl",
        PLANBENCH / "blocksworld" / "generated_basic" / "instance-1.pddl",
    ),
    (IPC / "domain.pddl", IPC / "instances" / "instance-35.pddl"),
    (DOMAIN, PROBLEM),
]


@pytest.mark.parametrize("domain_src,problem_src", CASES)
def test_written_pddl_has_the_same_dynamics(domain_src, problem_src):
    """A seeded random walk sees the same actions and states in both tasks."""
    domain, problem = parse(domain_src, problem_src)
    original = load(domain_src, problem_src)
    written = load(write_domain(domain), write_problem(problem, domain))
    rng = random.Random(0)
    state_a, state_b = original.init, written.init
    for _ in range(300):
        actions_a = [a.text for a in original.applicable(state_a)]
        assert actions_a == [a.text for a in written.applicable(state_b)]
        assert original.atoms(state_a) == [
            f for f in written.atoms(state_b) if not f.predicate.startswith("either-")
        ]
        if not actions_a:
            state_a, state_b = original.init, written.init
            continue
        choice = rng.choice(actions_a)
        state_a = next(a for a in original.applicable(state_a) if a.text == choice).apply(state_a)
        state_b = next(a for a in written.applicable(state_b) if a.text == choice).apply(state_b)


@pytest.mark.parametrize("domain_src,problem_src", CASES[:2])
def test_written_strips_pddl_reads_back_to_the_same_model(domain_src, problem_src):
    domain, problem = parse(domain_src, problem_src)
    domain2 = parse_domain(write_domain(domain))
    problem2 = parse_problem(write_problem(problem, domain), domain2)
    assert domain2.predicates == domain.predicates
    assert domain2.actions == domain.actions
    assert domain2.types == domain.types and domain2.constants == domain.constants
    assert problem2.init == problem.init and problem2.goal == problem.goal
    assert problem2.objects == problem.objects


@pytest.mark.parametrize("domain_src,problem_src", CASES)
def test_written_pddl_is_read_by_tarski(domain_src, problem_src, tmp_path):
    tarski_io = pytest.importorskip("tarski.io")
    domain, problem = parse(domain_src, problem_src)
    (tmp_path / "d.pddl").write_text(write_domain(domain))
    (tmp_path / "p.pddl").write_text(write_problem(problem, domain))
    reader = tarski_io.PDDLReader(raise_on_error=True, strict_with_requirements=False)
    reader.parse_domain(str(tmp_path / "d.pddl"))
    parsed = reader.parse_instance(str(tmp_path / "p.pddl"))
    assert set(parsed.actions) == set(domain.actions)
    atoms = [a for a in parsed.init.as_atoms() if not str(a).startswith("either-")]
    assert len(atoms) == len(problem.init)


def test_adl_domain_written_is_solved_by_fast_downward():
    domain, problem = parse(DOMAIN, PROBLEM)
    result = solve(write_domain(domain), write_problem(problem, domain))
    assert result.status == "solved"
    assert validate(load(DOMAIN, PROBLEM), list(result.plan)).valid


def test_planbench_mapping_is_exact():
    assert PLANBENCH_MYSTERY == {
        "clear": "province",
        "ontable": "planet",
        "handempty": "harmony",
        "holding": "pain",
        "on": "craves",
        "pick-up": "attack",
        "put-down": "succumb",
        "stack": "overcome",
        "unstack": "feast",
    }


@pytest.mark.parametrize("style", ["words", "random"])
def test_renaming_is_seeded_bijective_and_keeps_arity_and_types(style):
    domain, problem = parse(DOMAIN, PROBLEM)
    renaming = make_renaming(domain, style, seed=4, objects=list(problem.objects))
    again = make_renaming(domain, style, seed=4, objects=list(problem.objects))
    other = make_renaming(domain, style, seed=5, objects=list(problem.objects))
    assert renaming == again and renaming != other
    every = (
        list(renaming.predicates.values())
        + list(renaming.actions.values())
        + list(renaming.objects.values())
    )
    assert len(set(every)) == len(every)
    if style == "random":
        assert all(re.fullmatch(r"[a-z][a-z0-9]{15}", n) for n in every)
    renamed = renaming.domain(domain)
    for old, new in renaming.predicates.items():
        assert renamed.predicates[new].params == domain.predicates[old].params
    for old, new in renaming.actions.items():
        assert renamed.actions[new].params == domain.actions[old].params


def test_renamed_task_plans_map_back_to_valid_plans():
    domain, problem = parse(DOMAIN, PROBLEM)
    renaming = make_renaming(domain, "words", seed=1, objects=list(problem.objects))
    r_domain = renaming.domain(domain)
    r_problem = renaming.problem(problem)
    result = solve(r_domain, r_problem, planner="bfs")
    assert result.status == "solved"
    inverse = renaming.inverse()
    plan = []
    for step in result.plan:
        name, *args = step.strip("()").split()
        name, args = inverse.command(name, args)
        plan.append("(" + " ".join([name, *args]) + ")")
    assert validate(load(DOMAIN, PROBLEM), plan).valid


def test_render_planbench_style():
    bw = templates_for("blocksworld-4ops")
    assert render_fact(Atom("clear", ("a",)), bw) == "the red block is clear"
    assert render_fact(Atom("on", ("a", "b")), bw) == "the red block is on top of the blue block"
    assert (
        render_action("unstack", ("c", "b"), bw)
        == "unstack the orange block from on top of the blue block"
    )
    mystery = templates_for("mystery-4ops")
    assert render_fact(Atom("craves", ("a", "b")), mystery) == "object a craves object b"
    assert render_action("feast", ("a", "b"), mystery) == "feast object a from object b"


def test_render_generic_fallback():
    generic = templates_for("some-domain")
    assert render_fact(Atom("at-robot", ("r1",)), generic) == "r1 is at robot"
    assert render_fact(Atom("road", ("x", "y")), generic) == "road holds for x and y"
    assert render_fact(Atom("alarm", ()), generic) == "alarm holds"
    assert render_action("drive-truck", ("t", "a"), generic) == "drive truck t a"
