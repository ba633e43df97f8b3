"""NL-PDDL-Bench's Tables 2 and 5 from hand-made records shaped as the study writes
them: direct plans against the loop's on the same problems, and Table 3's measures on
PlanBench's Blocksworld, each beside the paper's figures."""

import pytest

from planloop.protocols.nl_pddl import NL_PDDL, TABLE_2, TABLE_5
from planloop.protocols.nl_pddl.tables import paper_tables, table_2, table_5

PROVENANCE = {"model": "llama", "model_spec": "openai:llama", "settings": {}}
ONE = {m: 1 for m in ("svr", "psr", "cr", "cr_matched", "eq", "goal_eq")} | {
    "tsr": 1.0,
    "tsr_matched": 1.0,
}
NONE = {m: 0 for m in ONE} | {"psr": None, "tsr": 0.0, "tsr_matched": 0.0}


def loop(domain, valid, first=NONE, last=ONE):
    return {
        "domain": domain,
        "size": 10 if domain == "logistics" else None,
        "metrics": last,
        "by_iteration": [first, last],
        "iterations": 1,
        "repaired_at": 1,
        "plan_valid": valid,
        "provenance": PROVENANCE,
    }


def direct(domain, valid):
    return {"domain": domain, "approach": "direct", "plan_valid": valid, "provenance": PROVENANCE}


ERROR = {"domain": "planbench", "approach": "direct", "error": "server: 503"}
RECORDS = [
    loop("logistics", True),
    loop("logistics", False),
    direct("logistics", False),
    direct("logistics", True),
    direct("logistics", False),
    loop("planbench", True),
    loop("planbench", False, last=NONE),
    direct("planbench", True),
    {**ERROR, "provenance": PROVENANCE},
    loop("gripper", True),
]


def row(table, name):
    return next(line for line in table.splitlines() if line.startswith(f"| {name} |"))


def test_table_2_validates_both_approaches_plans_on_the_same_domains_beside_the_paper():
    table = table_2(RECORDS)
    assert table.startswith(f"### {TABLE_2.title}\n\nthis run: openai:llama; paper: Llama3.1-8B")
    assert row(table, "Logistics") == (
        "| Logistics | 1/3 [6%, 79%] (paper: GPT-4o 22.4%, Claude 3.5 22.6%, DeepSeek-R1 "
        "56.8%) | 1/2 [9%, 91%] (paper: 78.0%) | 3 | 2 | 0 | 0 |"
    )
    # a model error is a failure in n and counted; PlanBench's Blocksworld is the row
    assert row(table, "Blocksworld").startswith("| Blocksworld | 1/2 [9%, 91%] (paper: GPT-4o")
    assert row(table, "Blocksworld").endswith("| 1/2 [9%, 91%] (paper: 87.3%) | 2 | 2 | 1 | 0 |")
    assert row(table, "Zenotravel").startswith("| Zenotravel | - (paper: GPT-4o 33.7%")
    assert "Zenotravel: planloop has no such problems" in table


def test_table_5_is_table_3_on_planbench_alone():
    table = table_5(RECORDS)
    assert table.startswith(f"### {TABLE_5.title}\n\nthis run: openai:llama; paper: Llama3.1-8B")
    assert row(table, "Baseline").startswith("| Baseline | 0/2 [0%, 66%] (paper: 99.8%) |")
    assert row(table, "Planner-in-the-loop").startswith(
        "| Planner-in-the-loop | 1/2 [9%, 91%] (paper: 100.0%) | 1/1 [21%, 100%] (paper: 49.2%)"
    )
    assert row(table, "Planner-in-the-loop").endswith("| 2 | 0 |")  # direct records left out


def test_each_table_of_a_run_is_written_over_its_own_records():
    tables = paper_tables(RECORDS)
    assert list(tables) == ["table-3", "table-2", "table-5"]
    assert [t.title for t in NL_PDDL.tables] == [
        "Table 3: overall results",
        TABLE_2.title,
        TABLE_5.title,
    ]
    # Table 3: the three loop records off PlanBench (logistics twice, gripper)
    assert row(tables["table-3"], "Planner-in-the-loop").endswith("| 3 | 0 |")
    only_loop = [r for r in RECORDS if r.get("approach") != "direct" and r["domain"] != "planbench"]
    assert list(paper_tables(only_loop)) == ["table-3"]


def test_repair_png_shows_every_series_apart_with_no_empty_point(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import planloop.study.plots as plots
    from planloop.protocols.nl_pddl.tables import curve_plot

    figures = []
    drawn = plots.success_figure
    monkeypatch.setattr(
        plots, "success_figure", lambda *a, **k: figures.append(drawn(*a, **k)) or figures[-1]
    )
    unread = [loop("gripper", False, first=NONE, last=NONE) for _ in range(3)]  # none parses
    curve_plot([*unread, loop("gripper", True)], 1, tmp_path / "repair.png", show=False)
    [figure] = figures
    axes = figure.axes[0]
    assert "(n = 4 episodes)" in axes.get_title()
    assert len(figure.legends[0].get_texts()) == 6  # SVR, PSR, CR, CR matched, EQ, goal EQ
    last = [bars.lines[0].get_xdata()[-1] for bars in axes.containers]  # at iteration 1
    assert len(set(last)) == len(last) == 6  # each series beside the others
    labels = [t for t in axes.texts]
    assert "0/0" not in [t.get_text() for t in labels]
    assert "1/1" in [t.get_text() for t in labels]  # PSR: 1 of the 1 parsed, at iteration 1
    assert plots.overlapping_texts(figure) == [] and plots.overflowing_labels(figure) == []
    renderer = figure.canvas.get_renderer()  # drawn by the checks above
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
