"""The Mystery Blocksworld study: its conditions (direct generation, the repair
pipeline and its ablations, the closed-loop and agentic policies, Fast Downward), their
policies, its flags and ``run``, which plays them and writes the tables of
:mod:`.tables` (``main``: the same as a command, ``experiments/mystery.py``'s), and
``reproduction``, Table 1 at the paper's n."""

from __future__ import annotations

import argparse
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
from ...study import (
    PaperFlags,
    Study,
    StudyError,
    every_instance,
    run_options,
    run_study,
    save_success_plot,
    show_success_plot,
    study_main,
    study_model,
    study_parser,
    tally,
)
from ...study.flags import add_conditions
from ...study.jobs import Job
from ...study.runs import run_caption, split_runs
from ...wrappers import ProgressFeedback
from ..reproduction import Runner, Tables
from . import INSTANCES, MYSTERY, ROWS
from .config import MysteryConfig
from .judge import episode_fields
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


def flags(description: str | None = __doc__) -> tuple[argparse.ArgumentParser, PaperFlags]:
    """The study's parser: the shared flags, ``--conditions``, ``--paper`` and
    :class:`MysteryConfig`'s; ``description``: the help's."""
    parser = study_parser(
        description, env="Mystery-BW-v0", out="results/mystery", llm_required=False
    )
    add_conditions(parser, CONDITIONS, given_order=True)
    paper = PaperFlags(parser, MYSTERY, temperature=0.2)
    MysteryConfig.add_arguments(paper)
    return parser, paper


def run(
    argv: list[str] | None = None,
    model: ChatModel | None = None,
    show: bool = True,
    description: str | None = __doc__,
) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same); ``description``: the help's.
    Errors are raised: :data:`main` is the study as a command."""
    parser, paper = flags(description)
    args = parser.parse_args(argv)
    settings = paper.resolve(args, model.name if model else None)
    config = MysteryConfig.from_args(args, parser)
    if any(c in PIPELINES for c in args.conditions):
        pipeline_class()
    uses_model = any(c != "planner" for c in args.conditions)
    model, built = (
        study_model(model, args.llm, args.call_timeout, settings.request)
        if uses_model
        else (model, None)
    )
    env_kwargs = dict(args.option)
    instances = args.instances or every_instance(args.env, env_kwargs)
    study = Study(
        "mystery",
        args.env,
        env_kwargs,
        model.name if model else None,
        args.llm,
        settings={**config.key(), "temperature": args.temperature, **settings.recorded()},
    )

    def play(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays args.env
        if config.progress_feedback != "off":
            env = ProgressFeedback(env, config.progress_feedback)
        policy = make_policy(
            str(job.condition["condition"]), model, env, job, config, args.temperature
        )
        return episode_fields(env, run_episode(env, policy, options={"instance": job.instance}))

    jobs = study.jobs([{"condition": c} for c in args.conditions], instances, args.trials)
    records = run_study(study, jobs, play, check=built, model=model, **run_options(args))
    protocol = f"\n\n{MYSTERY.caption(settings.overrides)}" if settings.paper else ""

    def text(full: bool) -> str:
        return "\n\n".join(
            f"## {args.env}, {run_caption(group)}\n\n"
            + report(group, args.conditions, config.attempts, config.top_k, full)
            for group in split_runs(records).values()
        )

    (args.out / "results.md").write_text(text(full=True) + protocol + "\n")
    if show:
        print(f"{text(full=False)}{protocol}\n\nevery table: {args.out / 'results.md'}")
    groups = by_condition(records, args.conditions)
    (show_success_plot if show else save_success_plot)(
        {"success": [(c, *tally(g)) for c, g in groups.items()]},
        args.out / "success.png",
        "condition",
        title=f"Success per condition, {args.env}, {study.model or 'no model'}",
    )
    retry = {c: retry_points(g, config.attempts) for c, g in groups.items() if c != "planner"}
    if retry:
        save_success_plot(
            retry,
            args.out / "retry.png",
            "budget K (plans)",
            ordered=True,
            episodes=sum(len(groups[c]) for c in retry),
            title=f"Success within K plans (the retry-benefit curve), {args.env}, "
            f"{study.model or 'no model'}",
        )
    save_hazard_plot(groups, args.out / "hazard.png", f"{args.env}, {study.model or 'no model'}")
    return 0


main = study_main(run, prog="mystery.py")  # the study as its script runs it


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """Table 1 at the paper's n: its conditions on the first :data:`INSTANCES`."""
    flags = ["--conditions", ",".join(ROWS), "--instances", f"0:{runner.first(INSTANCES)}"]
    return runner.run(main, out, flags), lambda group: {"table-1": paper_table(group)}
