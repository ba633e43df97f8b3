"""Benchmarking and Improving PDDL Formalization Ability of Large Language Models with
Planner-in-the-Loop Feedback (NL-PDDL-Bench, an anonymous ACL submission) as
``experiments/formalize.py`` runs it.

A problem's description is written in PDDL in one shot, then repaired with the reader's,
the planner's and the validator's diagnostics until a plan validates or 5 repairs are
spent. The metrics are the paper's (eq. 6-18), scored on atoms and grounded action
strings as written (see :mod:`planloop.formalizer.problems.metrics`).

The study itself is :mod:`.study` (its cells and ``main``), a problem's formalization and
scoring :mod:`.problems`, its tables :mod:`.tables`.
"""

from __future__ import annotations

from ..base import PaperTable, Protocol
from .config import SIZES, FormalizeConfig

PER_CELL = 63  # problems per domain and size: 4 domains x 4 sizes x 63 = 1008
PAPER_INSTANCES = 1000  # the paper's n: its test instances over 13 domains

NL_PDDL = Protocol(
    name="nl-pddl",
    paper="Benchmarking and Improving PDDL Formalization Ability of LLMs with "
    "Planner-in-the-Loop Feedback (NL-PDDL-Bench, anonymous ACL submission)",
    settings=FormalizeConfig.protocol(
        max_iterations=5, sizes=SIZES, per_cell=PER_CELL, planner="lama-first"
    ),
    rules=(
        "one-shot generation, then at most T_max = 5 repairs, each given the diagnostics "
        "of the check that failed (reader, Fast Downward, VAL), until a plan validates",
        "Baseline is the one-shot candidate; Planner-in-the-loop the candidate kept at "
        "the end (the paper's row also fine-tunes the model, which planloop does not)",
        "SVR: the candidate parses; PSR: solved over parsed; TSR: mean Jaccard of the "
        "initial and goal atoms as written; CR: the planner outcomes agree and, when the "
        "reference is solvable, the plan lengths are within max(1, ceil(0.05 c_ref)) and "
        "max(edit, multiset) similarity of the grounded action strings is at least 0.8",
        "objects count by their names: no renaming before TSR or CR",
        "every scheduled problem is in n; one that ended on a model error fails every "
        "rate and is counted under model errors",
        "the paper's 1000 instances spread over 13 domains; planloop's 4 sized domains x "
        "sizes 10, 20, 30, 40 x 63 seeds give 1008",
        "Fast Downward under one fixed configuration (the paper does not name it; "
        "lama-first here), unit costs",
    ),
    tables=(
        PaperTable(
            title="Table 3: overall results",
            paper_model="Llama3.1-8B",
            rows=("Baseline", "Planner-in-the-loop"),
            columns=("SVR", "PSR", "TSR", "CR"),
            published={
                ("Baseline", "SVR"): "76.3%",
                ("Baseline", "PSR"): "9.7%",
                ("Baseline", "TSR"): "52.9%",
                ("Baseline", "CR"): "10.9%",
                ("Planner-in-the-loop", "SVR"): "84.9%",
                ("Planner-in-the-loop", "PSR"): "80.7%",
                ("Planner-in-the-loop", "TSR"): "82.8%",
                ("Planner-in-the-loop", "CR"): "81.2%",
            },
        ),
    ),
    n=f"{PAPER_INSTANCES} test instances",
)
