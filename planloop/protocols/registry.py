"""Every paper planloop reproduces, each declared once: a package under
``planloop.protocols`` whose ``paper`` module holds ``PAPER``, a :class:`Paper`. Nothing
else lists them: ``experiments/reproduce.py`` and the tables find them here, so a new
paper is one new package."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass

from ..study.config import StudyConfig
from .base import Protocol
from .reproduction import Reproduction, StudyMain

ENTRY = "paper"  # the module of a paper's package that declares it


@dataclass(frozen=True)
class Paper:
    """A paper: its ``protocol`` (settings, tables, n), its settings (``config``, one
    default each), its study as a command (``main``, what its script in ``experiments/``
    runs), its ``reproduction`` (the studies at the paper's n and the tables of their
    records), what ``reproduce.py``'s help says of it (``summary``) and whether
    ``--llm groundtruth`` plays it with a ground-truth formalizer (``ground_truth``)."""

    protocol: Protocol
    config: type[StudyConfig]
    main: StudyMain
    reproduction: Reproduction
    summary: str
    ground_truth: bool = False

    @property
    def name(self) -> str:
        """The name ``reproduce.py`` takes: the protocol's."""
        return self.protocol.name


@functools.cache
def papers() -> dict[str, Paper]:
    """Every paper, by name, in the order of their packages' names."""
    from . import __name__ as here
    from . import __path__ as packages

    found: dict[str, Paper] = {}
    for package in sorted(pkgutil.iter_modules(packages), key=lambda p: p.name):
        if not package.ispkg:
            continue
        name = f"{here}.{package.name}.{ENTRY}"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # the paper module is there, but what it imports is not
                raise
            continue
        paper = module.PAPER
        if not isinstance(paper, Paper):
            raise TypeError(f"{name}.PAPER is a {type(paper).__name__}, not a Paper")
        if paper.name in found:
            raise ValueError(f"two packages declare the paper {paper.name!r}: {name}")
        found[paper.name] = paper
    return found
