"""The horizon study: for every horizon (open loop, or closed loop replanning every H
actions), problem and trial, a language model plans with ``ClosedLoopPolicy(horizon=H)``
(``OpenLoopPolicy`` for ``open``) and the environment judges the episode. ``main`` runs
it from its flags and writes the tables of :mod:`.tables`; ``experiments/horizon_sweep.py``
is its command line."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import gymnasium as gym

from ...llm import ChatModel
from ...policies import ClosedLoopPolicy, OpenLoopPolicy, run_episode
from ...policies.base import Policy
from ...policies.loop import CHOICES, DEFAULTS
from ...policies.runner import Episode
from ...study import (
    PaperFlags,
    Study,
    every_instance,
    positive_int,
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
from ...wrappers import ProgressFeedback
from ..reproduction import Record, Runner, Tables
from . import BAKING, OPEN, PROBLEMS, ROWS, TRIALS
from .tables import paper_table, success_table

Horizon = int | str  # a count of actions, or OPEN


def parse_horizons(text: str) -> list[Horizon]:
    """``--horizons``: a comma list of positive counts and ``open``."""
    horizons: list[Horizon] = []
    for part in text.split(","):
        part = part.strip().lower()
        if part in (OPEN, "inf", "open-loop"):
            horizons.append(OPEN)
        elif part.isdigit() and int(part) > 0:
            horizons.append(int(part))
        else:
            raise argparse.ArgumentTypeError(
                f"a horizon is a positive integer or 'open', not {part!r}"
            )
    return horizons


def parse_restarts(text: str) -> int | None:
    """``--max-restarts``: a count of at least 0, or ``none`` for no cap."""
    if text.strip().lower() == "none":
        return None
    if text.strip().isdigit():
        return int(text)
    raise argparse.ArgumentTypeError(f"max restarts is a count or 'none', not {text!r}")


def make_policy(
    model: ChatModel,
    horizon: Horizon,
    trial: int,
    max_actions: int,
    temperature: float | None,
    switches: Mapping[str, Any] | None = None,
) -> Policy:
    """The open loop, or the closed loop replanning every ``horizon`` actions, with the
    loop ``switches`` (the open loop takes those it has)."""
    switches = switches or {}
    if isinstance(horizon, str):  # OPEN
        return OpenLoopPolicy(
            model,
            max_actions=max_actions,
            temperature=temperature,
            seed=trial,
            **{
                key: value
                for key, value in switches.items()
                if key in ("grounding", "conversation", "ask", "opening")
            },
        )
    return ClosedLoopPolicy(
        model,
        horizon=horizon,
        max_actions=max_actions,
        temperature=temperature,
        seed=trial,
        **switches,
    )


def episode_record(episode: Episode) -> dict:
    """What the results keep of an episode (everything but the observation texts)."""
    record = episode.to_json()
    record["observations"] = len(record["observations"])
    return record


def run_sweep(
    env_id: str,
    model: ChatModel,
    horizons: Sequence[Horizon],
    instances: Iterable[int],
    trials: int,
    out: Path,
    workers: int = 1,
    max_actions: int = 50,
    temperature: float | None = 0.7,
    env_kwargs: Mapping[str, object] | None = None,
    model_spec: str | None = None,
    check: ChatModel | None = None,
    switches: Mapping[str, Any] | None = None,
    progress_feedback: str = "off",
    backend: str = "local",
    protocol: Mapping[str, object] | None = None,
    max_unreachable: int = 3,
) -> list[dict]:
    """Run every (horizon, instance, trial) not yet in ``out/episodes.jsonl``; returns
    their records (old and new). ``check``: a model to check before the first episode;
    ``switches``: the loop policies' (those not at their default enter the settings);
    ``progress_feedback``: ``off`` or the heuristic of a ``ProgressFeedback`` wrapper;
    ``backend`` and ``max_unreachable``: run_study's; ``protocol``: the paper's protocol and its overrides, for
    the settings (see :meth:`planloop.study.Settings.recorded`)."""
    switches = {**DEFAULTS, **(switches or {})}
    changed = {key: value for key, value in switches.items() if value != DEFAULTS[key]}
    if progress_feedback != "off":
        changed["progress_feedback"] = progress_feedback
    study = Study(
        "horizon_sweep",
        env_id,
        env_kwargs or {},
        model.name,
        model_spec,
        settings={
            "max_actions": max_actions,
            "temperature": temperature,
            **changed,
            **(protocol or {}),
        },
    )

    def play(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays env_id
        if progress_feedback != "off":
            env = ProgressFeedback(env, progress_feedback)
        policy = make_policy(
            model,
            cast(Horizon, job.condition["horizon"]),
            job.trial,
            max_actions,
            temperature,
            switches,
        )
        return episode_record(run_episode(env, policy, options={"instance": job.instance}))

    jobs = study.jobs([{"horizon": horizon} for horizon in horizons], instances, trials)
    return run_study(
        study,
        jobs,
        play,
        out=out,
        workers=workers,
        check=check,
        backend=backend,
        max_failed_in_a_row=max_unreachable,
        model=model,
    )


def run(
    argv: list[str] | None = None,
    model: ChatModel | None = None,
    show: bool = True,
    description: str | None = __doc__,
) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same); ``description``: the help's."""
    parser = study_parser(description, env="Baking-v0", out="results/horizon_sweep", trials=5)
    parser.add_argument(
        "--horizons",
        type=parse_horizons,
        default=parse_horizons("1,5,open"),
        help="comma-separated horizons, 'open' for the open loop (default 1,5,open)",
    )
    parser.add_argument("--max-actions", type=positive_int, default=50)
    paper = PaperFlags(parser, BAKING, temperature=0.7)
    for key, choices in CHOICES.items():
        paper.add(
            f"--{key}",
            choices=choices,
            default=DEFAULTS[key],
            help=f"default {DEFAULTS[key]}; the paper's: {BAKING.settings[key]}",
        )
    paper.add(
        "--max-restarts",
        type=parse_restarts,
        default=DEFAULTS["max_restarts"],
        metavar="N",
        help=f"explained restarts per episode, 'none' for no cap (default "
        f"{DEFAULTS['max_restarts']}; the paper's: none)",
    )
    parser.add_argument(
        "--progress-feedback",
        choices=("off", "ff", "add"),
        default="off",
        help="tell the model after each action whether the goal came closer, "
        "by h_FF or h_add (default off)",
    )
    args = parser.parse_args(argv)
    settings = paper.resolve(args, model.name if model else None)
    model, built = study_model(model, args.llm, args.call_timeout, settings.request)
    env_kwargs = dict(args.option)
    instances = args.instances or every_instance(args.env, env_kwargs, limit=10)
    records = run_sweep(
        args.env,
        model,
        args.horizons,
        instances,
        args.trials,
        args.out,
        args.workers,
        args.max_actions,
        args.temperature,
        env_kwargs,
        args.llm,
        check=built,
        switches={key: settings.values[key] for key in DEFAULTS},
        progress_feedback=args.progress_feedback,
        backend=args.backend,
        protocol=settings.recorded(),
        max_unreachable=args.max_unreachable,
    )
    runs = split_runs(records)
    table = "\n\n".join(
        f"## {args.env}, {run_caption(group)}\n\n" + success_table(group, args.horizons, instances)
        for group in runs.values()
    )
    if settings.paper:
        table += f"\n\n{BAKING.caption(settings.overrides)}"
    (args.out / "success.md").write_text(table + "\n")
    if show:
        print(table)
    series = {
        run.label: [(str(h), *tally(r for r in group if r["horizon"] == h)) for h in args.horizons]
        for run, group in runs.items()
    }
    (show_success_plot if show else save_success_plot)(
        series,
        args.out / "success.png",
        "horizon H (actions per plan)",
        ordered=True,
        title=f"Success against the planning horizon, {args.env}, "
        + ", ".join(run.label for run in runs),
    )
    return 0


main = study_main(run, prog="horizon_sweep.py")  # the study as its script runs it


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """The horizon table at the paper's n: its rows on Baking-Large's problems, each
    :data:`TRIALS` times (``limit``: fewer trials)."""
    problems = range(PROBLEMS)
    flags = ["--env", "Baking-v0", "--horizons", ",".join(str(horizon) for horizon in ROWS)]
    flags += ["--instances", f"0:{PROBLEMS}", "--trials", str(runner.first(TRIALS))]
    records = runner.run(main, out, flags)
    return records, lambda group: {"table": paper_table(group, problems)}
