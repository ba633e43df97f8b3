"""The run a record belongs to, so that no table pools two runs in one cell.

A *run* is one model under one configuration: the ``--llm`` spec, the model's recorded
name, the name the server said it served the model under and the study's settings (the
protocol and its overrides included), all read from ``record["provenance"]``. What the
requests carried (``provenance["request"]["sent_sets"]``, each episode's own: a seed per
trial, a condition that calls no model) is said in the run's caption. A record written
before planloop recorded the request (``provenance["request"]``) has no served name and
no request: it is shown under its recorded model, apart from runs that recorded theirs;
so is one written before the requests themselves were read (whose ``sent`` said the
parameters of a call that set none of its own).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..llm.requests import REQUEST_PARAMS

PER_REQUEST = "per request"  # Run.sent of a record that keeps its requests' parameter sets


@dataclass(frozen=True)
class Run:
    """A run's identity: ``spec`` (the ``--llm`` spec, else the recorded model name, else
    ``no model``), ``model`` (the recorded name), ``served`` (the served name, None when
    not reported), ``settings`` (the study's settings as canonical JSON) and ``sent``
    (:data:`PER_REQUEST` for a record of what its requests carried; for an older record,
    the parameters it said every call sent as canonical JSON; None when not recorded)."""

    spec: str
    model: str | None
    served: str | None
    settings: str
    sent: str | None = None

    @property
    def label(self) -> str:
        """``openai:gpt-4o (served as gpt-4o-2024-08-06)``: the spec, the recorded name
        when the spec does not hold it, and the served name when there is one."""
        text = self.spec
        if self.model and self.model not in self.spec:
            text += f" (model {self.model})"
        if self.served:
            text += f" (served as {self.served})"
        return text


def run_key(record: Mapping) -> Run:
    """The run of ``record``, from its provenance."""
    provenance = record.get("provenance") or {}
    model = provenance.get("model")
    request = provenance.get("request")
    request = request if isinstance(request, Mapping) else {}
    served = request.get("served_model")
    if "sent_sets" in request:
        sent: str | None = PER_REQUEST
    elif "sent" in request:
        sent = json.dumps(request["sent"], sort_keys=True, default=str)
    else:
        sent = None
    return Run(
        str(provenance.get("model_spec") or model or "no model"),
        None if model is None else str(model),
        None if served is None else str(served),
        json.dumps(provenance.get("settings") or {}, sort_keys=True, default=str),
        sent,
    )


def split_runs(records: Iterable[dict]) -> dict[Run, list[dict]]:
    """The records of each run, runs in the order they are first met."""
    runs: dict[Run, list[dict]] = {}
    for record in records:
        runs.setdefault(run_key(record), []).append(record)
    return runs


def single_run(records: Iterable[dict]) -> list[dict]:
    """``records`` as a list, or a ValueError when they belong to more than one run (a
    table cell must not pool them: :func:`split_runs` first)."""
    records = list(records)
    runs = split_runs(records)
    if len(runs) > 1:
        shown = "; ".join(run.label for run in runs)
        raise ValueError(f"records of {len(runs)} runs in one table ({shown}): split them")
    return records


def dropped(records: Iterable[dict]) -> list[str]:
    """The request parameters the model refused (planloop's defaults it stopped sending),
    over every record."""
    return sorted(
        {str(name) for record in records for name in _request(record).get("dropped") or ()}
    )


def _request(record: Mapping) -> Mapping:
    request = (record.get("provenance") or {}).get("request")
    return request if isinstance(request, Mapping) else {}


def _shown_values(values: list[object]) -> str:
    """``0.7``, ``0..4``, ``0..2/7``, ``low/high``: distinct values, integers sorted
    with each run of consecutive ones as ``A..B``."""
    integers = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if len(integers) < len(values):
        return "/".join(map(str, values))
    spans: list[list[int]] = []
    for value in sorted(integers):
        if spans and value == spans[-1][1] + 1:
            spans[-1][1] = value
        else:
            spans.append([value, value])
    return "/".join(str(a) if a == b else f"{a}..{b}" for a, b in spans)


def sent_summary(records: Iterable[Mapping]) -> str | None:
    """What the requests of ``records`` carried, each parameter (in the order of
    :data:`~planloop.llm.requests.REQUEST_PARAMS`) with its values:
    ``temperature=0.7, seed=0..4``; ``(some requests)`` after a parameter not every
    request carried; ``no parameter (the provider defaults)``; ``no request``. None when
    no record says (written before planloop recorded requests); an older record's
    ``sent`` counts as what each of its requests carried."""
    sets: list[Mapping] = []
    unlisted, said = 0, False
    for record in records:
        request = _request(record)
        if "sent_sets" in request:
            sets += request["sent_sets"]
            unlisted += request.get("unlisted_requests") or 0
        elif isinstance(request.get("sent"), Mapping):
            sets.append(request["sent"])
        else:
            continue
        said = True
    if not said:
        return None
    if not sets:
        return "no request"
    values: dict[str, list[object]] = {}
    for params in sets:
        for name, value in params.items():
            seen = values.setdefault(name, [])
            if value not in seen:
                seen.append(value)
    order = {name: i for i, name in enumerate(REQUEST_PARAMS)}  # others after, as met
    shown = ", ".join(
        f"{name}={_shown_values(values[name])}"
        + ("" if all(name in params for params in sets) else " (some requests)")
        for name in sorted(values, key=lambda name: order.get(name, len(order)))
    )
    shown = shown or "no parameter (the provider defaults)"
    return shown + (f" (and {unlisted} requests of other sets, not kept)" if unlisted else "")


def run_caption(records: list[dict], paper_model: str = "") -> str:
    """``this run: SPEC (served as NAME); paper: o3-mini; overridden: temperature=0.3;
    sent: top_p=1, seed=0..4; dropped by the model: temperature`` for the records of one
    run (at least one); ``sent`` is :func:`sent_summary`'s."""
    first = single_run(records)[0]
    overrides = ((first.get("provenance") or {}).get("settings") or {}).get("overrides")
    parts = [f"this run: {run_key(first).label}"]
    parts += [f"paper: {paper_model}"] if paper_model else []
    if overrides:
        parts.append("overridden: " + ", ".join(f"{k}={v}" for k, v in overrides.items()))
    sent = sent_summary(records)
    parts += [f"sent: {sent}"] if sent is not None else []
    refused = dropped(records)
    parts += [f"dropped by the model: {', '.join(refused)}"] if refused else []
    return "; ".join(parts)
