"""The contingent dialect (CLG / SDR / CPOR): the reader against unified-planning's, and
the factored belief against brute-force filtering of every world."""

from __future__ import annotations

import hashlib
import random
import re
from importlib import resources
from itertools import product
from pathlib import Path

import pytest

from planloop.pddl import Limits, PDDLError, parse
from planloop.pddl.belief import Formula
from planloop.pddl.contingent import ContingentTask, load_contingent
from planloop.pddl.model import Atom

SAMPLE = Path(str(resources.files("planloop.envs").joinpath("data", "contingent")))
TESTS = Path(__file__).parent.parent / "data" / "contingent"
NAMES = ("blocks2", "colorballs", "doors15", "logistic_conf")
SMALL = [
    SAMPLE / "blocks2",
    SAMPLE / "logistic_conf",
    TESTS / "lamps",
    TESTS / "doors3",
    TESTS / "colorballs2",
]

SENSE = """(define (domain d) (:requirements :strips :contingent)
  (:predicates (p ?x) (q ?x) (r))
  (:action look :observe (and (p a) (q a)))
  (:action act :effect (r) :parameters (?x) :precondition (p ?x))
  (:constants a b))"""


def _load(folder: Path, **kwargs) -> ContingentTask:
    return load_contingent(folder / "domain.pddl", folder / "problem.pddl", **kwargs)


def test_the_sample_is_the_fixtures_copied_unchanged():
    for line in (SAMPLE / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((SAMPLE / name).read_bytes()).hexdigest() == digest
    assert (SAMPLE / "LICENSE-Apache-2.0.txt").is_file()


# -- the reader ----------------------------------------------------------------------
def _up_literal(fnode) -> tuple[str, bool]:
    negated = fnode.is_not()
    atom = fnode.arg(0) if negated else fnode
    args = " ".join(str(a).lower() for a in atom.args)
    return f"({atom.fluent().name.lower()}{' ' + args if args else ''})", negated


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_unified_planning_reads_the_same_facts_constraints_and_sensing(name):
    reader = pytest.importorskip("unified_planning.io")
    up = reader.PDDLReader().parse_problem(
        str(SAMPLE / name / "domain.pddl"), str(SAMPLE / name / "problem.pddl")
    )
    domain, problem = parse(
        SAMPLE / name / "domain.pddl", SAMPLE / name / "problem.pddl", contingent=True
    )
    true = {_up_literal(f)[0] for f, v in up.explicit_initial_values.items() if v.is_true()}
    assert {str(a) for a in problem.init} == true
    oneofs = sorted(sorted(_up_literal(f) for f in c) for c in up.oneof_constraints)
    ors = [sorted(_up_literal(f) for f in c) for c in up.or_constraints]
    unknown = [c for c in ors if len(c) == 2 and c[0][0] == c[1][0]]  # (or (not a) a)
    ours = {
        kind: sorted(
            sorted((str(lit.atom), lit.negated) for lit in c.literals)
            for c in problem.clauses
            if c.kind == kind
        )
        for kind in ("oneof", "or")
    }
    assert ours["oneof"] == oneofs
    assert ours["or"] == sorted(c for c in ors if c not in unknown)
    hidden = {_up_literal(f)[0] for f in up.hidden_fluents}
    uncertain = {str(a) for a in problem.unknown} | {
        str(lit.atom) for c in problem.clauses for lit in c.literals
    }
    assert uncertain == hidden
    up_sensing = {
        a.name.lower(): sorted(_up_literal(f)[0] for f in a.observed_fluents)
        for a in up.sensing_actions
    }
    ours_sensing = {
        n: sorted(str(Atom(a.predicate, tuple(t.lstrip("?") for t in a.args))) for a in act.observe)
        for n, act in domain.actions.items()
        if act.observe
    }
    assert ours_sensing == up_sensing
    assert {a.name.lower() for a in up.actions} == set(domain.actions)


def test_the_dialect_sections_in_any_order_and_optional_fields():
    domain, problem = parse(
        SENSE,
        """(define (problem p) (:goal (r)) (:domain d)
        (:init (and (q b) (unknown (p a)) (or (p b) (not (q a))))))""",
        contingent=True,
    )
    assert domain.actions["look"].observe == (Atom("p", ("a",)), Atom("q", ("a",)))
    assert domain.actions["look"].params == () and domain.actions["look"].effects == ()
    assert ":contingent" in domain.requirements
    assert problem.init == (Atom("q", ("b",)),)
    assert problem.unknown == (Atom("p", ("a",)),)
    [clause] = problem.clauses
    assert clause.kind == "or" and [(str(lit.atom), lit.negated) for lit in clause.literals] == [
        ("(p b)", False),
        ("(q a)", True),
    ]


def test_a_problem_naming_another_domain_is_a_warning():
    domain, problem = parse(
        SAMPLE / "logistic_conf" / "domain.pddl",
        SAMPLE / "logistic_conf" / "problem.pddl",
        contingent=True,
    )
    assert domain.name == "logistics_cont" and problem.domain_name == "logistics_conf"
    assert any("logistics_conf" in w.message for w in problem.warnings)


@pytest.mark.parametrize(
    "effect, words",
    [
        ("(probabilistic 0.5 (r))", "probabilistic effects"),
        ("(oneof (r) (p a))", "non-deterministic effects"),
        ("(and (r) (when (p a) (oneof (r) (q a))))", "non-deterministic effects"),
    ],
)
def test_probabilistic_and_nondeterministic_effects_are_refused(effect, words):
    text = SENSE.replace(":effect (r)", f":effect {effect}")
    with pytest.raises(PDDLError, match=words):
        parse(text, "(define (problem p) (:domain d) (:init) (:goal (r)))", contingent=True)


@pytest.mark.parametrize(
    "domain, problem, words",
    [
        (
            SENSE.replace(":observe (and (p a) (q a))", ":observe (p a) :effect (r)"),
            None,
            "sensing action 'look' has an ':effect'",
        ),
        (SENSE.replace("(and (p a) (q a))", "(or (p a) (q a))"), None, "':observe' takes an atom"),
        (
            SENSE.replace("(and (p a) (q a))", "(probabilistic 0.8 (p a))"),
            None,
            "probabilistic (noisy) observations",
        ),
        (SENSE, "(:init (unknown (p a) (q a)))", "'unknown' takes exactly one atom"),
        (SENSE, "(:init (oneof (p a) (and (q a))))", "take atoms and '(not atom)'"),
        (SENSE, "(:init (oneof (s a)))", "unknown predicate 's'"),
    ],
)
def test_malformed_contingent_forms_are_errors(domain, problem, words):
    problem = problem or "(:init)"
    with pytest.raises(PDDLError, match=re.escape(words)):
        parse(domain, f"(define (problem p) (:domain d) {problem} (:goal (r)))", contingent=True)


def test_the_ordinary_reader_still_refuses_the_dialect():
    with pytest.raises(PDDLError, match="unsupported action field ':observe'"):
        parse(SENSE, "(define (problem p) (:domain d) (:init) (:goal (r)))")
    plain = SENSE.replace("(:action look :observe (and (p a) (q a)))", "")
    with pytest.raises(PDDLError, match="unknown predicate 'unknown'"):
        parse(plain, "(define (problem p) (:domain d) (:init (unknown (p a))) (:goal (r)))")


def test_limits_hold_for_contingent_input():
    from planloop.pddl import Limits

    with pytest.raises(PDDLError, match="max_bytes"):
        _load(SAMPLE / "doors15", limits=Limits(max_bytes=10_000))


def test_an_empty_initial_belief_is_a_value_error_at_load():
    with pytest.raises(ValueError, match="the initial belief is empty"):
        load_contingent(
            SENSE,
            """(define (problem p) (:domain d)
            (:init (oneof (p a) (p b)) (or (not (p a))) (or (not (p b)))) (:goal (r)))""",
        )


def test_a_component_past_max_belief_is_held_as_a_formula():
    formulas = _load(SAMPLE / "doors15", max_belief=10).init
    assert len(formulas.components) == 7 and formulas.size is None
    assert all(isinstance(c, Formula) for c in formulas.components)
    assert _load(SAMPLE / "doors15", max_belief=15).init.size == 15**7


# -- the belief against brute force ---------------------------------------------------
def _brute_force_worlds(ct: ContingentTask) -> set[int]:
    """Every assignment of the uncertain atoms (2^n of them) that satisfies :init."""
    problem, task = ct.problem, ct.task
    atoms = list(
        dict.fromkeys(
            problem.unknown + tuple(lit.atom for c in problem.clauses for lit in c.literals)
        )
    )
    base = sum(1 << task.fact_id(a) for a in problem.init if a not in atoms)
    listed = set(problem.init)
    worlds = set()
    for values in product((False, True), repeat=len(atoms)):
        value = dict(zip(atoms, values, strict=True))
        if any(a in listed and not value[a] for a in atoms):
            continue
        ok = True
        for c in problem.clauses:
            hits = sum(value[lit.atom] != lit.negated for lit in c.literals)
            ok &= hits == 1 if c.kind == "oneof" else hits >= 1
        if ok:
            worlds.add(base | sum(1 << task.fact_id(a) for a in atoms if value[a]))
    return worlds


def _check_against(ct: ContingentTask, belief, worlds: set[int]) -> None:
    assert set(belief.worlds()) == worlds and belief.size == len(worlds)
    for action in ct.task.actions:
        assert ct.knows(belief, action) == all(action.applicable(w) for w in worlds)
    assert ct.is_goal(belief) == all(ct.task.is_goal(w) for w in worlds)


@pytest.mark.parametrize(
    "folder",
    [SAMPLE / "blocks2", SAMPLE / "logistic_conf", TESTS / "lamps", TESTS / "colorballs2"],
    ids=lambda p: p.name,
)
def test_the_tracker_equals_brute_force_filtering_along_random_walks(folder):
    ct = _load(folder)
    initial = _brute_force_worlds(ct)
    for seed in range(6):
        rng = random.Random(seed)
        belief, worlds = ct.init, set(initial)
        world = ct.draw_world(seed)
        assert world in worlds
        _check_against(ct, belief, worlds)
        for _ in range(25):
            admissible = ct.admissible(belief)
            sensing = [a for a in admissible if ct.is_sensing(a)]
            action = rng.choice(sensing if sensing and rng.random() < 0.4 else admissible)
            belief, world, sensed = ct.step(belief, world, action)
            if sensed:
                ids = [ct.task.fact_id(s.fact) for s in sensed]
                worlds = {
                    w
                    for w in worlds
                    if all(bool(w >> i & 1) == s.value for i, s in zip(ids, sensed, strict=True))
                }
            else:
                worlds = {action.apply(w) for w in worlds}
            assert world in worlds
            _check_against(ct, belief, worlds)


def test_unknown_conditions_merge_components():
    ct = _load(TESTS / "lamps")
    assert sorted(len(c.assignments) for c in ct.init.components) == [2, 3]  # {a,d}, {b,c}
    relay = ct.task.action("relay", ("a", "b"))
    merged = ct.init.apply(relay, ct.max_belief, ct.work("relay"))
    assert len(merged.components) == 1 and merged.size == 6


def test_unmet_names_the_facts_not_known_never_their_values():
    ct = _load(TESTS / "lamps")
    check = ct.task.action("check", ("a",))
    assert [str(u) for u in ct.unmet(ct.init, check)] == ["(lit a)"]
    assert not ct.knows(ct.init, check)


def test_the_hidden_world_satisfies_the_constraints_varies_and_is_uniform():
    ct = _load(SAMPLE / "logistic_conf")
    worlds = [ct.draw_world(seed) for seed in range(200)]
    assert set(worlds) <= _brute_force_worlds(ct)
    assert len(set(worlds)) == 8 and min(worlds.count(w) for w in set(worlds)) > 10
    assert ct.draw_world(7) == ct.draw_world(7)
    doors = _load(SAMPLE / "doors15")
    task = doors.task
    for seed in range(20):
        world = doors.draw_world(seed)
        for clause in doors.problem.clauses:
            hits = sum(world >> task.fact_id(lit.atom) & 1 for lit in clause.literals)
            assert hits == 1
    assert len({doors.draw_world(s) for s in range(20)}) == 20


@pytest.mark.slow
@pytest.mark.parametrize("folder", SMALL, ids=lambda p: p.name)
def test_gold_paths_replay_to_a_known_goal(folder):
    ct = _load(folder)
    for seed in range(3):
        world, belief = ct.draw_world(seed), ct.init
        path = ct.gold_path(belief, world)
        assert path
        for action in path:
            assert ct.knows(belief, action) and not ct.is_goal(belief)
            belief, world, _ = ct.step(belief, world, action)
        assert ct.is_goal(belief) and ct.task.is_goal(world)


def test_gold_path_past_its_budget_is_a_value_error_naming_it():
    ct = _load(TESTS / "doors3")
    with pytest.raises(
        ValueError, match=r"gold_path's search needs more than its budget of 100 work units"
    ):
        ct.gold_path(ct.init, ct.draw_world(0), budget=100)


def test_world_pddl_is_plain_pddl_of_the_true_state():
    ct = _load(TESTS / "lamps")
    world = ct.draw_world(1)
    domain_text, problem_text = ct.world_pddl(world)
    assert ":observe" not in domain_text and ":contingent" not in domain_text
    domain, problem = parse(domain_text, problem_text)
    assert "look" not in domain.actions
    assert set(problem.init) == set(ct.task.atoms(world))


# -- work limits ----------------------------------------------------------------------
WIDE = """(define (domain wide) (:requirements :strips :conditional-effects :contingent)
  (:predicates (u ?x) (t ?x) (done))
  (:action toggle :parameters (?x) :precondition (t ?x)
    :effect (and (when (u ?x) (not (u ?x))) (when (not (u ?x)) (u ?x)))))"""


def _wide(n: int, init: str) -> str:
    objects = " ".join(f"o{i}" for i in range(n))
    return f"(define (problem w) (:domain wide) (:objects {objects}) (:init {init}) (:goal (done)))"


def _oneof(n: int) -> str:
    return "(oneof " + " ".join(f"(u o{i})" for i in range(n)) + ")"


def _chain(n: int) -> str:
    """``or`` clauses chaining n unknown atoms, the last of them both true and false."""
    chain = " ".join(f"(or (u o{i}) (u o{i + 1}))" for i in range(n - 1))
    return _wide(n, f"{chain} (or (u o{n - 1})) (or (not (u o{n - 1})))")


def test_an_unsatisfiable_chain_of_ors_is_refused_naming_the_limit():
    with pytest.raises(ValueError, match="the initial belief is empty"):
        load_contingent(WIDE, _chain(12))
    with pytest.raises(ValueError, match="the initial belief is empty"):  # as a formula
        load_contingent(WIDE, _chain(40))
    with pytest.raises(ValueError, match="the initial belief is empty"):  # a formula's proof
        load_contingent(WIDE, _chain(40), limits=Limits(max_belief_work=1000))  # is cheap
    with pytest.raises(ValueError, match=r"needs more than 100 work units.*\(max_belief_work\)"):
        load_contingent(WIDE, _chain(40), limits=Limits(max_belief_work=100))


@pytest.mark.parametrize("facts", [17, 82])
def test_an_invariant_over_many_facts_is_a_formula_without_a_search(facts):
    """K-replanner's ``(invariant l ...)`` over 17-82 facts (Doors' columns, Balls'
    positions) has 2^n - 1 worlds: a bound tells so before any search, and each becomes a
    formula (a search per column spent the whole budget before: Doors 25, Balls 9-19)."""
    columns = 12
    clauses = " ".join(
        "(or " + " ".join(f"(u o{c * facts + i})" for i in range(facts)) + ")"
        for c in range(columns)
    )
    ct = load_contingent(WIDE, _wide(columns * facts, clauses))
    assert ct.init.size is None and len(ct.init.components) == columns


def test_a_oneof_over_20000_atoms_is_one_component_of_20000_worlds():
    ct = load_contingent(WIDE, _wide(20_000, _oneof(20_000)))
    assert ct.init.size == 20_000 and len(ct.init.components) == 1


@pytest.mark.slow
def test_gold_path_past_its_budget_refuses_before_memory_runs_out():
    toggles = " ".join(f"(t o{i})" for i in range(14))
    ct = load_contingent(WIDE, _wide(300, f"{_oneof(300)} {toggles}"))
    with pytest.raises(ValueError, match=r"needs more than its budget of 10,000,000 work units"):
        ct.gold_path(ct.init, ct.draw_world(0))
