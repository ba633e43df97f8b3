"""The repair loop keeps the best verified specification (NL-PDDL-Bench, section 3.4):
the candidate furthest through the checks, a later one replacing it only when it
passes more of them; ``keep="latest"`` is planloop's rule before (latest among equals)."""

from planloop.envs.problem_sets import problem_set
from planloop.formalizer.problems import Verdict, best_so_far, formalize_problem, inject
from planloop.llm import ScriptedModel

BLOCKS = problem_set("blocksworld")
DOMAIN = BLOCKS.domain()


def test_a_later_candidate_replaces_the_kept_one_only_when_it_passes_more_checks():
    verdicts = [Verdict("parse"), Verdict("planner"), Verdict("planner"), Verdict("parse")]
    assert [best_so_far(verdicts, t) for t in range(4)] == [0, 1, 1, 1]
    assert [best_so_far(verdicts, t, "latest") for t in range(4)] == [0, 1, 2, 2]
    further = [*verdicts, Verdict("validate")]
    assert best_so_far(further, 4) == best_so_far(further, 4, "latest") == 4


def loop(keep):
    problem = BLOCKS.parse(BLOCKS.generate(6, 3))
    unsolvable = inject("missing_fact", DOMAIN, problem)
    replies = ["no PDDL here", unsolvable, f"```pddl\n{unsolvable}\n```", "(define (problem"]
    model = ScriptedModel(lambda messages: replies[min(len(messages) // 2 - 1, 3)])
    return formalize_problem(model, DOMAIN, "the problem", keep=keep)


def test_the_loop_keeps_the_first_of_its_furthest_candidates_unless_told_latest():
    best, latest = loop("best"), loop("latest")
    assert [v.stage for v in best.verdicts] == ["parse", "planner", "planner", *["parse"] * 3]
    assert best.kept == 1 and latest.kept == 2
    assert best.repaired_at is None and latest.repaired_at is None
