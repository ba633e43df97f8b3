"""A bench run: every contestant (a model or a reference player) on every unit of every
family it plays, ``workers`` episodes at a time in threads, each record appended to
``OUT/<family>/episodes.jsonl`` as its episode ends, so that a rerun plays only what is
missing (a model added later: its own episodes alone)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..llm import ChatModel
from ..results import ResultsFile, record_problem
from ..study.errors import Interrupted, StudyError, one_line
from ..study.models import check_model
from ..study.progress import Progress
from ..study.runner import sole_writer
from .episodes import Environments, play
from .families import make_env, plays
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

    def key(self, suite: Suite) -> str:
        unit = self.unit
        return (
            f"{suite.sha256[:16]}/{self.contestant.label}/{self.family.name}/{unit.id}/{unit.seed}"
        )


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
) -> list[BenchRecord]:
    """Play every job not yet recorded in ``out``; returns the latest record of every job
    (those of earlier runs included). Before the first episode each family's
    environments are made once and each model that has episodes to play answers one
    call (``check``); either failing is a StudyError. ``max_cost`` (USD) stops the run
    once this run's calls have spent it: a StudyError naming the cap, the episodes that
    ended saved. Ctrl-C and SIGTERM raise Interrupted with the count saved."""
    stream = stream or sys.stderr
    with sole_writer(out):
        files = results_files(out, suite)
        for results in files.values():
            if results.set_aside:
                print(f"bench: {results.damage_report()}", file=stream, flush=True)
        jobs = plan(suite, contestants)
        done = recorded(files)
        todo = [job for job in jobs if job.key(suite) not in done]
        print(
            f"bench {suite.name}: {len(jobs)} episodes ({len(contestants)} contestants, "
            f"{len(suite.families)} families), {len(jobs) - len(todo)} already in {out}, "
            f"{len(todo)} to run",
            file=stream,
            flush=True,
        )
        if todo:
            _check(todo, check)
            spending = Spending(max_cost)
            _play_all(
                suite,
                todo,
                files,
                out,
                workers,
                spending,
                Progress(len(jobs), len(jobs) - len(todo), stream),
                stream,
            )
        latest = recorded(files)
        return [latest[job.key(suite)] for job in jobs if job.key(suite) in latest]


def _check(todo: Sequence[Job], check: bool) -> None:
    """Each environment of the jobs made once, each model answering once."""
    made: set[tuple] = set()
    for job in todo:
        where = (job.family.name, job.unit.env, job.unit.options)
        if job.unit.env is None or where in made:
            continue
        made.add(where)
        try:
            make_env(job.family, job.unit).close()
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


def _play_all(
    suite: Suite,
    todo: Sequence[Job],
    files: dict[str, ResultsFile],
    out: Path,
    workers: int,
    spending: Spending,
    progress: Progress,
    stream: TextIO,
) -> None:
    envs = Environments()
    limit = max(1, min(workers, len(todo)))
    executor = ThreadPoolExecutor(max_workers=limit)
    running: dict[Future, Job] = {}
    pending = list(reversed(todo))
    done, failed, every = progress.total - len(todo), 0, max(1, progress.total // 10)
    crash: BaseException | None = None

    def submit() -> None:
        while pending and len(running) < limit and not spending.reached and crash is None:
            job = pending.pop()
            running[
                executor.submit(
                    play,
                    job.family,
                    job.unit,
                    job.contestant.label,
                    job.contestant.player,
                    job.contestant.price,
                    spending,
                    envs,
                    out,
                    suite.sha256,
                    job.key(suite),
                )
            ] = job

    try:
        submit()
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                job = running.pop(future)
                exc = future.exception()
                if exc is not None:
                    if crash is None:
                        crash = exc
                        progress.note(
                            f"{job.contestant.label} {job.family.name} {job.unit.id}: {type(exc).__name__}: {one_line(exc)[:300]} (stopping after the running episodes)"
                        )
                    continue
                record = future.result()
                if record is None:  # the cost cap stopped a call: played again by a rerun
                    continue
                files[job.family.name].append(dict(record))
                done += 1
                failed += not record["won"]
                if progress.live or done % every == 0 or done == progress.total:
                    progress.update(done, failed)
            submit()
    except KeyboardInterrupt as exc:
        for results in files.values():
            results.close()
        progress.close()
        executor.shutdown(wait=False, cancel_futures=True)  # the running ones: a rerun's
        raise Interrupted(getattr(exc, "code", 130), saved=(done, progress.total)) from None
    executor.shutdown(wait=True)
    envs.close()
    progress.close()
    if crash is not None:
        raise crash
    if spending.reached:
        raise StudyError(f"{spending.message()}; {done} of {progress.total} episodes saved")
