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
from ..reproduction import SMOKE_CALLS, Runner, Tables, of_protocol
from . import AGENTIC, CONDITIONS, PLANNER_CONDITIONS, ROWS
from .attempts import attempts_table
from .config import AgenticConfig
from .figure import figure_2_table, save_figure_2
from .hard_cases import hard_cases_table
from .instances import env_kwargs, objects, paper_place
from .tables import by_condition, paper_tables, report

FIGURE_PNG = f"{AGENTIC.name}-figure-2.png"  # beside the reproduction's tables


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


def episode_fields(
    policy: Policy, episode: Episode, place: int | None, size: int | None = None
) -> dict:
    """The record: the episode (observations counted, not kept), ``stop``, how it ended
    (the planner's status, else the policy's ``details["stop"]``), ``paper_instance``,
    the instance's ``place`` in the paper's order (None: not one of its 102), and
    ``objects``, the problem's ``size`` in objects (Blocksworld: its blocks; None: not
    known)."""
    record = episode.to_json()
    record["observations"] = len(record["observations"])
    planned = getattr(policy, "result", None)
    record["stop"] = planned.status if planned is not None else episode.details.get("stop")
    record["paper_instance"] = place
    record["objects"] = size
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
        return episode_fields(policy, played, paper_place(env, job.instance), objects(env))

    return episode


def write_report(run: StudyRun[AgenticConfig], records: list[Record]) -> None:
    """``results.md`` (every table of every run) and ``success.png``; printed: the short
    tables."""
    env, conditions = run.args.env, run.conditions
    model = run.study.model if run.study else None

    def text(full: bool) -> str:
        return "\n\n".join(
            f"## {env}, {run_caption(group)}\n\n{settings_line(run.config, run.temperature)}"
            f"\n\n"
            + report(group, conditions, run.caption(), full)
            + (f"\n\n{attempts_table(group)}" if full and "direct" in conditions else "")
            + (
                f"\n\n{hard_cases_table(group)}"
                if full and set(CONDITIONS) <= set(conditions)
                else ""
            )
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


def reproduced_tables(records: list[Record]) -> dict[str, str]:
    """Every table of the paper over one run's records: Tables I, II and III, Fig. 2's
    counts by block, the direct baseline's samples (IV-B) and the hard cases (IV-E)."""
    return {
        **paper_tables(records),
        "figure-2": figure_2_table(records, FIGURE_PNG),
        "attempts": attempts_table(records),
        "hard-cases": hard_cases_table(records),
    }


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """The paper's tables under its protocol, and Fig. 2 over every run of it in ``out``
    (``out.parent / FIGURE_PNG``, beside the tables); ``limit``: the first N instances,
    the direct baseline's samples and the agentic loop's model calls each capped at
    :data:`~planloop.protocols.reproduction.SMOKE_CALLS` (the paper caps only their time,
    and an instant endpoint answers thousands of calls in it)."""
    smoke = ["--max-attempts", str(SMOKE_CALLS), "--max-model-calls", str(SMOKE_CALLS)]
    limit = [] if runner.limit is None else ["--instances", f"0:{runner.limit}", *smoke]
    records = runner.run(main, out, limit)
    ours = of_protocol(records, AGENTIC.name)
    save_figure_2(list(split_runs(ours).values()), out.parent / FIGURE_PNG)
    return records, reproduced_tables
