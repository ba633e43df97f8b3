"""PDDLego+: a language model formalizes a partially observed text world in PDDL, a
planner plans, the plan is played; solver errors drive the inner loop, simulation
errors the outer loop, and the files grow as the world is discovered.

    python experiments/pddlego.py --env CoinCollector-v0 -o num_locations=5 \\
        --llm openai:o3-mini --prompt detailed --instances 0:20 --workers 8 \\
        --out results/pddlego-coin
    python experiments/pddlego.py --env ALFWorld-v0 --llm groundtruth --instances 0:12

``--paper`` runs PDDLego+ as its authors' code does (``planloop.protocols.pddlego_plus``:
at most 5 simulation tries per plan cycle, each restarting the game and replaying what
ran through, each try one call plus at most 5 solver retries; 20 plan cycles on
CoinCollector, 50 on ALFWorld, 20 steps for PlanGen; CoinCollector played on TextWorld
Express's own games at the authors' parameters (game i is its train seed i; needs java),
the coin taken after a step whose text mentions it, never at the start; ALFWorld with
no command cap of its own; unmapped plan steps played; hand-written answers to refused
commands; a reply that is not JSON restarts the trial once, then is a model error); each
of those flags given beside ``--paper`` overrides one setting, named in the table's
caption. Solver and simulation errors are counted per try and per plan cycle as the
authors' results script counts them, and "no error fixing" is read from the same runs
(won with every plan cycle right the first time). Every scheduled episode is in n: one that ended on a failed
model call is a failure, also counted under "model errors".

``--llm groundtruth`` plays the ground-truth formalizer (the true PDDL of what has been
observed, with the detailed prompt's sub-goal rules): the pipeline's upper bound,
recorded as ``groundtruth``. ``--policy plangen`` is the model choosing commands
directly (with ``--paper`` as its authors ran it: a step per command, a refused one
tried again, each try restarting the game). ``--out DIR`` receives ``episodes.jsonl`` (one record per episode, every
round's files, check, plan and steps in ``details``; rerunning resumes), ``results.md``
(a row per configuration and run recorded in DIR: two models, or one served under two
names, are rows of their own; the rows of this run are printed at the end),
``report.html`` (every episode round by round) and ``success.png``.

``--prompt-file FILE`` sends a template of your own in place of planloop's prompt
(``planloop.formalizer.templates``; with ``--policy plangen --paper``, PlanGen's, its
fields ``planloop.policies.plangen.STEPS_FIELDS``); ``experiments/authors_prompts.py``
writes the authors' formalizer prompt as one, from a checkout of their code.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
from pathlib import Path

from ...formalizer import PromptTemplate, TemplateError, load_template
from ...formalizer.templates import FORMALIZER
from ...pddl import PDDLError, parse_domain
from ...policies.plangen import STEPS_FIELDS
from ...results import Record, ResultsFile
from ...study import StudyError, model_failures, save_success_plot, show_success_plot
from ...study.backends import Play
from ...study.runs import split_runs
from ...study.spec import StudyRun, StudySpec, spec_main
from .config import PDDLegoConfig
from .episodes import JUDGED, episode_fields, family_of, make_policy, play_trial
from .extras import won_domain
from .protocol import ENVIRONMENTS, PDDLEGO_PLUS
from .report import write_report
from .tables import (
    GROUND_TRUTH,
    judgement_table,
    paper_tables,
    prompt_caption,
    results_table,
    success_series,
)

__all__ = ["GROUND_TRUTH", "SPEC", "main", "paper_tables", "twx_missing"]  # the scripts'


POLICY_NAMES = {"pddlego": "PDDLego+", "plangen": "PlanGen"}  # as the paper names them


def twx_missing() -> str | None:
    """What TextWorld Express's own games need and this machine lacks (None: nothing)."""
    if importlib.util.find_spec("textworld_express") is None:
        return "the twx extra (pip install 'planloop[twx]')"
    return None if shutil.which("java") else "java on PATH"


def paper_games(args, paper: bool) -> dict:
    """The environment's arguments: ``-o``'s, over the authors' game parameters where
    they apply: TextWorld Express's CoinCollector with ``--coin-games twx`` (a
    StudyError naming what is missing when it cannot run here), ALFWorld's
    ``max_episode_steps`` under ``--paper``."""
    kwargs = dict(args.option)
    games = next((g for g in ENVIRONMENTS.values() if g.env_id == args.env), None)
    if games is None:
        return kwargs
    if family_of(args.env) == "coin":
        if args.coin_games != "twx":
            return kwargs
        missing = twx_missing()
        if missing is not None:
            raise StudyError(
                f"{'--paper' if paper else '--coin-games twx'} plays TextWorld Express's "
                f"CoinCollector games, which need {missing}; or play planloop's generated "
                "houses with --coin-games generated (named in the caption)"
            )
    elif not paper:
        return kwargs
    return {**games.kwargs, **kwargs}


def frozen_domain(args) -> tuple[str | None, str | None]:
    """(DF text, its label) for ``--domain-file`` or ``--domain-reuse``, else (None, None)."""
    if args.domain_file:
        try:
            text = Path(args.domain_file).read_text()
            parse_domain(text)
        except OSError as exc:
            raise StudyError(f"cannot read --domain-file: {exc}") from None
        except PDDLError as exc:
            raise StudyError(
                f"--domain-file {args.domain_file} is not a PDDL domain: {exc.summary()}"
            ) from None
        return text, "given:" + hashlib.sha256(text.encode()).hexdigest()[:8]
    if not args.domain_reuse:
        return None, None
    path = args.out / "episodes.jsonl"
    df = won_domain(ResultsFile(path).records if path.exists() else [], args.env)
    if df is not None:
        return df, "reused:" + hashlib.sha256(df.encode()).hexdigest()[:8]
    raise StudyError(
        f"--domain-reuse found no won PDDLego+ episode on {args.env} in {path}: "
        f"run without it first"
    )


def prompt_file(run: StudyRun[PDDLegoConfig]) -> PromptTemplate | None:
    """``--prompt-file``'s template (the formalizer's, or with ``--policy plangen``
    PlanGen's as its authors ran it: :data:`~planloop.policies.plangen.STEPS_FIELDS`),
    read and checked at the start (a StudyError in one line), or None without the flag."""
    args, config = run.args, run.config
    if config.prompt_file is None:
        return None
    if config.prompt:
        raise StudyError("--prompt and --prompt-file exclude each other: give one")
    if args.llm == GROUND_TRUTH and run.given_model is None:
        raise StudyError("--prompt-file is a model's prompt: give a model, not --llm groundtruth")
    if config.policy == "plangen" and not config.authors_plangen:
        raise StudyError(
            "--prompt-file with --policy plangen is the prompt of PlanGen as its authors "
            "ran it: give --paper (or --simulation-retries)"
        )
    try:
        return load_template(
            config.prompt_file, STEPS_FIELDS if config.policy == "plangen" else FORMALIZER
        )
    except TemplateError as exc:
        raise StudyError(str(exc)) from None


def validate(run: StudyRun[PDDLegoConfig]) -> None:
    """The flags together: the config as played on ``--env``, the prompt file, what the
    ground truth can formalize, and the frozen domain (``run.state``: ``family``,
    ``template``, ``frozen_df``, ``domain``)."""
    args = run.args
    family = family_of(args.env)
    template = prompt_file(run)
    run.config = config = run.config.for_env(args.env, family)
    if family == "contingent" and config.prompt != "generic":
        raise StudyError(
            "contingent PDDL environments have the generic prompt only: --prompt generic"
        )
    if run.player is not None and family not in JUDGED:
        raise StudyError(
            f"no ground-truth formalizer for {args.env}: give a model (the "
            f"planner baseline there is planloop.policies.ContingentReplanner)"
        )
    if run.player is not None and config.policy == "plangen":
        raise StudyError("--llm groundtruth formalizes; it cannot play --policy plangen")
    if run.player is not None and (config.domain_file or config.domain_reuse):
        raise StudyError(
            "--llm groundtruth writes the true domain: --domain-file and "
            "--domain-reuse are for models"
        )
    frozen_df, domain = frozen_domain(args)
    run.state.update(family=family, template=template, frozen_df=frozen_df, domain=domain)


def env_kwargs(run: StudyRun[PDDLegoConfig]) -> dict[str, object]:
    """The authors' game parameters where they apply, and ``feedback="detailed"``."""
    kwargs = paper_games(run.args, run.settings.paper)
    if run.config.feedback == "detailed":
        kwargs["feedback"] = run.config.feedback
    return kwargs


def keyed(run: StudyRun[PDDLegoConfig]) -> dict[str, object]:
    """The study-wide settings of the key: the retries, the planner and a prompt file's
    version (the rest of the config is in the condition)."""
    template = run.state["template"]
    return {
        "retries": run.config.retries,
        "planner": run.config.planner,
        **({"prompt_file": template.version} if template else {}),
    }


def play(run: StudyRun[PDDLegoConfig]) -> Play:
    """One trial (the episode, started again after a failed model call as the authors'
    harness does), judged against the hidden world."""
    config, model, state = run.config, run.model, run.state

    def trial(env, job) -> dict:
        episode, attempts = play_trial(
            env,
            lambda: make_policy(env, model, config, state["frozen_df"], state["template"]),
            config,
            job.instance,
        )
        return {
            **episode_fields(env, episode, config.retries),
            "trial_attempts_used": attempts,
            "max_episode_steps": getattr(env.spec, "max_episode_steps", None),
        }

    return trial


def write_results(run: StudyRun[PDDLegoConfig], mine: list[Record]) -> None:
    """``results.md`` (every run in ``--out``: success, the judged formalizations),
    ``success.png`` and ``report.html``; printed: this run's table."""
    out = run.out
    records = [
        r for r in ResultsFile(out / "episodes.jsonl").records if r.get("study") == "pddlego"
    ]
    latest = list({r["key"]: r for r in records}.values())
    caption = run.caption()
    table = (
        "## PDDLego+\n\n"
        + results_table(latest)
        + caption
        + prompt_caption(latest)
        + model_failures(latest)
        + "\n\n### The formalizations, judged against the hidden world\n\n"
        + judgement_table(latest)
    )
    (out / "results.md").write_text(table + "\n")
    if run.show:
        print(
            f"## PDDLego+, this run\n\n{results_table(mine)}{caption}{prompt_caption(mine)}"
            f"{model_failures(mine)}"
        )
    series, xlabel = success_series(latest)
    envs = sorted({str((r.get("provenance") or {}).get("env")) for r in latest})
    by = {"locations": "house size", "task type": "task type"}
    played = sorted({POLICY_NAMES.get(str(r.get("policy")), str(r.get("policy"))) for r in latest})
    title = (
        f"{' and '.join(played)} on {', '.join(envs)}: success by "
        + " and ".join(by[kind] for kind in xlabel.split(" / "))
        + f"; {', '.join(label.label for label in split_runs(latest))}"
    )
    (show_success_plot if run.show else save_success_plot)(
        series, out / "success.png", xlabel, ordered=xlabel == "locations", title=title
    )
    plot = f"{title}: each point k/n episodes, bars the 95% Wilson interval."
    report = write_report(
        latest, out / "report.html", "PDDLego+", plots=[(out / "success.png", plot)]
    )
    if run.show:
        print(f"\nevery run in {out}: {out / 'results.md'}\nreport: {report}")


SPEC = StudySpec(
    name="pddlego",
    script="pddlego.py",
    description=__doc__,
    config=PDDLegoConfig,
    protocol=PDDLEGO_PLUS,
    env="CoinCollector-v0",
    out="results/pddlego",
    instances="0:10",
    llm_help="openai:MODEL, URL@MODEL, interactive or groundtruth",
    players=(GROUND_TRUTH,),
    validate=validate,
    env_kwargs=env_kwargs,
    cells=lambda run: [run.config.condition(run.state["domain"])],
    keyed=keyed,
    play=play,
    report=write_results,
)
main = spec_main(SPEC)
