"""The formalization study: its cells (each domain and size, a fixed set, or a user's
folder; with ``scripted-defects`` each defect too), its flags and ``run``, which
formalizes every problem (:mod:`.problems`) and writes the tables of :mod:`.tables`
(``main``: the same as a command, ``experiments/formalize.py``'s), and
``reproduction``, Table 3 under the paper's protocol."""

from __future__ import annotations

import argparse
from pathlib import Path

from ...envs.pddl_env import problem_sources
from ...envs.problem_sets import problem_set
from ...formalizer.problems import PROMPT_VERSION
from ...llm import ChatModel
from ...pddl import PDDLError, parse_problem
from ...results import Record
from ...study import (
    PaperFlags,
    Study,
    StudyError,
    model_failures,
    run_options,
    run_study,
    study_main,
    study_model,
    study_parser,
)
from ...study.jobs import Job, check_episodes
from ...study.runs import run_caption, split_runs
from ..reproduction import Runner, Tables
from . import NL_PDDL
from .config import FormalizeConfig
from .problems import run_problem, user_domain
from .tables import curve_plot, curve_table, group_table, paper_table

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


def flags(description: str | None = __doc__) -> tuple[argparse.ArgumentParser, PaperFlags]:
    """The study's parser: the shared flags, ``--paper`` and :class:`FormalizeConfig`'s;
    ``description``: the help's."""
    parser = study_parser(
        description,
        env=None,
        out="results/formalize",
        llm_choices_help="groundtruth, scripted-defects, openai:MODEL or URL@MODEL",
    )
    paper = PaperFlags(parser, NL_PDDL, temperature=0.0)
    FormalizeConfig.add_arguments(paper)
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
    config = FormalizeConfig.from_args(args, parser)
    built = None
    if model is None and not args.llm:
        raise StudyError(
            "--llm is required: groundtruth, scripted-defects, openai:MODEL or URL@MODEL"
        )
    cells = conditions(config, args.instances)
    if args.llm == "scripted-defects":
        cells = [
            ({**condition, "defect": d}, instances)
            for condition, instances in cells
            for d in config.defects.split(",")
        ]
    check_episodes(sum(len(instances) for _, instances in cells) * args.trials)
    if model is not None or args.llm not in BUILT_IN:
        model, built = study_model(model, args.llm, args.call_timeout, settings.request)
    llm = model or args.llm
    study = Study(
        "formalize",
        None,
        model=llm if isinstance(llm, str) else llm.name,
        model_spec=args.llm,
        settings={
            **config.key(),
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

    def play(_: object, job: Job) -> dict:
        return run_problem(llm, dict(job.condition), job.instance, config, args.temperature)

    records = run_study(study, jobs, play, check=built, model=model, **run_options(args))
    fields = ("domain", "size", "defect") if args.llm == "scripted-defects" else ("domain", "size")
    caption = f"\n\n{NL_PDDL.caption(settings.overrides)}" if settings.paper else ""

    def section(group: list[dict], full: bool) -> str:
        """One run's tables: the final candidates, then (``full``) the repair curve;
        under ``--paper``, Table 3."""
        text = f"## Formalization, {run_caption(group)}"
        if full or not settings.paper:
            text += f"\n\n### Final candidates\n\n{group_table(group, fields)}"
        if full:
            text += "\n\n### Repair curve (the candidate kept after each iteration)\n\n"
            text += curve_table(group, config.max_iterations)
        if settings.paper:
            text += f"\n\n{paper_table(group)}{caption}"
        return text + model_failures(group)

    runs = split_runs(records).values()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.md").write_text("\n\n".join(section(g, True) for g in runs) + "\n")
    if show:
        print("\n\n".join(section(g, False) for g in runs))
        print(f"\nevery table: {args.out / 'results.md'}")
    curve_plot(records, config.max_iterations, args.out / "repair.png", show)
    return 0


main = study_main(run, prog="formalize.py")  # the study as its script runs it


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """Table 3 under the paper's protocol (``limit``: problems per cell); the ground
    truth formalizes without a model."""
    limit = [] if runner.limit is None else ["--per-cell", str(runner.limit)]
    records = runner.run(main, out, limit, model=runner.llm != "groundtruth")
    return records, lambda group: {"table-3": paper_table(group)}
