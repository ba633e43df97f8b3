"""The papers, one package per paper: its protocol and n (the package itself), its
settings with their one default (``config``), its tables (``tables``: records in,
markdown out) and its study (``study``: ``run``, ``main``, and ``reproduction``, what
``experiments/reproduce.py`` calls; see :mod:`.reproduction`). Each study's ``--paper``
takes its settings from the protocol.

``PROTOCOLS`` maps the name ``reproduce.py`` takes to the protocol."""

from .agentic import AGENTIC
from .baking import BAKING
from .base import ModelRequest, PaperTable, Protocol
from .mystery import MYSTERY
from .nl_pddl import NL_PDDL
from .pddlego_plus import PDDLEGO_PLUS

PROTOCOLS = {
    protocol.name: protocol for protocol in (PDDLEGO_PLUS, MYSTERY, NL_PDDL, AGENTIC, BAKING)
}

__all__ = [
    "AGENTIC",
    "BAKING",
    "MYSTERY",
    "ModelRequest",
    "NL_PDDL",
    "PDDLEGO_PLUS",
    "PROTOCOLS",
    "PaperTable",
    "Protocol",
]
