"""The schema of a study's episode records (see :mod:`planloop.schema`), declared once:
what the harness writes and what the tables read. A study whose ``play`` writes fields
of its own that its tables read extends :class:`EpisodeRecord` (as
:class:`~planloop.protocols.planner_baseline.study.PlannerBaselineRecord` does) and names it in
its :class:`~planloop.study.jobs.Study`; a line read back that does not fit is set aside
like a torn one (see :class:`~planloop.results.ResultsFile`) and its episode runs again."""

from __future__ import annotations

from typing import TypedDict

from ..results import RecordFields


class Request(TypedDict, total=False):
    """What the episode's requests carried (``sent_sets``, ``unlisted_requests``: a
    :class:`~planloop.llm.SentRecord`), the defaults the model refused and the model
    the server said answered. ``sent``: in a record written before the requests
    themselves were read, the parameters the model sent a call that set none of its
    own (a policy's temperature and seed were not in it)."""

    sent_sets: list[dict[str, object]]
    unlisted_requests: int
    sent: dict[str, object]
    dropped: list[str]
    served_model: str | None


class Settings(TypedDict, total=False):
    """The study's settings; the fields the tables read are typed."""

    protocol: str | None
    overrides: dict[str, object]


class Provenance(TypedDict, total=False):
    """Where a record comes from (:meth:`~planloop.study.jobs.Study.provenance`)."""

    study: str
    env: str | None
    env_kwargs: dict[str, object]
    model: str | None
    model_spec: str | None
    settings: Settings
    condition: dict[str, object]
    instance: int
    trial: int
    request: Request | None


class UsageFields(TypedDict, total=False):
    """A :class:`~planloop.llm.Usage` as a record keeps it (``reasoning_tokens``: absent
    in records written before it was counted)."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached_calls: int
    unmetered_calls: int
    reasoning_tokens: int


class _Scheduled(RecordFields):
    study: str
    instance: int
    trial: int


class EpisodeRecord(_Scheduled, total=False):
    """Every study's record: the key, ``study``, ``instance`` and ``trial`` always; the
    rest when present."""

    error_kind: str | None
    provenance: Provenance
    usage: UsageFields
    seconds: float
    steps: int
