"""The formalization study: its cells (each domain and size, a fixed set, or a user's
folder; with ``scripted-defects`` each defect too) and ``SPEC``, the study declared
(played by :func:`planloop.study.spec.run_spec`: it formalizes every problem,
:mod:`.problems`, and writes the tables of :mod:`.tables`; ``main``: the same as a
command, ``experiments/formalize.py``'s), and ``reproduction``, Tables 3, 2 and 5
under the paper's protocol."""

from __future__ import annotations

from pathlib import Path

from ...envs.pddl_env import problem_sources
from ...formalizer.problems import PROMPT_VERSION
from ...pddl import PDDLError, parse_problem
from ...results import Record
from ...study import StudyError, model_failures
from ...study.backends import Play
from ...study.jobs import Job, check_episodes
from ...study.runs import run_caption, split_runs
from ...study.spec import StudyRun, StudySpec, spec_main
from ..reproduction import Runner, Tables
from . import NL_PDDL
from .config import FormalizeConfig
from .problems import run_problem, user_domain
from .sets import problem_set
from .tables import (
    curve_plot,
    curve_table,
    group_table,
    loop_records,
    paper_tables,
    plans_table,
)

BUILT_IN = ("groundtruth", "scripted-defects")
METRICS_JUDGED = "as written"  # in the key: records scored after a renaming are not resumed


def conditions(config: FormalizeConfig, instances: range | None) -> list[tuple[dict, range]]:
    """(condition, its instances): each domain and size, a fixed set, or a user folder;
    ``instances``: ``--instances`` (None: every problem, or ``per_cell`` of each cell)."""
    if config.problems and config.domain:  # together, the problems a folder (config.check)
        try:
            domain = user_domain(str(config.domain.resolve()))
            files = problem_sources(str(config.problems))
            chosen = _within(instances, len(files), str(config.problems))
            for index in chosen:  # every problem read now, not half way through the run
                parse_problem(Path(files[index]).read_text(), domain)
        except (OSError, ValueError, PDDLError) as exc:
            raise StudyError(f"cannot read {config.domain} / {config.problems}: {exc}") from None
        return [
            (
                {
                    "domain": str(config.domain.resolve()),
                    "problems": str(config.problems.resolve()),
                },
                chosen,
            )
        ]
    found = []
    for name in config.domains.split(","):
        problems = problem_set(name)
        if problems.sized:
            found += [
                ({"domain": name, "size": size}, instances or range(config.per_cell))
                for size in config.size_list
            ]
        elif problems.seeded:
            found.append(({"domain": name, "size": None}, instances or range(config.per_cell)))
        else:
            found.append(
                (
                    {"domain": name, "size": None},
                    _within(instances, len(problems.problems()), name),
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


def validate(run: StudyRun[FormalizeConfig]) -> None:
    """The flags together, and every cell read before the first episode (``run.state``:
    ``cells``, each condition with its problems)."""
    config, args = run.config, run.args
    if run.given_model is None and not args.llm:
        raise StudyError(
            "--llm is required: groundtruth, scripted-defects, openai:MODEL or URL@MODEL"
        )
    cells = conditions(config, args.instances)
    if run.player == "scripted-defects":
        if config.direct:
            raise StudyError("--direct plans with a model or groundtruth, not scripted-defects")
        defects = config.defects.split(",")
        cells = [({**c, "defect": d}, instances) for c, instances in cells for d in defects]
    direct = set(filter(None, config.direct.split(",")))
    cells += [({**c, "approach": "direct"}, i) for c, i in cells if c["domain"] in direct]
    check_episodes(sum(len(instances) for _, instances in cells) * args.trials)
    run.state["cells"] = cells


def jobs(run: StudyRun[FormalizeConfig]) -> list[Job]:
    """Each cell's problems, ``--trials`` times."""
    assert run.study is not None  # made before the jobs
    return [
        job
        for condition, instances in run.state["cells"]
        for job in run.study.jobs([condition], instances, run.args.trials)
    ]


def play(run: StudyRun[FormalizeConfig]) -> Play:
    """One problem formalized by the model or the built-in player, judged."""
    llm = run.model or run.player
    assert llm is not None  # validate asked for one

    def problem(_: object, job: Job) -> dict:
        return run_problem(llm, dict(job.condition), job.instance, run.config, run.temperature)

    return problem


def write_report(run: StudyRun[FormalizeConfig], records: list[Record]) -> None:
    """``results.md`` (a section per run) and ``repair.png``; printed: the final
    candidates, and Tables 3, 2 and 5 under ``--paper``."""
    config, paper = run.config, run.settings.paper
    defects = run.player == "scripted-defects"
    fields = ("domain", "size", "defect") if defects else ("domain", "size")

    def section(group: list[dict], full: bool) -> str:
        """One run's tables: the final candidates, then (``full``) the repair curve and
        the plans validated on the reference, direct and the loop's; under ``--paper``,
        Tables 3, 2 and 5."""
        loop = loop_records(group)
        text = f"## Formalization, {run_caption(group)}"
        if full or not paper:
            text += f"\n\n### Final candidates\n\n{group_table(loop, fields)}"
        if full:
            text += "\n\n### Repair curve (the candidate kept after each iteration)\n\n"
            text += curve_table(loop, config.max_iterations)
        if full and len(loop) < len(group):
            domains = {str(r["domain"]): str(r["domain"]) for r in group if r not in loop}
            text += "\n\n### Plans validated on the reference problem\n\n"
            text += plans_table(group, domains)
        if paper:
            tables = paper_tables(group).values()
            text += "".join(f"\n\n{table}{run.caption()}" for table in tables)
        return text + model_failures(group)

    runs = split_runs(records).values()
    run.out.mkdir(parents=True, exist_ok=True)
    (run.out / "results.md").write_text("\n\n".join(section(g, True) for g in runs) + "\n")
    if run.show:
        print("\n\n".join(section(g, False) for g in runs))
        print(f"\nevery table: {run.out / 'results.md'}")
    curve_plot(loop_records(records), config.max_iterations, run.out / "repair.png", run.show)


SPEC = StudySpec(
    name="formalize",
    script="formalize.py",
    description=__doc__,
    config=FormalizeConfig,
    protocol=NL_PDDL,
    out="results/formalize",
    llm_help="groundtruth, scripted-defects, openai:MODEL or URL@MODEL",
    players=BUILT_IN,
    temperature=0.0,
    validate=validate,
    jobs=jobs,
    keyed=lambda run: {
        **run.config.key(),
        "temperature": run.temperature,
        "prompt_version": PROMPT_VERSION,
        "metrics": METRICS_JUDGED,
    },
    play=play,
    report=write_report,
)
main = spec_main(SPEC)  # the study as its script runs it


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """Tables 3, 2 and 5 under the paper's protocol (``limit``: problems per cell, and
    of PlanBench's); the ground truth formalizes and plans without a model."""
    limit = [] if runner.limit is None else ["--per-cell", str(runner.limit)]
    limit += [] if runner.limit is None else ["--instances", f"0:{runner.limit}"]
    records = runner.run(main, out, limit, model=runner.llm != "groundtruth")
    return records, paper_tables
