"""The symbol-agnostic generate-verify-repair pipeline on PlanBench's Mystery Blocksworld
(Tables 1 and 2, the runtime by subset, Figures 10 and 11) as ``experiments/mystery.py``
runs it: the direct baselines get one
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
ABLATIONS = {
    "pipeline": "full pipeline",
    "pipeline-no-repair": "w/o Repair",
    "pipeline-no-stepwise": "w/o Step-wise Validation",
    "pipeline-no-constraints": "w/o Deep Constraints",
}  # condition -> Table 2's row
SUBSETS = {
    "PlanBench's 500 (instances 0-499)": range(0, 500),
    "3-block 100 (instances 500-599)": range(500, 600),
    "all 600": range(0, 600),
}  # the paper's runtime subsets (gb500, gb3_100), by Mystery-BW-v0's instance index
TABLE_1 = PaperTable(
    title="Table 1: success",
    paper_model="GPT-4",
    rows=tuple(ROWS.values()),
    columns=("success",),
    published={
        ("direct one-shot", "success"): "4.3%",
        ("direct zero-shot", "success"): "0.16%",
        ("pipeline", "success"): "46.2%",
    },
)
TABLE_2 = PaperTable(
    title="Table 2: ablations",
    paper_model="GPT-4",
    rows=tuple(ABLATIONS.values()),
    columns=("success", "difference"),
    published={  # section 5.8's text (the table itself is an image): points, not ratios
        ("full pipeline", "success"): "46.2%",
        ("w/o Repair", "difference"): "-10.4 points",
        ("w/o Step-wise Validation", "difference"): "-3.2 to -4.5 points over its 3 models",
        ("w/o Deep Constraints", "difference"): "-4.8 to -6.7 points over its 3 models",
    },
)
RUNTIME = PaperTable(
    title="Runtime by subset (section 5.2, Figure 3): the pipeline's seconds an instance",
    paper_model="GPT-4",
    rows=tuple(SUBSETS),
    columns=("p50", "p90", "mean"),
    published={
        (next(iter(SUBSETS)), "p50"): "37.49",
        ("3-block 100 (instances 500-599)", "p50"): "26.84",
        ("all 600", "p50"): "36.25",
        ("all 600", "p90"): "49.21",
        ("all 600", "mean"): "36.05",
    },
)
FIGURES = {
    10: ("actions", "action", "Action distribution in simulation"),
    11: ("predicates", "predicate", "Predicate distribution in simulation"),
}  # figure -> (the plan verdict's list, its x, the paper's caption)

MYSTERY = Protocol(
    name="mystery",
    paper="Symbol-agnostic closed-loop planning on Mystery Blocksworld (Tables 1 and 2)",
    settings=MysteryConfig.protocol(direct_attempts=1, attempts=2),
    requests=(ModelRequest(".*", {"temperature": 0.2}),),
    rules=(
        "direct one-shot and zero-shot: PlanBench's Mystery prompt, one generation per "
        "instance, judged by the validator; no verification, repair or retry",
        "pipeline (and its ablations): generate, verify, repair within K = `attempts` "
        "plans, the authors' 2 (their retry curve: 8.8% at K = 1, 46.2% at K = 2)",
        "Table 2's ablations on the same instances, with the same K, in the same run as "
        "Table 1 (the paper: 'the same evaluation protocol as our main results')",
        "success: the plan is valid; n: the 600 instances, an episode that ended on a "
        "failed model call a failure counted in its own column",
    ),
    tables=(
        TABLE_1,
        TABLE_2,
        RUNTIME,
        *(
            PaperTable(f"Figure {n}: {caption}", ("successful", "failed"), (x,), {}, "GPT-4")
            for n, (_, x, caption) in FIGURES.items()
        ),
    ),
    n=f"{INSTANCES} PlanBench Mystery Blocksworld instances",
)
