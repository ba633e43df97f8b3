"""The symbol-agnostic repair pipeline: constraints -> plan -> translation -> consistency ->
step-wise simulation -> validation -> targeted repair, until a plan validates or the
budget stops paying off. Played in the environment afterwards."""

from __future__ import annotations

from typing import Literal

from ...llm import LLMError, Usage, call_model
from ...pddl import RelaxedTask, load, solve, validate
from ..base import GIVE_UP, PolicyBase
from .consistency import CHECKS, check_consistency
from .constraints import extract_constraints, render_constraints
from .strategies import choose_repair, progress, should_stop
from .translate import translate

PROMPT_VERSION = "repair-pipeline-v1"
SYSTEM = (
    "You are a planner. The names of the actions, predicates and objects in this task "
    "are arbitrary symbols: reason only from the structure given (what each action "
    "requires, adds and deletes), never from what a name might mean. Answer with the "
    "plan only: one action per line, each as (action arg1 arg2 ...)."
)
USER = (
    "Domain:\n{domain}\n\nProblem:\n{problem}\n\nStructural constraints:\n{constraints}"
    "\n\nWrite a plan that reaches the goal from the initial state.\nPlan:"
)
REPAIR = "{feedback}\n\nWrite the whole corrected plan, one action per line.\nPlan:"
PipelineStop = Literal["valid", "budget", "no_gain", "model_error"]


class RepairPipelinePolicy(PolicyBase):
    """Plans in ``reset`` with validation-driven repair, then plays the plan in ``act``.

    ``repair=False`` is the paper's ablation: fresh samples without feedback until one
    validates or ``max_attempts`` are spent; ``deep_constraints=False`` gives the model
    only each action's parameters and types; ``stepwise=False`` drops the step-wise
    simulation, so repairs see only a valid/invalid verdict (the consistency check,
    static, stays). ``min_gain`` is the budget-adaptive stop (see
    :func:`.strategies.should_stop`). ``solver_fallback`` names a planner of
    :func:`planloop.pddl.solve` whose plan is played when the model found none:
    ``outcome`` is then ``fallback``, never ``model``. ``details`` holds the signal log:
    each attempt's findings (``attempts``, each with the checks that rejected it,
    ``caught_by``), the plans each check rejected (``catches``: the consistency check's
    ``names``, ``invariants`` and ``reachability``, then ``stepwise`` simulation and
    ``validation``) and the deep constraints given (``constraints``, counted by kind).
    """

    prompt_version = PROMPT_VERSION
    name = "repair-pipeline"

    def __init__(
        self,
        model,
        max_attempts: int = 5,
        repair: bool = True,
        deep_constraints: bool = True,
        stepwise: bool = True,
        min_gain: float = 0.05,
        solver_fallback: str | None = None,
        temperature: float = 0.0,
        fallback_timeout: float = 60.0,
    ):
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {max_attempts}")
        self.model, self.model_name = model, model.name
        self.max_attempts, self.repair, self.deep, self.stepwise = (
            max_attempts,
            repair,
            deep_constraints,
            stepwise,
        )
        self.min_gain, self.temperature = min_gain, temperature
        self.solver_fallback, self.fallback_timeout = solver_fallback, fallback_timeout
        self.usage = Usage()
        self.details: dict = {}
        self._plan: list[str] = []

    def reset(self, obs: str, info: dict) -> None:
        if "domain_pddl" not in info:
            raise ValueError(
                f"{type(self).__name__} needs the task's PDDL in info "
                f"(a fully observable environment)"
            )
        domain, problem = info["domain_pddl"], info["problem_pddl"]
        task = load(domain, problem)
        relaxed = RelaxedTask(task)
        extracted = extract_constraints(task)
        constraints = render_constraints(extracted, self.deep)
        base = [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": USER.format(domain=domain, problem=problem, constraints=constraints),
            },
        ]
        attempts: list[dict] = []
        catches = dict.fromkeys((*CHECKS, "stepwise", "validation"), 0)
        self.details = {
            "attempts": attempts,
            "catches": catches,
            "constraints": extracted.counts() if self.deep else {},
            "outcome": "failed",
            "stop": None,
            "fallback": None,
            "config": {
                "max_attempts": self.max_attempts,
                "repair": self.repair,
                "deep_constraints": self.deep,
                "stepwise": self.stepwise,
                "min_gain": self.min_gain,
                "solver_fallback": self.solver_fallback,
            },
        }
        messages, history, commands = base, [], []
        while True:
            try:
                reply = call_model(
                    self.model, messages, temperature=self.temperature, seed=len(attempts)
                )
            except LLMError:
                self.details["stop"] = "model_error"
                raise
            self.usage = self.usage + reply.usage
            translation = translate(reply.text, task.domain.actions)
            commands = translation.commands
            issues = check_consistency(task, translation.steps)
            report = None if issues else validate(task, translation.steps)
            history.append(progress(relaxed, task, report))
            attempts.append(self._signals(reply.text, translation, issues, report, history[-1]))
            for check in attempts[-1]["caught_by"]:
                catches[check] += 1
            stop: PipelineStop | None = (
                "valid"
                if report is not None and report.valid
                else "budget"
                if len(attempts) >= self.max_attempts
                else "no_gain"
                if self.repair and should_stop(history, self.min_gain)
                else None
            )
            if stop:
                self.details["stop"] = stop
                break
            if not self.repair:  # the ablation: a fresh sample, no feedback
                attempts[-1]["strategy"] = "resample"
                messages = base
                continue
            chosen = choose_repair(task, translation.steps, issues, report, self.stepwise)
            attempts[-1].update(
                strategy=chosen.strategy, feedback=chosen.feedback, proposal=chosen.proposal
            )
            messages = base + [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": REPAIR.format(feedback=chosen.feedback)},
            ]
        if self.details["stop"] == "valid":
            self.details["outcome"] = "model"
        elif self.solver_fallback:
            commands = self._fall_back(self.solver_fallback, domain, problem) or commands
        self._plan = list(commands)

    def act(self, obs: str, info: dict) -> str:
        return self._plan.pop(0) if self._plan else GIVE_UP

    def _signals(self, text: str, translation, issues, report, progress_made: float) -> dict:
        """One attempt's entry in the signal log."""
        stepwise = validation = None
        if report is not None:
            validation = {"valid": report.valid}
            if self.stepwise:
                failed = report.failed_step if report.failure == "precondition" else None
                stepwise = {
                    "executed": report.length if failed is None else failed - 1,
                    "failed_step": failed,
                    "action": report.action if failed else None,
                    "unmet": [str(u) for u in report.unmet] if failed else [],
                }
                validation.update(
                    failure=report.failure,
                    missing_goal=[str(u) for u in report.unmet] if report.failure == "goal" else [],
                )
        caught = list(dict.fromkeys(issue.check for issue in issues))
        if report is not None and not report.valid:
            caught.append(
                "stepwise" if stepwise is not None and stepwise["failed_step"] else "validation"
            )
        return {
            "plan": text,
            "caught_by": caught,
            "translation": {"steps": translation.commands, "skipped": list(translation.skipped)},
            "consistency": [issue.to_json() for issue in issues],
            "stepwise": stepwise,
            "validation": validation,
            "progress": progress_made,
            "strategy": None,
            "feedback": None,
            "proposal": None,
        }

    def _fall_back(self, planner: str, domain: str, problem: str) -> list[str]:
        """``planner``'s plan (recorded apart from the model's attempts), or []."""
        result = solve(domain, problem, planner=planner, timeout=self.fallback_timeout)
        self.details["fallback"] = {
            "planner": planner,
            "status": result.status,
            "plan": list(result.plan or ()),
            "seconds": result.seconds,
        }
        if not result.solved:
            return []
        assert result.plan is not None  # a solved result holds its plan
        self.details["outcome"] = "fallback"
        return list(result.plan)
