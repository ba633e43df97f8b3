"""Which ``--paper`` records feed which of the paper's results: the main table's runs
(Fig. 6), and the extra runs Figures 10 and 12 need beside them, PDDLego+ with a domain
file fixed from a won episode (RAG_DF, ``--domain-file``) and with the simple prompt
(``--prompt simple``); an extra run belongs to the main run it differs from in that
flag alone (:func:`base_run`)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Literal

from ...study.runs import Run, run_key

Role = Literal["main", "rag_df", "simple_prompt"]
EXTRA_FLAGS = ("prompt", "domain_file")  # the overrides an extra run adds to its main run's


def role(record: dict) -> Role:
    """The result a record feeds: ``rag_df`` (PDDLego+ with a fixed domain, given or
    reused),
    ``simple_prompt`` (PDDLego+ with the simple prompt) or ``main`` (the rest)."""
    if record.get("policy") == "pddlego" and record.get("domain"):
        return "rag_df"
    if record.get("policy") == "pddlego" and record.get("prompt") == "simple":
        return "simple_prompt"
    return "main"


def of_role(records: Iterable[dict], wanted: Role) -> list[dict]:
    """The records of one role."""
    return [r for r in records if role(r) == wanted]


def base_run(record: dict) -> Run:
    """The run of ``record`` with the extra runs' flags (:data:`EXTRA_FLAGS`) left out
    of its overrides: an extra run's main run."""
    run = run_key(record)
    settings = json.loads(run.settings)
    overrides = {k: v for k, v in (settings.get("overrides") or {}).items() if k not in EXTRA_FLAGS}
    if "overrides" in settings:
        settings["overrides"] = overrides
    return dataclasses.replace(run, settings=json.dumps(settings, sort_keys=True, default=str))


def extras_of(main: list[dict], records: Iterable[dict], wanted: Role) -> list[dict]:
    """The records of role ``wanted`` among ``records`` whose main run is that of
    ``main`` (records of one run)."""
    runs = {base_run(r) for r in main}
    return [r for r in records if role(r) == wanted and base_run(r) in runs]


def won_domain(records: Iterable[dict], env_id: str) -> str | None:
    """The last DF that planned of the first won PDDLego+ episode on ``env_id`` among
    ``records`` (None: none won): the domain a later run may reuse."""
    for record in records:
        rounds = (record.get("details") or {}).get("rounds") or []
        dfs = [r["df"] for r in rounds if r.get("df") and r.get("plan")]
        if (
            record.get("policy") == "pddlego"
            and record.get("won")
            and not record.get("error")
            and dfs
            and (record.get("provenance") or {}).get("env") == env_id
        ):
            return dfs[-1]
    return None
