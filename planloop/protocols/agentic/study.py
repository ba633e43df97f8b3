"""The agentic study: Fast Downward lama-first and seq-sat-lama-2011, a direct LLM
baseline and the agentic loop, each with one wall-clock budget per instance; their
policies, the study's flags and ``main``, which plays them and writes the tables of
:mod:`.tables`. ``experiments/agentic.py`` is its command line."""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym

from ...llm import ChatModel
from ...policies import AgenticPolicy, DirectPlanPolicy, PlannerPolicy, run_episode
from ...policies.base import Policy
from ...policies.runner import Episode
from ...study import (
    PaperFlags,
    Study,
    every_instance,
    non_negative_float,
    run_options,
    run_study,
    save_success_plot,
    show_success_plot,
    study_main,
    study_model,
    study_parser,
    tally,
)
from ...study.jobs import Job
from ...study.runs import run_caption, split_runs
from ..reproduction import Record, Runner, Tables
from . import AGENTIC, CONDITIONS, PLANNER_CONDITIONS, ROWS
from .instances import env_kwargs, paper_place
from .tables import by_condition, paper_tables, report


def parse_conditions(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in CONDITIONS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"conditions are a comma list of {', '.join(CONDITIONS)}"
            f"; not {', '.join(unknown) or 'empty'}"
        )
    return [c for c in CONDITIONS if c in names]  # in Table II's order


def cap(text: str) -> int | None:
    """A count of at least 1, or ``none`` for no cap."""
    if text.strip().lower() == "none":
        return None
    if text.strip().isdigit() and int(text) >= 1:
        return int(text)
    raise argparse.ArgumentTypeError(f"a cap is a count of at least 1 or 'none', not {text!r}")


def make_policy(condition: str, model: ChatModel | None, args: argparse.Namespace) -> Policy:
    """The condition's policy for one instance, within ``args.seconds``."""
    if condition in PLANNER_CONDITIONS:
        return PlannerPolicy(condition, args.seconds)
    if condition == "direct":
        return DirectPlanPolicy(
            model,
            max_attempts=args.max_attempts,
            max_seconds=args.seconds,
            temperature=args.temperature,
        )
    return AgenticPolicy(
        model,
        max_model_calls=args.max_model_calls,
        max_tool_calls=args.max_tool_calls,
        temperature=None,
        seconds=args.seconds,
        end_on_valid_plan=True,
        feedback=args.feedback,
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


def settings_line(args: argparse.Namespace) -> str:
    shown = {
        "budget per instance": f"{args.seconds:g} s",
        "temperature": args.temperature,
        "samples": args.max_attempts,
        "model calls": args.max_model_calls,
        "tool calls": args.max_tool_calls,
        "step feedback": args.feedback,
    }
    return "; ".join(f"{k} {'no cap' if v is None else v}" for k, v in shown.items())


def run(
    argv: list[str] | None = None,
    model: ChatModel | None = None,
    show: bool = True,
    description: str | None = __doc__,
) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same); ``description``: the help's."""
    parser = study_parser(description, env="PDDL-v0", out="results/agentic", llm_required=False)
    parser.add_argument(
        "--conditions",
        type=parse_conditions,
        default=list(CONDITIONS),
        help=f"a comma list of {', '.join(CONDITIONS)} (default all)",
    )
    flags = PaperFlags(parser, AGENTIC, temperature=0.2)
    flags.add(
        "--seconds",
        type=non_negative_float,
        default=180.0,
        metavar="S",
        help="every approach's wall-clock budget per instance (default 180; the paper's 180)",
    )
    flags.add(
        "--max-attempts",
        type=cap,
        default=5,
        metavar="K",
        help="the direct baseline's samples, 'none' for no cap (default 5; the paper's none)",
    )
    flags.add(
        "--max-model-calls",
        type=cap,
        default=60,
        metavar="N",
        help="the agentic loop's model calls, 'none' for no cap (default 60; the paper's none)",
    )
    flags.add(
        "--max-tool-calls",
        type=cap,
        default=200,
        metavar="N",
        help="the agentic loop's tool calls, 'none' for no cap (default 200; the paper's none)",
    )
    flags.add(
        "--feedback",
        choices=("cause", "outcome"),
        default="cause",
        help="execute_action answers with the cause of a failure and its unmet "
        "facts (default), or success or failure only (outcome, the paper's)",
    )
    args = parser.parse_args(argv)
    settings = flags.resolve(args, model.name if model else None)
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
            **{key: getattr(args, key) for key in (*AGENTIC.settings, "temperature")},
            **settings.recorded(),
        },
    )

    def play(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays args.env
        policy = make_policy(str(job.condition["condition"]), model, args)
        episode = run_episode(env, policy, options={"instance": job.instance})
        return episode_fields(policy, episode, paper_place(env, job.instance))

    jobs = study.jobs([{"condition": c} for c in args.conditions], instances, args.trials)
    records = run_study(study, jobs, play, check=built, model=model, **run_options(args))
    caption = f"\n\n{AGENTIC.caption(settings.overrides)}" if settings.paper else ""

    def text(full: bool) -> str:
        return "\n\n".join(
            f"## {args.env}, {run_caption(group)}\n\n{settings_line(args)}\n\n"
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
