"""The papers' protocols, one module per paper: each study's ``--paper`` takes its
settings from here, and ``experiments/reproduce.py`` its tables.

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
