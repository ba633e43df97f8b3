"""The agentic step-wise planning paper's protocol: its settings, Table II's layout and
the figures the paper printed there."""

from planloop.protocols.agentic import AGENTIC, TABLE_II


def test_settings_are_one_budget_and_no_caps():
    assert AGENTIC.name == "agentic" and "2603.06064" in AGENTIC.paper
    assert AGENTIC.settings == {
        "seconds": 180.0,
        "max_attempts": None,
        "max_model_calls": None,
        "max_tool_calls": None,
        "feedback": "outcome",
    }
    assert AGENTIC.n == "102 IPC Blocksworld instances"
    assert AGENTIC.request_for("claude-haiku-4-5") == {"temperature": 0.2}


def test_table_ii_layout_and_published_figures():
    table = TABLE_II
    assert table.rows == ("lama-first", "seq-sat-lama-2011", "Direct LLM", "Agentic LLM")
    assert table.columns == ("Solved", "Timeout", "Early exit")
    assert set(table.published) == {(r, c) for r in table.rows for c in table.columns}
    assert table.published["Agentic LLM", "Solved"] == "68 (66.7%)"
    assert [table.published[r, "Timeout"] for r in table.rows] == ["15", "15", "37", "28"]
    assert [table.published[r, "Early exit"] for r in table.rows] == ["0", "0", "0", "6"]
    # every row's figures add up to the paper's 102 instances
    for row in table.rows:
        solved = int(table.published[row, "Solved"].split()[0])
        assert solved + sum(int(table.published[row, c]) for c in table.columns[1:]) == 102


def test_caption_names_the_overrides():
    assert AGENTIC.caption({"seconds": 30.0}).endswith("overridden: seconds=30.0")
