"""The Mystery study's tables, built from hand-made records shaped as the study writes
them."""

from planloop.protocols.mystery import MYSTERY
from planloop.protocols.mystery.tables import hazard, paper_table, report, retry_points
from planloop.study import markdown_table

PROVENANCE = {"model": "m", "model_spec": "openai:m", "settings": {"protocol": "mystery"}}


def plan(kind=None, step=None, action=None, unmet=(), length=3):
    return {"kind": kind, "step": step, "action": action, "unmet": list(unmet), "length": length}


def record(condition, won, plans, error=None):
    kinds = sorted({p["kind"] for p in plans if p["kind"]})
    return {
        "condition": condition,
        "won": won,
        "error": error,
        "attempts": len(plans),
        "plans": plans,
        "failure_kinds": kinds,
        "seconds": 1.5,
        "usage": {"calls": len(plans)},
        "provenance": PROVENANCE,
    }


RECORDS = [
    record("pipeline", True, [plan("precondition", 2, "attack", ["craves"]), plan()]),
    record("pipeline", False, [plan("goal", unmet=["harmony"]), plan("parse", length=0)]),
    record("direct-one-shot", True, [plan()]),
    record("direct-zero-shot", False, [plan("precondition", 1, "feast", ["province"])]),
    record("direct-zero-shot", False, [], error="server: 503"),
]


def test_table_1_sets_each_row_beside_the_papers_figure():
    table = paper_table(RECORDS)
    assert table.startswith(
        f"### {MYSTERY.tables[0].title}\n\nthis run: openai:m; paper: GPT-4\n\n"
    )
    rows = [
        ["direct one-shot", "1/1 (100.0%) (paper: 4.3%)", "[20.7%, 100.0%]", 1, 0],
        ["direct zero-shot", "0/2 (0.0%) (paper: 0.16%)", "[0.0%, 65.8%]", 2, 1],
        ["pipeline", "1/2 (50.0%) (paper: 46.2%)", "[9.5%, 90.5%]", 2, 0],
    ]
    assert table.endswith(markdown_table(["", "success", "95% Wilson", "n", "model errors"], rows))


def test_the_retry_curve_counts_the_plans_tried():
    pipeline = [r for r in RECORDS if r["condition"] == "pipeline"]
    assert retry_points(pipeline, 3) == [("1", 0, 2), ("2", 1, 2), ("3", 1, 2)]


def test_the_hazard_counts_plans_reaching_and_failing_at_each_step():
    pipeline = [r for r in RECORDS if r["condition"] == "pipeline"]
    # four plans: failing at step 2 (reaching 1-2), valid (1-3), goal (1-3), empty
    assert hazard(pipeline) == {1: (0, 3), 2: (1, 3), 3: (0, 2)}


def test_the_report_holds_every_section_and_the_model_errors():
    text = report(RECORDS, ["pipeline", "direct-zero-shot"], budget=2, top=1)
    titles = [line for line in text.splitlines() if line.startswith("### ")]
    assert len(titles) == 8 and titles[0] == "### Success"
    assert "| direct-zero-shot | pipeline | -50.0% |" in text
    assert "| direct-zero-shot | feast | province | +1.00 | 1 |" in text
    assert text.endswith("The last: server: 503")
    short = report(RECORDS, ["pipeline"], budget=2, top=1, full=False)
    assert short.count("### ") == 1
