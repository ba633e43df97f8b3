"""Natural language to PDDL problems with planner-in-the-loop repair, judged exactly.

Each problem is generated (by size and seed; by seed alone for CoinCollector's hidden
worlds) or read, described in words, and written back in PDDL by
the model: one shot, then up to ``--max-iterations`` repairs, each asked with the
diagnostics of the check that failed (the reader's line and column; Fast Downward's
status, exit code, runtime and log, with the reasons the relaxation proves for an
unsolvable task; the validator's verdict on the plan), until a plan validates.

    python experiments/formalize.py --llm openai:gpt-4o-mini --per-cell 5
    python experiments/formalize.py --llm groundtruth --domains blocksworld,gripper \\
        --sizes 10,20,30,40 --per-cell 2
    python experiments/formalize.py --llm scripted-defects --sizes 10 --per-cell 1
    python experiments/formalize.py --paper --llm URL@MODEL
    python experiments/formalize.py --llm URL@MODEL --domain my/domain.pddl \\
        --problems my/problems/

``--llm groundtruth`` writes the reference problem (every metric 1);
``scripted-defects`` writes it with one known defect first (``--defects``: syntax,
undeclared_object, wrong_arity, missing_fact, swapped_goal, renamed_objects), then
without it once the loop has said what is wrong. Metrics per problem, for the final
candidate and the candidate kept after each iteration (the repair curve), as the
NL-PDDL-Bench paper defines them (eq. 6-18): SVR (it parses), PSR (solved, over those
that parse), TSR (Jaccard of the initial and goal atoms as written), CR (planner
outcomes agree; when the reference is solvable, plan lengths within max(1, ceil(0.05 c))
and max(edit, multiset) similarity of the grounded action strings as written >= 0.8).
Names count: a renamed object loses every atom and plan step that names it. Beside
them, TSR and CR (names matched), the same after renaming the candidate's objects to
the reference's (a renaming alone scores 1 there), EQ (the reference problem up to a
renaming of objects) and goal EQ (the same goal states). Every scheduled problem is in
n: one whose episode ended on a model error fails every rate and is counted under
"model errors".

``--paper`` runs the paper's protocol (planloop.protocols.nl_pddl: 5 repairs, sizes
10-40, 63 problems per domain and size) and adds its Table 3 (Baseline = the one-shot
candidate, Planner-in-the-loop = the final one) with the published figures beside;
a flag given with it overrides one setting, named in the caption.

``--out DIR`` receives ``episodes.jsonl`` (one record per problem, appended as each
ends; a rerun resumes), ``results.md`` (every table, one section per run; the final
candidates, or Table 3 under ``--paper``, are printed at the end) and ``repair.png`` (the
repair curves).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import asdict
from pathlib import Path
from typing import NamedTuple

from planloop.envs.pddl_env import problem_sources
from planloop.envs.problem_sets import DOMAINS, problem_set
from planloop.formalizer.problems import (
    DEFECTS,
    MAX_ITERATIONS,
    METRICS,
    MODEL_ERROR,
    PROMPT_VERSION,
    Reference,
    best_so_far,
    defect_writer,
    formalize_problem,
    reference_writer,
    score,
)
from planloop.llm import LLMError
from planloop.pddl import (
    PLANNER_NAMES,
    PDDLError,
    describe_problem,
    parse_domain,
    parse_problem,
    solve,
)
from planloop.pddl.model import Domain, Problem
from planloop.protocols.nl_pddl import NL_PDDL, SIZES
from planloop.study import (
    PaperFlags,
    Study,
    StudyError,
    markdown_table,
    model_errors,
    model_failures,
    non_negative_int,
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
    with_published,
)
from planloop.study.runs import paper_heading, run_caption, single_run, split_runs

BUILT_IN = ("groundtruth", "scripted-defects")
SIZED = tuple(name for name, problems in DOMAINS.items() if problems.sized)
RATES = ("svr", "psr", "cr", "cr_matched", "eq", "goal_eq")
MEANS = ("tsr", "tsr_matched")  # the rest are rates
LABELS = {
    "svr": "SVR",
    "psr": "PSR",
    "tsr": "TSR",
    "cr": "CR",
    "tsr_matched": "TSR (names matched)",
    "cr_matched": "CR (names matched)",
    "eq": "EQ",
    "goal_eq": "goal EQ",
}
METRICS_JUDGED = "as written"  # in the key: records scored after a renaming are not resumed


class Instance(NamedTuple):
    """A problem to formalize: its domain, the reference problem (its text and the problem
    it reads as) and its description."""

    domain: Domain
    reference: str
    problem: Problem
    description: str


_USER_DOMAINS: dict[str, Domain] = {}  # not lru_cache, which Ray cannot send


def _user_domain(path: str) -> Domain:
    if path not in _USER_DOMAINS:
        _USER_DOMAINS[path] = parse_domain(Path(path).read_text())
    return _USER_DOMAINS[path]


def instance_of(condition: dict, index: int) -> Instance:
    """The problem a job formalizes: generated from (size, seed = index) or from the seed
    alone, the index-th fixed problem, or the index-th file of a user's folder."""
    if "problems" in condition:
        domain = _user_domain(condition["domain"])
        reference = Path(problem_sources(condition["problems"])[index]).read_text()
        problem = parse_problem(reference, domain)
        return Instance(domain, reference, problem, describe_problem(domain, problem, index))
    problems = problem_set(condition["domain"])
    reference = (
        problems.generate(condition["size"], index)
        if problems.sized
        else problems.seeded(index)
        if problems.seeded
        else problems.problems()[index]
    )
    problem = problems.parse(reference)
    return Instance(problems.domain(), reference, problem, problems.describe(problem, index))


def writer_for(llm, condition: dict, instance: Instance):
    if llm == "groundtruth":
        return reference_writer(instance.reference)
    if llm == "scripted-defects":
        return defect_writer(condition["defect"], instance.domain, instance.problem)
    return llm


def run_problem(llm, condition: dict, index: int, args) -> dict:
    """Formalize one problem and judge every candidate against the reference."""
    instance = instance_of(condition, index)
    domain = instance.domain
    solved = solve(domain, instance.problem, planner=args.planner, timeout=args.timeout)
    reference = Reference(instance.problem, solved.solved, tuple(solved.plan or ()))
    try:
        result = formalize_problem(
            writer_for(llm, condition, instance),
            domain,
            instance.description,
            args.max_iterations,
            args.planner,
            args.timeout,
            args.temperature,
        )
    except LLMError as exc:
        return {"won": False, "error": str(exc), "error_kind": exc.kind}
    verdicts = result.verdicts
    scores = [score(domain, reference, verdict) for verdict in verdicts]
    curve = [
        scores[best_so_far(verdicts, min(t, len(verdicts) - 1))]
        for t in range(args.max_iterations + 1)
    ]
    kept = verdicts[result.kept]
    return {
        "won": kept.ok,
        "prompt_version": PROMPT_VERSION,
        "description": instance.description,
        "reference_status": solved.status,
        "reference_plan_length": len(reference.plan),
        "metrics": scores[result.kept],
        "by_iteration": curve,
        "iterations": len(verdicts) - 1,
        "repaired_at": result.repaired_at,
        "final": kept.text,
        "candidates": [
            {"stage": v.stage, "message": v.message[:2000], "planner": v.planner, "metrics": s}
            for v, s in zip(verdicts, scores, strict=True)
        ],
        "usage": asdict(result.usage),
    }


# -- tables ------------------------------------------------------------------------------


def final_metrics(record: dict) -> dict:
    """The kept candidate's metrics; a failure in every rate after a model error."""
    return MODEL_ERROR if record.get("error") else record["metrics"]


def metrics_at(record: dict, iteration: int) -> dict:
    """The metrics of the candidate kept after ``iteration`` (0: the one shot)."""
    return MODEL_ERROR if record.get("error") else record["by_iteration"][iteration]


def rate_cell(values: list) -> str:
    """``7/9 [45%, 94%]`` over the values that are not None."""
    counted = [v for v in values if v is not None]
    return success_cell(sum(counted), len(counted)) if counted else "-"


def mean_cell(values: list[float]) -> str:
    """The mean with a normal-approximation 95% interval, clipped to [0, 1]."""
    if not values:
        return "-"
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return f"{mean:.3f} [{max(0.0, mean - half):.2f}, {min(1.0, mean + half):.2f}]"


def metric_cell(metrics: list[dict], name: str) -> str:
    values = [m[name] for m in metrics]
    return mean_cell(values) if name in MEANS else rate_cell(values)


def group_table(records: list[dict], fields: tuple[str, ...]) -> str:
    """One row per value of ``fields``: the final candidates' metrics over every
    scheduled problem, model errors, repairs and iterations (over the problems played)."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault(tuple(record.get(f) for f in fields), []).append(record)
    rows = []
    for key, group in groups.items():
        played = [r for r in group if not r.get("error")]
        repairs = f"{statistics.fmean(r['iterations'] for r in played):.2f}" if played else "n/a"
        rows.append(
            [
                *("-" if v is None else v for v in key),
                len(group),
                model_errors(group),
                *(metric_cell([final_metrics(r) for r in group], m) for m in METRICS),
                sum(r["repaired_at"] is not None for r in played),
                repairs,
            ]
        )
    return markdown_table(
        [
            *fields,
            "problems",
            "model errors",
            *(LABELS[m] for m in METRICS),
            "repaired",
            "mean repairs",
        ],
        rows,
    )


def curve_table(records: list[dict], iterations: int) -> str:
    """The metrics of the candidate kept after each iteration, over every problem."""
    rows = [
        [t, *(metric_cell([metrics_at(r, t) for r in records], m) for m in METRICS)]
        for t in range(iterations + 1)
    ]
    return markdown_table(["iteration", *(LABELS[m] for m in METRICS)], rows)


def curve_plot(records: list[dict], iterations: int, path: Path, show: bool = True) -> None:
    series = {
        LABELS[name]: [
            (
                str(t),
                sum(metrics_at(r, t)[name] or 0 for r in records),
                sum(metrics_at(r, t)[name] is not None for r in records),
            )
            for t in range(iterations + 1)
        ]
        for name in RATES
    }
    (show_success_plot if show else save_success_plot)(
        series,
        path,
        "iteration (repairs made)",
        "rate",
        ordered=True,
        title="The repair curve: the candidate kept after each iteration, "
        f"{len(records)} problems, "
        + ", ".join(sorted({str((r.get("provenance") or {}).get("model")) for r in records})),
    )


def paper_table(records: list[dict]) -> str:
    """Table 3's layout over the records of one run, headed by its model and the paper's:
    Baseline (the one-shot candidates) and Planner-in-the-loop (the final ones) by SVR,
    PSR, TSR and CR over every scheduled problem, the paper's figure beside each, then n
    and the model errors."""
    [table] = NL_PDDL.tables
    records = single_run(records)
    by_row = {
        "Baseline": [metrics_at(r, 0) for r in records],
        "Planner-in-the-loop": [final_metrics(r) for r in records],
    }
    rows = []
    for row in table.rows:
        cells = []
        for column in table.columns:
            cell = metric_cell(by_row[row], column.lower())
            cells.append(with_published(cell, table.published.get((row, column))))
        rows.append([row, *cells, len(records), model_errors(records)])
    return f"{paper_heading(table, records)}\n\n" + markdown_table(
        ["", *table.columns, "n", "model errors"], rows
    )


# -- main --------------------------------------------------------------------------------


def _names(text: str, known: tuple[str, ...], what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise StudyError(
            f"unknown {what} {', '.join(unknown) or repr(text)}; choose from {', '.join(known)}"
        )
    return names


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise StudyError(f"--sizes is a comma list of object counts, not {text!r}")
    return sizes


def conditions(args) -> list[tuple[dict, range]]:
    """(condition, its instances): each domain and size, a fixed set, or a user folder."""
    if args.problems or args.domain:
        if not (args.problems and args.domain):
            raise StudyError("--domain FILE and --problems DIR go together")
        if not args.problems.is_dir():
            raise StudyError(f"--problems {args.problems} is no folder of problem files")
        try:
            domain = _user_domain(str(args.domain.resolve()))
            files = problem_sources(str(args.problems))
            instances = _within(args.instances, len(files), str(args.problems))
            for index in instances:  # every problem read now, not half way through the run
                parse_problem(Path(files[index]).read_text(), domain)
        except (OSError, ValueError, PDDLError) as exc:
            raise StudyError(f"cannot read {args.domain} / {args.problems}: {exc}") from None
        return [
            (
                {"domain": str(args.domain.resolve()), "problems": str(args.problems.resolve())},
                instances,
            )
        ]
    found = []
    for name in _names(args.domains, tuple(DOMAINS), "domain"):
        problems = problem_set(name)
        if problems.sized:
            found += [
                ({"domain": name, "size": size}, args.instances or range(args.per_cell))
                for size in _sizes(args.sizes)
            ]
        elif problems.seeded:
            found.append(({"domain": name, "size": None}, args.instances or range(args.per_cell)))
        else:
            found.append(
                (
                    {"domain": name, "size": None},
                    _within(args.instances, len(problems.problems()), name),
                )
            )
    return found


def _within(instances: range | None, count: int, where: str) -> range:
    """``--instances`` (all ``count`` problems by default), checked against ``count``."""
    if instances is None:
        return range(count)
    if instances.stop > count:
        raise StudyError(
            f"{where} has {count} problem{'s' if count != 1 else ''} (instances "
            f"0 to {count - 1}); there is no instance {instances.stop - 1}"
        )
    return instances


def build_parser() -> tuple[argparse.ArgumentParser, PaperFlags]:
    """The flags, and the ones ``--paper`` sets (resolve them after parsing)."""
    parser = study_parser(
        __doc__,
        env=None,
        out="results/formalize",
        llm_choices_help="groundtruth, scripted-defects, openai:MODEL or URL@MODEL",
    )
    parser.add_argument(
        "--domains",
        default=",".join(SIZED),
        help=f"comma list of {', '.join(DOMAINS)} (default {','.join(SIZED)})",
    )
    flags = PaperFlags(parser, NL_PDDL, temperature=0.0)
    flags.add("--sizes", default=SIZES, help=f"objects per generated problem (default {SIZES})")
    flags.add(
        "--per-cell",
        type=positive_int,
        default=5,
        metavar="N",
        help="problems per domain and size (seeds 0..N-1; default 5)",
    )
    parser.add_argument("--domain", type=Path, metavar="FILE", help="a domain of your own ...")
    parser.add_argument(
        "--problems",
        type=Path,
        metavar="DIR",
        help="... and a folder of its problems (descriptions are rendered)",
    )
    parser.add_argument(
        "--defects",
        default=",".join(DEFECTS),
        help="scripted-defects only: the defects to inject (default all)",
    )
    flags.add(
        "--max-iterations",
        type=non_negative_int,
        default=MAX_ITERATIONS,
        metavar="T",
        help=f"repairs after the one shot (default {MAX_ITERATIONS})",
    )
    flags.add(
        "--planner",
        default="lama-first",
        choices=PLANNER_NAMES,
        help="the fixed planner configuration (default lama-first)",
    )
    parser.add_argument(
        "--timeout", type=positive_float, default=60.0, help="seconds per planner call"
    )
    return parser, flags


@study_main
def main(argv=None, model=None, show: bool = True) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same)."""
    parser, flags = build_parser()
    args = parser.parse_args(argv)
    settings = flags.resolve(args, model.name if model else None)
    if args.max_iterations < 0:
        raise StudyError("--max-iterations is 0 or more")
    built = None
    if model is None and not args.llm:
        raise StudyError(
            "--llm is required: groundtruth, scripted-defects, openai:MODEL or URL@MODEL"
        )
    if model is not None or args.llm not in BUILT_IN:
        model, built = study_model(model, args.llm, args.call_timeout, settings.request)
    llm = model or args.llm
    cells = conditions(args)
    if args.llm == "scripted-defects":
        defects = _names(args.defects, DEFECTS, "defect")
        cells = [
            ({**condition, "defect": d}, instances)
            for condition, instances in cells
            for d in defects
        ]
    study = Study(
        "formalize",
        None,
        model=getattr(llm, "name", llm),
        model_spec=args.llm,
        settings={
            "max_iterations": args.max_iterations,
            "planner": args.planner,
            "timeout": args.timeout,
            "temperature": args.temperature,
            "prompt_version": PROMPT_VERSION,
            "metrics": METRICS_JUDGED,
            **settings.recorded(),
        },
    )
    jobs = [
        job
        for condition, instances in cells
        for job in study.jobs([condition], instances, args.trials)
    ]

    def play(_, job) -> dict:
        return run_problem(llm, dict(job.condition), job.instance, args)

    records = run_study(study, jobs, play, check=built, model=model, **run_options(args))
    fields = ("domain", "size", "defect") if args.llm == "scripted-defects" else ("domain", "size")
    paper = f"\n\n{NL_PDDL.caption(settings.overrides)}" if settings.paper else ""

    def section(group: list[dict], full: bool) -> str:
        """One run's tables: the final candidates, then (``full``) the repair curve;
        under ``--paper``, Table 3."""
        text = f"## Formalization, {run_caption(group)}"
        if full or not settings.paper:
            text += f"\n\n### Final candidates\n\n{group_table(group, fields)}"
        if full:
            text += "\n\n### Repair curve (the candidate kept after each iteration)\n\n"
            text += curve_table(group, args.max_iterations)
        if settings.paper:
            text += f"\n\n{paper_table(group)}{paper}"
        return text + model_failures(group)

    runs = split_runs(records).values()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.md").write_text("\n\n".join(section(g, True) for g in runs) + "\n")
    if show:
        print("\n\n".join(section(g, False) for g in runs))
        print(f"\nevery table: {args.out / 'results.md'}")
    curve_plot(records, args.max_iterations, args.out / "repair.png", show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
