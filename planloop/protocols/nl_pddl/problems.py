"""One problem of the formalization study: generated (by size and seed; by seed alone for
hidden worlds), fixed or read from a user's folder, described in words, written back in
PDDL by the model with planner-in-the-loop repair, and every candidate scored against
the reference."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple

from ...envs.pddl_env import problem_sources
from ...formalizer.problems import (
    PROMPT_VERSION,
    Reference,
    best_so_far,
    defect_writer,
    formalize_problem,
    reference_writer,
    score,
)
from ...llm import ChatModel, LLMError
from ...pddl import describe_problem, parse_domain, parse_problem, solve
from ...pddl.model import Domain, Problem
from .config import FormalizeConfig
from .direct import judge_plan, plan_writer, run_direct
from .sets import problem_set

Llm = ChatModel | str  # a model, or the name of a built-in writer (groundtruth, scripted-defects)


class Instance(NamedTuple):
    """A problem to formalize: its domain, the reference problem (its text and the problem
    it reads as) and its description."""

    domain: Domain
    reference: str
    problem: Problem
    description: str


_USER_DOMAINS: dict[str, Domain] = {}  # not lru_cache, which Ray cannot send


def user_domain(path: str) -> Domain:
    """The user's domain file at ``path``, read once per process."""
    if path not in _USER_DOMAINS:
        _USER_DOMAINS[path] = parse_domain(Path(path).read_text())
    return _USER_DOMAINS[path]


def instance_of(condition: Mapping[str, Any], index: int) -> Instance:
    """The problem a job formalizes: generated from (size, seed = index) or from the seed
    alone, the index-th fixed problem, or the index-th file of a user's folder."""
    if "problems" in condition:
        domain = user_domain(condition["domain"])
        reference = Path(problem_sources(condition["problems"])[index]).read_text()
        problem = parse_problem(reference, domain)
        return Instance(domain, reference, problem, describe_problem(domain, problem, index))
    problems = problem_set(condition["domain"])
    reference = (
        problems.generate(condition["size"], index)
        if problems.sized
        else problems.seeded(index)
        if problems.seeded
        else problems.problems()[index]
    )
    problem = problems.parse(reference)
    return Instance(problems.domain(), reference, problem, problems.describe(problem, index))


def writer_for(llm: Llm, condition: Mapping[str, Any], instance: Instance) -> ChatModel:
    """What writes the problem: the model, or a built-in writer."""
    if llm == "groundtruth":
        return reference_writer(instance.reference)
    if llm == "scripted-defects":
        return defect_writer(condition["defect"], instance.domain, instance.problem)
    assert not isinstance(llm, str)  # a spec other than a built-in's is opened as a model
    return llm


def run_problem(
    llm: Llm,
    condition: Mapping[str, Any],
    index: int,
    config: FormalizeConfig,
    temperature: float | None,
) -> dict:
    """Formalize one problem and judge every candidate against the reference; under
    the condition ``approach: direct``, plan it directly (:mod:`.direct`)."""
    instance = instance_of(condition, index)
    domain = instance.domain
    solved = solve(domain, instance.problem, planner=config.planner, timeout=config.timeout)
    reference = Reference(instance.problem, solved.solved, tuple(solved.plan or ()))
    if condition.get("approach") == "direct":
        model = plan_writer(reference.plan) if llm == "groundtruth" else llm
        assert not isinstance(model, str)  # validate refuses direct with scripted-defects
        return run_direct(model, domain, instance.problem, instance.description, temperature)
    try:
        result = formalize_problem(
            writer_for(llm, condition, instance),
            domain,
            instance.description,
            config.max_iterations,
            config.planner,
            config.timeout,
            temperature,
            config.keep,  # type: ignore[arg-type]  # one of KEEPS (the setting's choices)
        )
    except LLMError as exc:
        return {"won": False, "error": str(exc), "error_kind": exc.kind}
    verdicts = result.verdicts
    scores = [score(domain, reference, verdict) for verdict in verdicts]
    curve = [
        scores[best_so_far(verdicts, min(t, len(verdicts) - 1), result.keep)]
        for t in range(config.max_iterations + 1)
    ]
    kept = verdicts[result.kept]
    return {
        "won": kept.ok,
        # the kept candidate's plan played on the reference problem (Table 2)
        "plan_valid": kept.plan is not None
        and judge_plan(domain, instance.problem, list(kept.plan))[0],
        "prompt_version": PROMPT_VERSION,
        "description": instance.description,
        "reference_status": solved.status,
        "reference_plan_length": len(reference.plan),
        "metrics": scores[result.kept],
        "by_iteration": curve,
        "iterations": len(verdicts) - 1,
        "repaired_at": result.repaired_at,
        "final": kept.text,
        "candidates": [
            {"stage": v.stage, "message": v.message[:2000], "planner": v.planner, "metrics": s}
            for v, s in zip(verdicts, scores, strict=True)
        ],
        "usage": asdict(result.usage),
    }
