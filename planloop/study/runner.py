"""``run_study``: play a study's jobs in worker threads or on Ray, each worker with its
own environment, appending one record per episode to ``OUT/episodes.jsonl`` as it ends, so
that a rerun resumes where the last run stopped."""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import gymnasium as gym

try:
    import fcntl
except ImportError:  # not on Windows: there, two runs on one --out are not kept apart
    # the usual optional import: mypy types the name as the module alone
    fcntl = None  # type: ignore[assignment]

from ..envs.lookup import make_error, unknown_env
from ..llm import ChatModel, SentRecord, recording
from ..pddl import PDDLError
from ..results import ResultsFile, record_problem
from .backends import Play, open_pool, require
from .errors import Interrupted, StudyError, one_line
from .jobs import Job, Study
from .models import check_model
from .progress import Progress, episodes, progress_for, under_one_line
from .records import EpisodeRecord


def make_env(env_id: str, env_kwargs: Mapping[str, object] | None = None) -> gym.Env:
    """``gym.make(env_id, **env_kwargs)``; an unknown id or a bad argument is a StudyError."""
    kwargs: dict[str, Any] = dict(env_kwargs or {})
    unknown = unknown_env(env_id)
    if unknown is not None:
        raise StudyError(unknown)
    try:
        return gym.make(env_id, **kwargs)
    except (gym.error.Error, TypeError, ValueError, OSError) as exc:
        shown = ", ".join(f"{key}={value!r}" for key, value in kwargs.items())
        raise StudyError(
            f"cannot make {env_id}{f' with {shown}' if shown else ''}: "
            f"{one_line(make_error(env_id, exc))}"
        ) from None


def every_instance(
    env_id: str, env_kwargs: Mapping[str, object] | None = None, limit: int | None = None
) -> range:
    """The environment's instances (the first ``limit`` of them); a StudyError for a
    world generated from any seed, which has no list to run."""
    env = make_env(env_id, env_kwargs)
    count = getattr(env.unwrapped, "num_instances", None)
    env.close()
    if count is None:
        raise StudyError(f"{env_id} has no fixed list of instances: give --instances A:B")
    return range(count if limit is None else min(limit, count))


def episode_problem(record: object) -> str | None:
    """Why a line of a study's ``episodes.jsonl`` is not an episode's record (None when
    it is): it must fit :class:`~planloop.study.records.EpisodeRecord`."""
    return record_problem(record, EpisodeRecord)


def latest_records(records: Iterable[dict]) -> dict[str | None, dict]:
    """The last record of each key (a rerun appends after the record it replaces)."""
    return {record.get("key"): record for record in records}


def run_study(
    study: Study,
    jobs: Sequence[Job],
    play: Play,
    *,
    out: Path | str,
    workers: int = 1,
    check: ChatModel | None = None,
    stream: TextIO | None = None,
    backend: str = "local",
    max_failed_in_a_row: int = 3,
    model: ChatModel | None = None,
) -> list[dict]:
    """Play every job whose latest record in ``out/episodes.jsonl`` is missing or has an
    ``error``, ``workers`` at a time; returns the latest record of every job, in order.

    ``play(env, job)`` plays one episode and returns its record's fields; a field
    ``error`` (a model call that failed for good) marks the episode to be run again by
    the next run. The harness adds ``key``, ``study``, the condition's fields,
    ``instance``, ``trial`` and ``provenance`` (which win over play's own; see
    :meth:`Study.provenance`).

    ``backend``: ``local`` (worker threads) or ``ray`` (Ray actors, see
    :class:`~planloop.study.backends.RayPool`; ``play`` and what it holds must pickle).
    Either way the records are made and appended in this process, the same records as
    each other for the same jobs.

    ``model`` (by default ``check``): the study's model. When it reports its request
    (``OpenAIChat.request_record``), each record's provenance keeps as ``request``
    what that episode's requests carried, read from each request as it was sent
    (``sent_sets`` and ``unlisted_requests``, see :mod:`planloop.llm.sent`; the
    check's call is not among them), the defaults the model refused and the model the
    server said answered. With Ray, the defaults a worker's copy dropped are not seen
    here.

    Before the first episode: the environment is made (``gym.make(study.env_id,
    **study.env_kwargs)``, then once more per further worker; a study whose ``env_id``
    is None plays none and ``play`` gets None), the jobs' instances are checked against
    its ``num_instances``, and ``check`` (a model built from ``--llm``) must answer one
    call; each failure is a StudyError, as is Ray missing (or asked to play an
    interactive model). Nothing is checked when no episode is left to run.

    Progress and one line per failed episode (``instance 3 trial 0 (horizon=1):
    server: 503 ...``) go to ``stream`` (stderr). A PDDLError raised by ``play`` (the task
    is refused: a limit met at reset, a file that is not PDDL) is a StudyError naming the
    episode. Any other exception raised by ``play`` is a bug: no further episode starts, the running ones finish and are recorded, and the
    exception is raised again (a rerun then plays the episodes left).

    One run at a time writes to ``out``: a second one started while it runs is a
    StudyError (two would play the same episodes and record them twice).

    ``max_failed_in_a_row`` episodes in a row ending because the model server could not
    be reached (a connection or timeout error) stop the study with a StudyError rather
    than spending each remaining episode's retries. Ctrl-C or SIGTERM raise
    :class:`~planloop.study.errors.Interrupted` at once, with the count of episodes
    saved. Lines of ``episodes.jsonl`` that are not valid records are set aside (see
    :class:`~planloop.results.ResultsFile`) and reported once on ``stream``.
    """
    with sole_writer(Path(out)):
        return _run(
            study,
            jobs,
            play,
            Path(out),
            workers,
            check,
            stream or sys.stderr,
            backend,
            max_failed_in_a_row,
            model or check,
        )


@contextmanager
def sole_writer(out: Path) -> Iterator[None]:
    """Hold ``out/.lock`` (an flock, freed by the kernel however the run ends). A folder
    made here that holds nothing else when the run fails (before its first episode) is
    removed again."""
    if out.exists() and not out.is_dir():
        raise StudyError(f"--out {out} is a file: give a folder (it holds episodes.jsonl)")
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        with _locked(out):
            yield
    except BaseException:
        if made and [path.name for path in out.iterdir()] == [".lock"]:
            (out / ".lock").unlink()
            out.rmdir()
        raise


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Hold ``out/.lock``; a StudyError when another run holds it."""
    with open(out / ".lock", "w") as lock:
        if fcntl is None:
            yield
            return
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StudyError(
                f"another run is writing to {out}: wait for it to end, or give another --out"
            ) from None
        yield


def _run(
    study: Study,
    jobs: Sequence[Job],
    play: Play,
    out: Path,
    workers: int,
    check: ChatModel | None,
    stream: TextIO,
    backend: str,
    max_failed_in_a_row: int,
    model: ChatModel | None,
) -> list[dict]:
    results = ResultsFile(out / "episodes.jsonl", study.record_problem)
    if results.set_aside:
        print(f"{study.name}: {results.damage_report()}", file=stream, flush=True)
    latest = latest_records(results.records)
    todo = [job for job in jobs if job.key not in latest or latest[job.key].get("error")]
    env = None
    if todo:
        require(backend, check)
        env = _make(study)
        try:
            if env is not None:
                _check_instances(env, study.env_id, todo)
            if check is not None:
                check_model(check)
        except BaseException:
            if env is not None:
                env.close()
            raise
    if not under_one_line():
        print(
            f"{study.cell}: {episodes(len(jobs))}, {len(jobs) - len(todo)} already in "
            f"{results.path}, {len(todo)} to run",
            file=stream,
            flush=True,
        )
    progress = progress_for(study.cell, len(jobs), len(jobs) - len(todo), stream)
    if todo:
        with _collector_tuned():
            _play_all(
                study,
                todo,
                play,
                results,
                workers,
                env,
                progress,
                backend,
                max_failed_in_a_row,
                model,
            )
    elif under_one_line():
        progress.update(len(jobs), 0)
    latest = latest_records(results.records)
    return [latest[job.key] for job in jobs if job.key in latest]


STUDY_GC_THRESHOLDS = (20_000, 50, 50)  # see _collector_tuned; Python's default (700, 10, 10)


@contextmanager
def _collector_tuned() -> Iterator[None]:
    """While the episodes play, the cyclic garbage collector runs less often
    (:data:`STUDY_GC_THRESHOLDS`): a study holds the tasks it read and grounded, so each
    full collection walks 100,000 objects or more (0.14 s in a 12-episode ALFWorld
    PDDLego+ study, whose collections took a sixth of its episodes' time; with these
    thresholds, a twenty-fifth). Reference counting frees as before; the thresholds are
    restored after."""
    before = gc.get_threshold()
    gc.set_threshold(*STUDY_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _make(study: Study) -> gym.Env | None:
    return None if study.env_id is None else make_env(study.env_id, study.env_kwargs)


def _check_instances(env: gym.Env, env_id: str | None, jobs: Sequence[Job]) -> None:
    count = getattr(env.unwrapped, "num_instances", None)
    if count is None:  # a world generated from any seed
        return
    outside = sorted({job.instance for job in jobs if not 0 <= job.instance < count})
    if outside:
        shown = ", ".join(map(str, outside[:3])) + (", ..." if len(outside) > 3 else "")
        raise StudyError(
            f"{env_id} has {count} instances (0 to {count - 1}); there is no instance {shown}"
        )


_SENT = "_sent"  # the field that carries what an episode's requests sent from play to finish


def _noting_sent(play: Play, env: gym.Env | None, job: Job) -> dict:
    """``play(env, job)``'s fields and, under :data:`_SENT`, what the requests made
    while it played carried (where it plays: a thread here or a Ray actor)."""
    with recording() as log:
        fields = play(env, job)
    return {**fields, _SENT: log.record()}


def _play_all(
    study: Study,
    todo: Sequence[Job],
    play: Play,
    results: ResultsFile,
    workers: int,
    env: gym.Env | None,
    progress: Progress,
    backend: str,
    max_failed_in_a_row: int,
    model: ChatModel | None,
) -> None:
    request_record = getattr(model, "request_record", None)

    def finish(job: Job, played: dict) -> dict:
        fields = dict(played)
        sent: SentRecord = fields.pop(_SENT)
        head = {
            "key": job.key,
            "study": study.name,
            **job.condition,
            "instance": job.instance,
            "trial": job.trial,
        }
        record = {**head, **fields, **head}
        record["provenance"] = study.provenance(job, record)
        request = request_record() if request_record is not None else None
        if request is not None:
            record["provenance"]["request"] = {
                **sent,
                "dropped": request["dropped"],
                "served_model": request["served_model"],
            }
        results.append(record)
        return record

    pool = open_pool(
        backend,
        functools.partial(_make, study),
        functools.partial(_noting_sent, play),
        finish,
        min(workers, len(todo)),
        env,
    )
    done, failed, crash = progress.total - len(todo), 0, None
    every = max(1, progress.total // 10)  # off a terminal, a progress line each tenth
    in_a_row: list[str] = []
    unreachable = None  # why the study stops early, the server being gone
    futures = {pool.submit(job): job for job in todo}
    try:
        for future in pool.completed():
            if future.cancelled():
                continue
            job, exc = futures[future], future.exception()
            if isinstance(exc, PDDLError):  # the task itself (a limit met at reset, ...)
                exc = StudyError(f"{job.label}: {exc.summary()}")
            if exc is not None:
                if crash is None:
                    crash = exc
                    for pending in futures:
                        pending.cancel()
                if not isinstance(exc, StudyError):  # a StudyError is said once, by main
                    progress.note(
                        f"{job.label}: {type(exc).__name__}: {one_line(exc)} "
                        f"(a bug in play? stopping after the running episodes)"
                    )
                continue
            done += 1
            record = future.result()
            error = record.get("error")
            if error:
                failed += 1
                first = progress.failures.add(record, f"{job.label}: {one_line(error)}")
                if first:  # the first of its kind as it happens; the rest counted
                    progress.note(first)
            if progress.live or done % every == 0 or done == progress.total:
                progress.update(done, failed)
            in_a_row = in_a_row + [error] if _unreachable(record) else []
            if len(in_a_row) == max_failed_in_a_row and crash is None:
                unreachable = f"{len(in_a_row)} episodes in a row ended on {one_line(in_a_row[-1])}"
                for pending in futures:
                    pending.cancel()
    except KeyboardInterrupt as exc:
        results.close()  # the record being written is finished; no other starts
        progress.close()
        pool.abandon()
        saved = progress.total - len(todo) + sum(job.key in results.done for job in todo)
        raise Interrupted(getattr(exc, "code", 130), saved=(saved, progress.total)) from None
    pool.shutdown()
    progress.close()
    if crash is not None:
        raise crash
    if unreachable is not None:
        raise StudyError(
            f"the model server stopped answering: {unreachable}; "
            f"{done} of {progress.total} episodes saved, rerun the same "
            f"command to resume once it answers"
        )


UNREACHABLE = ("connection", "timeout")  # the LLMError kinds of a server gone


def _unreachable(record: Mapping) -> bool:
    """Whether an episode ended because the model server could not be reached: its
    ``error_kind``, or (a record from a play function that keeps only the text) the
    kind its ``error`` text begins with."""
    error = record.get("error")
    if not error:
        return False
    kind = record.get("error_kind") or str(error).split(":", 1)[0]
    return kind in UNREACHABLE
