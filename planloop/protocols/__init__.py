"""The papers, one package per paper: its protocol and n (the package itself), its
settings with their one default (``config``), its tables (``tables``: records in,
markdown out), its study (``study``: ``run`` and ``main``, the command its script in
``experiments/`` runs) and its ``reproduction`` (what ``experiments/reproduce.py`` calls;
see :mod:`.reproduction`). Each study's ``--paper`` takes its settings from the protocol.

Each package declares itself once, in its ``paper`` module; :func:`.registry.papers`
finds them (nothing else lists the papers)."""

from .base import ModelRequest, PaperTable, Protocol

__all__ = ["ModelRequest", "PaperTable", "Protocol"]
