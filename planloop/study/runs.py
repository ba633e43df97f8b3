"""The run a record belongs to, so that no table pools two runs in one cell.

A *run* is one model under one configuration: the ``--llm`` spec, the model's recorded
name, the name the server said it served the model under, the study's settings (the
protocol and its overrides included) and the request parameters every call sent, all
read from ``record["provenance"]``. A record written before planloop recorded the
request (``provenance["request"]``) has no served name and no request: it is shown under
its recorded model, apart from runs that recorded theirs (whose requests may differ).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """A run's identity: ``spec`` (the ``--llm`` spec, else the recorded model name, else
    ``no model``), ``model`` (the recorded name), ``served`` (the served name, None when
    not reported), ``settings`` (the study's settings as canonical JSON) and ``sent``
    (the parameters every call sent as canonical JSON, None when not recorded)."""

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
    served = (request or {}).get("served_model") if isinstance(request, Mapping) else None
    sent = request.get("sent") if isinstance(request, Mapping) else None
    return Run(
        str(provenance.get("model_spec") or model or "no model"),
        None if model is None else str(model),
        None if served is None else str(served),
        json.dumps(provenance.get("settings") or {}, sort_keys=True, default=str),
        None if sent is None else json.dumps(sent, sort_keys=True, default=str),
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
        {
            str(name)
            for record in records
            for name in ((record.get("provenance") or {}).get("request") or {}).get("dropped") or ()
        }
    )


def run_caption(records: list[dict], paper_model: str = "") -> str:
    """``this run: SPEC (served as NAME); paper: o3-mini; overridden: temperature=0.3;
    sent: top_p=1; dropped by the model: temperature`` for the records of one run (at
    least one)."""
    first = single_run(records)[0]
    overrides = ((first.get("provenance") or {}).get("settings") or {}).get("overrides")
    parts = [f"this run: {run_key(first).label}"]
    parts += [f"paper: {paper_model}"] if paper_model else []
    if overrides:
        parts.append("overridden: " + ", ".join(f"{k}={v}" for k, v in overrides.items()))
    sent = run_key(first).sent
    if sent is not None:
        shown = ", ".join(f"{k}={v}" for k, v in json.loads(sent).items())
        parts.append(f"sent: {shown or 'no parameter (the provider defaults)'}")
    refused = dropped(records)
    parts += [f"dropped by the model: {', '.join(refused)}"] if refused else []
    return "; ".join(parts)
