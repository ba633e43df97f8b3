"""PDDLego+: a language model formalizes a partially observed text world in PDDL, a
planner plans, the plan is played; solver errors drive the inner loop, simulation
errors the outer loop, and the files grow as the world is discovered.

    python experiments/pddlego.py --env CoinCollector-v0 -o num_locations=5 \\
        --llm openai:o3-mini --prompt detailed --instances 0:20 --workers 8 \\
        --out results/pddlego-coin
    python experiments/pddlego.py --env ALFWorld-v0 --llm groundtruth --instances 0:12

``--llm groundtruth`` plays the ground-truth formalizer (the true PDDL of what has been
observed, with the detailed prompt's sub-goal rules): the pipeline's upper bound,
recorded as ``groundtruth``. ``--policy plangen`` is the model choosing commands
directly. ``--out DIR`` receives ``episodes.jsonl`` (one record per episode, every
round's files, check, plan and steps in ``details``; rerunning resumes), ``results.md``
(every configuration recorded in DIR), ``report.html`` (every episode round by round)
and ``success.png``.
"""

from __future__ import annotations

import hashlib
import re
import statistics
import sys
from pathlib import Path

from planloop.formalizer import (NAMES, ModelWriter, Prompt, Request, ground_truth_writer,
                                 judge_episode)
from planloop.pddl import PLANNERS, PDDLError, PlanCache, parse_domain
from planloop.policies import PDDLegoPolicy, PlanGenPolicy, run_episode
from planloop.results import ResultsFile
from planloop.study import (Study, StudyError, markdown_table, model_failures, one_line,
                            open_model, run_study, show_success_plot, study_main,
                            study_parser, success_cell, tally, write_report)

FAMILIES = {"CoinCollector-v0": "coin", "ALFWorld-v0": "alfworld"}
GROUND_TRUTH = "groundtruth"
PLAN_CACHE = PlanCache()  # identical (DF, PF) pairs are planned once per run


def family_of(env_id: str) -> str:
    if env_id not in FAMILIES:
        raise StudyError(f"no PDDLego+ prompts for {env_id}: use one of {', '.join(FAMILIES)}")
    return FAMILIES[env_id]


def true_problem(env, family: str, planner: str):
    """For the record only (the policy never reads it): a function returning the
    ground-truth formalizer's PF of what has been observed when it is called."""
    writer = ground_truth_writer(env, family, planner=planner)
    return lambda: writer.write(Request("", "start", (), ())).files.pf


def make_policy(env, model, condition: dict, frozen_df: str | None, planner: str,
                retries: int):
    """The condition's policy for one episode."""
    if condition["policy"] == "plangen":
        return PlanGenPolicy(model)
    family = family_of(env.spec.id)
    writer = ground_truth_writer(env, family, planner=planner) if model is None else \
        ModelWriter(model, Prompt(family, condition["prompt"]))
    return PDDLegoPolicy(writer, max_solver_retries=retries, max_simulation_retries=retries,
                         error_fixing=condition["error_fixing"], planner=planner,
                         frozen_df=frozen_df, solver=PLAN_CACHE.solve,
                         rollback=condition["rollback"],
                         strict_pddl=condition.get("strict_pddl", False),
                         truth=None if model is None else true_problem(env, family, planner))


def episode_fields(env, episode) -> dict:
    """The record: the episode, its loop counters, each round judged against the hidden
    world (``judgement`` in the round, the totals in the record), and what labels its
    world."""
    record = episode.to_json()
    details = record["details"]
    record.update({key: details.get(key, 0) for key in
                   ("solver_errors", "solver_fixed", "simulation_errors", "simulation_fixed",
                    "warnings")})
    rounds = details.get("rounds", [])
    record["rounds"] = len(rounds)
    record["stop"] = details.get("stop")
    record["judgement"] = None
    if rounds:  # the ground truth's own files are the truth of its rounds
        judged = [r if r.get("truth") else {**r, "truth": r["pf"]} for r in rounds] \
            if episode.model == GROUND_TRUTH else rounds
        record["judgement"] = judge_episode(judged, family_of(env.spec.id))
        for round_, judgement in zip(rounds, record["judgement"].pop("per_round")):
            round_["judgement"] = judgement
    game = getattr(env.unwrapped, "game", None)
    record["task_type"] = getattr(game, "task_type", None)
    return record


def frozen_domain(args) -> tuple[str | None, str | None]:
    """(DF text, its label) for ``--domain-file`` or ``--domain-reuse``, else (None, None)."""
    if args.domain_file:
        try:
            text = Path(args.domain_file).read_text()
            parse_domain(text)
        except OSError as exc:
            raise StudyError(f"cannot read --domain-file: {exc}") from None
        except PDDLError as exc:
            raise StudyError(f"--domain-file {args.domain_file} is not a PDDL domain: "
                             f"{one_line(exc)}") from None
        return text, "given:" + hashlib.sha256(text.encode()).hexdigest()[:8]
    if not args.domain_reuse:
        return None, None
    path = args.out / "episodes.jsonl"
    records = ResultsFile(path).records if path.exists() else []
    for record in records:
        rounds = record.get("details", {}).get("rounds") or []
        dfs = [r["df"] for r in rounds if r.get("df") and r.get("plan")]
        if record.get("policy") == "pddlego" and record.get("won") and dfs and \
                record.get("provenance", {}).get("env") == args.env:
            return dfs[-1], "reused:" + hashlib.sha256(dfs[-1].encode()).hexdigest()[:8]
    raise StudyError(f"--domain-reuse found no won PDDLego+ episode on {args.env} in {path}: "
                     f"run without it first")


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


def condition_label(record: dict) -> str:
    """``pddlego, detailed prompt, no error fixing, rollback, reused domain, detailed
    feedback``."""
    parts = [str(record.get("policy"))]
    if record.get("policy") == "pddlego":
        parts.append(f"{record.get('prompt')} prompt")
        parts += [] if record.get("error_fixing") else ["no error fixing"]
        parts += ["rollback"] if record.get("rollback") else []
        parts += ["strict PDDL"] if record.get("strict_pddl") else []
        parts += [f"{str(record['domain']).split(':')[0]} domain"] if record.get("domain") else []
    parts += ["detailed feedback"] if record.get("feedback") == "detailed" else []
    return ", ".join(parts)


def configuration(record: dict) -> tuple[str, str, str, str]:
    """(environment, its options, model, condition): what a table row stands for."""
    provenance = record.get("provenance", {})
    options = ", ".join(f"{k}={v}" for k, v in sorted((provenance.get("env_kwargs") or {})
                                                      .items()))
    return (str(provenance.get("env")), options or "-", str(provenance.get("model")),
            condition_label(record))


def results_table(records: list[dict]) -> str:
    """One row per configuration: success with its Wilson interval, errors met / fixed,
    rounds, steps, model calls and tokens, and how many episodes failed on the model."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault(configuration(record), []).append(record)
    rows = []
    for config, group in sorted(groups.items(), key=lambda item: natural(item[0])):
        played = [r for r in group if not r.get("error")]
        usage = [r.get("usage", {}) for r in played]
        rows.append([*config, success_cell(*tally(group)),
                     _fixed(played, "solver_errors", "solver_fixed"),
                     _fixed(played, "simulation_errors", "simulation_fixed"),
                     _mean(r["rounds"] for r in played), _mean(r["steps"] for r in played),
                     _mean(r.get("warnings", 0) for r in played),
                     _mean(u.get("calls", 0) for u in usage),
                     _mean(u.get("prompt_tokens", 0) + u.get("completion_tokens", 0)
                           for u in usage),
                     len(group) - len(played)])
    header = ["env", "options", "model", "condition", "success [95% Wilson]",
              "solver errors met / fixed", "simulation errors met / fixed", "rounds", "steps",
              "dialect warnings", "model calls", "tokens", "model failures"]
    return markdown_table(header, rows, align="llll" + "r" * 9)


def judgement_table(records: list[dict]) -> str:
    """One row per configuration: PDDLego+'s four error categories, counted from the
    hidden world (errors, and in how many rounds), and the formalizations' stability."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        if record.get("judgement") and not record.get("error"):
            groups.setdefault(configuration(record), []).append(record["judgement"])
    rows = []
    for config, judged in sorted(groups.items(), key=lambda item: natural(item[0])):
        cells = [f"{sum(j[c] for j in judged)} in {sum(j['rounds_' + c] for j in judged)}"
                 for c in ("hallucinated", "forgotten", "bad_goal", "action_semantics")]
        means = [_mean_of(judged, key) for key in ("facts_jaccard_truth",
                                                  "facts_jaccard_previous")]
        rows.append([*config, f"{sum(j['judged'] for j in judged)} / "
                              f"{sum(j['rounds'] for j in judged)}", *cells, *means,
                     sum(j["regenerated"] for j in judged)])
    header = ["env", "options", "model", "condition", "rounds judged",
              "hallucinated facts (in rounds)", "forgotten facts", "bad goals",
              "action-semantics errors", "facts Jaccard vs truth",
              "facts Jaccard vs last round", "files regenerated"]
    return markdown_table(header, rows, align="llll" + "r" * 8)


def _mean_of(judged: list[dict], key: str) -> str:
    values = [j[key] for j in judged if j.get(key) is not None]
    return f"{statistics.mean(values):.2f}" if values else "-"


def success_series(records: list[dict]) -> tuple[dict, str]:
    """Success by number of locations (CoinCollector) or by task type (ALFWorld), one
    series per environment, model and condition."""
    series: dict[str, dict] = {}
    for record in records:
        provenance = record.get("provenance", {})
        name = f"{provenance.get('env')} {provenance.get('model')}: {condition_label(record)}"
        x = record.get("task_type") or \
            f"{(provenance.get('env_kwargs') or {}).get('num_locations', '-')} locations"
        series.setdefault(name, {}).setdefault(x, []).append(record)
    points = {name: [(x, *tally(group)) for x, group in sorted(xs.items(), key=natural)]
              for name, xs in series.items()}
    kinds = {"task type" if r.get("task_type") else "locations" for r in records}
    return points, " / ".join(sorted(kinds))


@study_main
def main(argv=None, model=None) -> int:
    parser = study_parser(__doc__, env="CoinCollector-v0", out="results/pddlego",
                          instances="0:10", llm_choices_help="openai:MODEL, URL@MODEL, "
                                                            "interactive or groundtruth")
    parser.add_argument("--policy", choices=("pddlego", "plangen"), default="pddlego")
    parser.add_argument("--prompt", choices=NAMES, default="detailed")
    parser.add_argument("--no-error-fixing", action="store_true",
                        help="no solver-error and no simulation-error retries (the ablation)")
    parser.add_argument("--rollback", action="store_true",
                        help="on a refused step, restart the game and replay the plans that "
                             "ran through, as PDDLego+'s code does")
    parser.add_argument("--strict-pddl", action="store_true",
                        help="refuse the model's PDDL where it departs from the standard in "
                             "ways Fast Downward or FF accept (by default read as they read "
                             "it, each a dialect warning counted in the table)")
    parser.add_argument("--retries", type=int, default=5,
                        help="retries of each loop per error (default 5)")
    parser.add_argument("--domain-file", help="a fixed PDDL domain: the model writes only "
                                              "problem files")
    parser.add_argument("--domain-reuse", action="store_true",
                        help="fix the domain of the first won episode recorded in --out")
    parser.add_argument("--feedback", choices=("game", "detailed"), default="game",
                        help="the game's own failure texts, or the cause in words")
    parser.add_argument("--planner", default="auto", choices=PLANNERS,
                        help="auto (default: the core's own search on small tasks, Fast "
                             "Downward above) or a Fast Downward configuration such as "
                             "lama-first, as the paper ran")
    args = parser.parse_args(argv)
    family_of(args.env)
    truth = args.llm == GROUND_TRUTH and model is None
    if truth and args.policy == "plangen":
        raise StudyError("--llm groundtruth formalizes; it cannot play --policy plangen")
    if truth and (args.domain_file or args.domain_reuse):
        raise StudyError("--llm groundtruth writes the true domain: --domain-file and "
                         "--domain-reuse are for models")
    built = None if model or truth else open_model(args.llm)
    model = model or built
    frozen_df, domain = frozen_domain(args)
    env_kwargs = dict(args.option)
    if args.feedback != "game":
        env_kwargs["feedback"] = args.feedback
    condition = {"policy": args.policy, "feedback": args.feedback}
    if args.policy == "pddlego":
        condition.update(prompt=args.prompt, error_fixing=not args.no_error_fixing,
                         rollback=args.rollback, domain=domain)
        if args.strict_pddl:  # only then: the default's key stays that of earlier runs
            condition["strict_pddl"] = True
    study = Study("pddlego", args.env, env_kwargs, GROUND_TRUTH if truth else model.name,
                  args.llm, settings={"retries": args.retries, "planner": args.planner})

    def play(env, job) -> dict:
        policy = make_policy(env, None if truth else model, job.condition, frozen_df,
                             args.planner, args.retries)
        return episode_fields(env, run_episode(env, policy, options={"instance": job.instance}))

    jobs = study.jobs([condition], args.instances, args.trials)
    run_study(study, jobs, play, out=args.out, workers=args.workers, check=built,
              backend=args.backend)
    records = [r for r in ResultsFile(args.out / "episodes.jsonl").records
               if r.get("study") == "pddlego"]
    latest = list({r["key"]: r for r in records}.values())
    table = "## PDDLego+\n\n" + results_table(latest) + model_failures(latest) + \
        "\n\n### The formalizations, judged against the hidden world\n\n" + \
        judgement_table(latest)
    (args.out / "results.md").write_text(table + "\n")
    print(table)
    print(f"\nreport: {write_report(latest, args.out / 'report.html', 'PDDLego+')}")
    series, xlabel = success_series(latest)
    show_success_plot(series, args.out / "success.png", xlabel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
