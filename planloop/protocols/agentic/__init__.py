"""Agentic step-wise planning (PyPDDLEngine: "Agentic LLM Planning via Step-Wise PDDL
Simulation: An Empirical Characterisation", arXiv 2603.06064): four approaches on the
102 IPC-2000 Blocksworld instances in their original order, each with one 180 s
wall-clock budget per instance (III-B, III-C).

The published figures are Tables I, II and III's (IV-A, IV-B, IV-D) and the token
cost's (IV-C), for Claude Haiku 4.5 in the LLM approaches. Tables I and III are plan
lengths (the actions of a solved instance's plan) by difficulty block: the paper's
instances in their order, ten to a block (:data:`BLOCKS`; the last holds 100 and 101),
Table I's over the instances both Fast Downward configurations solved, Table III's over
those all four approaches solved (the co-solved set). Fig. 2 (IV-B) draws each
instance's outcome under every approach; its text, with Table I, gives the counts solved
by block of :data:`FIGURE_2`. IV-B also gives the direct baseline's median samples
(:data:`ATTEMPTS`), IV-E the instances both Fast Downward configurations failed and who
solved them (:data:`HARD_CASES`, :data:`PAPER_NAMED`). The paper's instance numbers are
read as places in its order, 0-based, as its blocks 0–10 ... 100–102 count them.

The study itself is :mod:`.study` (its policies and ``main``), the paper's instances
:mod:`.instances`, its tables :mod:`.tables`, :mod:`.attempts` and :mod:`.hard_cases`,
Fig. 2 :mod:`.figure`.
"""

from __future__ import annotations

from ..base import ModelRequest, PaperTable, Protocol
from .config import AgenticConfig

ROWS = {
    "lama-first": "lama-first",
    "seq-sat-lama-2011": "seq-sat-lama-2011",
    "direct": "Direct LLM",
    "agentic": "Agentic LLM",
}  # condition -> Table II's row
CONDITIONS = tuple(ROWS)  # in Table II's order
PLANNER_CONDITIONS = ("lama-first", "seq-sat-lama-2011")
COLUMNS = ("Solved", "Timeout", "Early exit")
PAPER_INSTANCES = 102
BLOCKS = tuple(
    f"{start}–{min(start + 10, PAPER_INSTANCES)}" for start in range(0, PAPER_INSTANCES, 10)
)  # "0–10" ... "100–102": the instances at places 0-9, ..., 100-101 of the paper's order
BLOCK_SIZES = tuple(min(10, PAPER_INSTANCES - start) for start in range(0, PAPER_INSTANCES, 10))
PAPER_MODEL = "Claude Haiku 4.5 (the LLM approaches)"
LENGTHS_I = ("solved by both", "FD lama", "FD seq", "reduction")
LENGTHS_III = ("co-solved", "FD lama", "FD seq", "Direct", "Agentic")


def _by_block(columns: tuple[str, ...], figures: dict[str, str]) -> dict[tuple[str, str], str]:
    """``{block: "n a b ..."}`` as ``published[(block, column)]``."""
    return {
        (block, column): value
        for block, line in figures.items()
        for column, value in zip(columns, line.split(), strict=True)
    }


TABLE_I = PaperTable(
    title="Table I: Fast Downward plan length by difficulty block",
    paper_model=PAPER_MODEL,
    rows=BLOCKS,
    columns=LENGTHS_I,
    published=_by_block(
        LENGTHS_I,
        {
            BLOCKS[0]: "10 14.0 14.0 0.0",
            BLOCKS[1]: "10 39.8 37.6 2.2",
            BLOCKS[2]: "10 61.6 36.4 25.2",
            BLOCKS[3]: "10 146.4 64.8 81.6",
            BLOCKS[4]: "10 199.2 106.8 92.4",
            BLOCKS[5]: "10 222.4 135.4 87.0",
            BLOCKS[6]: "10 253.8 207.2 46.6",
            BLOCKS[7]: "7 281.4 228.3 53.1",
            BLOCKS[8]: "7 380.0 328.0 52.0",
            BLOCKS[9]: "3 484.0 374.7 109.3",
            BLOCKS[10]: "0 — — —",
        },
    ),
)
TABLE_II = PaperTable(
    title="Table II: success and failure modes",
    paper_model=PAPER_MODEL,
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
)
TABLE_III = PaperTable(
    title="Table III: plan length on the co-solved instances by difficulty block",
    paper_model=PAPER_MODEL,
    rows=BLOCKS,
    columns=LENGTHS_III,
    published=_by_block(
        LENGTHS_III,
        {  # the paper prints no row for a block without a co-solved instance
            BLOCKS[0]: "10 14.0 14.0 14.0 15.8",
            BLOCKS[1]: "10 39.8 37.6 27.4 30.6",
            BLOCKS[2]: "9 60.0 36.2 40.4 44.7",
            BLOCKS[3]: "6 164.3 63.3 59.7 60.3",
            BLOCKS[4]: "7 197.1 92.6 78.0 78.6",
            BLOCKS[5]: "4 215.5 144.5 99.5 124.5",
            BLOCKS[7]: "3 142.0 136.7 139.3 139.3",
        },
    ),
)
COST = PaperTable(  # beside the study's cost table (its time-bound counts vary run to run)
    title="Token cost (IV-C)",
    paper_model=PAPER_MODEL,
    rows=("Direct LLM", "Agentic LLM"),
    columns=("tokens per instance", "tokens per solved instance"),
    published={
        ("Direct LLM", "tokens per instance"): "28,488",
        ("Direct LLM", "tokens per solved instance"): "44,705",
        ("Agentic LLM", "tokens per instance"): "169,864",
        ("Agentic LLM", "tokens per solved instance"): "254,796",
    },
)

_PLANNER_SOLVED = [int(TABLE_I.published[block, "solved by both"]) for block in BLOCKS]
FIGURE_2 = PaperTable(  # the paper draws Fig. 2; these are the counts its text and Table I state
    title="Fig. 2: per-instance outcome of every approach, solved by difficulty block",
    paper_model=PAPER_MODEL,
    rows=BLOCKS,
    columns=tuple(ROWS.values()),
    published={
        **{  # both configurations solve the same instances (IV-B): Table I's counts
            (block, ROWS[c]): f"{solved}/{size} ({solved / size:.0%})"
            for block, solved, size in zip(BLOCKS, _PLANNER_SOLVED, BLOCK_SIZES, strict=True)
            for c in PLANNER_CONDITIONS
        },
        (BLOCKS[8], "Direct LLM"): "5/10 (50%)",
        (BLOCKS[8], "Agentic LLM"): "2/10 (20%)",
    },
)
ATTEMPTS = PaperTable(
    title="Direct LLM: samples until a valid plan or the budget's end (IV-B)",
    paper_model=PAPER_MODEL,
    rows=("solved", "not solved", "all"),
    columns=("instances", "median samples"),
    published={
        ("solved", "instances"): "65",
        ("solved", "median samples"): "2",
        ("not solved", "instances"): "37",
        ("not solved", "median samples"): "15",
        ("all", "instances"): str(PAPER_INSTANCES),
    },
)
HARD_CASES = PaperTable(
    title="Hard cases (IV-E): the instances both Fast Downward configurations failed",
    paper_model=PAPER_MODEL,
    rows=(
        "both Fast Downward configurations failed",
        "solved by both LLM approaches",
        "solved by Agentic LLM alone",
        "solved by Direct LLM alone",
        "solved by no approach",
    ),
    columns=("instances",),
    published={
        ("both Fast Downward configurations failed", "instances"): "15",
        ("solved by both LLM approaches", "instances"): "1 (86)",
        ("solved by Agentic LLM alone", "instances"): "3 (76, 78, 101)",
        ("solved by Direct LLM alone", "instances"): "1 (100)",
        ("solved by no approach", "instances"): "10",
    },
)
PAPER_NAMED = {  # what IV-B and IV-E say of the instances they name (by place, 0-based)
    32: "Agentic LLM: early exit; Direct LLM solved it",
    76: "FD timed out; Agentic LLM alone solved it",
    78: "FD timed out; Agentic LLM alone solved it",
    86: "FD timed out; both LLM approaches solved it",
    88: "Agentic LLM: early exit; Direct LLM solved it",
    89: "Agentic LLM: early exit; Direct LLM solved it",
    96: "Agentic LLM: early exit; Direct LLM failed",
    98: "Agentic LLM: early exit; Direct LLM failed",
    100: "FD timed out; Direct LLM alone solved it (Agentic LLM: early exit)",
    101: "FD timed out; Agentic LLM alone solved it, 186 actions",
}

AGENTIC = Protocol(
    name="agentic",
    paper="Agentic LLM Planning via Step-Wise PDDL Simulation (PyPDDLEngine, arXiv 2603.06064)",
    settings=AgenticConfig.protocol(
        seconds=180.0,
        max_attempts=None,
        max_model_calls=None,
        max_tool_calls=None,
        feedback="outcome",
    ),
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
        "plan length: the actions of the plan a solved instance ended with, compared by "
        "difficulty block over the instances the compared approaches all solved; "
        "reduction: FD lama's mean minus FD seq's; token cost: prompt and completion "
        "tokens per instance and per solved instance",
    ),
    tables=(TABLE_I, TABLE_II, TABLE_III, FIGURE_2, ATTEMPTS, HARD_CASES),
    n=f"{PAPER_INSTANCES} IPC Blocksworld instances",
    requests=(ModelRequest(".*", {"temperature": 0.2}),),
)
