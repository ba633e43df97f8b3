"""The symbol-agnostic generate-verify-repair pipeline on PlanBench's Mystery Blocksworld
(Table 1) as ``experiments/mystery.py`` runs it: the direct baselines get one
generation per instance ("only one generation opportunity without involving
verification, repair, or retry"), the pipeline K = 2 attempts (the authors' code,
dzdfuture/Mystery_Planning, whose retry curve is 8.8% at one attempt and 46.2% at two).

The study itself is :mod:`.study` (its policies and ``main``), its record :mod:`.judge`
and its tables :mod:`.tables`."""

from __future__ import annotations

from ..base import ModelRequest, PaperTable, Protocol
from .config import MysteryConfig

ROWS = {
    "direct-one-shot": "direct one-shot",
    "direct-zero-shot": "direct zero-shot",
    "pipeline": "pipeline",
}  # condition -> Table 1's row
INSTANCES = 600  # the paper's n: PlanBench's Mystery Blocksworld instances, once each

MYSTERY = Protocol(
    name="mystery",
    paper="Symbol-agnostic closed-loop planning on Mystery Blocksworld (Table 1)",
    settings=MysteryConfig.protocol(direct_attempts=1, attempts=2),
    requests=(ModelRequest(".*", {"temperature": 0.2}),),
    rules=(
        "direct one-shot and zero-shot: PlanBench's Mystery prompt, one generation per "
        "instance, judged by the validator; no verification, repair or retry",
        "pipeline (and its ablations): generate, verify, repair within K = `attempts` "
        "plans, the authors' 2 (their retry curve: 8.8% at K = 1, 46.2% at K = 2)",
        "success: the plan is valid; n: the 600 instances, an episode that ended on a "
        "failed model call a failure counted in its own column",
    ),
    tables=(
        PaperTable(
            title="Table 1: success",
            paper_model="GPT-4",
            rows=tuple(ROWS.values()),
            columns=("success",),
            published={
                ("direct one-shot", "success"): "4.3%",
                ("direct zero-shot", "success"): "0.16%",
                ("pipeline", "success"): "46.2%",
            },
        ),
    ),
    n=f"{INSTANCES} PlanBench Mystery Blocksworld instances",
)
