"""The formalization study's tables, built from hand-made records shaped as the study
writes them."""

from planloop.protocols.nl_pddl import NL_PDDL
from planloop.protocols.nl_pddl.tables import curve_table, group_table, mean_cell, paper_table

PROVENANCE = {"model": "llama", "model_spec": "openai:llama", "settings": {}}


def metrics(svr, psr, tsr, cr):
    return {
        "svr": svr,
        "psr": psr,
        "tsr": tsr,
        "cr": cr,
        "tsr_matched": tsr,
        "cr_matched": cr,
        "eq": cr,
        "goal_eq": cr,
    }


FAILED, REPAIRED = metrics(1, 0, 0.5, 0), metrics(1, 1, 1.0, 1)
RECORDS = [
    {  # repaired at the first iteration
        "domain": "blocksworld",
        "size": 10,
        "metrics": REPAIRED,
        "by_iteration": [FAILED, REPAIRED],
        "iterations": 1,
        "repaired_at": 1,
        "provenance": PROVENANCE,
    },
    {  # right the first time
        "domain": "blocksworld",
        "size": 10,
        "metrics": REPAIRED,
        "by_iteration": [REPAIRED, REPAIRED],
        "iterations": 0,
        "repaired_at": None,
        "provenance": PROVENANCE,
    },
    {"domain": "gripper", "size": 10, "error": "server: 503", "provenance": PROVENANCE},
]


def test_table_3_is_the_one_shot_and_the_final_candidates_beside_the_paper():
    table = paper_table(RECORDS)
    assert table.startswith(f"### {NL_PDDL.tables[0].title}\n\nthis run: openai:llama; paper:")
    lines = table.splitlines()
    assert lines[-2].startswith("| Baseline | 2/3 [21%, 94%] (paper: 76.3%) | 1/3 [6%, 79%]")
    assert lines[-1].startswith("| Planner-in-the-loop | 2/3 [21%, 94%] (paper: 84.9%) |")
    assert lines[-1].endswith("| 3 | 1 |")


def test_the_groups_count_model_errors_and_repairs():
    table = group_table(RECORDS, ("domain", "size"))
    assert "| blocksworld | 10 | 2 | 0 | 2/2 [34%, 100%] |" in table
    assert table.splitlines()[2].endswith("| 1 | 0.50 |")  # one repaired, half a repair each
    assert "| gripper | 10 | 1 | 1 | 0/1 [0%, 79%] |" in table
    assert table.splitlines()[3].endswith("| 0 | n/a |")


def test_the_repair_curve_holds_every_iteration():
    curve = curve_table(RECORDS, 1).splitlines()
    assert [line.split(" | ")[0] for line in curve[2:]] == ["| 0", "| 1"]
    assert curve[2].split(" | ")[2] == "1/3 [6%, 79%]" and curve[3].split(" | ")[2] == (
        "2/3 [21%, 94%]"
    )


def test_a_mean_has_a_clipped_normal_interval():
    assert mean_cell([]) == "-"
    assert mean_cell([1.0]) == "100.0% [100%, 100%]"
    assert mean_cell([0.0, 1.0]) == "50.0% [0%, 100%]"
