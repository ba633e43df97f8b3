"""The agentic paper's Tables I and III (plan length by difficulty block) and its token
cost, as planloop.protocols.agentic holds them: the figures add up as the paper's text
says."""

from planloop.protocols.agentic import AGENTIC, BLOCKS, COST, TABLE_I, TABLE_II, TABLE_III


def test_the_tables_reproduce_writes_are_i_ii_and_iii():
    assert AGENTIC.tables == (TABLE_I, TABLE_II, TABLE_III)
    assert len({table.paper_model for table in (*AGENTIC.tables, COST)}) == 1
    assert BLOCKS[0] == "0–10" and BLOCKS[-1] == "100–102" and len(BLOCKS) == 11


def test_table_i_counts_the_87_both_planners_solved_and_their_reduction():
    figures = TABLE_I.published
    assert sum(int(figures[block, "solved by both"]) for block in BLOCKS) == 87
    for block in BLOCKS[:-1]:
        lama, seq, reduction = (float(figures[block, c]) for c in TABLE_I.columns[1:])
        assert abs(lama - seq - reduction) < 0.11, block
    assert figures[BLOCKS[-1], "FD lama"] == "—"


def test_table_iii_counts_the_49_co_solved():
    figures = TABLE_III.published
    counts = [int(figures[b, "co-solved"]) for b in BLOCKS if (b, "co-solved") in figures]
    assert sum(counts) == 49 and len(counts) == 7  # no row for 60-70 or past 80
    assert figures["10–20", "Direct"] == "27.4" and figures["70–80", "Agentic"] == "139.3"


def test_token_cost():
    assert COST.published["Direct LLM", "tokens per instance"] == "28,488"
    assert COST.published["Agentic LLM", "tokens per solved instance"] == "254,796"
