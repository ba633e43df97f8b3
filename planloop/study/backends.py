"""Where a study's episodes are played: worker threads on this machine (``local``) or Ray
actors (``ray``), each worker with its own environment. Either way ``play`` returns its
fields to this process, which makes every record (``finish``) and is the only writer of
the results.

A pool takes jobs (``submit``, a Future of the record), yields each Future as its
episode ends (``completed``) and, on ``shutdown``, lets the running episodes finish and
be recorded, drops the jobs not started and closes the environments; ``abandon`` (an
interrupted study) drops them all without waiting.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Any

import gymnasium as gym

from ..llm import InteractiveModel
from .errors import StudyError, one_line
from .jobs import Job

BACKENDS = ("local", "ray")
Make = Callable[[], "gym.Env | None"]  # a new environment (None for a study without one)
Play = Callable[["gym.Env | None", Job], dict]
Finish = Callable[[Job, dict], dict]  # play's fields -> the record, appended


def require(backend: str, model: object = None) -> None:
    """A StudyError when ``backend`` cannot run here (Ray not installed) or cannot play
    ``model`` (a person at this terminal)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend is one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend == "ray":
        if isinstance(model, InteractiveModel):
            raise StudyError("--llm interactive answers at this terminal: use --backend local")
        try:
            # the ray extra, not installed everywhere (this is where its absence is said)
            import ray  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
        except ImportError:
            raise StudyError("--backend ray needs Ray: pip install 'planloop[ray]'") from None


def open_pool(
    backend: str, make: Make, play: Play, finish: Finish, workers: int, env: gym.Env | None
):
    """The pool of ``backend`` with ``workers`` workers; ``env`` (made and checked
    already) serves the first thread, or is closed when the workers are Ray actors."""
    if backend == "local":
        return ThreadPool(make, play, finish, workers, env)
    if env is not None:
        env.close()
    return RayPool(make, play, finish, workers)


class ThreadPool:
    """``workers`` threads, each making its own environment (the first gets ``env``) and
    recording its episodes as they end."""

    def __init__(self, make: Make, play: Play, finish: Finish, workers: int, env: gym.Env | None):
        self._make, self._play, self._finish = make, play, finish
        self._local = threading.local()
        self._spare, self._made = [env], [env]
        self._executor = ThreadPoolExecutor(max_workers=workers)
        self._futures: list[Future] = []

    def _run(self, job: Job) -> dict:
        if not hasattr(self._local, "env"):
            try:
                self._local.env = self._spare.pop()
            except IndexError:
                self._local.env = self._make()
                self._made.append(self._local.env)
        return self._finish(job, self._play(self._local.env, job))

    def submit(self, job: Job) -> Future:
        future = self._executor.submit(self._run, job)
        self._futures.append(future)
        return future

    def completed(self) -> Iterator[Future]:
        return as_completed(self._futures)

    def shutdown(self) -> None:
        try:
            self._executor.shutdown(wait=True, cancel_futures=True)
        finally:
            for env in self._made:
                if env is not None:
                    env.close()

    def abandon(self) -> None:
        """Drop the jobs not started and stop waiting for the running ones (an
        interrupted study: they are played again by a rerun)."""
        self._executor.shutdown(wait=False, cancel_futures=True)


class Player:
    """A Ray actor: its own environment, one episode at a time."""

    def __init__(self, make: Make, play: Play):
        self.env, self._play = make(), play

    def play(self, job: Job) -> dict:
        return self._play(self.env, job)

    def close(self) -> None:
        if self.env is not None:
            self.env.close()


class RayPool:
    """``workers`` Ray actors (a :class:`Player` each, spread over the nodes) on the
    runtime ``ray.init()`` finds (``RAY_ADDRESS``, a cluster started on this node, else
    a new local one), unless Ray is initialized already. Jobs wait here for the next
    free actor; ``play`` (and what it holds: the model, the script's functions) is
    pickled once per actor."""

    def __init__(self, make: Make, play: Play, finish: Finish, workers: int):
        import ray  # type: ignore[import-not-found,unused-ignore]  # require() checked it

        if not ray.is_initialized():
            try:
                ray.init()
            except Exception as exc:  # a RAY_ADDRESS nothing answers at, ...
                raise StudyError(f"cannot start or join a Ray runtime: {one_line(exc)}") from None
        self._ray, self._finish = ray, finish
        actor = ray.remote(Player).options(scheduling_strategy="SPREAD")
        # Any: Ray's stubs type an actor's methods as the plain functions (no .remote)
        self._actors: list[Any] = [actor.remote(make, play) for _ in range(workers)]
        self._idle = list(self._actors)
        self._queue: deque[tuple[Job, Future]] = deque()
        self._running: dict = {}  # ObjectRef -> (job, its Future, the actor playing it)

    def submit(self, job: Job) -> Future:
        future: Future = Future()
        self._queue.append((job, future))
        return future

    def completed(self) -> Iterator[Future]:
        while True:
            while self._idle and self._queue:
                job, future = self._queue.popleft()
                if future.set_running_or_notify_cancel():  # False: cancelled
                    actor = self._idle.pop()
                    self._running[actor.play.remote(job)] = (job, future, actor)
            if not self._running:
                return
            [ref], _ = self._ray.wait(list(self._running))
            job, future, actor = self._running.pop(ref)
            self._idle.append(actor)
            try:
                future.set_result(self._finish(job, self._ray.get(ref)))
            except self._ray.exceptions.RayTaskError as exc:  # play raised: that exception,
                exc.cause.__cause__ = exc  # with the worker's traceback chained to it
                future.set_exception(exc.cause)
            except Exception as exc:  # an actor lost, or the record not written
                future.set_exception(exc)
            yield future

    def abandon(self) -> None:
        """Stop every actor now (an interrupted study)."""
        self._queue.clear()
        for actor in self._actors:
            self._ray.kill(actor)

    def shutdown(self) -> None:
        for _, future in self._queue:
            future.cancel()
        self._queue.clear()
        try:
            for _ in self.completed():  # the running episodes finish and are recorded
                pass
        finally:
            closed = [actor.close.remote() for actor in self._actors]
            self._ray.wait(closed, num_returns=len(closed), timeout=30)
            for actor in self._actors:
                self._ray.kill(actor)
