"""The papers' protocols, one module per paper: each study's ``--paper`` takes its
settings from here, and ``experiments/reproduce.py`` its tables.

``PROTOCOLS`` maps the name ``reproduce.py`` takes to the protocol."""

from .base import PaperTable, Protocol

__all__ = ["PaperTable", "Protocol"]
