"""What a study runs: its identity (``Study``) and its episodes (``Job``), each with a key
that stays the same from run to run, so that a rerun resumes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .. import __version__
from ..results import config_hash, record_problem
from ..schema import schema_problem
from .errors import StudyError
from .records import EpisodeRecord

MAX_EPISODES = 100_000  # episodes one run schedules (100,000 jobs made in 1.7 s, 42 MB)


def check_episodes(count: int) -> None:
    """A :class:`StudyError` when a run would schedule more than :data:`MAX_EPISODES`."""
    if count > MAX_EPISODES:
        raise StudyError(
            f"{count:,} episodes, more than a run's {MAX_EPISODES:,} "
            "(planloop.study.jobs.MAX_EPISODES): run it in parts (--instances A:B or "
            "fewer --trials or conditions each), the same --out gathers them"
        )


@dataclass(frozen=True)
class Job:
    """One episode to play: a condition (the study's own fields, e.g. ``{"horizon": 5}``),
    an instance and a trial."""

    condition: Mapping[str, object]
    instance: int
    trial: int
    key: str

    @property
    def label(self) -> str:
        """``instance 3 trial 0 (horizon=1)``: the job in a message."""
        condition = ", ".join(f"{k}={v}" for k, v in self.condition.items())
        return f"instance {self.instance} trial {self.trial}" + (
            f" ({condition})" if condition else ""
        )


@dataclass(frozen=True)
class Study:
    """A study's identity: its name, environment (id and ``gym.make`` arguments; None for
    a study that plays none), model (name and the ``--llm`` spec) and ``settings``
    (study-wide parameters that change results, e.g. the temperature). All but the spec
    and ``record`` enter every job's key. ``record``: the schema of its own records (see
    :mod:`planloop.study.records`; :meth:`record_problem`)."""

    name: str
    env_id: str | None
    env_kwargs: Mapping[str, object] = field(default_factory=dict)
    model: str | None = None
    model_spec: str | None = None
    settings: Mapping[str, object] = field(default_factory=dict)
    record: type = EpisodeRecord

    @property
    def cell(self) -> str:
        """``pddlego on CoinCollector-v0 (num_locations=5), gpt-4o``: the study in a
        progress line (its environment's options each cut to 40 characters)."""
        where = f" on {self.env_id}" if self.env_id else ""
        options = ", ".join(f"{key}={_shown(value)}" for key, value in self.env_kwargs.items())
        return (
            f"{self.name}{where}"
            + (f" ({options[:160]})" if options else "")
            + (f", {self.model}" if self.model else "")
        )

    def jobs(
        self, conditions: Iterable[Mapping[str, object]], instances: Iterable[int], trials: int
    ) -> list[Job]:
        """Every condition x instance x trial, keyed ``<config hash>/<instance>/<trial>``;
        more than :data:`MAX_EPISODES` in one call is a :class:`StudyError`, before any
        is made."""
        conditions, instances = list(conditions), list(instances)
        check_episodes(len(conditions) * len(instances) * trials)
        jobs = []
        for condition in conditions:
            run_id = config_hash(
                {
                    "study": self.name,
                    "env": self.env_id,
                    "env_kwargs": dict(self.env_kwargs),
                    "model": self.model,
                    "settings": dict(self.settings),
                    "condition": dict(condition),
                }
            )
            jobs += [
                Job(dict(condition), instance, trial, f"{run_id}/{instance}/{trial}")
                for instance in instances
                for trial in range(trials)
            ]
        return jobs

    def record_problem(self, record: object) -> str | None:
        """Why ``record``, read back from a results file, is not a valid record (None
        when it is): every record fits :class:`~planloop.study.records.EpisodeRecord`,
        and this study's own fit :attr:`record` too."""
        problem = record_problem(record, EpisodeRecord)
        if problem is None and self.record is not EpisodeRecord:
            assert isinstance(record, dict)  # record_problem refuses anything else
            if record["study"] == self.name:
                problem = schema_problem(record, self.record)
        return problem

    def provenance(self, job: Job, fields: Mapping[str, object] | None = None) -> dict:
        """Where a record comes from: enough to play its episode again. Besides the
        study's identity and the job, ``policy``, ``prompt_version`` (``prompt`` when
        there is no version) and ``seed`` come from the record's ``fields`` (None if absent);
        a planner and its options are in ``condition`` or ``settings``."""
        fields = fields or {}
        return {
            "planloop": __version__,
            "study": self.name,
            "env": self.env_id,
            "env_kwargs": dict(self.env_kwargs),
            "model": self.model,
            "model_spec": self.model_spec,
            "settings": dict(self.settings),
            "condition": dict(job.condition),
            "instance": job.instance,
            "trial": job.trial,
            "seed": fields.get("seed"),
            "policy": fields.get("policy"),
            "prompt_version": fields.get("prompt_version") or fields.get("prompt"),
        }


def _shown(value: object) -> str:
    """An option's value in a progress line: a list's items joined by ``+``, at most 40
    characters."""
    text = "+".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= 40 else text[:39] + "…"
