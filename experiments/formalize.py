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
    python experiments/formalize.py --llm URL@MODEL --domain my/domain.pddl \\
        --problems my/problems/

``--llm groundtruth`` writes the reference problem (every metric 1);
``scripted-defects`` writes it with one known defect first (``--defects``: syntax,
undeclared_object, wrong_arity, missing_fact, swapped_goal, renamed_objects), then
without it once the loop has said what is wrong. Metrics per problem, for the final
candidate and the candidate kept after each iteration (the repair curve): SVR (it
parses), PSR (solved, over those that parse), TSR (Jaccard of the initial and goal
atoms after matching object names), CR (planner outcomes agree; when the reference is
solvable, plan lengths within max(1, ceil(0.05 c)) and plan similarity >= 0.8), EQ
(the reference problem up to a renaming of objects) and goal EQ (the same goal states).

``--out DIR`` receives ``episodes.jsonl`` (one record per problem, appended as each
ends; a rerun resumes), ``results.md`` (the tables printed at the end) and
``repair.png`` (the repair curves).
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import asdict
from pathlib import Path
from typing import NamedTuple

from planloop.envs.pddl_env import problem_sources
from planloop.envs.problem_sets import DOMAINS, problem_set
from planloop.formalizer.problems import (DEFECTS, MAX_ITERATIONS, METRICS, PROMPT_VERSION,
                                          Reference, best_so_far, defect_writer,
                                          formalize_problem, reference_writer, score)
from planloop.llm import LLMError
from planloop.pddl import (PDDLError, PLANNERS, describe_problem, parse_domain, parse_problem,
                           solve)
from planloop.pddl.model import Domain, Problem
from planloop.study import (Study, StudyError, markdown_table, model_failures, open_model,
                            run_study, show_success_plot, study_main, study_parser,
                            success_cell)

BUILT_IN = ("groundtruth", "scripted-defects")
SIZED = tuple(name for name, problems in DOMAINS.items() if problems.sized)
RATES = ("svr", "psr", "cr", "eq", "goal_eq")
LABELS = {"svr": "SVR", "psr": "PSR", "tsr": "TSR", "cr": "CR", "eq": "EQ", "goal_eq": "goal EQ"}


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
    reference = problems.generate(condition["size"], index) if problems.sized else \
        problems.seeded(index) if problems.seeded else problems.problems()[index]
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
        result = formalize_problem(writer_for(llm, condition, instance), domain,
                                   instance.description, args.max_iterations, args.planner,
                                   args.timeout, args.temperature)
    except LLMError as exc:
        return {"won": False, "error": f"{exc.kind}: {exc}"}
    verdicts = result.verdicts
    scores = [score(domain, reference, verdict) for verdict in verdicts]
    curve = [scores[best_so_far(verdicts, min(t, len(verdicts) - 1))]
             for t in range(args.max_iterations + 1)]
    kept = verdicts[result.kept]
    return {"won": kept.ok, "prompt_version": PROMPT_VERSION,
            "description": instance.description, "reference_status": solved.status,
            "reference_plan_length": len(reference.plan), "metrics": scores[result.kept],
            "by_iteration": curve, "iterations": len(verdicts) - 1,
            "repaired_at": result.repaired_at, "final": kept.text,
            "candidates": [{"stage": v.stage, "message": v.message[:2000], "planner": v.planner,
                            "metrics": s} for v, s in zip(verdicts, scores)],
            "usage": asdict(result.usage)}


# -- tables ------------------------------------------------------------------------------

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


def metric_cells(metrics: list[dict]) -> list[str]:
    return [mean_cell([m["tsr"] for m in metrics]) if name == "tsr" else
            rate_cell([m[name] for m in metrics]) for name in METRICS]


def group_table(records: list[dict], fields: tuple[str, ...]) -> str:
    """One row per value of ``fields``: the final candidates' metrics, repairs and
    iterations."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault(tuple(record.get(f) for f in fields), []).append(record)
    rows = []
    for key, group in groups.items():
        repaired = sum(r["repaired_at"] is not None for r in group)
        rows.append([*("-" if v is None else v for v in key), len(group),
                     *metric_cells([r["metrics"] for r in group]), repaired,
                     f"{statistics.fmean(r['iterations'] for r in group):.2f}"])
    return markdown_table([*fields, "problems", *(LABELS[m] for m in METRICS), "repaired",
                           "mean repairs"], rows)


def curve_table(records: list[dict], iterations: int) -> str:
    """The metrics of the candidate kept after each iteration, over every problem."""
    rows = [[t, *metric_cells([r["by_iteration"][t] for r in records])]
            for t in range(iterations + 1)]
    return markdown_table(["iteration", *(LABELS[m] for m in METRICS)], rows)


def curve_plot(records: list[dict], iterations: int, path: Path) -> None:
    series = {LABELS[name]: [(str(t), sum(r["by_iteration"][t][name] or 0 for r in records),
                              sum(r["by_iteration"][t][name] is not None for r in records))
                             for t in range(iterations + 1)] for name in RATES}
    show_success_plot(series, path, "iteration", "rate")


# -- main --------------------------------------------------------------------------------

def _names(text: str, known: tuple[str, ...], what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise StudyError(f"unknown {what} {', '.join(unknown) or repr(text)}; choose from "
                         f"{', '.join(known)}")
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
        return [({"domain": str(args.domain.resolve()), "problems": str(args.problems.resolve())},
                 instances)]
    found = []
    for name in _names(args.domains, tuple(DOMAINS), "domain"):
        problems = problem_set(name)
        if problems.sized:
            found += [({"domain": name, "size": size}, args.instances or range(args.per_cell))
                      for size in _sizes(args.sizes)]
        elif problems.seeded:
            found.append(({"domain": name, "size": None}, args.instances or range(args.per_cell)))
        else:
            found.append(({"domain": name, "size": None},
                          _within(args.instances, len(problems.problems()), name)))
    return found


def _within(instances: range | None, count: int, where: str) -> range:
    """``--instances`` (all ``count`` problems by default), checked against ``count``."""
    if instances is None:
        return range(count)
    if instances.stop > count:
        raise StudyError(f"{where} has {count} problem{'s' if count != 1 else ''} (instances "
                         f"0 to {count - 1}); there is no instance {instances.stop - 1}")
    return instances


@study_main
def main(argv=None, model=None) -> int:
    parser = study_parser(__doc__, env=None, out="results/formalize",
                          llm_choices_help="groundtruth, scripted-defects, openai:MODEL or "
                                           "URL@MODEL")
    parser.add_argument("--domains", default=",".join(SIZED),
                        help=f"comma list of {', '.join(DOMAINS)} (default {','.join(SIZED)})")
    parser.add_argument("--sizes", default="10,20,30,40", help="objects per generated problem")
    parser.add_argument("--per-cell", type=int, default=5, metavar="N",
                        help="problems per domain and size (seeds 0..N-1; default 5)")
    parser.add_argument("--domain", type=Path, metavar="FILE", help="a domain of your own ...")
    parser.add_argument("--problems", type=Path, metavar="DIR",
                        help="... and a folder of its problems (descriptions are rendered)")
    parser.add_argument("--defects", default=",".join(DEFECTS),
                        help="scripted-defects only: the defects to inject (default all)")
    parser.add_argument("--max-iterations", type=int, default=MAX_ITERATIONS, metavar="T",
                        help=f"repairs after the one shot (default {MAX_ITERATIONS})")
    parser.add_argument("--planner", default="lama-first", choices=PLANNERS,
                        help="the fixed planner configuration (default lama-first)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per planner call")
    parser.add_argument("--temperature", type=float, default=0.0)
    args = parser.parse_args(argv)
    if args.max_iterations < 0:
        raise StudyError("--max-iterations is 0 or more")
    built = None
    if model is None and not args.llm:
        raise StudyError("--llm is required: groundtruth, scripted-defects, openai:MODEL or "
                         "URL@MODEL")
    if model is None and args.llm not in BUILT_IN:
        built = model = open_model(args.llm)
    llm = model or args.llm
    cells = conditions(args)
    if args.llm == "scripted-defects":
        defects = _names(args.defects, DEFECTS, "defect")
        cells = [({**condition, "defect": d}, instances) for condition, instances in cells
                 for d in defects]
    study = Study("formalize", None, model=getattr(llm, "name", llm), model_spec=args.llm,
                  settings={"max_iterations": args.max_iterations, "planner": args.planner,
                            "timeout": args.timeout, "temperature": args.temperature,
                            "prompt_version": PROMPT_VERSION})
    jobs = [job for condition, instances in cells
            for job in study.jobs([condition], instances, args.trials)]

    def play(_, job) -> dict:
        return run_problem(llm, dict(job.condition), job.instance, args)

    records = run_study(study, jobs, play, out=args.out, workers=args.workers, check=built,
                        backend=args.backend)
    played = [r for r in records if not r.get("error")]
    fields = ("domain", "size", "defect") if args.llm == "scripted-defects" else \
        ("domain", "size")
    text = (f"## Formalization, {study.model}\n\n### Final candidates\n\n"
            f"{group_table(played, fields)}\n\n### Repair curve (the candidate kept after "
            f"each iteration)\n\n{curve_table(played, args.max_iterations)}"
            f"{model_failures(records)}\n")
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.md").write_text(text)
    if played:
        curve_plot(played, args.max_iterations, args.out / "repair.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
