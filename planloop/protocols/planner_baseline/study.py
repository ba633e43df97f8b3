"""The classical-planner baseline study: a planner sees the task as the agent sees it
(``info["domain_pddl"]`` and ``info["problem_pddl"]``, obfuscated in Mystery
environments), plans, and its plan is executed step by step in the environment; one
table row per configuration recorded in the results folder. ``SPEC`` declares it
(played by :func:`planloop.study.spec.run_spec`); ``experiments/planner_baseline.py`` is
its command line."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

import gymnasium as gym

from ...envs import FULLY_OBSERVABLE
from ...envs.lookup import unknown_env
from ...pddl import PLANNER_NAMES
from ...policies import PlannerPolicy, run_episode
from ...results import ResultsFile
from ...stats import wilson_interval
from ...study import StudyError, latest_records, markdown_table, tally
from ...study.backends import Play
from ...study.config import StudyConfig, setting
from ...study.flags import positive_float
from ...study.jobs import Job
from ...study.plots import save_success_plot, show_success_plot
from ...study.records import EpisodeRecord
from ...study.spec import StudyRun, StudySpec, spec_main


@dataclass(frozen=True)
class PlannerBaselineConfig(StudyConfig):
    """The baseline's settings (see :mod:`planloop.study.config`): the planner enters
    each job's condition, the timeout the study's settings, both always."""

    planner: str = setting(
        "lama-first", "the planner", choices=tuple(PLANNER_NAMES), keyed="always"
    )
    timeout: float = setting(
        60.0, "seconds per planner call", type=positive_float, metavar="S", keyed="always"
    )


class _Planned(EpisodeRecord):
    plan_length: int
    planner_seconds: float
    status: str


class PlannerBaselineRecord(_Planned, total=False):
    """A baseline episode's record (:func:`run_instance`'s fields): those the table
    reads always."""

    executed: int
    action_error: str | None
    message: str


DENOMINATORS = (
    "n (episodes) is every scheduled instance and trial of the configuration; "
    "an episode whose planner found no plan (a timeout, an error) or whose plan "
    "the environment refused is a failure."
)


def run_instance(env: gym.Env, instance: int, planner: str, timeout: float) -> dict:
    """Plan from what the agent sees, then execute; the environment judges the result."""
    policy = PlannerPolicy(planner, timeout)
    episode = run_episode(env, policy, options={"instance": instance})
    result = policy.result
    assert result is not None  # the policy plans when the episode starts
    action_error = next((e["message"] for e in episode.errors if e), None)
    return {
        "policy": episode.policy,
        "status": result.status,
        "won": episode.won,
        "plan_length": len(result.plan or ()),
        "executed": episode.steps,
        "planner_seconds": round(result.seconds, 4),
        "action_error": action_error,
        "message": "" if result.solved else result.message,
    }


def configuration(record: dict) -> tuple[str, str, str, str]:
    """(environment, its options, planner, timeout): what a table row stands for."""
    provenance = record.get("provenance", {})
    options = ", ".join(f"{k}={v}" for k, v in sorted((provenance.get("env_kwargs") or {}).items()))
    timeout = (provenance.get("settings") or {}).get("timeout")
    return (
        str(provenance.get("env")),
        options or "-",
        str(record.get("planner")),
        f"{timeout:g} s" if isinstance(timeout, (int, float)) else str(timeout),
    )


def by_configuration(records: list[dict]) -> dict[tuple, list[dict]]:
    """The latest record of every episode in the file, grouped by configuration (in
    the order the file first has them)."""
    groups: dict[tuple, list[dict]] = {}
    for record in latest_records(records).values():
        if record.get("study") == "planner_baseline":
            groups.setdefault(configuration(record), []).append(record)
    return groups


def summary_row(records: list[dict]) -> list:
    wins, n = tally(records)
    low, high = wilson_interval(wins, n)
    lengths = [r["plan_length"] for r in records if r["won"]]
    seconds = [r["planner_seconds"] for r in records]
    statuses = Counter(r["status"] for r in records)
    return [
        n,
        wins,
        f"{wins / max(1, n):.1%}",
        f"[{low:.1%}, {high:.1%}]",
        f"{statistics.mean(lengths) if lengths else 0:.2f}",
        f"{statistics.mean(seconds) if seconds else 0:.3f}",
        ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())),
    ]


def summarize(groups: dict[tuple, list[dict]]) -> str:
    rows = [[*config, *summary_row(group)] for config, group in groups.items()]
    return markdown_table(
        [
            "environment",
            "options",
            "planner",
            "timeout",
            "episodes",
            "won",
            "success",
            "95% Wilson",
            "mean plan length",
            "mean planner s",
            "statuses",
        ],
        rows,
        align="llllrrrcrrl",
    )


def plot_label(config: tuple, groups: dict[tuple, list[dict]]) -> str:
    """The configuration's planner and timeout, with its environment when there are
    several."""
    environments = {(env, options) for env, options, _, _ in groups}
    env, options, planner, timeout = config
    where = f"{env} {options if options != '-' else ''}".strip()
    return f"{where + ': ' if len(environments) > 1 else ''}{planner}, {timeout}"


def validate(run: StudyRun[PlannerBaselineConfig]) -> None:
    """The environment is known and fully observable (a planner needs the task's PDDL)."""
    unknown = unknown_env(run.args.env)
    if unknown is not None:
        raise StudyError(unknown)
    if run.args.env not in FULLY_OBSERVABLE:
        raise StudyError(
            f"{run.args.env} is not fully observable: a planner baseline needs the "
            f"task's PDDL; use one of {', '.join(FULLY_OBSERVABLE)}"
        )


def play(run: StudyRun[PlannerBaselineConfig]) -> Play:
    """Plan one instance with the job's planner, then execute."""

    def episode(env: gym.Env | None, job: Job) -> dict:
        assert env is not None  # the study plays --env
        return run_instance(env, job.instance, str(job.condition["planner"]), run.config.timeout)

    return episode


def write_report(run: StudyRun[PlannerBaselineConfig], records: list[dict]) -> None:
    """``results.md`` and ``success.png``: a row for every configuration recorded in
    ``--out`` (this run's and earlier ones')."""
    assert run.study is not None  # made before the episodes
    groups = by_configuration(
        ResultsFile(run.out / "episodes.jsonl", run.study.record_problem).records
    )
    text = f"## Planner baseline\n\n{summarize(groups)}\n\n{DENOMINATORS}"
    (run.out / "results.md").write_text(text + "\n")
    if run.show:
        print(text)
    (show_success_plot if run.show else save_success_plot)(
        {"success": [(plot_label(c, groups), *tally(g)) for c, g in groups.items()]},
        run.out / "success.png",
        "configuration",
        title=f"Planner baseline on {run.args.env}: success per configuration",
    )


SPEC = StudySpec(
    name="planner_baseline",
    script="planner_baseline.py",
    description=__doc__,
    config=PlannerBaselineConfig,
    protocol=None,
    env="Mystery-BW-v0",
    out="results/planner_baseline",
    instances="0:100",
    llm="none",
    validate=validate,
    uses_model=lambda run: False,
    cells=lambda run: [{"planner": run.config.planner}],
    keyed=lambda run: {"timeout": run.config.timeout},
    record=PlannerBaselineRecord,
    play=play,
    report=write_report,
)
main = spec_main(SPEC)  # the study as its script runs it
