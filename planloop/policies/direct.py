"""Direct planning: the whole task in one prompt, a whole plan back, validated; on
failure a fresh sample with no feedback, until a budget of attempts or seconds (or
both; None is no cap).

Two prompts: ``pddl`` (the domain and problem files) and ``planbench`` (PlanBench's
manner throughout: the actions in words, each with the facts it needs and changes, then
"As initial conditions I have that, ... My goal is to have that ... My plan is as
follows: [PLAN] ... [PLAN END]", with solved :class:`Example` tasks before the task for
few-shot prompting), rendered from the task's PDDL by the core's templates.
"""

from __future__ import annotations

import functools
import itertools
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..llm import LLMError, Usage, call_model
from ..pddl import (
    PDDLError,
    describe_domain,
    load,
    parse,
    parse_command,
    render_action,
    render_facts,
    templates_for,
    validate,
)
from ..pddl.model import And, Atom, Domain, Problem
from .base import GIVE_UP, PolicyBase
from .extract import extract_plan

DirectPrompt = Literal["pddl", "planbench"]
DirectStop = Literal["valid", "budget", "timeout", "model_error"]
PROMPT_VERSIONS: dict[DirectPrompt, str] = {"pddl": "direct-v1", "planbench": "direct-planbench-v2"}
SYSTEM = (
    "You are a planner. Given a planning domain and a problem in PDDL, write a plan "
    "that reaches the goal from the initial state. Answer with the plan only: one "
    "action per line, each as (action-name arg1 arg2 ...)."
)
USER = "Domain:\n{domain}\n\nProblem:\n{problem}\n\nPlan:"
PLANBENCH_INTRO = (
    "{domain}\n\nEach task below gives the initial conditions and the goal in "
    "words. Write a plan that reaches the goal: one action per line, worded as "
    "the actions above with the task's objects, then [PLAN END]."
)
STATEMENT = (
    "[STATEMENT]\nAs initial conditions I have that, {init}.\nMy goal is to have that "
    "{goal}.\n\nMy plan is as follows:\n\n[PLAN]"
)
_NUMBERING = re.compile(r"^(?:\d+[.):]|[-*])\s*")


@dataclass(frozen=True)
class Example:
    """A solved task for a few-shot prompt: a problem of the same domain (PDDL, in the
    names the agent sees) and a valid plan of it as commands, ``(feast b c)``."""

    problem_pddl: str
    plan: tuple[str, ...]


class DirectPlanPolicy(PolicyBase):
    """Samples whole plans until one validates (or the budget runs out), then plays it.

    ``max_attempts`` samples and ``max_seconds`` of wall-clock time from ``reset`` (None:
    no cap, but not both); a reply that arrives after the seconds is not used. ``prompt``
    is ``pddl`` or ``planbench``; ``examples`` (planbench only) are shown solved before
    the task. The last sample in time is played even if invalid, so the environment
    judges it; in the planbench prompt a line that names no action is played as written,
    for the environment to refuse. ``attempts`` records each sample's verdict;
    ``details["stop"]`` says why the sampling stopped: ``valid``, ``budget`` (the
    attempts), ``timeout`` (the seconds) or ``model_error`` (a model call that failed for
    good, raised for the runner to record).
    """

    def __init__(
        self,
        model,
        max_attempts: int | None = 5,
        max_seconds: float | None = None,
        temperature: float | None = 0.7,
        prompt: DirectPrompt = "pddl",
        examples: Sequence[Example] = (),
    ):
        if prompt not in PROMPT_VERSIONS:
            raise ValueError(f"prompt must be one of {sorted(PROMPT_VERSIONS)}, not {prompt!r}")
        if examples and prompt != "planbench":
            raise ValueError("solved examples need prompt='planbench'")
        if max_attempts is None and max_seconds is None:
            raise ValueError("with no cap on attempts, give max_seconds")
        self.model = model
        self.model_name = model.name
        self.name = "direct"
        self.prompt, self.examples = prompt, tuple(examples)
        self.prompt_version = PROMPT_VERSIONS[prompt]
        self.max_attempts, self.max_seconds, self.temperature = (
            max_attempts,
            max_seconds,
            temperature,
        )
        self.usage = Usage()
        self.attempts: list[dict] = []
        self.details: dict = {}
        self._plan: list[str] = []

    @classmethod
    def paper(cls, model, **overrides) -> DirectPlanPolicy:
        """The direct baseline of the agentic step-wise planning paper (PyPDDLEngine,
        arXiv 2603.06064, III-B): temperature 0.2, a fresh context per sample, resampled
        until a plan validates or 180 s of wall-clock time end, with no cap on samples;
        ``overrides`` change any argument."""
        return cls(
            model, **{"temperature": 0.2, "max_seconds": 180.0, "max_attempts": None, **overrides}
        )

    def reset(self, obs: str, info: dict) -> None:
        task = load(info["domain_pddl"], info["problem_pddl"])
        messages, read = self._prompt(info)
        deadline = None if self.max_seconds is None else time.monotonic() + self.max_seconds
        self.attempts, self._plan = [], []
        try:
            stop = self._sample(task, messages, read, deadline)
        except LLMError:
            self.details = {"attempts": self.attempts, "stop": "model_error"}
            raise
        self.details = {"attempts": self.attempts, "stop": stop}

    def _prompt(self, info: dict) -> tuple[list[dict], Callable[[str], list[str]]]:
        """The messages of every sample, and how a reply is read into commands."""
        if self.prompt == "pddl":
            return [
                {"role": "system", "content": SYSTEM},
                {
                    "role": "user",
                    "content": USER.format(
                        domain=info["domain_pddl"], problem=info["problem_pddl"]
                    ),
                },
            ], extract_plan
        prompt, phrases = planbench_prompt(info["domain_pddl"], info["problem_pddl"], self.examples)
        return [{"role": "user", "content": prompt}], functools.partial(
            read_planbench_plan, phrases=phrases
        )

    def _sample(self, task, messages: list[dict], read, deadline: float | None) -> DirectStop:
        """Sample until a plan validates or the budget ends; why it stopped."""
        while True:
            if self.max_attempts is not None and len(self.attempts) >= self.max_attempts:
                return "budget"
            if _past(deadline):
                return "timeout"
            reply = call_model(
                self.model, messages, temperature=self.temperature, seed=len(self.attempts)
            )
            self.usage = self.usage + reply.usage
            if _past(deadline):  # a reply that came too late is not used
                return "timeout"
            plan = read(reply.text)
            verdict = _verdict(task, plan)
            self.attempts.append({"plan": plan, "verdict": verdict})
            self._plan = list(plan)
            if verdict == "valid":
                return "valid"

    def act(self, obs: str, info: dict) -> str:
        return self._plan.pop(0) if self._plan else GIVE_UP


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


def _verdict(task, plan: list[str]) -> str:
    """``valid``, the validator's failure kind, or ``unreadable``."""
    try:
        report = validate(task, plan)
    except PDDLError:
        return "unreadable"
    if report.valid:
        return "valid"
    assert report.failure is not None  # validate() names the failure of an invalid plan
    return report.failure


def planbench_prompt(
    domain_pddl: str, problem_pddl: str, examples: Sequence[Example] = ()
) -> tuple[str, dict[str, str]]:
    """PlanBench's plan-generation prompt for a task, each example solved before it, and
    the phrase of every action of the task (its words, lowercased) -> its command."""
    domain, problem = parse(domain_pddl, problem_pddl)
    parts = [PLANBENCH_INTRO.format(domain=describe_domain(domain))]
    for example in examples:
        _, solved = parse(domain_pddl, example.problem_pddl)
        lines = [
            render_action(*parse_command(step), templates_for(domain.name)) for step in example.plan
        ]
        parts.append(_statement(domain, solved) + "\n" + "\n".join(lines) + "\n[PLAN END]")
    parts.append(_statement(domain, problem))
    return "\n\n".join(parts), _phrases(domain, problem)


def read_planbench_plan(text: str, phrases: dict[str, str]) -> list[str]:
    """The commands of a reply in PlanBench's words: the lines after the last ``[PLAN]``
    up to ``[PLAN END]``, numbering and final full stops dropped; a line in parentheses
    is read as a command; a line that names no action is kept as written."""
    body = text.split("[PLAN END]", 1)[0].rsplit("[PLAN]", 1)[-1]
    plan = []
    for line in body.splitlines():
        words = " ".join(_NUMBERING.sub("", line.strip()).rstrip(".").lower().split())
        if words:
            plan += [phrases[words]] if words in phrases else extract_plan(words) or [words]
    return plan


def _statement(domain: Domain, problem: Problem) -> str:
    templates = templates_for(domain.name)
    goal = problem.goal.args if isinstance(problem.goal, And) else (problem.goal,)
    if not all(isinstance(fact, Atom) for fact in goal):
        raise ValueError("the planbench prompt needs a conjunction of facts as the goal")
    return STATEMENT.format(
        init=render_facts(problem.init, templates), goal=render_facts(goal, templates)
    )


def _phrases(domain: Domain, problem: Problem) -> dict[str, str]:
    templates = templates_for(domain.name)
    objects = [*domain.constants, *problem.objects]
    return {
        render_action(name, args, templates).lower(): f"({' '.join((name, *args))})"
        for name, action in domain.actions.items()
        for args in itertools.product(objects, repeat=len(action.params))
    }
