"""The agentic study: Fast Downward lama-first and seq-sat-lama-2011, a direct LLM
baseline and the agentic loop, each with one wall-clock budget per instance; their
policies, the study's flags and ``run``, which plays them and writes the tables of
:mod:`.tables` (``main``: the same as a command, ``experiments/agentic.py``'s), and
``reproduction``, the paper's tables under its protocol."""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym

from ...llm import ChatModel
from ...policies import AgenticPolicy, DirectPlanPolicy, PlannerPolicy, run_episode
from ...policies.base import Policy
from ...policies.runner import Episode
from ...results import Record
from ...study import (
    PaperFlags,
    Study,
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
from ..reproduction import Runner, Tables
from . import AGENTIC, CONDITIONS, PLANNER_CONDITIONS, ROWS
from .config import AgenticConfig
from .instances import env_kwargs, paper_place
from .tables import by_condition, paper_tables, report


def make_policy(
    condition: str, model: ChatModel | None, config: AgenticConfig, temperature: float
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


def flags(description: str | None = __doc__) -> tuple[argparse.ArgumentParser, PaperFlags]:
    """The study's parser: the shared flags, ``--conditions``, ``--paper`` and
    :class:`AgenticConfig`'s; ``description``: the help's."""
    parser = study_parser(description, env="PDDL-v0", out="results/agentic", llm_required=False)
    add_conditions(parser, CONDITIONS, given_order=False)  # in Table II's order
    paper = PaperFlags(parser, AGENTIC, temperature=0.2)
    AgenticConfig.add_arguments(paper)
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
    config = AgenticConfig.from_args(args, parser)
    kwargs = env_kwargs(args.env, args.option)
    uses_model = any(c not in PLANNER_CONDITIONS for c in args.conditions)
    model, built = (
        study_model(model, args.llm, args.call_timeout, settings.request)
        if uses_model
        else (model, None)
    )
    instances = args.instances or every_instance(args.env, kwargs)
    study = Study(
        "agentic",
        args.env,
        kwargs,
        model.name if model else None,
        args.llm,
        settings={
            **config.key(),
            "temperature": args.temperature,
            **settings.recorded(),
        },
    )

    def play(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays args.env
        policy = make_policy(str(job.condition["condition"]), model, config, args.temperature)
        episode = run_episode(env, policy, options={"instance": job.instance})
        return episode_fields(policy, episode, paper_place(env, job.instance))

    jobs = study.jobs([{"condition": c} for c in args.conditions], instances, args.trials)
    records = run_study(study, jobs, play, check=built, model=model, **run_options(args))
    caption = f"\n\n{AGENTIC.caption(settings.overrides)}" if settings.paper else ""

    def text(full: bool) -> str:
        return "\n\n".join(
            f"## {args.env}, {run_caption(group)}\n\n{settings_line(config, args.temperature)}\n\n"
            + report(group, args.conditions, caption, full)
            for group in split_runs(records).values()
        )

    (args.out / "results.md").write_text(text(full=True) + "\n")
    if show:
        print(f"{text(full=False)}\n\nevery table: {args.out / 'results.md'}")
    groups = by_condition(records, args.conditions)
    (show_success_plot if show else save_success_plot)(
        {"success": [(ROWS[c], *tally(g)) for c, g in groups.items()]},
        args.out / "success.png",
        "approach",
        title=f"Solved within the budget per approach, {args.env}, {study.model or 'no model'}",
    )
    return 0


main = study_main(run, prog="agentic.py")  # the study as its script runs it


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """Tables I, II and III under the paper's protocol (``limit``: the first N instances)."""
    limit = [] if runner.limit is None else ["--instances", f"0:{runner.limit}"]
    return runner.run(main, out, limit), paper_tables
