"""Agentic step-wise planning (PyPDDLEngine: "Agentic LLM Planning via Step-Wise PDDL
Simulation: An Empirical Characterisation", arXiv 2603.06064): four approaches on the
102 IPC-2000 Blocksworld instances in their original order, each with one 180 s
wall-clock budget per instance (III-B, III-C).

The published figures are Table II's (IV-B), for Claude Haiku 4.5 in the LLM rows.
"""

from __future__ import annotations

from .base import ModelRequest, PaperTable, Protocol

ROWS = {
    "lama-first": "lama-first",
    "seq-sat-lama-2011": "seq-sat-lama-2011",
    "direct": "Direct LLM",
    "agentic": "Agentic LLM",
}  # condition -> Table II's row
COLUMNS = ("Solved", "Timeout", "Early exit")

AGENTIC = Protocol(
    name="agentic",
    paper="Agentic LLM Planning via Step-Wise PDDL Simulation (PyPDDLEngine, arXiv 2603.06064)",
    settings={
        "seconds": 180.0,
        "max_attempts": None,
        "max_model_calls": None,
        "max_tool_calls": None,
        "feedback": "outcome",
    },
    rules=(
        "four approaches, each evaluated once per instance with one wall-clock budget "
        "of `seconds`: Fast Downward lama-first, Fast Downward seq-sat-lama-2011 (its "
        "best plan when the budget ends), the direct LLM baseline and the agentic loop",
        "direct: the PDDL domain and problem in one prompt at `temperature`, the reply a "
        "whole plan, validated; an invalid one is resampled from a fresh context with no "
        "feedback until a plan validates or the budget ends (no cap on samples)",
        "agentic: the domain, the problem and the seven engine tools; the model executes "
        "actions one at a time, each answered with a success flag (and on success the "
        "state and whether the goal holds), and may reset; the episode ends when "
        "validate_plan confirms a plan (then played in the environment), when the model "
        "stops, or when the budget ends (no cap on calls); temperature: the provider's "
        "(not configurable in the paper's framework)",
        "a reply that arrives after the budget is not used",
        "Solved: a plan the environment accepts, within the budget; Timeout: the budget "
        "ended first; Early exit: the agentic model halted before the budget, judging the "
        "task unsolvable (or stopping without a validated plan)",
        "n: every scheduled instance; an episode that ended on a failed model call is a "
        "failure, counted in its own column",
    ),
    tables=(
        PaperTable(
            title="Table II: success and failure modes",
            paper_model="Claude Haiku 4.5 (the LLM rows)",
            rows=tuple(ROWS.values()),
            columns=COLUMNS,
            published={
                ("lama-first", "Solved"): "87 (85.3%)",
                ("lama-first", "Timeout"): "15",
                ("lama-first", "Early exit"): "0",
                ("seq-sat-lama-2011", "Solved"): "87 (85.3%)",
                ("seq-sat-lama-2011", "Timeout"): "15",
                ("seq-sat-lama-2011", "Early exit"): "0",
                ("Direct LLM", "Solved"): "65 (63.7%)",
                ("Direct LLM", "Timeout"): "37",
                ("Direct LLM", "Early exit"): "0",
                ("Agentic LLM", "Solved"): "68 (66.7%)",
                ("Agentic LLM", "Timeout"): "28",
                ("Agentic LLM", "Early exit"): "6",
            },
        ),
    ),
    n="102 IPC Blocksworld instances",
    requests=(ModelRequest(".*", {"temperature": 0.2}),),
)
