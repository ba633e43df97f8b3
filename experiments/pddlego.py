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
(``planloop.formalizer.templates``); ``experiments/authors_prompts.py`` writes the
authors' prompt as one, from a checkout of their code.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import statistics
import sys
from pathlib import Path

from planloop.envs.contingent import CONTINGENT_ENVIRONMENTS
from planloop.formalizer import (
    NAMES,
    ModelWriter,
    Prompt,
    PromptTemplate,
    Request,
    TemplateError,
    ground_truth_writer,
    judge_episode,
    load_template,
)
from planloop.pddl import PLANNER_NAMES, PDDLError, PlanCache, parse_domain
from planloop.policies import PDDLegoPolicy, PlanGenPolicy, PlanGenStepsPolicy, run_episode
from planloop.protocols.pddlego_plus import (
    ENVIRONMENTS,
    PDDLEGO_PLUS,
    authors_feedback,
    first_time_success,
    loop_counts,
    plangen_feedback,
    step_limit,
)
from planloop.results import ResultsFile
from planloop.study import (
    PaperFlags,
    Study,
    StudyError,
    markdown_table,
    model_errors,
    model_failures,
    non_negative_int,
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
    write_report,
)
from planloop.study.runs import (
    dropped,
    paper_heading,
    run_caption,
    run_key,
    single_run,
    split_runs,
)
from planloop.wrappers import AutoTakeCoin

FAMILIES = {
    "CoinCollector-v0": "coin",
    "ALFWorld-v0": "alfworld",
    **dict.fromkeys(CONTINGENT_ENVIRONMENTS, "contingent"),
}
JUDGED = ("coin", "alfworld")  # the families with a ground truth and judging rules
GROUND_TRUTH = "groundtruth"
# --coin: the value a condition records (in-view keeps the "auto" of the runs made before
# the authors' rule had a name of its own), and the rule AutoTakeCoin takes it by
COIN_RECORDED = {"planned": "planned", "in-view": "auto", "shown": "shown"}
TAKE_RULES = {"auto": "in_view", "shown": "shown"}
PLAN_CACHE = PlanCache()  # identical (DF, PF) pairs are planned once per run


def family_of(env_id: str) -> str:
    if env_id not in FAMILIES:
        raise StudyError(f"no PDDLego+ prompts for {env_id}: use one of {', '.join(FAMILIES)}")
    return FAMILIES[env_id]


def true_problem(env, family: str, planner: str):
    """For the record only (the policy never reads it): a function returning the
    ground-truth formalizer's PF of what has been observed when it is called; None for a
    game that does not show its hidden world (TextWorld Express itself)."""
    if not hasattr(env.unwrapped, "world_pddl") or family not in JUDGED:
        return None
    writer = ground_truth_writer(env, family, planner=planner)

    def truth() -> str | None:
        try:
            return writer.write(Request("", "start", (), ())).files.pf
        except RuntimeError:  # TextWorld Express's game left planloop's engine behind
            return None

    return truth


def make_policy(
    env,
    model,
    condition: dict,
    frozen_df: str | None,
    planner: str,
    retries: int,
    template: PromptTemplate | None = None,
):
    """The condition's policy for one episode (``condition`` holds the loop's switches
    that are not at their default; see :func:`loop_condition`); ``template`` is
    ``--prompt-file``'s, sent in place of planloop's prompt."""
    family = family_of(env.spec.id)
    if condition["policy"] == "plangen":
        if not authors_plangen(condition):
            return PlanGenPolicy(model)
        return PlanGenStepsPolicy(
            model,
            max_simulation_retries=condition["simulation_retries"],
            max_steps=condition.get("max_steps"),
            rollback=condition["rollback"],
            explain_refusal=(lambda command, text: plangen_feedback(family, command, text))
            if condition["feedback"] == "authors"
            else None,
            replies=condition.get("replies", "lenient"),
        )
    coin_taken = condition.get("coin") in TAKE_RULES
    writer = (
        ground_truth_writer(env, family, planner=planner, coin_taken=coin_taken)
        if model is None
        else ModelWriter(
            model,
            template or Prompt(family, condition["prompt"], coin_taken),
            replies=condition.get("replies", "lenient"),
        )
    )
    authors = condition["feedback"] == "authors"
    return PDDLegoPolicy(
        writer,
        max_solver_retries=retries,
        max_simulation_retries=condition.get("simulation_retries", retries),
        error_fixing=condition["error_fixing"],
        planner=planner,
        frozen_df=frozen_df,
        solver=PLAN_CACHE.solve,
        rollback=condition["rollback"],
        strict_pddl=condition.get("strict_pddl", False),
        max_steps=condition.get("max_steps"),
        unmapped=condition.get("unmapped", "solver_error"),
        explain_refusal=(lambda command, text: authors_feedback(family, command, text))
        if authors
        else None,
        truth=None if model is None else true_problem(env, family, planner),
    )


def authors_plangen(condition: dict) -> bool:
    """Whether ``condition`` plays PlanGen as its authors ran it (steps of tries: with
    ``--simulation-retries``, which ``--paper`` sets) rather than planloop's (one call per
    command, refused ones too)."""
    return condition["policy"] == "plangen" and "simulation_retries" in condition


def loop_condition(args, env_id: str) -> dict:
    """The switches of the authors' rules that are not at their default (so that runs
    without them keep their keys), with ``max_steps="paper"`` read as the authors'
    limit for the policy and environment."""
    steps = step_limit(args.policy, env_id) if args.max_steps == "paper" else args.max_steps
    chosen = {
        "simulation_retries": args.simulation_retries,
        "max_steps": steps,
        "coin": COIN_RECORDED[args.coin],
        "unmapped": args.unmapped,
        "replies": args.replies,
        "trial_attempts": args.trial_attempts,
    }
    defaults = {
        "simulation_retries": None,
        "max_steps": None,
        "coin": "planned",
        "unmapped": "solver_error",
        "replies": "lenient",
        "trial_attempts": 1,
    }
    return {key: value for key, value in chosen.items() if value != defaults[key]}


def play_trial(env, make, condition: dict, instance: int):
    """One trial: the episode, started again from scratch (up to ``trial_attempts``)
    while it ends on a failed model call, as the authors' harness restarts a trial that
    raised; returns the last episode and how many were played. planloop's PlanGen has
    its commands capped by ``max_steps`` (it names one per call)."""
    if condition.get("coin") in TAKE_RULES:
        env = AutoTakeCoin(env, when=TAKE_RULES[str(condition["coin"])])
    planloops = condition["policy"] == "plangen" and not authors_plangen(condition)
    commands = condition.get("max_steps") if planloops else None
    for attempt in range(1, condition.get("trial_attempts", 1) + 1):
        episode = run_episode(env, make(), options={"instance": instance}, max_steps=commands)
        if episode.error is None:
            return episode, attempt
    return episode, attempt


def episode_fields(env, episode, retries: int = 5) -> dict:
    """The record: the episode, its loop counts (``retries``: the solver retries a try
    had), each round judged against the hidden
    world (``judgement`` in the round, the totals in the record), and what labels its
    world."""
    record = episode.to_json()
    details = record["details"]
    record["warnings"] = details.get("warnings", 0)
    if "tries" in details:  # counted as the authors' results script counts
        record.update(
            loop_counts(details["tries"], episode.won, retries, episode.policy),
            first_time=first_time_success(details["tries"], episode.won),
        )
    rounds = details.get("rounds", [])
    record["rounds"] = len(rounds)
    record["stop"] = details.get("stop")
    record["judgement"] = None
    if family_of(env.spec.id) not in JUDGED:
        rounds = []  # no judging rules: the record keeps the rounds, unjudged
    if rounds:  # the ground truth's own files are the truth of its rounds
        judged = (
            [r if r.get("truth") else {**r, "truth": r["pf"]} for r in rounds]
            if episode.model == GROUND_TRUTH
            else rounds
        )
        record["judgement"] = judge_episode(judged, family_of(env.spec.id))
        for round_, judgement in zip(rounds, record["judgement"].pop("per_round"), strict=True):
            round_["judgement"] = judgement
    game = getattr(env.unwrapped, "game", None)
    record["task_type"] = getattr(game, "task_type", None)
    return record


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
    records = ResultsFile(path).records if path.exists() else []
    for record in records:
        rounds = record.get("details", {}).get("rounds") or []
        dfs = [r["df"] for r in rounds if r.get("df") and r.get("plan")]
        if (
            record.get("policy") == "pddlego"
            and record.get("won")
            and dfs
            and record.get("provenance", {}).get("env") == args.env
        ):
            return dfs[-1], "reused:" + hashlib.sha256(dfs[-1].encode()).hexdigest()[:8]
    raise StudyError(
        f"--domain-reuse found no won PDDLego+ episode on {args.env} in {path}: "
        f"run without it first"
    )


def prompt_file(args, model) -> PromptTemplate | None:
    """``--prompt-file``'s template, read and checked at the start (a StudyError in one
    line), or None without the flag."""
    if args.prompt_file is None:
        return None
    if args.prompt:
        raise StudyError("--prompt and --prompt-file exclude each other: give one")
    if args.policy != "pddlego" or (args.llm == GROUND_TRUTH and model is None):
        raise StudyError(
            "--prompt-file is the formalizer's prompt: for --policy pddlego with a model"
        )
    try:
        return load_template(args.prompt_file)
    except TemplateError as exc:
        raise StudyError(str(exc)) from None


def prompt_caption(records: list[dict]) -> str:
    """A paragraph for under a table: ``Prompt: planloop's pddlego/coin/detailed/v1`` (or
    a template's ``file:NAME@sha256:HASH``), each prompt the models' PDDLego+ records
    used; "" when none did."""
    used = dict.fromkeys(
        str(r.get("prompt_version"))
        for r in records
        if r.get("policy") == "pddlego" and r.get("model") != GROUND_TRUTH
    )
    shown = [name if name.startswith("file:") else f"planloop's {name}" for name in used]
    return f"\n\nPrompt{'s' * (len(shown) > 1)}: {'; '.join(shown)}" if shown else ""


def step_count(text: str) -> int | str | None:
    """``--max-steps``: a count of at least 1, ``none`` or ``paper``."""
    if text.strip().lower() in ("none", "paper"):
        return None if text.strip().lower() == "none" else "paper"
    return positive_int(text)


def _mean(values) -> str:
    values = list(values)
    return f"{statistics.mean(values):.1f}" if values else "-"


def _fixed(records, met: str, fixed: str) -> str:
    """``12 / 9 (75%)``: errors met, fixed, and the fix rate."""
    total, done = (sum(r.get(key, 0) for r in records) for key in (met, fixed))
    return f"{total} / {done}" + (f" ({done / total:.0%})" if total else "")


def natural(value) -> list:
    """A sort key that orders the numbers inside text by value (3 before 11)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(value))]


LOOP_LABELS = {
    "simulation_retries": "simulation retries {}",
    "max_steps": "{} steps",
    "coin": "coin taken {}",  # see COIN_LABELS
    "unmapped": "unmapped steps {}",
    "replies": "{} replies",
    "trial_attempts": "{} trial attempts",
}


COIN_LABELS = {"auto": "in view (at reset too)", "shown": "when a step shows it"}


def condition_label(record: dict) -> str:
    """``pddlego, detailed prompt, no error fixing, rollback, reused domain, detailed
    feedback``, then the authors' rules that are on and the protocol."""
    parts = [str(record.get("policy"))]
    if record.get("policy") == "pddlego":
        prompt = record.get("prompt")
        parts.append(
            f"prompt {record.get('prompt_version')}" if prompt == "file" else f"{prompt} prompt"
        )
        parts += [] if record.get("error_fixing") else ["no error fixing"]
        parts += ["rollback"] if record.get("rollback") else []
        parts += ["strict PDDL"] if record.get("strict_pddl") else []
        parts += [f"{str(record['domain']).split(':')[0]} domain"] if record.get("domain") else []
    elif record.get("rollback"):  # PlanGen as its authors ran it
        parts.append("rollback")
    parts += [f"{record['feedback']} feedback"] if record.get("feedback", "game") != "game" else []
    parts += [
        label.format(COIN_LABELS.get(record[key], record[key]) if key == "coin" else record[key])
        for key, label in LOOP_LABELS.items()
        if key in record
    ]
    return ", ".join(parts)


def configuration(record: dict) -> tuple[str, str, str, str, str]:
    """(environment, its options, model (its run's label), condition, settings: planner,
    retries and the protocol): what a table row shows (see :func:`by_configuration`)."""
    provenance = record.get("provenance", {})
    options = ", ".join(f"{k}={v}" for k, v in sorted((provenance.get("env_kwargs") or {}).items()))
    settings = provenance.get("settings") or {}
    shown = [f"{key} {settings[key]}" for key in ("planner", "retries") if key in settings]
    if settings.get("protocol"):
        overrides = settings.get("overrides") or {}
        shown.append(
            f"--paper {settings['protocol']}"
            + "".join(f", {key}={value}" for key, value in overrides.items())
        )
    return (
        str(provenance.get("env")),
        options or "-",
        run_key(record).label,
        condition_label(record),
        ", ".join(shown) or "-",
    )


def by_configuration(records: list[dict]) -> list[tuple[tuple, list[dict]]]:
    """(configuration, its records), one per configuration and run (two models, or two
    runs differing in a setting the row does not show, are rows of their own), sorted."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault((configuration(record), run_key(record)), []).append(record)
    return sorted(
        ((config, group) for (config, _), group in groups.items()),
        key=lambda item: natural(item[0]),
    )


def results_table(records: list[dict]) -> str:
    """One row per configuration: success with its Wilson interval, errors met / fixed,
    rounds, steps, model calls and tokens, and how many episodes failed on the model
    (the model cell names the request parameters the model refused)."""
    rows = []
    for (env, options, model, *config), group in by_configuration(records):
        played = [r for r in group if not r.get("error")]
        usage = [r.get("usage", {}) for r in played]
        first = [r for r in group if "first_time" in r]
        refused = dropped(group)
        rows.append(
            [
                env,
                options,
                model + (f"; dropped by the model: {', '.join(refused)}" if refused else ""),
                *config,
                success_cell(*tally(group)),
                success_cell(sum(r["first_time"] and not r.get("error") for r in first), len(first))
                if first
                else "-",
                _fixed(played, "solver_errors", "solver_fixed"),
                _fixed(played, "simulation_errors", "simulation_fixed"),
                _mean(r["rounds"] for r in played),
                _mean(r["steps"] for r in played),
                _mean(r.get("warnings", 0) for r in played),
                _mean(u.get("calls", 0) for u in usage),
                _mean(u.get("prompt_tokens", 0) + u.get("completion_tokens", 0) for u in usage),
                model_errors(group),
            ]
        )
    header = [
        "env",
        "options",
        "model",
        "condition",
        "settings",
        "success [95% Wilson]",
        "no error fixing (same runs)",
        "solver errors met / fixed",
        "simulation errors met / fixed",
        "rounds",
        "steps",
        "dialect warnings",
        "model calls",
        "tokens",
        "model errors",
    ]
    return markdown_table(header, rows, align="lllll" + "r" * 10)


PAPER_COLUMNS = {"CoinCollector-v0": "CoinCollector", "ALFWorld-v0": "ALFWorld"}


def paper_rows(records: list[dict]) -> dict[tuple[str, str], tuple[list[dict], int]]:
    """(row, column) of the paper's table -> (the records of the cell, their wins), over
    the records of one ``--paper`` run (a ValueError for records of several runs):
    PDDLego+ and PlanGen as played, PDDLego (no error fixing) read from PDDLego+'s (won
    with every plan cycle right the first time)."""
    cells: dict[tuple[str, str], tuple[list[dict], int]] = {}
    for record in single_run(records):
        provenance = record.get("provenance") or {}
        column = PAPER_COLUMNS.get(provenance.get("env"))
        if (
            column is None
            or (provenance.get("settings") or {}).get("protocol") != PDDLEGO_PLUS.name
        ):
            continue
        won = bool(record.get("won")) and not record.get("error")
        rows = (
            [("PlanGen", won)]
            if record.get("policy") == "plangen"
            else [
                ("PDDLego+", won),
                ("PDDLego (no error fixing)", won and bool(record.get("first_time"))),
            ]
        )
        for row, wins in rows:
            group, total = cells.get((row, column), ([], 0))
            cells[row, column] = (group + [record], total + wins)
    return cells


def paper_tables(records: list[dict]) -> dict[str, str]:
    """The paper's tables over the records of one run, by name, each headed by the run's
    model and the paper's: ``success`` (rows PDDLego+, PDDLego (no error fixing),
    PlanGen; columns CoinCollector, ALFWorld; the published figure beside each cell) and
    ``errors`` (solver, simulation and model errors of each cell)."""
    [layout] = PDDLEGO_PLUS.tables
    cells = paper_rows(records)
    success, errors = [], []
    for row in layout.rows:
        line = [row]
        for column in layout.columns:
            group, wins = cells.get((row, column), ([], 0))
            line.append(
                with_published(
                    success_cell(wins, len(group)) if group else "not run",
                    layout.published.get((row, column)),
                )
            )
            if group:
                played = [r for r in group if not r.get("error")]
                errors.append(
                    [
                        row,
                        column,
                        len(group),
                        _fixed(played, "solver_errors", "solver_fixed")
                        if row != "PlanGen"
                        else "-",
                        _fixed(played, "simulation_errors", "simulation_fixed")
                        if row != "PlanGen" or any("simulation_errors" in r for r in played)
                        else "-",  # planloop's PlanGen counts none
                        model_errors(group),
                    ]
                )
        success.append(line)
    header = ["", *(f"{column} success [95% Wilson]" for column in layout.columns)]
    return {
        "success": f"{paper_heading(layout, records)}{prompt_caption(records)}\n\n"
        + markdown_table(header, success),
        "errors": "### Errors met / fixed, and model errors\n\n"
        + f"{run_caption(records, layout.paper_model)}\n\n"
        + markdown_table(
            [
                "",
                "env",
                "n",
                "solver errors met / fixed",
                "simulation errors met / fixed",
                "model errors",
            ],
            errors,
            align="llrrrr",
        ),
    }


def judgement_table(records: list[dict]) -> str:
    """One row per configuration: PDDLego+'s four error categories, counted from the
    hidden world (errors, and in how many rounds), and the formalizations' stability."""
    rows = []
    for config, group in by_configuration(
        [r for r in records if r.get("judgement") and not r.get("error")]
    ):
        judged = [r["judgement"] for r in group]
        cells = [
            f"{sum(j[c] for j in judged)} in {sum(j['rounds_' + c] for j in judged)}"
            for c in ("hallucinated", "forgotten", "bad_goal", "action_semantics")
        ]
        means = [_mean_of(judged, key) for key in ("facts_jaccard_truth", "facts_jaccard_previous")]
        rows.append(
            [
                *config,
                f"{sum(j['judged'] for j in judged)} / {sum(j['rounds'] for j in judged)}",
                *cells,
                *means,
                sum(j["regenerated"] for j in judged),
            ]
        )
    header = [
        "env",
        "options",
        "model",
        "condition",
        "settings",
        "rounds judged",
        "hallucinated facts (in rounds)",
        "forgotten facts",
        "bad goals",
        "action-semantics errors",
        "facts Jaccard vs truth",
        "facts Jaccard vs last round",
        "files regenerated",
    ]
    return markdown_table(header, rows, align="lllll" + "r" * 8)


def _mean_of(judged: list[dict], key: str) -> str:
    values = [j[key] for j in judged if j.get(key) is not None]
    return f"{statistics.mean(values):.2f}" if values else "-"


def success_series(records: list[dict]) -> tuple[dict, str]:
    """Success by number of locations (CoinCollector) or by task type (ALFWorld), one
    series per environment, model (its run's label) and condition."""
    series: dict[str, dict] = {}
    for record in records:
        provenance = record.get("provenance", {})
        name = f"{provenance.get('env')} {run_key(record).label}: {condition_label(record)}"
        x = (
            record.get("task_type")
            or f"{(provenance.get('env_kwargs') or {}).get('num_locations', '-')} locations"
        )
        series.setdefault(name, {}).setdefault(x, []).append(record)
    points = {
        name: [(x, *tally(group)) for x, group in sorted(xs.items(), key=natural)]
        for name, xs in series.items()
    }
    kinds = {"task type" if r.get("task_type") else "locations" for r in records}
    return points, " / ".join(sorted(kinds))


@study_main
def main(argv=None, model=None, show: bool = True) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same)."""
    parser = study_parser(
        __doc__,
        env="CoinCollector-v0",
        out="results/pddlego",
        instances="0:10",
        llm_choices_help="openai:MODEL, URL@MODEL, interactive or groundtruth",
    )
    parser.add_argument("--policy", choices=("pddlego", "plangen"), default="pddlego")
    parser.add_argument(
        "--prompt",
        choices=NAMES,
        help="the formalizer's prompt (default detailed; generic, the only one, on the "
        "contingent PDDL environments)",
    )
    parser.add_argument(
        "--prompt-file",
        metavar="FILE",
        help="the formalizer's prompt as a template (planloop.formalizer.templates: "
        "{observation}, {df}, {pf}, {error}, {valid_commands}, ...; at most 256 KiB), "
        "sent as one user message in place of planloop's prompt",
    )
    parser.add_argument(
        "--no-error-fixing",
        action="store_true",
        help="no solver-error and no simulation-error retries (the ablation)",
    )
    parser.add_argument(
        "--strict-pddl",
        action="store_true",
        help="refuse the model's PDDL where it departs from the standard in "
        "ways Fast Downward or FF accept (by default read as they read "
        "it, each a dialect warning counted in the table)",
    )
    parser.add_argument(
        "--domain-file", help="a fixed PDDL domain: the model writes only problem files"
    )
    parser.add_argument(
        "--domain-reuse",
        action="store_true",
        help="fix the domain of the first won episode recorded in --out",
    )
    parser.add_argument(
        "--planner",
        default="auto",
        choices=PLANNER_NAMES,
        help="auto (default: the core's own search on small tasks, Fast "
        "Downward above) or a Fast Downward configuration such as "
        "lama-first",
    )
    paper = PaperFlags(parser, PDDLEGO_PLUS)
    paper.add(
        "--retries",
        type=non_negative_int,
        default=5,
        help="solver retries per try, and simulation retries per plan cycle unless "
        "--simulation-retries is given (default 5; the paper's 5)",
    )
    paper.add(
        "--simulation-retries",
        type=non_negative_int,
        default=None,
        help="simulation retries per plan cycle (default: --retries; the paper's 4, i.e. 5 "
        "tries); given to --policy plangen, PlanGen as its authors ran it (a step per "
        "command, a refused one tried again)",
    )
    paper.add(
        "--max-steps",
        type=step_count,
        default=None,
        metavar="N",
        help="plan cycles per episode (PlanGen: steps, planloop's PlanGen: commands), "
        "'none' for no cap, or "
        "'paper' for the authors' 20 on CoinCollector, 50 on ALFWorld, 20 for "
        "PlanGen (default none; the paper's: paper)",
    )
    paper.add(
        "--rollback",
        action="store_true",
        default=False,
        help="on a refused step, restart the game and replay the plans that ran "
        "through, as PDDLego+'s code does (the paper's)",
    )
    paper.add(
        "--coin",
        choices=tuple(COIN_RECORDED),
        default="planned",
        help="CoinCollector: the model plans taking the coin (default), or it is taken "
        "for the model, which is offered only moves and doors: in-view, whenever it is "
        "in view (one in view at the start is taken at the first step, in place of the "
        "model's command); shown, the paper's: after a step whose text mentions it, "
        "never at the start",
    )
    paper.add(
        "--coin-games",
        choices=("generated", "twx"),
        default="generated",
        help="CoinCollector: planloop's generated houses (default), or TextWorld "
        "Express's own games at the authors' parameters, game i being its train seed "
        "i (twx, the paper's; needs the twx extra and java)",
    )
    paper.add(
        "--unmapped",
        choices=("solver_error", "play"),
        default="solver_error",
        help="a plan step naming no game command: back to the inner loop "
        "(default), or played as written, a simulation error (play, the paper's)",
    )
    paper.add(
        "--feedback",
        choices=("game", "detailed", "authors"),
        default="game",
        help="on a refused step: the game's own text (default), the cause in words, "
        "or a hand-written hint per kind of command (authors, the paper's)",
    )
    paper.add(
        "--replies",
        choices=("lenient", "json"),
        default="lenient",
        help="find the files wherever the reply holds them (default), or require one "
        "JSON object, anything else a model error (json, the paper's)",
    )
    paper.add(
        "--trial-attempts",
        type=positive_int,
        default=1,
        metavar="N",
        help="play an episode that ended on a model error again from scratch, up to "
        "N times in all (default 1; the paper's 2)",
    )
    args = parser.parse_args(argv)
    settings = paper.resolve(args, model.name if model else None)
    family = family_of(args.env)
    template = prompt_file(args, model)
    args.prompt = args.prompt or ("generic" if family == "contingent" else "detailed")
    if family == "contingent" and args.prompt != "generic":
        raise StudyError(
            "contingent PDDL environments have the generic prompt only: --prompt generic"
        )
    truth = args.llm == GROUND_TRUTH and model is None
    if truth and family not in JUDGED:
        raise StudyError(
            f"no ground-truth formalizer for {args.env}: give a model (the "
            f"planner baseline there is planloop.policies.ContingentReplanner)"
        )
    if truth and args.policy == "plangen":
        raise StudyError("--llm groundtruth formalizes; it cannot play --policy plangen")
    if truth and (args.domain_file or args.domain_reuse):
        raise StudyError(
            "--llm groundtruth writes the true domain: --domain-file and "
            "--domain-reuse are for models"
        )
    model, built = (
        (None, None) if truth else study_model(model, args.llm, args.call_timeout, settings.request)
    )
    frozen_df, domain = frozen_domain(args)
    env_kwargs = paper_games(args, settings.paper)
    if args.feedback == "detailed":
        env_kwargs["feedback"] = args.feedback
    condition = {"policy": args.policy, "feedback": args.feedback}
    if args.policy == "pddlego":
        condition.update(
            prompt="file" if template else args.prompt,
            error_fixing=not args.no_error_fixing,
            rollback=args.rollback,
            domain=domain,
        )
        if args.strict_pddl:  # only then: the default's key stays that of earlier runs
            condition["strict_pddl"] = True
    condition.update(loop_condition(args, args.env))
    if authors_plangen(condition):  # only then: planloop's PlanGen keeps its keys
        condition["rollback"] = args.rollback
    if condition.get("coin") in TAKE_RULES and family_of(args.env) != "coin":
        condition.pop("coin")  # the coin rule is CoinCollector's alone
    study = Study(
        "pddlego",
        args.env,
        env_kwargs,
        GROUND_TRUTH if truth else model.name,
        args.llm,
        settings={
            "retries": args.retries,
            "planner": args.planner,
            **settings.recorded(),
            **({"prompt_file": template.version} if template else {}),
        },
    )

    def play(env, job) -> dict:
        episode, attempts = play_trial(
            env,
            lambda: make_policy(
                env,
                None if truth else model,
                job.condition,
                frozen_df,
                args.planner,
                args.retries,
                template,
            ),
            job.condition,
            job.instance,
        )
        return {
            **episode_fields(env, episode, args.retries),
            "trial_attempts_used": attempts,
            "max_episode_steps": getattr(env.spec, "max_episode_steps", None),
        }

    jobs = study.jobs([condition], args.instances, args.trials)
    mine = run_study(study, jobs, play, check=built, model=model, **run_options(args))
    records = [
        r for r in ResultsFile(args.out / "episodes.jsonl").records if r.get("study") == "pddlego"
    ]
    latest = list({r["key"]: r for r in records}.values())
    caption = f"\n\n{PDDLEGO_PLUS.caption(settings.overrides)}" if settings.paper else ""
    table = (
        "## PDDLego+\n\n"
        + results_table(latest)
        + caption
        + prompt_caption(latest)
        + model_failures(latest)
        + "\n\n### The formalizations, judged against the hidden world\n\n"
        + judgement_table(latest)
    )
    (args.out / "results.md").write_text(table + "\n")
    if show:
        print(
            f"## PDDLego+, this run\n\n{results_table(mine)}{caption}{prompt_caption(mine)}"
            f"{model_failures(mine)}"
        )
    series, xlabel = success_series(latest)
    envs = sorted({str((r.get("provenance") or {}).get("env")) for r in latest})
    by = {"locations": "house size", "task type": "task type"}
    title = (
        f"PDDLego+ on {', '.join(envs)}: success by "
        + " and ".join(by[kind] for kind in xlabel.split(" / "))
        + f"; {', '.join(run.label for run in split_runs(latest))}"
    )
    (show_success_plot if show else save_success_plot)(
        series, args.out / "success.png", xlabel, ordered=xlabel == "locations", title=title
    )
    caption = f"{title}: each point k/n episodes, bars the 95% Wilson interval."
    report = write_report(
        latest, args.out / "report.html", "PDDLego+", plots=[(args.out / "success.png", caption)]
    )
    if show:
        print(f"\nevery run in {args.out}: {args.out / 'results.md'}\nreport: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
