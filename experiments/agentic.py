"""The agentic step-wise planning paper (PyPDDLEngine, "Agentic LLM Planning via
Step-Wise PDDL Simulation", arXiv 2603.06064), Table II: Fast Downward lama-first and
seq-sat-lama-2011, a direct LLM baseline and the agentic loop on IPC Blocksworld, each
with one wall-clock budget per instance.

    python experiments/agentic.py --paper --llm openai:MODEL --workers 4
    python experiments/agentic.py --paper --llm openai:MODEL -o problem=FOLDER

By default ``PDDL-v0`` plays the IPC-2000 Blocksworld files this checkout ships in
``tests/data/ipc2000-blocks``: the typed domain and 6 of the paper's 102 instances
(instance-1, -2, -3, -10, -20, -35). The paper's 102 are IPC-2000's typed Blocksworld,
``instance-1.pddl`` to ``instance-102.pddl`` as potassco/pddl-instances names them
(``ipc-2000/domains/blocks-strips-typed/instances``): ``-o problem=FOLDER`` plays a folder
of them in their original order (file names in natural order), ``-o domain=FILE`` takes
another domain. An episode may play up to 10,000 steps (``-o max_episode_steps=N``), so
that no plan is cut short.

``--conditions`` takes a comma list of lama-first, seq-sat-lama-2011 (its best plan when
the budget ends), direct (the domain and problem in one prompt, resampled from a fresh
context until a plan validates) and agentic (the seven engine tools, ending when
validate_plan confirms a plan, when the model stops, or when the budget ends; the
temperature is the provider's, as in the paper). ``--seconds`` is every approach's
budget per instance. ``--paper`` takes the paper's protocol
(``planloop.protocols.agentic``: 180 s, temperature 0.2, no cap on samples or calls,
success-or-failure step feedback); each of its flags given beside it overrides one
setting, named in the table's caption.

Each episode is classified as Table II does: Solved (a plan the environment accepts,
within the budget), Timeout (the budget ran out: the seconds, or a cap on samples or
calls when one is set) or Early exit (the agentic model stopped before the budget,
judging the task unsolvable, or without a validated plan). Every scheduled instance is
in n: an episode that ended on a failed model call is a failure, counted under "model
errors"; any other failure (a planner error, a plan the environment refused) is named
below the table.

``--out DIR`` receives ``episodes.jsonl`` (one record per approach and instance;
rerunning resumes), ``results.md`` (Table II beside the paper's figures, and the cost of
each approach) and ``success.png``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from planloop.envs import FULLY_OBSERVABLE
from planloop.policies import AgenticPolicy, DirectPlanPolicy, PlannerPolicy, run_episode
from planloop.protocols.agentic import AGENTIC, COLUMNS, ROWS
from planloop.study import (
    PaperFlags,
    Study,
    StudyError,
    every_instance,
    markdown_table,
    model_errors,
    model_failures,
    non_negative_float,
    run_options,
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

CONDITIONS = tuple(ROWS)
PLANNER_CONDITIONS = ("lama-first", "seq-sat-lama-2011")
IPC_BLOCKS = Path(__file__).resolve().parents[1] / "tests" / "data" / "ipc2000-blocks"
MAX_EPISODE_STEPS = 10_000
OUTCOMES = {
    "timeout": "Timeout",
    "budget": "Timeout",
    "unsolvable": "Early exit",
    "finished": "Early exit",
}  # a policy's stop -> Table II's column


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


def env_kwargs(env_id: str, options: list[tuple[str, object]]) -> dict:
    """The environment's arguments: the shipped IPC files for ``PDDL-v0`` and the step
    limit, unless ``-o`` gives them."""
    if env_id not in FULLY_OBSERVABLE:
        raise StudyError(
            f"{env_id} is not fully observable: the planners and the LLM "
            f"approaches need the task's PDDL; use one of "
            f"{', '.join(FULLY_OBSERVABLE)}"
        )
    defaults = (
        {"domain": str(IPC_BLOCKS / "domain.pddl"), "problem": str(IPC_BLOCKS / "instances")}
        if env_id == "PDDL-v0"
        else {}
    )
    return {**defaults, "max_episode_steps": MAX_EPISODE_STEPS, **dict(options)}


# -- the approaches ---------------------------------------------------------------------
def make_policy(condition: str, model, args: argparse.Namespace):
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


def episode_fields(policy, episode) -> dict:
    """The record: the episode (observations counted, not kept) and ``stop``, how it
    ended (the planner's status, else the policy's ``details["stop"]``)."""
    record = episode.to_json()
    record["observations"] = len(record["observations"])
    planned = getattr(policy, "result", None)
    record["stop"] = planned.status if planned is not None else episode.details.get("stop")
    return record


def outcome(record: dict) -> str:
    """Table II's column of an episode (Solved, Timeout, Early exit), ``model error`` for
    a failed model call, or ``other``."""
    if record.get("error"):
        return "model error"
    if record.get("won"):
        return "Solved"
    return OUTCOMES.get(record.get("stop"), "other")


# -- the tables ---------------------------------------------------------------------------
def by_condition(records: list[dict], conditions: list[str]) -> dict[str, list[dict]]:
    """Every scheduled record of each condition (model errors too), in the given order."""
    return {c: [r for r in records if r["condition"] == c] for c in conditions}


def beside(row: str, column: str, value: str) -> str:
    """``value`` with the paper's figure of the cell beside it, when it printed one."""
    return with_published(value, AGENTIC.tables[0].published.get((row, column)))


def table_ii(groups: dict[str, list[dict]]) -> str:
    """Table II's rows and columns over the records of one run (by condition), headed by
    its model and the paper's, reproduced beside the paper's figures, with n, success
    and its Wilson interval, and model errors."""
    records = single_run(r for group in groups.values() for r in group)
    rows = []
    for condition, group in groups.items():
        row, counts = ROWS[condition], [outcome(r) for r in group]
        solved, n = counts.count("Solved"), len(group)
        cells = [
            f"{solved} ({solved / n:.1%})" if n else "0",
            *(str(counts.count(c)) for c in COLUMNS[1:]),
        ]
        rows.append(
            [
                row,
                n,
                *(beside(row, c, v) for c, v in zip(COLUMNS, cells, strict=True)),
                success_cell(*tally(group)),
                model_errors(group),
            ]
        )
    return f"{paper_heading(AGENTIC.tables[0], records)}\n\n" + markdown_table(
        ["Approach", "n", *COLUMNS, "success [95% Wilson]", "model errors"], rows
    )


def other_failures(groups: dict[str, list[dict]]) -> str:
    """A paragraph naming the failures that are in none of Table II's columns."""
    counts = {
        ROWS[c]: [r.get("stop") for r in g if outcome(r) == "other"] for c, g in groups.items()
    }
    shown = "; ".join(
        f"{row}: {len(stops)} ({', '.join(sorted(map(str, set(stops))))})"
        for row, stops in counts.items()
        if stops
    )
    return f"\n\nFailures in none of the columns (the stop recorded): {shown}" if shown else ""


def cost_table(groups: dict[str, list[dict]]) -> str:
    """Seconds, model calls and tokens per instance, and tokens per solved instance (as
    the paper's IV-C counts them)."""
    rows = []
    for condition, group in groups.items():
        usage = [r.get("usage") or {} for r in group]
        tokens = sum(u.get("prompt_tokens", 0) + u.get("completion_tokens", 0) for u in usage)
        solved = sum(outcome(r) == "Solved" for r in group)
        model = condition not in PLANNER_CONDITIONS
        rows.append(
            [
                ROWS[condition],
                _mean(r.get("seconds", 0.0) for r in group),
                _mean(u.get("calls", 0) for u in usage) if model else "-",
                f"{tokens / len(group):,.0f}" if model and group else "-",
                f"{tokens / solved:,.0f}" if model and solved else "-",
            ]
        )
    return markdown_table(
        [
            "Approach",
            "seconds per instance",
            "model calls per instance",
            "tokens per instance",
            "tokens per solved instance",
        ],
        rows,
    )


def _mean(values) -> str:
    values = list(values)
    return f"{statistics.mean(values):.1f}" if values else "-"


def report(records: list[dict], conditions: list[str], caption: str, full: bool = True) -> str:
    """Table II over one run's records, with its notes, then (``full``) the cost."""
    groups = by_condition(records, conditions)
    text = (
        f"{table_ii(groups)}{caption}{other_failures(groups)}{model_failures(records)}\n\n"
        f"n is every scheduled instance (the paper's: {AGENTIC.n}); an episode that "
        f"ended on a failed model call is a failure, also counted under model errors."
    )
    return text + (f"\n\n### Cost\n\n{cost_table(groups)}" if full else "")


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


@study_main
def main(argv=None, model=None, show: bool = True) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same)."""
    parser = study_parser(__doc__, env="PDDL-v0", out="results/agentic", llm_required=False)
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

    def play(env, job) -> dict:
        policy = make_policy(job.condition["condition"], model, args)
        return episode_fields(policy, run_episode(env, policy, options={"instance": job.instance}))

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
        title=f"Solved within the budget per approach, {study.model or 'no model'}",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
