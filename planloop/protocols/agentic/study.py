"""The agentic study: Fast Downward lama-first and seq-sat-lama-2011, a direct LLM
baseline and the agentic loop, each with one wall-clock budget per instance; their
policies and ``SPEC``, the study declared (played by :func:`planloop.study.spec.run_spec`,
writing the tables of :mod:`.tables`; ``main``: the same as a command,
``experiments/agentic.py``'s), and ``reproduction``, the paper's tables under its
protocol."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym

from ...llm import ChatModel
from ...policies import AgenticPolicy, DirectPlanPolicy, PlannerPolicy, run_episode
from ...policies.base import Policy
from ...policies.runner import Episode
from ...results import Record
from ...study import save_success_plot, show_success_plot, tally
from ...study.backends import Play
from ...study.jobs import Job
from ...study.runs import run_caption, split_runs
from ...study.spec import StudyRun, StudySpec, spec_main
from ..reproduction import SMOKE_CALLS, Runner, Tables
from . import AGENTIC, CONDITIONS, PLANNER_CONDITIONS, ROWS
from .config import AgenticConfig
from .instances import env_kwargs, paper_place
from .tables import by_condition, paper_tables, report


def make_policy(
    condition: str, model: ChatModel | None, config: AgenticConfig, temperature: float | None
) -> Policy:
    """The condition's policy for one instance, within ``config.seconds``; ``temperature``:
    the direct baseline's."""
    if condition in PLANNER_CONDITIONS:
        return PlannerPolicy(condition, config.seconds)
    if condition == "direct":
        return DirectPlanPolicy(
            model,
            max_attempts=config.max_attempts,
            max_seconds=config.seconds,
            temperature=temperature,
        )
    return AgenticPolicy(
        model,
        max_model_calls=config.max_model_calls,
        max_tool_calls=config.max_tool_calls,
        temperature=None,
        seconds=config.seconds,
        end_on_valid_plan=True,
        feedback=config.feedback,
    )


def episode_fields(policy: Policy, episode: Episode, place: int | None) -> dict:
    """The record: the episode (observations counted, not kept), ``stop``, how it ended
    (the planner's status, else the policy's ``details["stop"]``), and
    ``paper_instance``, the instance's ``place`` in the paper's order (None: not one of
    its 102)."""
    record = episode.to_json()
    record["observations"] = len(record["observations"])
    planned = getattr(policy, "result", None)
    record["stop"] = planned.status if planned is not None else episode.details.get("stop")
    record["paper_instance"] = place
    return record


def settings_line(config: AgenticConfig, temperature: float | None) -> str:
    """The run's settings in words, over its tables."""
    shown = {
        "budget per instance": f"{config.seconds:g} s",
        "temperature": temperature,
        "samples": config.max_attempts,
        "model calls": config.max_model_calls,
        "tool calls": config.max_tool_calls,
        "step feedback": config.feedback,
    }
    return "; ".join(f"{k} {'no cap' if v is None else v}" for k, v in shown.items())


def play(run: StudyRun[AgenticConfig]) -> Play:
    """One episode of a job's approach within the budget."""

    def episode(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays --env
        condition = str(job.condition["condition"])
        policy = make_policy(condition, run.model, run.config, run.temperature)
        played = run_episode(env, policy, options={"instance": job.instance})
        return episode_fields(policy, played, paper_place(env, job.instance))

    return episode


def write_report(run: StudyRun[AgenticConfig], records: list[Record]) -> None:
    """``results.md`` (every table of every run) and ``success.png``; printed: the short
    tables."""
    env, conditions = run.args.env, run.conditions
    model = run.study.model if run.study else None

    def text(full: bool) -> str:
        return "\n\n".join(
            f"## {env}, {run_caption(group)}\n\n{settings_line(run.config, run.temperature)}"
            f"\n\n" + report(group, conditions, run.caption(), full)
            for group in split_runs(records).values()
        )

    (run.out / "results.md").write_text(text(full=True) + "\n")
    if run.show:
        print(f"{text(full=False)}\n\nevery table: {run.out / 'results.md'}")
    groups = by_condition(records, conditions)
    (show_success_plot if run.show else save_success_plot)(
        {"success": [(ROWS[c], *tally(g)) for c, g in groups.items()]},
        run.out / "success.png",
        "approach",
        title=f"Solved within the budget per approach, {env}, {model or 'no model'}",
    )


SPEC = StudySpec(
    name="agentic",
    script="agentic.py",
    description=__doc__,
    config=AgenticConfig,
    protocol=AGENTIC,
    env="PDDL-v0",
    out="results/agentic",
    llm="optional",
    conditions=CONDITIONS,
    given_order=False,  # in Table II's order
    temperature=0.2,
    uses_model=lambda run: any(c not in PLANNER_CONDITIONS for c in run.conditions),
    env_kwargs=lambda run: env_kwargs(run.args.env, run.args.option),
    play=play,
    report=write_report,
)
main = spec_main(SPEC)  # the study as its script runs it


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """Tables I, II and III under the paper's protocol; ``limit``: the first N instances,
    the direct baseline's samples and the agentic loop's model calls each capped at
    :data:`~planloop.protocols.reproduction.SMOKE_CALLS` (the paper caps only their time,
    and an instant endpoint answers thousands of calls in it)."""
    smoke = ["--max-attempts", str(SMOKE_CALLS), "--max-model-calls", str(SMOKE_CALLS)]
    limit = [] if runner.limit is None else ["--instances", f"0:{runner.limit}", *smoke]
    return runner.run(main, out, limit), paper_tables
