"""Direct plan generation, the paper's Table 2 baseline (4.2.1): the model is given the
domain's PDDL and the same problem in words the formalizer is given, and writes the
whole plan; the plan is validated on the reference problem (the hidden world), with no
planner, no feedback and no second attempt. ``groundtruth`` answers the reference's
own plan."""

from __future__ import annotations

from dataclasses import asdict

from ...llm import ChatModel, LLMError, ScriptedModel, call_model
from ...pddl import PDDLError, ground, validate, write_domain
from ...pddl.model import Domain, Problem
from ...policies.extract import extract_plan

PROMPT_VERSION = "nl-direct-v1"
SYSTEM = (
    "You are a planner. Given a planning domain in PDDL and a problem described in words, "
    "write a plan that reaches the goal from the initial state. Answer with the plan "
    "only: one action per line, each as (action-name arg1 arg2 ...), naming the "
    "problem's objects."
)
MAX_STEPS = 10_000  # a longer plan is not validated: hostile input stays bounded
TASK = "Domain:\n{domain}\n\nThe problem, in words:\n{description}\n\nPlan:"


def direct_messages(domain: Domain, description: str) -> list[dict]:
    """The one request: the domain's PDDL and the problem in words."""
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": TASK.format(domain=write_domain(domain), description=description),
        },
    ]


def plan_writer(plan: tuple[str, ...]) -> ScriptedModel:
    """The ground truth's answer: ``plan``, one action a line."""
    return ScriptedModel(lambda messages: "\n".join(plan), name="groundtruth")


def judge_plan(domain: Domain, problem: Problem, steps: list[str]) -> tuple[bool, str]:
    """Whether ``steps`` reach ``problem``'s goal from its initial state, and the
    validator's advice (the first unmet precondition, the goal's missing facts)."""
    if len(steps) > MAX_STEPS:
        return False, f"a plan of {len(steps)} actions, over {MAX_STEPS} (not validated)"
    try:
        report = validate(ground(domain, problem), steps)
    except PDDLError as exc:
        return False, str(exc)
    return report.valid, report.advice


def run_direct(
    model: ChatModel, domain: Domain, problem: Problem, description: str, temperature: float | None
) -> dict:
    """One problem planned directly by ``model``, judged on ``problem``."""
    try:
        reply = call_model(model, direct_messages(domain, description), temperature=temperature)
    except LLMError as exc:
        return {"won": False, "approach": "direct", "error": str(exc), "error_kind": exc.kind}
    steps = extract_plan(reply.text)
    valid, message = judge_plan(domain, problem, steps)
    return {
        "won": valid,
        "approach": "direct",
        "prompt_version": PROMPT_VERSION,
        "description": description,
        "plan_valid": valid,
        "plan": steps[:MAX_STEPS],
        "message": message[:2000],
        "reply": reply.text[:4000],
        "usage": asdict(reply.usage),
    }
