"""Direct planning: the whole task in one prompt, a whole plan back, validated; on
failure a fresh sample with no feedback, until a budget of attempts or seconds."""

from __future__ import annotations

import time

from ..llm import LLMError, Usage, call_model
from ..pddl import PDDLError, load, validate
from .base import GIVE_UP
from .extract import extract_plan

PROMPT_VERSION = "direct-v1"
SYSTEM = ("You are a planner. Given a planning domain and a problem in PDDL, write a plan "
          "that reaches the goal from the initial state. Answer with the plan only: one "
          "action per line, each as (action-name arg1 arg2 ...).")
USER = "Domain:\n{domain}\n\nProblem:\n{problem}\n\nPlan:"


class DirectPlanPolicy:
    """Samples whole plans until one validates (or the budget runs out), then plays it.

    The last sample is played even if invalid, so the environment judges it.
    ``attempts`` records each sample's verdict. A model call that fails for good ends
    the sampling (``stop`` is ``model_error``) and is raised, for the runner to record.
    """

    prompt_version = PROMPT_VERSION

    def __init__(self, model, max_attempts: int = 5, max_seconds: float | None = None,
                 temperature: float = 0.7):
        self.model = model
        self.model_name = model.name
        self.name = "direct"
        self.max_attempts, self.max_seconds, self.temperature = \
            max_attempts, max_seconds, temperature
        self.usage = Usage()
        self.attempts: list[dict] = []
        self.details: dict = {}
        self._plan: list[str] = []

    def reset(self, obs: str, info: dict) -> None:
        task = load(info["domain_pddl"], info["problem_pddl"])
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": USER.format(domain=info["domain_pddl"],
                                                            problem=info["problem_pddl"])}]
        start = time.monotonic()
        self.attempts, plan = [], []
        while len(self.attempts) < self.max_attempts and (
                self.max_seconds is None or time.monotonic() - start < self.max_seconds):
            try:
                reply = call_model(self.model, messages, temperature=self.temperature,
                                   seed=len(self.attempts))
            except LLMError:
                self.details = {"attempts": self.attempts, "stop": "model_error"}
                raise
            self.usage = self.usage + reply.usage
            plan = extract_plan(reply.text)
            try:
                report = validate(task, plan)
                verdict = "valid" if report.valid else report.failure
            except PDDLError:
                verdict = "unreadable"
            self.attempts.append({"plan": plan, "verdict": verdict})
            if verdict == "valid":
                break
        self._plan = list(plan)
        valid = bool(self.attempts) and self.attempts[-1]["verdict"] == "valid"
        self.details = {"attempts": self.attempts, "stop": "valid" if valid else "budget"}

    def act(self, obs: str, info: dict) -> str:
        return self._plan.pop(0) if self._plan else GIVE_UP
