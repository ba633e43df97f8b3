"""The horizon study: for every horizon (open loop, or closed loop replanning every H
actions), problem and trial, a language model plans with ``ClosedLoopPolicy(horizon=H)``
(``OpenLoopPolicy`` for ``open``) and the environment judges the episode. ``run`` runs
it from its flags and writes the tables of :mod:`.tables` (``main``: the same as a
command, ``experiments/horizon_sweep.py``'s); ``reproduction``: the paper's table."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import cast

import gymnasium as gym

from ...llm import ChatModel
from ...policies import ClosedLoopPolicy, OpenLoopPolicy, run_episode
from ...policies.base import Policy
from ...policies.runner import Episode
from ...results import Record
from ...study import (
    PaperFlags,
    Study,
    every_instance,
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
from ..reproduction import Runner, Tables
from . import BAKING, OPEN, PROBLEMS, ROWS, TRIALS
from .config import DEFAULT, HorizonConfig
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


def make_policy(
    model: ChatModel,
    horizon: Horizon,
    trial: int,
    config: HorizonConfig,
    temperature: float | None,
) -> Policy:
    """The open loop, or the closed loop replanning every ``horizon`` actions, with the
    config's loop switches (the open loop takes those it has)."""
    if isinstance(horizon, str):  # OPEN
        return OpenLoopPolicy(
            model,
            max_actions=config.max_actions,
            temperature=temperature,
            seed=trial,
            **{
                key: value
                for key, value in config.switches.items()
                if key in ("grounding", "conversation", "ask", "opening")
            },
        )
    return ClosedLoopPolicy(
        model,
        horizon=horizon,
        max_actions=config.max_actions,
        temperature=temperature,
        seed=trial,
        **config.switches,
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
    config: HorizonConfig = DEFAULT,
    temperature: float | None = 0.7,
    env_kwargs: Mapping[str, object] | None = None,
    model_spec: str | None = None,
    check: ChatModel | None = None,
    backend: str = "local",
    protocol: Mapping[str, object] | None = None,
    max_unreachable: int = 3,
) -> list[dict]:
    """Run every (horizon, instance, trial) not yet in ``out/episodes.jsonl``; returns
    their records (old and new). ``config``: the loop's settings (:meth:`~HorizonConfig.key`
    enters the study's settings); ``check``: a model to check before the first episode;
    ``backend`` and ``max_unreachable``: run_study's; ``protocol``: the paper's protocol
    and its overrides, for the settings (see :meth:`planloop.study.Settings.recorded`)."""
    study = Study(
        "horizon_sweep",
        env_id,
        env_kwargs or {},
        model.name,
        model_spec,
        settings={**config.key(), "temperature": temperature, **(protocol or {})},
    )

    def play(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays env_id
        if config.progress_feedback != "off":
            env = ProgressFeedback(env, config.progress_feedback)
        policy = make_policy(
            model, cast(Horizon, job.condition["horizon"]), job.trial, config, temperature
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


def flags(description: str | None = __doc__) -> tuple[argparse.ArgumentParser, PaperFlags]:
    """The study's parser: the shared flags, ``--horizons``, ``--paper`` and
    :class:`HorizonConfig`'s; ``description``: the help's."""
    parser = study_parser(
        description, env="Baking-v0", out="results/horizon_sweep", trials=DEFAULT.trials
    )
    parser.add_argument(
        "--horizons",
        type=parse_horizons,
        default=parse_horizons("1,5,open"),
        help="comma-separated horizons, 'open' for the open loop (default 1,5,open)",
    )
    paper = PaperFlags(parser, BAKING, temperature=0.7)
    HorizonConfig.add_arguments(paper)
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
    config = HorizonConfig.from_args(args, parser)
    model, built = study_model(model, args.llm, args.call_timeout, settings.request)
    env_kwargs = dict(args.option)
    instances = args.instances or every_instance(args.env, env_kwargs, limit=10)
    records = run_sweep(
        args.env,
        model,
        args.horizons,
        instances,
        config.trials,
        args.out,
        args.workers,
        config,
        args.temperature,
        env_kwargs,
        args.llm,
        check=built,
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
