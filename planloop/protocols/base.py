"""What a paper's protocol is: the settings a study takes from it, the table it prints,
and the figures the paper published, in one frozen object."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..study.runs import run_caption


@dataclass(frozen=True)
class PaperTable:
    """One of a paper's tables: its title, row and column names, the figures the paper
    printed, ``published[(row, column)]`` (a cell with no figure is absent), and the
    model they are for (``paper_model``, named beside each reproduced run's model)."""

    title: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    published: Mapping[tuple[str, str], str] = field(default_factory=dict)
    paper_model: str = ""


@dataclass(frozen=True)
class ModelRequest:
    """The request parameters a paper's authors sent the models whose name (its last
    ``/`` part, lower case) fully matches the regular expression ``models``; a
    parameter that is None is not sent (the provider's default)."""

    models: str
    params: Mapping[str, object]


@dataclass(frozen=True)
class Protocol:
    """A paper's protocol.

    ``settings`` are the study flags the paper fixes, by the flag's ``dest`` (e.g.
    ``{"retries": 5}``): ``--paper`` takes them, and a flag given beside it overrides
    one (see :class:`planloop.study.PaperFlags`). ``requests``: what the authors sent
    each model family, the first match applying (:meth:`request_for`). ``rules`` describes in words what the
    protocol does beyond its settings; ``tables`` are the paper's tables that
    ``experiments/reproduce.py`` writes; ``n`` is the number of trials the paper
    scheduled per cell (the denominator of every success rate)."""

    name: str
    paper: str
    settings: Mapping[str, object]
    rules: tuple[str, ...] = ()
    tables: tuple[PaperTable, ...] = ()
    n: str = ""
    requests: tuple[ModelRequest, ...] = ()

    def request_for(self, model: str) -> dict[str, object] | None:
        """The request parameters the authors sent ``model``; None when the protocol
        states none for it (then planloop's defaults apply)."""
        name = model.rsplit("/", 1)[-1].strip().lower()
        return next((dict(r.params) for r in self.requests if re.fullmatch(r.models, name)), None)

    def caption(self, overrides: Mapping[str, object] | None = None) -> str:
        """``Protocol: <paper>; overridden: retries=3`` for a table's caption."""
        text = f"Protocol: {self.paper} (`--paper`)"
        if overrides:
            text += "; overridden: " + ", ".join(
                f"{key}={value}" for key, value in overrides.items()
            )
        return text


def paper_heading(table: PaperTable, records: list[dict]) -> str:
    """A paper table's heading over the records of one run: ``### Success``, then
    ``this run: groundtruth; paper: o3-mini``."""
    return f"### {table.title}\n\n{run_caption(records, table.paper_model)}"
