"""The agentic step-wise planning paper (PyPDDLEngine, "Agentic LLM Planning via
Step-Wise PDDL Simulation", arXiv 2603.06064), Tables I, II and III: Fast Downward
lama-first and seq-sat-lama-2011, a direct LLM baseline and the agentic loop on IPC
Blocksworld, each with one wall-clock budget per instance.

    python experiments/agentic.py --paper --llm openai:MODEL --workers 4
    python experiments/agentic.py --paper --llm openai:MODEL -o problem=FOLDER

By default ``PDDL-v0`` plays the IPC-2000 Blocksworld files this checkout ships in
``tests/data/ipc2000-blocks``: the typed domain and 6 of the paper's 102 instances
(instance-1, -2, -3, -10, -20, -35). The paper's 102 are IPC-2000's typed Blocksworld,
``instance-1.pddl`` to ``instance-102.pddl`` as potassco/pddl-instances names them
(``ipc-2000/domains/blocks-strips-typed/instances``): ``-o problem=FOLDER`` plays a folder
of them in their original order (file names in natural order), ``-o domain=FILE`` takes
another domain. planloop ships their SHA-256 in the paper's order
(``planloop/envs/data/ipc2000_blocks/SHA256SUMS``, its README says where to get them):
each record's ``paper_instance`` is its file's place in that order (None for a file that
is not one of them), and every table says how many instances ran and how many are the
paper's. An episode may play up to 10,000 steps (``-o max_episode_steps=N``), so that no
plan is cut short.

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

Tables I and III are plan lengths (the actions of a solved instance's plan, after its
last restart) by difficulty block, the paper's places 0-9, 10-19, ..., 100-101: Table I
over the instances both Fast Downward configurations solved, Table III over those all
four approaches solved (the co-solved set).

``--out DIR`` receives ``episodes.jsonl`` (one record per approach and instance;
rerunning resumes), ``results.md`` (Table II, the cost of each approach, then Tables I and
III when the run has their approaches, each beside the paper's figures) and
``success.png``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import statistics
import sys
from importlib import resources
from pathlib import Path

from planloop.envs import FULLY_OBSERVABLE
from planloop.pddl.source import source_path
from planloop.policies import AgenticPolicy, DirectPlanPolicy, PlannerPolicy, run_episode
from planloop.protocols import PaperTable
from planloop.protocols.agentic import (
    AGENTIC,
    COLUMNS,
    COST,
    PAPER_INSTANCES,
    ROWS,
    TABLE_I,
    TABLE_II,
    TABLE_III,
)
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


def episode_fields(policy, episode, place: int | None) -> dict:
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


@functools.cache
def paper_checksums() -> dict[str, int]:
    """The SHA-256 of each of the paper's 102 problem files -> its place (0-based) in the
    paper's order (``planloop/envs/data/ipc2000_blocks/SHA256SUMS``)."""
    sums = resources.files("planloop.envs") / "data" / "ipc2000_blocks" / "SHA256SUMS"
    digests = [line.split()[0] for line in sums.read_text().splitlines() if "instances/" in line]
    return {digest: place for place, digest in enumerate(digests)}


def paper_place(env, instance: int) -> int | None:
    """The place in the paper's order of the problem file ``instance`` plays, found by
    its SHA-256; None when it is no file or not one of the paper's 102."""
    problems = getattr(env.unwrapped, "problems", None)
    path = source_path(problems[instance]) if problems else None
    if path is None or not path.is_file():
        return None
    return paper_checksums().get(hashlib.sha256(path.read_bytes()).hexdigest())


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
    return with_published(value, TABLE_II.published.get((row, column)))


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
    return (
        f"{paper_heading(TABLE_II, records)}\n\n"
        + markdown_table(["Approach", "n", *COLUMNS, "success [95% Wilson]", "model errors"], rows)
        + f"\n\n{instances_note(records)}"
    )


def instances_note(records: list[dict]) -> str:
    """How many instances ran, and how many of them are the paper's (by checksum)."""
    ran = {r["instance"] for r in records}
    places = sorted({r["paper_instance"] for r in records if r.get("paper_instance") is not None})
    named = ", ".join(f"instance-{place + 1}" for place in places)
    others = len(ran) - len(places)
    return (
        f"Instances: {len(ran)} ran (the paper ran {PAPER_INSTANCES}); by their SHA-256, "
        f"{len(places)} are among the paper's IPC-2000 instances"
        + (f" ({named})" if 0 < len(places) <= 12 else "")
        + (f", {others} not (in no difficulty block)" if others > 0 else "")
        + "."
    )


def plan_length(record: dict) -> int:
    """The actions of the plan an episode ended with (those after its last restart)."""
    return len(record["actions"]) - (record.get("restarted_after") or [0])[-1]


def lengths_table(table: PaperTable, conditions: tuple[str, ...], records: list[dict]) -> str:
    """Table I or III over one run's records: per difficulty block, the instances every
    one of ``conditions`` solved and the mean plan length of each, beside the paper's
    figures (Table I adds lama-first's mean minus seq-sat-lama-2011's)."""
    records = single_run(records)
    solved = {
        c: {
            (r["paper_instance"], r["trial"]): plan_length(r)
            for r in records
            if r["condition"] == c
            and outcome(r) == "Solved"
            and r.get("paper_instance") is not None
        }
        for c in conditions
    }
    common = set.intersection(*(set(lengths) for lengths in solved.values()))
    rows = []
    for index, block in enumerate(table.rows):
        keys = [key for key in common if key[0] // 10 == index]
        means = [statistics.mean(solved[c][k] for k in keys) if keys else None for c in conditions]
        if table is TABLE_I:
            means.append(means[0] - means[1] if keys else None)
        cells = [str(len(keys)), *("-" if m is None else f"{m:.1f}" for m in means)]
        rows.append(
            [
                block,
                *(
                    with_published(cell, table.published.get((block, column)))
                    for column, cell in zip(table.columns, cells, strict=True)
                ),
            ]
        )
    *others, last = (ROWS[c] for c in conditions)
    solvers = f"{', '.join(others)} and {last}"
    return (
        f"{paper_heading(table, records)}\n\n"
        + markdown_table(["Block", *table.columns], rows)
        + f"\n\nPlan length: the actions of the plan of an instance solved by {solvers}, "
        f"mean per block; blocks: the instances' places in the paper's order, ten to a "
        f"block; a cell without the paper's figure is one it printed none for. "
        f"{instances_note(records)}"
    )


def table_i(records: list[dict]) -> str:
    """Table I: Fast Downward's plan lengths by difficulty block."""
    return lengths_table(TABLE_I, PLANNER_CONDITIONS, records)


def table_iii(records: list[dict]) -> str:
    """Table III: every approach's plan lengths on the co-solved instances by block."""
    return lengths_table(TABLE_III, CONDITIONS, records)


def paper_tables(records: list[dict]) -> dict[str, str]:
    """The paper's Tables I, II and III over one run's records."""
    return {
        "table-i": table_i(records),
        "table-ii": table_ii(by_condition(records, list(CONDITIONS))),
        "table-iii": table_iii(records),
    }


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
    the paper's IV-C counts them), the tokens beside the paper's figures."""
    rows = []
    for condition, group in groups.items():
        usage = [r.get("usage") or {} for r in group]
        tokens = sum(u.get("prompt_tokens", 0) + u.get("completion_tokens", 0) for u in usage)
        solved = sum(outcome(r) == "Solved" for r in group)
        model, row = condition not in PLANNER_CONDITIONS, ROWS[condition]
        per = {
            "tokens per instance": f"{tokens / len(group):,.0f}" if model and group else "-",
            "tokens per solved instance": f"{tokens / solved:,.0f}" if model and solved else "-",
        }
        rows.append(
            [
                row,
                _mean(r.get("seconds", 0.0) for r in group),
                _mean(u.get("calls", 0) for u in usage) if model else "-",
                *(with_published(v, COST.published.get((row, c))) for c, v in per.items()),
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
    """Table II over one run's records, with its notes, then (``full``) the cost and
    Tables I and III (when the run has their approaches)."""
    groups = by_condition(records, conditions)
    text = (
        f"{table_ii(groups)}{caption}{other_failures(groups)}{model_failures(records)}\n\n"
        f"n is every scheduled instance (the paper's: {AGENTIC.n}); an episode that "
        f"ended on a failed model call is a failure, also counted under model errors."
    )
    if not full:
        return text
    text += f"\n\n### Cost\n\n{cost_table(groups)}"
    if set(PLANNER_CONDITIONS) <= set(conditions):
        text += f"\n\n{table_i(records)}"
    return text + (f"\n\n{table_iii(records)}" if set(CONDITIONS) <= set(conditions) else "")


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


if __name__ == "__main__":
    sys.exit(main())
