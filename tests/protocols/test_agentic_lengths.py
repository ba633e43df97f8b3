"""The agentic paper's Tables I and III (plan length by difficulty block) and its token
cost, as planloop.protocols.agentic holds them: the figures add up as the paper's text
says."""

from planloop.protocols.agentic import (
    AGENTIC,
    ATTEMPTS,
    BLOCKS,
    COST,
    FIGURE_2,
    HARD_CASES,
    TABLE_I,
    TABLE_II,
    TABLE_III,
)


def test_the_tables_reproduce_writes_are_i_ii_iii_fig_2_samples_and_hard_cases():
    assert AGENTIC.tables == (TABLE_I, TABLE_II, TABLE_III, FIGURE_2, ATTEMPTS, HARD_CASES)
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


def test_figure_2s_counts_are_table_is_and_ii_s():
    planners = [FIGURE_2.published[block, "lama-first"] for block in BLOCKS]
    assert sum(int(cell.split("/")[0]) for cell in planners) == 87  # Table II's solved
    assert sum(int(cell.split("/")[1].split()[0]) for cell in planners) == 102
    assert FIGURE_2.published["80–90", "Agentic LLM"] == "2/10 (20%)"


def test_the_hard_cases_add_up_to_the_15_fast_downward_timeouts():
    counts = [int(HARD_CASES.published[row, "instances"].split()[0]) for row in HARD_CASES.rows]
    assert counts[0] == 15 == sum(counts[1:])
    assert ATTEMPTS.published["solved", "median samples"] == "2"
