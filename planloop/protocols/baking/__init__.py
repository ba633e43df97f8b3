"""A Study on Planning with LLMs in Relational Domains (Baking-Large, the closed-loop
horizon study) as ``experiments/horizon_sweep.py`` runs it: open loop and closed loop
with horizons 5 and 1, 4 problems, 5 trials each, an action limit of 50.

The study itself is :mod:`.study` (the sweep and its ``main``), its tables :mod:`.tables`."""

from __future__ import annotations

from ..base import ModelRequest, PaperTable, Protocol
from .config import HorizonConfig

OPEN = "open"  # the open loop's horizon
ROWS: dict[int | str, str] = {OPEN: "Open-loop", 5: "horizon 5", 1: "horizon 1"}  # horizon -> row
PROBLEMS, TRIALS = 4, 5  # the paper's n: Baking-Large problems 1-4 (instances 0-3), 5 trials each
_PUBLISHED = {
    "Open-loop": ("4/5 (80%)", "3/5 (60%)", "1/5 (20%)", "0/5 (0%)"),
    "horizon 5": ("3/5 (60%)", "5/5 (100%)", "4/5 (80%)", "2/5 (40%)"),
    "horizon 1": ("4/5 (80%)", "5/5 (100%)", "5/5 (100%)", "5/5 (100%)"),
}
COLUMNS = tuple(f"problem {i}" for i in range(1, PROBLEMS + 1))

BAKING = Protocol(
    name="baking",
    paper="A Study on Planning with LLMs in Relational Domains (Baking-Large)",
    settings=HorizonConfig.protocol(
        feedback="state",
        grounding="per_variable",
        conversation="accumulate",
        ask="sequence",
        opening="study",
        max_restarts=None,
        trials=TRIALS,
        max_actions=50,
    ),
    rules=(
        "the study's workflow: its prompts word for word, one growing conversation, the "
        "whole sequence asked each time and its first H actions executed, one question "
        "per parameter, the state shown on a failure, no cap on explained restarts",
        "rows: open loop, closed loop with H = 5 and H = 1; columns: Baking-Large "
        "problems 1-4; 5 trials each; 50 actions at most per episode",
        "requests: the study states none (GPT-4o at the provider's defaults), so no "
        "temperature is sent",
    ),
    requests=(ModelRequest(".*", {"temperature": None}),),
    tables=(
        PaperTable(
            title="Success on Baking-Large",
            paper_model="GPT-4o",
            rows=tuple(ROWS.values()),
            columns=COLUMNS,
            published={
                (row, column): cell
                for row, cells in _PUBLISHED.items()
                for column, cell in zip(COLUMNS, cells, strict=True)
            },
        ),
    ),
    n=f"{PROBLEMS} problems x {TRIALS} trials",
)
