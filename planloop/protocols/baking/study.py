"""The horizon study: for every horizon (open loop, or closed loop replanning every H
actions), problem and trial, a language model plans with ``ClosedLoopPolicy(horizon=H)``
(``OpenLoopPolicy`` for ``open``) and the environment judges the episode. ``SPEC``
declares it (played by :func:`planloop.study.spec.run_spec`, writing the tables of
:mod:`.tables`; ``main``: the same as a command, ``experiments/horizon_sweep.py``'s);
``reproduction``: the paper's table."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import cast

import gymnasium as gym

from ...llm import ChatModel
from ...policies import ClosedLoopPolicy, OpenLoopPolicy, run_episode
from ...policies.base import Policy
from ...policies.runner import Episode
from ...results import Record
from ...study import save_success_plot, show_success_plot, tally
from ...study.backends import Play
from ...study.jobs import Job
from ...study.runs import run_caption, split_runs
from ...study.spec import StudyRun, StudySpec, spec_main
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


def add_horizons(parser: argparse.ArgumentParser) -> None:
    """``--horizons``: the study's cells."""
    parser.add_argument(
        "--horizons",
        type=parse_horizons,
        default=parse_horizons("1,5,open"),
        help="comma-separated horizons, 'open' for the open loop (default 1,5,open)",
    )


def play(run: StudyRun[HorizonConfig]) -> Play:
    """One episode at a job's horizon."""
    config, model = run.config, run.model
    assert model is not None  # the study plays a model

    def episode(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays --env
        if config.progress_feedback != "off":
            env = ProgressFeedback(env, config.progress_feedback)
        horizon = cast(Horizon, job.condition["horizon"])
        policy = make_policy(model, horizon, job.trial, config, run.temperature)
        return episode_record(run_episode(env, policy, options={"instance": job.instance}))

    return episode


def write_report(run: StudyRun[HorizonConfig], records: list[Record]) -> None:
    """``success.md`` (a table per run) and ``success.png``; printed: the tables."""
    env, horizons = run.args.env, run.args.horizons
    runs = split_runs(records)
    table = "\n\n".join(
        f"## {env}, {run_caption(group)}\n\n" + success_table(group, horizons, run.instances)
        for group in runs.values()
    )
    table += run.caption()
    (run.out / "success.md").write_text(table + "\n")
    if run.show:
        print(table)
    series = {
        label.label: [(str(h), *tally(r for r in group if r["horizon"] == h)) for h in horizons]
        for label, group in runs.items()
    }
    (show_success_plot if run.show else save_success_plot)(
        series,
        run.out / "success.png",
        "horizon H (actions per plan)",
        ordered=True,
        title=f"Success against the planning horizon, {env}, "
        + ", ".join(label.label for label in runs),
    )


SPEC = StudySpec(
    name="horizon_sweep",
    script="horizon_sweep.py",
    description=__doc__,
    config=HorizonConfig,
    protocol=BAKING,
    env="Baking-v0",
    out="results/horizon_sweep",
    trials=DEFAULT.trials,
    temperature=0.7,
    add_flags=add_horizons,
    instance_limit=10,
    cells=lambda run: [{"horizon": horizon} for horizon in run.args.horizons],
    play=play,
    report=write_report,
)
main = spec_main(SPEC)  # the study as its script runs it


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """The horizon table at the paper's n: its rows on Baking-Large's problems, each
    :data:`TRIALS` times (``limit``: fewer trials)."""
    problems = range(PROBLEMS)
    flags = ["--env", "Baking-v0", "--horizons", ",".join(str(horizon) for horizon in ROWS)]
    flags += ["--instances", f"0:{PROBLEMS}", "--trials", str(runner.first(TRIALS))]
    records = runner.run(main, out, flags)
    return records, lambda group: {"table": paper_table(group, problems)}
