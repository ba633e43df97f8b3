"""The checks a written problem goes through, in order: it is found in the answer and
read against the domain (the reader's line, column and excerpt), Fast Downward solves
it under a fixed configuration, and the core's validator replays the plan. The first
that fails gives the feedback for the next attempt."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...pddl import PDDLError, ground, parse_problem, solve, validate
from ...pddl.model import Domain, Problem
from ...pddl.unsolvable import explain_unsolvable
from ..extract import ExtractionError, extract_files
from .prompts import NOT_EXECUTABLE, PARSE_FAILED

STAGES = ("parse", "planner", "validate", "ok")


@dataclass(frozen=True)
class Verdict:
    """Where a candidate stopped (``stage``, ``ok`` when it passed everything) and why
    (``message``); the planner's record and plan when it ran."""

    stage: str
    message: str = ""
    text: str = ""
    problem: Problem | None = field(default=None, compare=False)
    planner: dict = field(default_factory=dict)
    plan: tuple[str, ...] | None = None

    @property
    def parsed(self) -> bool:
        return self.problem is not None

    @property
    def solved(self) -> bool:
        return self.planner.get("status") == "solved"

    @property
    def ok(self) -> bool:
        return self.stage == "ok"


def read_problem(domain: Domain, answer: str) -> tuple[str, Problem]:
    """The problem form in ``answer`` and the problem it reads as; raises PDDLError or
    ExtractionError with the reader's message."""
    text = extract_files(answer, need_df=False).pf
    return text, parse_problem(text, domain)


def verify(
    domain: Domain, answer: str, planner: str = "lama-first", timeout: float = 60.0
) -> Verdict:
    """Check ``answer`` (a model's reply holding a problem) against ``domain``."""
    try:
        text, problem = read_problem(domain, answer)
    except (ExtractionError, PDDLError) as exc:
        return Verdict("parse", str(exc))
    result = solve(domain, problem, planner=planner, timeout=timeout)
    record = {
        "planner": result.planner,
        "status": result.status,
        "exit_code": result.exit_code,
        "seconds": round(result.seconds, 3),
    }
    if not result.solved:
        why = explain_unsolvable(ground(domain, problem)) if result.status == "unsolvable" else ""
        return Verdict(
            "planner",
            f"{result.planner}: status {result.status}, exit code "
            f"{result.exit_code}, {result.seconds:.2f} s\n"
            f"log: {result.message}" + (f"\nwhy: {why}" if why else ""),
            text,
            problem,
            record,
        )
    assert result.plan is not None  # a solved result holds its plan
    report = validate(ground(domain, problem), result.plan)
    if not report.valid:
        return Verdict("validate", report.advice, text, problem, record, result.plan)
    return Verdict("ok", "", text, problem, record, result.plan)


def feedback(verdict: Verdict) -> str:
    """The request for a minimal edit after a failed ``verdict``."""
    if verdict.stage == "parse":
        return PARSE_FAILED.format(diagnostic=verdict.message)
    what = {
        "planner": "the planner found no plan:",
        "validate": "the planner's plan does not validate:",
    }[verdict.stage]
    return NOT_EXECUTABLE.format(verdict=what, diagnostic=verdict.message)
