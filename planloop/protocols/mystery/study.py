"""The Mystery Blocksworld study: its conditions (direct generation, the repair
pipeline and its ablations, the closed-loop and agentic policies, Fast Downward), their
policies, and ``SPEC``, the study declared (played by :func:`planloop.study.spec.run_spec`,
writing the tables of :mod:`.tables`; ``main``: the same as a command,
``experiments/mystery.py``'s), and ``reproduction``, Tables 1 and 2, the runtime by
subset and Figures 10 and 11 at the paper's n."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym

from ...llm import ChatModel
from ...pddl import solve
from ...policies import (
    AgenticPolicy,
    ClosedLoopPolicy,
    DirectPlanPolicy,
    PlannerPolicy,
    run_episode,
)
from ...policies.base import Policy
from ...policies.direct import Example
from ...results import Record
from ...study import StudyError, save_success_plot, show_success_plot, tally
from ...study.backends import Play
from ...study.jobs import Job
from ...study.runs import run_caption, split_runs
from ...study.spec import StudyRun, StudySpec, spec_main
from ...wrappers import ProgressFeedback
from ..reproduction import Runner, Tables, of_protocol
from . import ABLATIONS, FIGURES, INSTANCES, MYSTERY, ROWS
from .config import MysteryConfig
from .judge import episode_fields
from .paper_figures import figure_table, runtime_table, save_figures, table_2
from .tables import by_condition, paper_table, report, retry_points, save_hazard_plot

PIPELINES: dict[str, dict[str, bool]] = {
    "pipeline": {},
    "pipeline-no-repair": {"repair": False},
    "pipeline-no-constraints": {"deep_constraints": False},
    "pipeline-no-stepwise": {"stepwise": False},
}
CONDITIONS = (
    "direct-zero-shot",
    "direct-one-shot",
    *PIPELINES,
    "closed-loop",
    "agentic",
    "planner",
)


def pipeline_class() -> type:
    """RepairPipelinePolicy, imported when a pipeline condition is asked for."""
    try:
        from planloop.policies import RepairPipelinePolicy
    except ImportError as exc:
        raise StudyError(
            f"the pipeline conditions need planloop.policies.RepairPipelinePolicy: {exc}"
        ) from None
    return RepairPipelinePolicy


def solved_example(env: gym.Env, instance: int) -> Example:
    """The next instance (after the last, the first) and a plan of it by the core's
    planner, in the names the agent sees: PlanBench's one-shot example."""
    game: Any = env.unwrapped
    task = game.load_instance((instance + 1) % game.num_instances)
    pddl = game.view.task_pddl(task)
    result = solve(pddl["domain_pddl"], pddl["problem_pddl"], planner="auto", timeout=60)
    if not result.solved:
        raise StudyError(
            f"no plan for the one-shot example of instance {instance}: "
            f"{result.status} {result.message}"
        )
    return Example(pddl["problem_pddl"], tuple(result.plan or ()))


def make_policy(
    condition: str,
    model: ChatModel | None,
    env: gym.Env,
    job: Job,
    config: MysteryConfig,
    temperature: float | None,
) -> Policy:
    """The condition's policy for one episode."""
    if condition == "planner":
        return PlannerPolicy(config.planner, config.planner_timeout)
    if condition.startswith("direct"):
        examples = [solved_example(env, job.instance)] if condition == "direct-one-shot" else []
        return DirectPlanPolicy.paper(
            model,
            max_attempts=config.direct_budget,
            max_seconds=config.max_seconds,
            temperature=temperature,
            prompt="planbench",
            examples=examples,
        )
    if condition in PIPELINES:
        return pipeline_class()(
            model, max_attempts=config.attempts, temperature=temperature, **PIPELINES[condition]
        )
    if condition == "closed-loop":
        return ClosedLoopPolicy(
            model,
            horizon=1,
            max_actions=config.max_actions,
            max_restarts=config.attempts - 1,
            temperature=temperature,
            seed=job.trial,
        )
    return AgenticPolicy(
        model,
        temperature=temperature,
        seconds=config.max_seconds,
        end_on_valid_plan=True,
        feedback=config.agentic_feedback,
    )


def validate(run: StudyRun[MysteryConfig]) -> None:
    """A pipeline condition needs the repair pipeline's policy."""
    if any(c in PIPELINES for c in run.conditions):
        pipeline_class()


def play(run: StudyRun[MysteryConfig]) -> Play:
    """One episode of a job's condition, judged from what it played."""
    config = run.config

    def episode(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays --env
        if config.progress_feedback != "off":
            env = ProgressFeedback(env, config.progress_feedback)
        condition = str(job.condition["condition"])
        policy = make_policy(condition, run.model, env, job, config, run.temperature)
        return episode_fields(env, run_episode(env, policy, options={"instance": job.instance}))

    return episode


def write_report(run: StudyRun[MysteryConfig], records: list[Record]) -> None:
    """``results.md`` (every table of every run), ``success.png``, ``retry.png`` and
    ``hazard.png``; printed: the short tables."""
    env, config, conditions = run.args.env, run.config, run.conditions
    model = run.study.model if run.study else None

    def text(full: bool) -> str:
        return "\n\n".join(
            f"## {env}, {run_caption(group)}\n\n"
            + report(group, conditions, config.attempts, config.top_k, full)
            for group in split_runs(records).values()
        )

    (run.out / "results.md").write_text(text(full=True) + run.caption() + "\n")
    if run.show:
        print(f"{text(full=False)}{run.caption()}\n\nevery table: {run.out / 'results.md'}")
    groups = by_condition(records, conditions)
    (show_success_plot if run.show else save_success_plot)(
        {"success": [(c, *tally(g)) for c, g in groups.items()]},
        run.out / "success.png",
        "condition",
        title=f"Success per condition, {env}, {model or 'no model'}",
    )
    retry = {c: retry_points(g, config.attempts) for c, g in groups.items() if c != "planner"}
    if retry:
        save_success_plot(
            retry,
            run.out / "retry.png",
            "budget K (plans)",
            ordered=True,
            episodes=sum(len(groups[c]) for c in retry),
            title=f"Success within K plans (the retry-benefit curve), {env}, {model or 'no model'}",
        )
    save_hazard_plot(groups, run.out / "hazard.png", f"{env}, {model or 'no model'}")


SPEC = StudySpec(
    name="mystery",
    script="mystery.py",
    description=__doc__,
    config=MysteryConfig,
    protocol=MYSTERY,
    env="Mystery-BW-v0",
    out="results/mystery",
    llm="optional",
    conditions=CONDITIONS,
    temperature=0.2,
    validate=validate,
    uses_model=lambda run: any(c != "planner" for c in run.conditions),
    play=play,
    report=write_report,
)
main = spec_main(SPEC)  # the study as its script runs it


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """Tables 1 and 2 at the paper's n, from one run of their conditions on the first
    :data:`INSTANCES` (the ablations share Table 1's instances and K), the runtime by
    subset, Figures 10 and 11 as tables, and their PNGs over every run in ``out``
    beside the tables (``out.parent``)."""
    conditions = ",".join(dict.fromkeys([*ROWS, *ABLATIONS]))
    flags = ["--conditions", conditions, "--instances", f"0:{runner.first(INSTANCES)}"]
    records = runner.run(main, out, flags)
    ours = of_protocol(records, MYSTERY.name)
    save_figures(list(split_runs(ours).values()), out.parent, MYSTERY.name)
    return records, paper_tables


def paper_tables(records: list[Record]) -> dict[str, str]:
    """One run's tables, by name: Table 1, Table 2, the runtime, Figures 10 and 11."""
    drawn = "\n\nDrawn over every run in the folder: {}-figure-{}.png beside this file."
    return {
        "table-1": paper_table(records),
        "table-2": table_2(records),
        "runtime": runtime_table(records),
        **{
            f"figure-{n}": figure_table(records, n) + drawn.format(MYSTERY.name, n) for n in FIGURES
        },
    }
