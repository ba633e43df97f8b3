"""Reproducing a paper: each paper's package runs its studies under its protocol at the
paper's n through a :class:`Runner` (``reproduction(runner, out)``), and the tables of
every run recorded are written one file per table, headed by the protocol and its n."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..llm import ChatModel
from ..results import Record, ResultsFile
from ..study import Ended, latest_records
from ..study.runs import Run, split_runs
from .base import Protocol as PaperProtocol

Tables = Callable[[list[Record]], dict[str, str]]  # one run's records -> its tables, by name
SMOKE_CALLS = 5  # under a limit: the model calls of an episode whose protocol caps only time


class StudyMain(Protocol):
    """A study's ``main``: its flags, the model replacing ``--llm``'s, whether to print."""

    def __call__(self, argv: list[str], model: ChatModel | None, show: bool, /) -> int: ...


@dataclass(frozen=True)
class Runner:
    """Runs a paper's studies with the flags ``reproduce.py`` shares (``llm``, ``workers``;
    ``extra``: the flags after ``--``), ``model`` replacing ``--llm``'s, and reads back
    their records; ``limit``: the first N instances of every cell (None: the paper's n),
    and at most :data:`SMOKE_CALLS` model calls an episode where the paper's protocol
    bounds an episode by time alone (a smoke run stays small)."""

    llm: str
    workers: int
    limit: int | None = None
    model: ChatModel | None = None
    extra: list[str] = field(default_factory=list)

    def first(self, count: int) -> int:
        """``count``, or the limit when it is smaller."""
        return count if self.limit is None else min(count, self.limit)

    def run(self, main: StudyMain, out: Path, flags: list[str], model: bool = True) -> list[Record]:
        """The study ``main`` with ``--paper FLAGS``; the latest record of each key in
        ``out``. ``model=False``: the study builds no model (the ground truth)."""
        argv = ["--paper", *flags, "--llm", self.llm, "--workers", str(self.workers)]
        code = main([*argv, "--out", str(out), *self.extra], self.model if model else None, False)
        if code != 0:  # the study said why (an error, or Ctrl-C / SIGTERM and what it saved)
            raise Ended(code)
        return list(latest_records(ResultsFile(out / "episodes.jsonl").records).values())


Reproduction = Callable[[Runner, Path], "tuple[list[Record], Tables]"]  # a paper's studies


def reproduce(paper: str, records: list[Record], tables: Tables) -> dict[Run, dict[str, str]]:
    """The paper's tables of each run of its protocol recorded in the folder."""
    return {run: tables(group) for run, group in split_runs(of_protocol(records, paper)).items()}


def of_protocol(records: list[Record], paper: str) -> list[Record]:
    """The records played under ``paper``'s protocol (``--paper``)."""
    return [
        r
        for r in records
        if ((r.get("provenance") or {}).get("settings") or {}).get("protocol") == paper
    ]


def heading(protocol: PaperProtocol, limit: int | None) -> str:
    """The protocol and its n, over a paper's tables."""
    smoke = f" (a smoke run: the first {limit} of every cell)" if limit is not None else ""
    return f"# {protocol.paper}\n\n{protocol.caption()}; the paper's n: {protocol.n}{smoke}"


def write_tables(
    protocol: PaperProtocol, runs: dict[Run, dict[str, str]], out: Path, limit: int | None
) -> list[Path]:
    """Each table as ``out/<paper>-<name>.md``: the protocol and its n, then the table
    of each run that has it (one over every run comes with one run alone)."""
    names = dict.fromkeys(name for tables in runs.values() for name in tables)
    paths = []
    for name in names:
        path = out / f"{protocol.name}-{re.sub(r'[^a-z0-9]+', '-', name.lower())}.md"
        sections = [heading(protocol, limit), *(t[name] for t in runs.values() if name in t)]
        path.write_text("\n\n".join(sections) + "\n")
        paths.append(path)
    return paths
