"""Writing PDDL problems from words with planner-in-the-loop repair: each scripted
defect meets the check that names it, is repaired at the iteration it should be, and
takes the metric values computed here by hand."""

import pytest

from planloop.envs.problem_sets import problem_set
from planloop.formalizer.problems import (
    Reference,
    defect_writer,
    domain_summary,
    formalize_problem,
    inject,
    match_objects,
    plan_similarity,
    reference_writer,
    score,
    verify,
)
from planloop.formalizer.problems.metrics import consistent, length_tolerance, levenshtein
from planloop.llm import ScriptedModel
from planloop.pddl import ground, parse_problem, solve
from planloop.pddl.unsolvable import explain_unsolvable

BLOCKS = problem_set("blocksworld")
DOMAIN, DOMAIN_TEXT = BLOCKS.domain(), BLOCKS.domain_text()
# c on a, b alone; the goal puts a on b: swapping its arguments stays solvable, and
# since only a has a block on it, no renaming makes the swapped problem the same
SMALL = """(define (problem small) (:domain blocks)
  (:objects a b c - block)
  (:init (handempty) (ontable a) (ontable b) (on c a) (clear c) (clear b))
  (:goal (and (on a b))))"""


def reference_of(text):
    problem = parse_problem(text, DOMAIN)
    result = solve(DOMAIN_TEXT, text, planner="lama-first", timeout=60)
    return problem, Reference(problem, result.solved, tuple(result.plan or ()))


@pytest.fixture(scope="module")
def six():
    return reference_of(BLOCKS.generate(6, 3))


@pytest.fixture(scope="module")
def small():
    return reference_of(SMALL)


def run(writer, description="the problem"):
    return formalize_problem(writer, DOMAIN, description)


def atoms(problem):
    return len(problem.init) + len(problem.goal.args)


ALL_ONE = {
    "svr": 1,
    "psr": 1,
    "tsr": 1.0,
    "cr": 1,
    "tsr_matched": 1.0,
    "cr_matched": 1,
    "eq": 1,
    "goal_eq": 1,
}
UNREAD = {
    "svr": 0,
    "psr": None,
    "tsr": 0.0,
    "cr": 0,
    "tsr_matched": 0.0,
    "cr_matched": 0,
    "eq": 0,
    "goal_eq": 0,
}


@pytest.mark.parametrize(
    "defect, named",
    [
        ("syntax", "unbalanced parentheses"),
        ("undeclared_object", "undeclared object"),
        ("wrong_arity", "wrong arity"),
    ],
)
def test_a_defect_the_reader_finds_is_named_and_repaired_at_iteration_1(six, defect, named):
    problem, reference = six
    result = run(defect_writer(defect, DOMAIN, problem))
    first, last = result.verdicts[0], result.verdicts[-1]
    assert [v.stage for v in result.verdicts] == ["parse", "ok"] and result.repaired_at == 1
    assert named in first.message and "line " in first.message
    assert score(DOMAIN, reference, first) == UNREAD
    assert score(DOMAIN, reference, last) == ALL_ONE
    writer = defect_writer(defect, DOMAIN, problem)  # what the writer was told
    run(writer)
    feedback = writer.prompts[1][-1]["content"]
    assert feedback.startswith("Your problem could not be read:") and named in feedback
    assert "exactly one PDDL problem" in feedback


def test_a_missing_initial_fact_is_found_by_the_planner_and_named(six):
    problem, reference = six
    writer = defect_writer("missing_fact", DOMAIN, problem)
    result = run(writer)
    first = result.verdicts[0]
    assert [v.stage for v in result.verdicts] == ["planner", "ok"] and result.repaired_at == 1
    assert "status unsolvable" in first.message and "exit code 11" in first.message
    assert "Task is provably unsolvable" in first.message and "[t=" not in first.message
    assert "makes handempty true, and pick-up, unstack need it" in first.message
    assert "(handempty)" not in first.text and "(handempty)" in inject("syntax", DOMAIN, problem)
    n = atoms(problem)  # one initial atom fewer: n - 1 shared of n
    tsr = round((n - 1) / n, 4)
    assert score(DOMAIN, reference, first) == {
        "svr": 1,
        "psr": 0,
        "tsr": tsr,
        "cr": 0,
        "tsr_matched": tsr,
        "cr_matched": 0,
        "eq": 0,
        "goal_eq": 1,
    }
    assert "Revise it minimally" in writer.prompts[1][-1]["content"]


def test_a_swapped_goal_argument_that_stays_solvable_passes_the_checks_and_only_the_metrics_see_it(
    small,
):
    problem, reference = small
    result = run(defect_writer("swapped_goal", DOMAIN, problem))
    [verdict] = result.verdicts
    assert verdict.ok and result.repaired_at is None and "(on b a)" in verdict.text
    n = atoms(problem)  # one goal atom differs: n - 1 shared of n + 1
    # the plans share their first two steps of four: edit similarity 1 - 2/4, multiset
    # Jaccard 2/6; 0.5 is under 0.8
    assert reference.plan == ("(unstack c a)", "(put-down c)", "(pick-up a)", "(stack a b)")
    assert verdict.plan == ("(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b a)")
    tsr = round((n - 1) / (n + 1), 4)
    assert score(DOMAIN, reference, verdict) == {
        "svr": 1,
        "psr": 1,
        "tsr": tsr,
        "cr": 0,
        "tsr_matched": tsr,
        "cr_matched": 0,
        "eq": 0,
        "goal_eq": 0,
    }


def test_renamed_objects_are_the_same_problem_that_only_the_name_matched_scores_credit(six):
    problem, reference = six
    result = run(defect_writer("renamed_objects", DOMAIN, problem))
    [verdict] = result.verdicts
    assert verdict.ok and "obj-a" in verdict.text and result.repaired_at is None
    n = atoms(problem)  # as written, only (handempty) names no object: 1 shared of 2n - 1
    assert score(DOMAIN, reference, verdict) == {
        "svr": 1,
        "psr": 1,
        "tsr": round(1 / (2 * n - 1), 4),
        "cr": 0,
        "tsr_matched": 1.0,
        "cr_matched": 1,
        "eq": 1,
        "goal_eq": 1,
    }


def test_the_ground_truth_writer_scores_one_everywhere(six):
    problem, reference = six
    result = run(reference_writer(BLOCKS.generate(6, 3)))
    assert len(result.verdicts) == 1 and score(DOMAIN, reference, result.verdicts[0]) == ALL_ONE


def test_the_first_prompt_states_the_domain_and_the_contract():
    writer = reference_writer(SMALL)
    run(writer, description="Three blocks; put a on b.")
    system, task = writer.prompts[0]
    assert "exactly one PDDL problem" in system["content"]
    assert task["content"].startswith("Domain: blocks\n\n")
    assert "(on ?x - block ?y - block)  [2 arguments]" in task["content"]
    assert "(pick-up ?ob - block)  [1 argument]" in task["content"]
    assert task["content"].endswith(
        "Three blocks; put a on b.\n\nWrite the PDDL problem (:domain blocks)."
    )
    assert domain_summary(DOMAIN) in task["content"]


def test_nonsense_is_kept_to_the_budget_and_the_best_candidate_is_kept(six):
    problem, reference = six
    broken = inject("missing_fact", DOMAIN, problem)
    replies = ["I think the blocks are nice.", f"```pddl\n{broken}\n```", "(define (problem"]
    model = ScriptedModel(lambda messages: replies[min(len(messages) // 2 - 1, 2)])
    result = run(model)
    stages = [v.stage for v in result.verdicts]
    assert stages == ["parse", "planner", "parse", "parse", "parse", "parse"]
    assert "holds no problem file" in result.verdicts[0].message
    assert result.kept == 1 and result.repaired_at is None  # read and planned beats unread
    assert len(model.prompts) == 6 and len(model.prompts[-1]) == 2 + 2 * 5


def test_plan_similarity_and_tolerance_by_hand():
    assert levenshtein("kitten", "sitting") == 3 and levenshtein([], ["a"]) == 1
    a, b = ["x", "y", "z", "w"], ["y", "x", "z", "w"]
    assert plan_similarity(a, b) == 1.0  # reordered: the multiset Jaccard is 1
    assert plan_similarity(["x", "y"], ["x", "z"]) == 0.5  # edit 1/2; bag 1/3
    assert plan_similarity([], []) == 1.0
    assert [length_tolerance(c) for c in (0, 10, 20, 21, 40, 41)] == [1, 1, 1, 2, 2, 3]
    ref = Reference(None, True, tuple(f"s{i}" for i in range(10)))
    assert consistent(ref, True, list(ref.plan[:9]))  # one step fewer: sim 0.9
    assert not consistent(ref, True, list(ref.plan[:8]))  # two fewer: beyond the tolerance
    assert not consistent(ref, False, ())
    assert consistent(Reference(None, False), False, ())


def test_objects_are_matched_even_when_the_problems_differ(six):
    problem, reference = six
    renamed = parse_problem(inject("renamed_objects", DOMAIN, problem), DOMAIN)
    assert match_objects(DOMAIN, renamed, problem) == {f"obj-{o}": o for o in problem.objects}
    fewer = renamed.__class__(
        renamed.name, renamed.domain_name, renamed.objects, renamed.init[1:], renamed.goal
    )
    mapping = match_objects(DOMAIN, fewer, problem)
    assert mapping == {f"obj-{o}": o for o in problem.objects}


def test_verify_reports_an_invalid_plan_and_explains_nothing_for_a_solvable_task(six):
    problem, _ = six
    assert explain_unsolvable(ground(DOMAIN, problem)) == ""
    verdict = verify(DOMAIN, SMALL)
    assert verdict.ok and verdict.planner["status"] == "solved"
    assert verdict.planner["exit_code"] == 0 and len(verdict.plan) == 4
