"""A bench run: every contestant (a model or a reference player) on every unit of every
family it plays, ``workers`` episodes at a time in threads, each record appended to
``OUT/<family>/episodes.jsonl`` as its episode ends, so that a rerun plays only what is
missing (a model added later: its own episodes alone)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..llm import ChatModel
from ..results import ResultsFile, record_problem
from ..study.backends import open_pool, require
from ..study.errors import Interrupted, StudyError, one_line
from ..study.models import check_model
from ..study.progress import Progress
from ..study.runner import sole_writer
from .episodes import Environments, play
from .families import plays
from .metered import Spending
from .prices import Price
from .records import BenchRecord
from .suite import Family, Suite, Unit


@dataclass(frozen=True)
class Contestant:
    """A row of the board: its ``label`` (the ``--llm`` spec, or a reference player's
    name), the model (None for a reference player), the request settings it sends, and
    its price (None: unknown)."""

    label: str
    model: ChatModel | None = None
    settings: dict = field(default_factory=dict)
    price: Price | None = None

    @property
    def player(self) -> ChatModel | str:
        return self.model if self.model is not None else self.label


@dataclass(frozen=True)
class Job:
    contestant: Contestant
    family: Family
    unit: Unit

    def key(self, suite_sha: str) -> str:
        """``<the suite's sha256, 16 digits>/<label>/<family>/<instance>/<seed>``."""
        unit = self.unit
        return f"{suite_sha[:16]}/{self.contestant.label}/{self.family.name}/{unit.id}/{unit.seed}"


def bench_problem(record: object) -> str | None:
    """Why a line read back is not a bench record (None when it is)."""
    return record_problem(record, BenchRecord)


def results_files(out: Path, suite: Suite) -> dict[str, ResultsFile]:
    """Each family's ``OUT/<family>/episodes.jsonl``."""
    return {
        f.name: ResultsFile(out / f.name / "episodes.jsonl", bench_problem) for f in suite.families
    }


def recorded(files: dict[str, ResultsFile]) -> dict[str, BenchRecord]:
    """The latest record of each key, over every family's file."""
    latest: dict[str, BenchRecord] = {}
    for results in files.values():
        for record in results.records:
            latest[record["key"]] = record  # type: ignore[assignment]
    return latest


def plan(suite: Suite, contestants: Sequence[Contestant]) -> list[Job]:
    """Every job of the run, contestant by contestant interleaved over the families, so
    that the first episodes to end span them all."""
    per_family = [
        [Job(c, f, u) for u in f.units]
        for f in suite.families
        for c in contestants
        if plays(c.label, f)
    ]
    jobs: list[Job] = []
    for index in range(max((len(jobs) for jobs in per_family), default=0)):
        jobs += [group[index] for group in per_family if index < len(group)]
    return jobs


def run_bench(
    suite: Suite,
    contestants: Sequence[Contestant],
    out: Path,
    workers: int = 1,
    max_cost: float | None = None,
    stream: TextIO | None = None,
    check: bool = True,
    backend: str = "local",
) -> list[BenchRecord]:
    """Play every job not yet recorded in ``out``, ``workers`` at a time on ``backend``
    (``local``: threads; ``ray``: Ray actors, see :class:`~planloop.study.backends.RayPool`,
    each with its environments); returns the latest record of every job
    (those of earlier runs included). Before the first episode each family's
    environments are made once and each model that has episodes to play answers one
    call (``check``); either failing is a StudyError. ``max_cost`` (USD) stops the run
    once this run's calls have spent it: a StudyError naming the cap, the episodes that
    ended saved (on Ray the episodes' costs are added up here as they end, so the
    episodes running when the cap is reached finish). An episode that ended because the
    server did not answer (:data:`SERVER_GONE`) is not recorded (a rerun plays it), and
    :data:`MAX_GONE_IN_A_ROW` of them in a row stop the run with a StudyError. Ctrl-C
    and SIGTERM raise Interrupted with the count saved."""
    stream = stream or sys.stderr
    with sole_writer(out):
        files = results_files(out, suite)
        for results in files.values():
            if results.set_aside:
                print(f"bench: {results.damage_report()}", file=stream, flush=True)
        jobs = plan(suite, contestants)
        done = recorded(files)
        todo = [job for job in jobs if job.key(suite.sha256) not in done]
        print(
            f"bench {suite.name}: {len(jobs)} episodes ({len(contestants)} contestants, "
            f"{len(suite.families)} families), {len(jobs) - len(todo)} already in {out}, "
            f"{len(todo)} to run",
            file=stream,
            flush=True,
        )
        if todo:
            require(backend, next((c.model for c in contestants if c.model), None))
            envs = Environments()  # made and checked here, then the first worker's
            try:
                _check(todo, check, envs)
            except BaseException:
                envs.close()
                raise
            spending = Spending(max_cost)
            _play_all(
                suite,
                todo,
                files,
                out,
                workers,
                backend,
                spending,
                Progress(len(jobs), len(jobs) - len(todo), stream),
                envs,
            )
        latest = recorded(files)
        return [latest[job.key(suite.sha256)] for job in jobs if job.key(suite.sha256) in latest]


def _check(todo: Sequence[Job], check: bool, envs: Environments) -> None:
    """Each environment of the jobs made once, into ``envs`` (the first worker's), and
    each model answering once."""
    for job in todo:
        if job.unit.env is None:
            continue
        try:
            envs.get(job.family, job.unit)
        except Exception as exc:  # the environment's own message, in one line
            raise StudyError(
                f"{job.family.name}: cannot make {job.unit.env}: {type(exc).__name__}: "
                f"{one_line(exc)[:300]}"
            ) from None
    if check:
        checked: set[str] = set()
        for job in todo:
            model = job.contestant.model
            if model is not None and job.contestant.label not in checked:
                checked.add(job.contestant.label)
                check_model(model)


SERVER_GONE = ("model_unreachable", "model_timeout")  # no answer: not the model's doing
MAX_GONE_IN_A_ROW = 3  # episodes in a row ending so stop the run


def _play_job(
    out: Path, suite_sha: str, spending: Spending, envs: Environments, job: Job
) -> BenchRecord | None:
    """One job on a worker (a thread, or a Ray actor) holding ``envs``."""
    contestant = job.contestant
    return play(
        job.family,
        job.unit,
        contestant.label,
        contestant.player,
        contestant.price,
        spending,
        envs,
        out,
        suite_sha,
        job.key(suite_sha),
    )


def _play_all(
    suite: Suite,
    todo: Sequence[Job],
    files: dict[str, ResultsFile],
    out: Path,
    workers: int,
    backend: str,
    spending: Spending,
    progress: Progress,
    envs: Environments,
) -> None:
    def finish(job: Job, record: BenchRecord | None) -> BenchRecord | None:
        if record is not None and record["failure"] not in SERVER_GONE:
            files[job.family.name].append(dict(record))
            if backend == "ray" and record["cost_usd"]:  # each actor has its own Spending
                fresh = 1 - record["cached_calls"] / max(1, record["calls"])
                spending.add(record["cost_usd"] * fresh)
        return record

    play_job = functools.partial(_play_job, out, suite.sha256, spending)
    # the pools are typed for a study's jobs and environments; a bench job, and a worker's
    # Environments, go through them the same way
    opened: Any = open_pool
    pool = opened(backend, Environments, play_job, finish, max(1, min(workers, len(todo))), envs)
    futures = {pool.submit(job): job for job in todo}
    done, failed, every = progress.total - len(todo), 0, max(1, progress.total // 10)
    crash: BaseException | None = None
    gone: list[str] = []  # the last episodes in a row that ended on the server gone

    def stop() -> None:
        for pending in futures:
            pending.cancel()

    try:
        for future in pool.completed():
            if future.cancelled():
                continue
            job, exc = futures[future], future.exception()
            if exc is not None:
                if crash is None:
                    crash = exc
                    stop()
                    progress.note(
                        f"{job.contestant.label} {job.family.name} {job.unit.id}: "
                        f"{type(exc).__name__}: {one_line(exc)[:300]} (a bug? stopping after "
                        "the running episodes)"
                    )
                continue
            record = future.result()
            if record is None or spending.reached:  # the cap: no further episode starts
                stop()
            if record is None:  # a call the cap stopped: the episode is a rerun's
                continue
            if record["failure"] in SERVER_GONE:  # not recorded: a rerun plays it
                gone.append(record["detail"])
                if len(gone) == MAX_GONE_IN_A_ROW:
                    stop()
                continue
            gone = []
            done += 1
            failed += (record["failure"] or "").startswith("model_")
            if progress.live or done % every == 0 or done == progress.total:
                progress.update(done, failed)
    except KeyboardInterrupt as exc:
        for results in files.values():
            results.close()
        progress.close()
        pool.abandon()  # the running episodes: a rerun's
        # saved: what the files hold (an episode written as the signal came is saved, but
        # not yet counted by the loop above)
        saved = (
            progress.total
            - len(todo)
            + sum(job.key(suite.sha256) in files[job.family.name].done for job in todo)
        )
        raise Interrupted(getattr(exc, "code", 130), saved=(saved, progress.total)) from None
    pool.shutdown()
    progress.close()
    if crash is not None:
        raise crash
    if spending.reached:
        raise StudyError(f"{spending.message()}; {done} of {progress.total} episodes saved")
    if len(gone) >= MAX_GONE_IN_A_ROW:
        raise StudyError(
            f"the model server stopped answering: {len(gone)} episodes in a row ended on "
            f"{gone[-1][:200]}; {done} of {progress.total} episodes saved, rerun the same "
            "command to resume once it answers"
        )
