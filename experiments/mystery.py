"""Mystery Blocksworld: direct generation (zero- and one-shot, PlanBench's prompt), the
repair pipeline and its ablations, the closed-loop and agentic policies and Fast
Downward, with the symbol-agnostic pipeline paper's statistics.

    python experiments/mystery.py --llm openai:gpt-4o --instances 0:600 --workers 8
    python experiments/mystery.py --conditions planner \\
        -o instances=tests/data/planbench/blocksworld/generated_basic
    python experiments/mystery.py --env PDDL-v0 --conditions planner \\
        -o domain=tests/data/planbench/mystery/generated_domain.pddl \\
        -o problem=tests/data/planbench/mystery/generated_basic

``Mystery-BW-v0`` has 600 generated instances (500 of 4-5 blocks, 100 of 3);
``-o instances=FOLDER`` plays PlanBench's Blocksworld files under Mystery names, and
``PDDL-v0`` plays PlanBench's Mystery files themselves. ``--conditions`` takes a comma
list of: direct-zero-shot, direct-one-shot (the next instance, solved, as the example),
pipeline, pipeline-no-repair, pipeline-no-constraints, pipeline-no-stepwise,
closed-loop, agentic, planner. Every LLM condition has a budget of ``--attempts K``
plans (closed loop: K - 1 restarts); ``--direct-attempts`` sets the direct conditions'
apart. ``--paper`` is the pipeline paper's protocol (``planloop.protocols.mystery``): one
generation per instance in the direct conditions and ``--attempts 2``, the authors' K
for the pipeline; a flag given beside it overrides one setting, named in the caption.
Every scheduled instance is in n: an episode that ended on a failed model call is a
failure, also counted under "model errors".

``--progress-feedback ff`` (or ``add``) tells the closed-loop policy (in its
observations) and the agentic one (in ``execute_action``'s answers) whether each action
brought the goal closer by a relaxed-plan distance (``planloop.wrappers.ProgressFeedback``);
it enters the results key when on.

Each episode is judged from what it played: every attempted plan (the sampled plans a
policy records per attempt, else the actions between restarts) is replayed by the
core's validator in the names the agent sees, giving its failure kind (``parse``: no
action read, or a step naming no action of the task; ``precondition``; ``goal``), the
first failing step, its action and the unmet predicates.

``--out DIR`` receives ``episodes.jsonl`` (one record per condition and instance;
rerunning resumes), ``results.md`` (success with Wilson 95% intervals, z-tests against
the full pipeline with Cohen's h, runtimes, attempts, success against budget K, hazard
by step, failure composition, top-K NPMI between failing actions and their unmet
predicates, distributions of the failing step, action and predicate) and
``success.png``, ``retry.png``, ``hazard.png``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

from planloop.pddl import PLANNER_NAMES, PDDLError, load, parse_command, solve, validate
from planloop.policies import (
    AgenticPolicy,
    ClosedLoopPolicy,
    DirectPlanPolicy,
    PlannerPolicy,
    run_episode,
)
from planloop.policies.direct import Example
from planloop.protocols.mystery import MYSTERY
from planloop.protocols.mystery import ROWS as MYSTERY_ROWS
from planloop.stats import (
    npmi_table,
    percentile,
    trimmed_mean,
    two_proportion_z_test,
    wilson_interval,
)
from planloop.study import (
    PaperFlags,
    Study,
    StudyError,
    every_instance,
    markdown_table,
    model_errors,
    model_failures,
    positive_float,
    positive_int,
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
from planloop.wrappers import ProgressFeedback

PIPELINES = {
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
KINDS = {
    "precondition": "missing precondition",
    "goal": "goal not satisfied",
    "parse": "parse or translation error",
}
TRIM = 0.1  # the trimmed mean cuts 10% of the runtimes from each end


def parse_conditions(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in CONDITIONS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"conditions are a comma list of {', '.join(CONDITIONS)}"
            f"; not {', '.join(unknown) or 'empty'}"
        )
    return list(dict.fromkeys(names))


# -- the conditions ---------------------------------------------------------------------
def pipeline_class():
    """RepairPipelinePolicy, imported when a pipeline condition is asked for."""
    try:
        from planloop.policies import RepairPipelinePolicy
    except ImportError as exc:
        raise StudyError(
            f"the pipeline conditions need planloop.policies.RepairPipelinePolicy: {exc}"
        ) from None
    return RepairPipelinePolicy


def solved_example(env, instance: int) -> Example:
    """The next instance (after the last, the first) and a plan of it by the core's
    planner, in the names the agent sees: PlanBench's one-shot example."""
    game = env.unwrapped
    task = game.load_instance((instance + 1) % game.num_instances)
    pddl = game.view.task_pddl(task)
    result = solve(pddl["domain_pddl"], pddl["problem_pddl"], planner="auto", timeout=60)
    if not result.solved:
        raise StudyError(
            f"no plan for the one-shot example of instance {instance}: "
            f"{result.status} {result.message}"
        )
    return Example(pddl["problem_pddl"], tuple(result.plan))


def make_policy(condition: str, model, env, job, args):
    """The condition's policy for one episode."""
    if condition == "planner":
        return PlannerPolicy(args.planner, args.planner_timeout)
    if condition.startswith("direct"):
        examples = [solved_example(env, job.instance)] if condition == "direct-one-shot" else []
        return DirectPlanPolicy.paper(
            model,
            max_attempts=args.direct_attempts or args.attempts,
            max_seconds=args.max_seconds,
            temperature=args.temperature,
            prompt="planbench",
            examples=examples,
        )
    if condition in PIPELINES:
        return pipeline_class()(
            model, max_attempts=args.attempts, temperature=args.temperature, **PIPELINES[condition]
        )
    if condition == "closed-loop":
        return ClosedLoopPolicy(
            model,
            horizon=1,
            max_actions=args.max_actions,
            max_restarts=args.attempts - 1,
            temperature=args.temperature,
            seed=job.trial,
        )
    return AgenticPolicy(
        model,
        temperature=args.temperature,
        seconds=args.max_seconds,
        end_on_valid_plan=True,
        feedback=args.agentic_feedback,
    )


# -- the record ---------------------------------------------------------------------------
def played_plans(episode) -> list[list[str]]:
    """The actions played between restarts: a restart shows the first observation again,
    while every step's observation opens with its feedback."""
    plans, actions = [[]], iter(episode.actions)
    for observation in episode.observations[1:]:
        if observation == episode.observations[0]:
            plans.append([])
        else:
            plans[-1].append(next(actions))
    return plans


def attempted_plans(episode) -> list[list[str]]:
    """Every plan the episode tried: the commands a policy records per attempt in
    ``details["attempts"]`` (``plan`` as a list, or the repair pipeline's
    ``translation["steps"]``), else the plans it played."""
    plans = [_commands(attempt) for attempt in episode.details.get("attempts") or []]
    return plans if plans and None not in plans else played_plans(episode)


def _commands(attempt) -> list[str] | None:
    if not isinstance(attempt, dict):
        return None
    plan = attempt.get("plan")
    steps = (attempt.get("translation") or {}).get("steps")
    return plan if isinstance(plan, list) else steps if isinstance(steps, list) else None


def judge_plan(task, plan: list[str]) -> dict:
    """The plan replayed by the validator: its failure ``kind`` (None when valid), the
    first failing ``step`` (1-based), its ``action`` name and the ``unmet`` predicates
    (of the failing step, or of the goal)."""
    verdict = {"kind": None, "step": None, "action": None, "unmet": [], "length": len(plan)}
    if not plan:
        return {**verdict, "kind": "parse"}  # nothing in the answer read as an action
    try:
        report = validate(task, plan)
    except PDDLError:
        step = next(i for i, command in enumerate(plan, 1) if not _readable(command))
        return {**verdict, "kind": "parse", "step": step}
    if report.valid:
        return verdict
    if report.failure == "bad_action":
        return {**verdict, "kind": "parse", "step": report.failed_step}
    return {
        **verdict,
        "kind": report.failure,
        "step": report.failed_step,
        "action": _readable(report.action)[0] if report.action else None,
        "unmet": sorted({u.atom.predicate for u in report.unmet}),
    }


def _readable(command: str) -> tuple[str, tuple[str, ...]] | None:
    try:
        return parse_command(command)
    except ValueError:
        return None


def episode_fields(env, episode) -> dict:
    """The record: the episode (observations counted, not kept), every attempted plan
    judged (``plans``), their number (``attempts``), the played plan's failure
    (``failure``, ``failed_step``, ``failed_action``, ``unmet``) and the kinds of
    failure met over all attempts (``failure_kinds``)."""
    _, info = env.unwrapped.observe()
    task = load(info["domain_pddl"], info["problem_pddl"])
    judged = [judge_plan(task, plan) for plan in attempted_plans(episode)]
    final = judge_plan(task, played_plans(episode)[-1])
    record = episode.to_json()
    record["observations"] = len(record["observations"])
    record.update(
        plans=judged,
        attempts=len(judged),
        failure=None if episode.won else final["kind"],
        failed_step=final["step"],
        failed_action=final["action"],
        unmet=final["unmet"],
        failure_kinds=sorted({j["kind"] for j in judged + [final] if j["kind"]}),
    )
    return record


# -- the tables ---------------------------------------------------------------------------
def by_condition(records: list[dict], conditions: list[str]) -> dict[str, list[dict]]:
    """The records of each condition, in the given order (those that ended on a model
    error too: they are failures in n)."""
    return {c: [r for r in records if r["condition"] == c] for c in conditions}


def _seconds(values: list[float]) -> list[str]:
    if not values:
        return ["-"] * 4
    return [
        f"{v:.2f}"
        for v in (
            percentile(values, 50),
            percentile(values, 90),
            statistics.mean(values),
            trimmed_mean(values, TRIM),
        )
    ]


def success_table(groups: dict[str, list[dict]], failed: Counter) -> str:
    rows = [
        [
            c,
            success_cell(*tally(g)),
            f"{statistics.mean(r['attempts'] for r in g):.2f}" if g else "-",
            *_seconds([r["seconds"] for r in g]),
            f"{statistics.mean(r['usage']['calls'] for r in g):.1f}" if g else "-",
            failed[c],
        ]
        for c, g in groups.items()
    ]
    return markdown_table(
        [
            "condition",
            "success [95% Wilson]",
            "attempts per instance",
            "seconds p50",
            "p90",
            "mean",
            f"trimmed mean ({TRIM:.0%})",
            "model calls",
            "model errors",
        ],
        rows,
    )


def paper_table(records: list[dict]) -> str:
    """Table 1's rows (direct one-shot, direct zero-shot, pipeline) over the records of
    one run, headed by its model and the paper's: success beside the paper's figure,
    its Wilson interval, n and the model errors."""
    [layout] = MYSTERY.tables
    records, rows = single_run(records), []
    for condition, row in MYSTERY_ROWS.items():
        group = [r for r in records if r["condition"] == condition]
        wins, n = tally(group)
        low, high = wilson_interval(wins, n)
        rate = f"{wins}/{n} ({wins / n:.1%})" if n else "0/0"
        rows.append(
            [
                row,
                with_published(rate, layout.published.get((row, "success"))),
                f"[{low:.1%}, {high:.1%}]",
                n,
                model_errors(group),
            ]
        )
    return f"{paper_heading(layout, records)}\n\n" + markdown_table(
        ["", "success", "95% Wilson", "n", "model errors"], rows
    )


def tests_table(groups: dict[str, list[dict]]) -> str:
    """Each condition against the full pipeline (the first condition without one)."""
    reference = "pipeline" if "pipeline" in groups else next(iter(groups))
    base_wins, base_n = tally(groups[reference])
    rows = []
    for condition, group in groups.items():
        wins, n = tally(group)
        if condition == reference or not n or not base_n:
            continue
        test = two_proportion_z_test(wins, n, base_wins, base_n)
        rows.append(
            [
                condition,
                reference,
                f"{wins / n - base_wins / base_n:+.1%}",
                f"{test.z:.2f}",
                f"{test.p:.3g}",
                f"{test.h:+.2f}",
            ]
        )
    return (
        markdown_table(
            ["condition", "against", "difference", "z", "p (two-sided)", "Cohen's h"], rows
        )
        if rows
        else "(one condition: nothing to test)"
    )


def retry_points(group: list[dict], budget: int) -> list[tuple[str, int, int]]:
    """Success within k attempts, k = 1..budget: won with at most k plans tried (the LLM
    conditions; the planner has no budget of plans)."""
    return [
        (str(k), sum(r["won"] and r["attempts"] <= k for r in group), len(group))
        for k in range(1, budget + 1)
    ]


def retry_table(groups: dict[str, list[dict]], budget: int) -> str:
    rows = [
        [c, *(success_cell(w, n) for _, w, n in retry_points(g, budget))]
        for c, g in groups.items()
        if c != "planner"
    ]
    return (
        markdown_table(["condition", *(f"K = {k}" for k in range(1, budget + 1))], rows)
        if rows
        else "(no LLM condition)"
    )


def hazard(group: list[dict]) -> dict[int, tuple[int, int]]:
    """Step -> (plans failing first at it, plans reaching it), over every attempted plan:
    a plan reaches step s when it has s steps and none failed before s."""
    reached, failed = Counter(), Counter()
    for plan in (p for r in group for p in r["plans"]):
        failing = plan["step"] if plan["kind"] in ("precondition", "parse") else None
        for step in range(1, min(plan["length"], failing or plan["length"]) + 1):
            reached[step] += 1
        if failing:
            failed[failing] += 1
    return {step: (failed[step], reached[step]) for step in sorted(reached)}


def hazard_table(groups: dict[str, list[dict]]) -> str:
    tables = {c: hazard(g) for c, g in groups.items()}
    steps = sorted({s for t in tables.values() for s in t})
    rows = [
        [
            s,
            *(
                f"{t[s][0]}/{t[s][1]} ({t[s][0] / t[s][1]:.0%})" if s in t else "-"
                for t in tables.values()
            ),
        ]
        for s in steps
    ]
    return markdown_table(["step", *groups], rows) if rows else "(no plan played a step)"


def composition_table(groups: dict[str, list[dict]]) -> str:
    """Failed episodes by the kinds of failure met over their attempts, and overlaps."""
    rows = []
    for condition, group in groups.items():
        failed = [r for r in group if not r["won"]]
        kinds = [tuple(r["failure_kinds"]) for r in failed]
        overlaps = Counter(" + ".join(k) for k in kinds if len(k) > 1)
        rows.append(
            [
                condition,
                len(failed),
                *(sum(kind in k for k in kinds) for kind in KINDS),
                "; ".join(f"{k}: {n}" for k, n in sorted(overlaps.items())) or "-",
            ]
        )
    return markdown_table(
        ["condition", "failed", *KINDS.values(), "overlaps"], rows, align="lrrrrl"
    )


def failing_steps(group: list[dict]) -> list[dict]:
    """Every attempted plan's step that failed on a missing precondition."""
    return [p for r in group for p in r["plans"] if p["kind"] == "precondition"]


def npmi_rows(groups: dict[str, list[dict]], top: int) -> str:
    rows = []
    for condition, group in groups.items():
        steps = failing_steps(group)
        together = Counter((s["action"], u) for s in steps for u in s["unmet"])
        scores = npmi_table((s["action"], s["unmet"]) for s in steps)
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        chosen = ranked[:top] + [p for p in ranked[::-1][:top] if p not in ranked[:top]]
        rows += [
            [condition, action, predicate, f"{score:+.2f}", together[action, predicate]]
            for (action, predicate), score in chosen
        ]
    return (
        markdown_table(
            ["condition", "action", "predicate", "NPMI", "failing steps"], rows, align="lllrr"
        )
        if rows
        else "(no failing step)"
    )


def distribution_table(groups: dict[str, list[dict]]) -> str:
    def shown(counts: Counter) -> str:
        return ", ".join(f"{k}: {n}" for k, n in sorted(counts.items())) or "-"

    rows = []
    for condition, group in groups.items():
        steps = [p for r in group for p in r["plans"] if p["step"]]
        rows.append(
            [
                condition,
                shown(Counter(p["step"] for p in steps)),
                shown(Counter(p["action"] for p in failing_steps(group))),
                shown(Counter(u for p in failing_steps(group) for u in p["unmet"])),
            ]
        )
    return markdown_table(
        ["condition", "failing step", "failing action", "unmet predicate"], rows, align="llll"
    )


def save_hazard_plot(groups: dict[str, list[dict]], path: Path, about: str) -> bool:
    """Hazard by step, a series per condition, each point failed/reached with its
    Wilson interval; False (and no file) without matplotlib."""
    tables = {c: hazard(g) for c, g in groups.items()}
    series = {
        c: [(str(step), failed, reached) for step, (failed, reached) in table.items()]
        for c, table in tables.items()
        if table
    }
    steps = sorted({step for table in tables.values() for step in table})
    return save_success_plot(
        series,
        path,
        "step of the plan (1-based)",
        "hazard: P(first failure at the step | reached)",
        title=f"Where plans fail: hazard by step, {about}",
        ordered=True,
        order=[str(step) for step in steps],
    )


def report(
    records: list[dict], conditions: list[str], budget: int, top: int, full: bool = True
) -> str:
    """The tables of one run's records: success, then (``full``) the tests, the retry
    curve, the hazard, the failure composition, NPMI and the distributions."""
    groups = by_condition(records, conditions)
    failed = Counter(r["condition"] for r in records if r.get("error"))
    sections = [("Success", success_table(groups, failed))]
    if full:
        sections += [
            ("Tests against the full pipeline (pooled two-proportion z-test)", tests_table(groups)),
            ("Success against budget K (the retry-benefit curve)", retry_table(groups, budget)),
            (
                "Hazard by step: plans failing first at a step / plans reaching it",
                hazard_table(groups),
            ),
            (
                "Failure composition (failed episodes, kinds met over their attempts)",
                composition_table(groups),
            ),
            (
                f"Top-{top} NPMI between failing actions and their unmet predicates",
                npmi_rows(groups, top),
            ),
            ("Distributions over the failing steps of every attempt", distribution_table(groups)),
        ]
    return "\n\n".join(f"### {title}\n\n{body}" for title, body in sections) + model_failures(
        records
    )


@study_main
def main(argv=None, model=None, show: bool = True) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same)."""
    parser = study_parser(__doc__, env="Mystery-BW-v0", out="results/mystery", llm_required=False)
    parser.add_argument(
        "--conditions",
        type=parse_conditions,
        default=list(CONDITIONS),
        help=f"a comma list of {', '.join(CONDITIONS)} (default all)",
    )
    paper = PaperFlags(parser, MYSTERY, temperature=0.2)
    paper.add(
        "--attempts",
        type=positive_int,
        default=5,
        metavar="K",
        help="plans per episode for the LLM conditions (default 5; the paper's 2)",
    )
    paper.add(
        "--direct-attempts",
        type=positive_int,
        default=None,
        metavar="K",
        help="plans per episode of the direct conditions (default: --attempts; the paper's 1)",
    )
    parser.add_argument(
        "--max-seconds",
        type=positive_float,
        default=180.0,
        metavar="S",
        help="the time budget of direct generation and of the agentic "
        "condition (default 180, the papers')",
    )
    parser.add_argument(
        "--agentic-feedback",
        choices=("outcome", "cause"),
        default="outcome",
        help="execute_action answers success or failure only (default, the "
        "agentic paper's) or also the unmet facts",
    )
    parser.add_argument(
        "--max-actions",
        type=positive_int,
        default=50,
        metavar="N",
        help="the closed loop's cap on actions (default 50)",
    )
    parser.add_argument(
        "--progress-feedback",
        choices=("off", "ff", "add"),
        default="off",
        help="tell the policies after each action whether the goal came "
        "closer, by h_FF or h_add (default off)",
    )
    parser.add_argument(
        "--planner",
        default="lama-first",
        choices=PLANNER_NAMES,
        help="the planner condition's Fast Downward configuration (default lama-first)",
    )
    parser.add_argument("--planner-timeout", type=positive_float, default=60.0, metavar="S")
    parser.add_argument(
        "--top-k", type=positive_int, default=5, help="NPMI pairs shown each way (default 5)"
    )
    args = parser.parse_args(argv)
    settings = paper.resolve(args, model.name if model else None)
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
        settings={
            "attempts": args.attempts,
            "temperature": args.temperature,
            "max_seconds": args.max_seconds,
            "max_actions": args.max_actions,
            "agentic_feedback": args.agentic_feedback,
            "planner": args.planner,
            "planner_timeout": args.planner_timeout,
            **(
                {"progress_feedback": args.progress_feedback}
                if args.progress_feedback != "off"
                else {}
            ),
            **({"direct_attempts": args.direct_attempts} if args.direct_attempts else {}),
            **settings.recorded(),
        },
    )

    def play(env, job) -> dict:
        if args.progress_feedback != "off":
            env = ProgressFeedback(env, args.progress_feedback)
        policy = make_policy(job.condition["condition"], model, env, job, args)
        return episode_fields(env, run_episode(env, policy, options={"instance": job.instance}))

    jobs = study.jobs([{"condition": c} for c in args.conditions], instances, args.trials)
    records = run_study(study, jobs, play, check=built, model=model, **run_options(args))
    protocol = f"\n\n{MYSTERY.caption(settings.overrides)}" if settings.paper else ""

    def text(full: bool) -> str:
        return "\n\n".join(
            f"## {args.env}, {run_caption(group)}\n\n"
            + report(group, args.conditions, args.attempts, args.top_k, full)
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
    retry = {c: retry_points(g, args.attempts) for c, g in groups.items() if c != "planner"}
    if retry:
        save_success_plot(
            retry,
            args.out / "retry.png",
            "budget K (plans)",
            ordered=True,
            title=f"Success within K plans (the retry-benefit curve), {args.env}, "
            f"{study.model or 'no model'}",
        )
    save_hazard_plot(groups, args.out / "hazard.png", f"{args.env}, {study.model or 'no model'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
