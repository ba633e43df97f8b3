"""Direct plan generation (NL-PDDL-Bench Table 2's baseline): the model's plan from the
problem in words, validated on the reference problem; the loop's kept plan is validated
there too, and ``--direct`` is checked with the other flags."""

from pathlib import Path

import pytest

from planloop.llm import LLMError, ScriptedModel
from planloop.protocols.nl_pddl.config import FormalizeConfig, domains_or_none
from planloop.protocols.nl_pddl.direct import direct_messages, judge_plan, run_direct
from planloop.protocols.nl_pddl.problems import instance_of, run_problem

PLANBENCH = {"domain": "planbench", "size": None}
CONFIG = FormalizeConfig(max_iterations=1, domains="logistics,planbench", direct="planbench")


def test_the_ground_truth_plans_directly_and_the_plan_is_judged_on_the_reference():
    record = run_problem("groundtruth", {**PLANBENCH, "approach": "direct"}, 0, CONFIG, 0.0)
    assert record["approach"] == "direct" and record["plan_valid"] and record["won"]
    assert record["plan"] and record["message"] == "Plan valid"


def test_a_wrong_plan_fails_with_the_validators_reason_and_a_model_error_is_recorded():
    instance = instance_of(PLANBENCH, 0)
    prompt = direct_messages(instance.domain, instance.description)[1]["content"]
    assert "(:action stack" in prompt and instance.description in prompt
    wrong = ScriptedModel(["Here is my plan:\n1. (stack a b)\n2. (pick-up c)"])
    record = run_direct(wrong, instance.domain, instance.problem, instance.description, 0.0)
    assert not record["plan_valid"] and record["plan"] == ["(stack a b)", "(pick-up c)"]
    assert "precondition" in record["message"].lower() or "unsatisfied" in record["message"]
    failing = ScriptedModel([LLMError("server", "503")])
    errored = run_direct(failing, instance.domain, instance.problem, instance.description, 0.0)
    assert errored["error"] and errored["approach"] == "direct" and not errored["won"]
    assert judge_plan(instance.domain, instance.problem, ["(fly a b)"])[0] is False


def test_the_loops_kept_plan_is_played_on_the_reference_problem():
    good = run_problem("groundtruth", {"domain": "logistics", "size": 10}, 0, CONFIG, 0.0)
    assert good["plan_valid"] is True and good["metrics"]["cr"] == 1
    # a goal swapped in the written problem: its own plan validates, not on the reference
    swapped = {"domain": "blocksworld", "size": 6, "defect": "swapped_goal"}
    record = run_problem("scripted-defects", swapped, 5, CONFIG, 0.0)  # seed 5: solvable
    assert record["won"] and record["iterations"] == 0
    assert record["plan_valid"] is False


def test_direct_is_checked_against_the_domains():
    assert domains_or_none("none") == domains_or_none("") == ""
    assert domains_or_none("logistics,planbench") == "logistics,planbench"
    FormalizeConfig(domains="logistics", direct="gripper").check()  # --paper's, narrowed
    with pytest.raises(ValueError, match="not --domain/--problems"):
        FormalizeConfig(domain=Path("d.pddl"), problems=Path("p"), direct="logistics").check()
