"""Closed-loop horizon sweep: success against the planning horizon H.

For every horizon (default 1, 5 and the open loop), problem and trial, a language model
plans with ``ClosedLoopPolicy(horizon=H)`` (``OpenLoopPolicy`` for ``open``) in the
environment, and the environment judges the episode.

    python experiments/horizon_sweep.py --llm openai:gpt-4o-mini
    python experiments/horizon_sweep.py --env Mystery-BW-v0 --instances 0:5 \\
        --llm http://localhost:8000/v1@Qwen/Qwen2.5-7B-Instruct --workers 8

The model must answer one short call before the first episode. ``--out DIR`` receives
``episodes.jsonl`` (one record per episode, appended as each ends; rerunning the same
command resumes and skips finished episodes; episodes whose model calls failed for
good are recorded and run again), ``success.md`` (the table printed at the end) and
``success.png`` (success against horizon, with 95% Wilson intervals; needs matplotlib,
the ``plot`` extra).

The policies default to their richer behaviour; each of the horizon study's choices can
be switched on: ``--feedback state`` (on a failure the model sees the executed actions,
the state before the failure and the failed action, not the environment's cause),
``--grounding per_variable`` (one question per parameter), ``--conversation accumulate``
(one growing conversation), ``--ask sequence`` (the whole sequence each time, its first
H executed), ``--opening study`` (the study's role-play introduction of the domain, the
starting state, then the goal; needs the two before) and ``--max-restarts none``;
``--paper`` sets all of them (a flag given beside it still wins). Switches not at their default enter the results key.

``--progress-feedback ff`` (or ``add``, the cheaper h_add) adds to every observation
whether the last action brought the goal closer by a relaxed-plan distance
(``planloop.wrappers.ProgressFeedback``); it enters the results key when on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planloop.policies import ClosedLoopPolicy, OpenLoopPolicy, run_episode
from planloop.policies.loop import CHOICES, DEFAULTS
from planloop.protocols.baking import BAKING
from planloop.protocols.baking import ROWS as BAKING_ROWS
from planloop.stats import wilson_interval
from planloop.study import (
    PaperFlags,
    Study,
    every_instance,
    markdown_table,
    model_errors,
    model_failures,
    positive_int,
    run_study,
    save_success_plot,
    show_success_plot,
    study_main,
    study_model,
    study_parser,
    success_cell,
    tally,
    with_published,
)
from planloop.study.runs import paper_heading, run_caption, single_run, split_runs
from planloop.wrappers import ProgressFeedback

OPEN = "open"


def parse_horizons(text: str) -> list[int | str]:
    horizons = []
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
    model,
    horizon,
    trial: int,
    max_actions: int,
    temperature: float | None,
    switches: dict | None = None,
):
    switches = switches or {}
    if horizon == OPEN:
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


def episode_record(episode) -> dict:
    """What the results keep of an episode (everything but the observation texts)."""
    record = episode.to_json()
    record["observations"] = len(record["observations"])
    return record


def run_sweep(
    env_id: str,
    model,
    horizons,
    instances,
    trials: int,
    out: Path,
    workers: int = 1,
    max_actions: int = 50,
    temperature: float | None = 0.7,
    env_kwargs: dict | None = None,
    model_spec: str | None = None,
    check=None,
    switches: dict | None = None,
    progress_feedback: str = "off",
    backend: str = "local",
    protocol: dict | None = None,
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

    def play(env, job) -> dict:
        if progress_feedback != "off":
            env = ProgressFeedback(env, progress_feedback)
        policy = make_policy(
            model, job.condition["horizon"], job.trial, max_actions, temperature, switches
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


def success_table(records: list[dict], horizons, instances) -> str:
    """Problems as columns, one row per horizon: wins/trials and the 95% Wilson interval."""
    rows = []
    for horizon in horizons:
        mine = [r for r in records if r["horizon"] == horizon]
        cells = [
            success_cell(*tally(r for r in mine if r["instance"] == instance))
            for instance in instances
        ]
        label = "open loop" if horizon == OPEN else f"H = {horizon}"
        rows.append([label, *cells, success_cell(*tally(mine)), model_errors(mine)])
    return markdown_table(
        ["horizon", *(f"problem {i}" for i in instances), "all", "model errors"], rows
    ) + model_failures(records)


def paper_table(records: list[dict], instances) -> str:
    """The study's table over the records of one run, headed by its model and the
    paper's: open loop, H = 5 and H = 1 by problem, ``k/n (pct) [95% Wilson]`` beside
    the paper's figure, and the model errors of each row."""
    [layout] = BAKING.tables
    records, rows = single_run(records), []
    for horizon, row in BAKING_ROWS.items():
        mine = [r for r in records if r["horizon"] == horizon]
        cells = []
        for instance, column in zip(instances, layout.columns, strict=True):
            wins, n = tally(r for r in mine if r["instance"] == instance)
            low, high = wilson_interval(wins, n)
            cell = f"{wins}/{n} ({wins / n:.0%}) [{low:.0%}, {high:.0%}]" if n else "0/0"
            cells.append(with_published(cell, layout.published.get((row, column))))
        rows.append([row, *cells, model_errors(mine)])
    columns = layout.columns[: len(rows[0]) - 2]
    return f"{paper_heading(layout, records)}\n\n" + markdown_table(
        ["", *columns, "model errors"], rows
    )


@study_main
def main(argv=None, model=None, show: bool = True) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same)."""
    parser = study_parser(__doc__, env="Baking-v0", out="results/horizon_sweep", trials=5)
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


if __name__ == "__main__":
    sys.exit(main())
