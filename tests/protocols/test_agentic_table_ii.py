"""The agentic study's Table II and cost, built from hand-made records shaped as the
study writes them (Tables I and III: tests/experiments/test_agentic_tables.py)."""

from planloop.protocols.agentic import CONDITIONS, TABLE_II
from planloop.protocols.agentic.tables import by_condition, cost_table, outcome, report

PROVENANCE = {"model": "haiku", "model_spec": "openai:haiku", "settings": {}}


def record(condition, won, stop, error=None, tokens=0):
    return {
        "condition": condition,
        "instance": 0,
        "trial": 0,
        "paper_instance": 0,
        "won": won,
        "stop": stop,
        "error": error,
        "seconds": 2.0,
        "usage": {"calls": 1, "prompt_tokens": tokens, "completion_tokens": 0},
        "provenance": PROVENANCE,
    }


RECORDS = [
    record("lama-first", True, "solved"),
    record("lama-first", False, "error"),
    record("direct", True, None, tokens=300),
    record("direct", False, "budget", tokens=100),
    record("agentic", False, "unsolvable", tokens=50),
    record("agentic", False, None, error="server: 503"),
]


def test_each_episode_falls_in_one_column_of_table_ii():
    assert [outcome(r) for r in RECORDS] == [
        "Solved",
        "other",
        "Solved",
        "Timeout",
        "Early exit",
        "model error",
    ]


def test_table_ii_counts_each_approach_beside_the_papers_figures():
    text = report(RECORDS, ["lama-first", "direct", "agentic"], caption="", full=False)
    assert text.startswith(f"### {TABLE_II.title}\n\nthis run: openai:haiku; paper: Claude")
    assert "| lama-first | 2 | 1 (50.0%) (paper: 87 (85.3%)) | 0 (paper: 15) |" in text
    assert "| Direct LLM | 2 | 1 (50.0%) (paper: 65 (63.7%)) | 1 (paper: 37) |" in text
    assert "| Agentic LLM | 2 | 0 (0.0%) (paper: 68 (66.7%)) | 0 (paper: 28) | 1 (paper: 6) |" in (
        text
    )
    assert "Failures in none of the columns (the stop recorded): lama-first: 1 (error)" in text
    assert "1 episode ended on a failed model call" in text


def test_the_cost_counts_tokens_per_instance_and_per_solved_instance():
    cost = cost_table(by_condition(RECORDS, list(CONDITIONS)))
    assert "| lama-first | 2.0 | - | - | - |" in cost
    assert "| Direct LLM | 2.0 | 1.0 | 200 (paper: 28,488) | 400 (paper: 44,705) |" in cost
    assert "| Agentic LLM | 2.0 | 1.0 | 25 (paper: 169,864) | - (paper: 254,796) |" in cost
