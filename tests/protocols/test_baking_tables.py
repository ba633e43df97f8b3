"""The horizon study's tables, built from hand-made records shaped as the study writes
them."""

import pytest

from planloop.protocols.baking import BAKING, PROBLEMS, ROWS
from planloop.protocols.baking.tables import paper_table, success_table
from planloop.study import markdown_table

PROVENANCE = {"model": "gpt-4o", "model_spec": "openai:gpt-4o", "settings": {}}


def record(horizon, instance, won, error=None):
    return {
        "horizon": horizon,
        "instance": instance,
        "won": won,
        "error": error,
        "provenance": PROVENANCE,
    }


RECORDS = [
    record("open", 0, True),
    record("open", 0, False),
    record(5, 0, True),
    record(1, 1, False, error="server: 503"),
    record(1, 1, True),
]


def test_the_paper_table_sets_each_cell_beside_the_papers_figure():
    table = paper_table(RECORDS, range(PROBLEMS))
    heading = f"### {BAKING.tables[0].title}\n\nthis run: openai:gpt-4o; paper: GPT-4o\n\n"
    assert table.startswith(heading)
    rows = [
        [
            "Open-loop",
            "1/2 (50%) [9%, 91%] (paper: 4/5 (80%))",
            "0/0 (paper: 3/5 (60%))",
            "0/0 (paper: 1/5 (20%))",
            "0/0 (paper: 0/5 (0%))",
            0,
        ],
        [
            "horizon 5",
            "1/1 (100%) [21%, 100%] (paper: 3/5 (60%))",
            "0/0 (paper: 5/5 (100%))",
            "0/0 (paper: 4/5 (80%))",
            "0/0 (paper: 2/5 (40%))",
            0,
        ],
        [
            "horizon 1",
            "0/0 (paper: 4/5 (80%))",
            "1/2 (50%) [9%, 91%] (paper: 5/5 (100%))",
            "0/0 (paper: 5/5 (100%))",
            "0/0 (paper: 5/5 (100%))",
            1,
        ],
    ]
    columns = ["", *BAKING.tables[0].columns, "model errors"]
    assert table == heading + markdown_table(columns, rows)
    assert list(ROWS) == ["open", 5, 1]


def test_the_paper_table_refuses_two_runs():
    other = {**RECORDS[0], "provenance": {**PROVENANCE, "model": "other"}}
    with pytest.raises(ValueError, match="2 runs"):
        paper_table([*RECORDS, other], range(PROBLEMS))


def test_the_success_table_has_a_row_per_horizon_and_the_model_errors():
    table = success_table(RECORDS, [1, "open"], [0, 1])
    assert table.splitlines()[0] == "| horizon | problem 0 | problem 1 | all | model errors |"
    assert "| H = 1 | 0/0 [0%, 100%] | 1/2 [9%, 91%] | 1/2 [9%, 91%] | 1 |" in table
    assert "| open loop | 1/2 [9%, 91%] | 0/0 [0%, 100%] | 1/2 [9%, 91%] | 0 |" in table
    assert table.endswith("The last: server: 503")
