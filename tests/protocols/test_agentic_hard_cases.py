"""The agentic paper's Fig. 2 (per-instance outcomes; its counts by block), the direct
baseline's median samples (IV-B) and the hard cases (IV-E), each built from fixed
records shaped as the study writes them."""

import pytest

from planloop.protocols.agentic import ATTEMPTS, FIGURE_2, HARD_CASES, PAPER_NAMED
from planloop.protocols.agentic.attempts import attempts_table
from planloop.protocols.agentic.figure import figure_2_table, save_figure_2
from planloop.protocols.agentic.hard_cases import cell, hard_cases_table

PROVENANCE = {"model": "haiku", "model_spec": "openai:haiku", "settings": {"max_attempts": None}}


def record(condition, place, won, stop="timeout", samples=0, length=0, calls=0, **extra):
    details = {"attempts": [{"verdict": "goal"}] * samples} if condition == "direct" else {}
    if condition == "agentic":
        details = {"model_calls": calls}
    return {
        "condition": condition,
        "instance": place,
        "trial": 0,
        "paper_instance": place,
        "objects": 4 + place,
        "won": won,
        "stop": "solved" if won else stop,
        "error": None,
        "actions": ["(noop)"] * length,
        "restarted_after": [],
        "restarts": 0,
        "details": details,
        "provenance": PROVENANCE,
        **extra,
    }


def planners(place, won):
    return [record(c, place, won, length=8) for c in ("lama-first", "seq-sat-lama-2011")]


RECORDS = [
    # 0: every approach solves it; the direct baseline on its second sample
    *planners(0, True),
    record("direct", 0, True, samples=2, length=6),
    record("agentic", 0, True, length=7, calls=9),
    # 76: Fast Downward times out, the agentic loop alone solves it
    *planners(76, False),
    record("direct", 76, False, samples=15),
    record("agentic", 76, True, length=120, calls=80),
    # 86: both LLM approaches
    *planners(86, False),
    record("direct", 86, True, samples=4, length=100),
    record("agentic", 86, True, length=101, calls=70),
    # 96: no approach; the agentic loop exits early
    *planners(96, False),
    record("direct", 96, False, samples=21),
    record("agentic", 96, False, stop="unsolvable", calls=30, restarts=2),
]


def test_the_median_samples_are_per_solved_not_solved_and_all_beside_the_papers():
    text = attempts_table(RECORDS)
    assert text.startswith(f"### {ATTEMPTS.title}\n\nthis run: openai:haiku; paper: Claude")
    assert "| solved | 2 (paper: 65) | 3 (paper: 2) | 2–4 |" in text  # samples 2 and 4
    assert "| not solved | 2 (paper: 37) | 18 (paper: 15) | 15–21 |" in text
    assert "| all | 4 (paper: 102) | 9.5 | 2–21 |" in text  # 2, 4, 15, 21
    assert "capped" not in text


def test_a_cap_on_samples_is_said_under_the_median():
    capped = [
        {**r, "provenance": {**PROVENANCE, "settings": {"max_attempts": 5}}}
        for r in RECORDS
        if r["condition"] == "direct"
    ]
    assert "Samples were capped at 5 an instance (the paper: no cap)" in attempts_table(capped)


def test_the_hard_cases_are_where_both_planners_failed_and_who_solved_them():
    text = hard_cases_table(RECORDS)
    assert text.startswith(f"### {HARD_CASES.title}\n\nthis run: openai:haiku")
    assert "| both Fast Downward configurations failed | 3 (76, 86, 96) (paper: 15) |" in text
    assert "| solved by both LLM approaches | 1 (86) (paper: 1 (86)) |" in text
    assert "| solved by Agentic LLM alone | 1 (76) (paper: 3 (76, 78, 101)) |" in text
    assert "| solved by Direct LLM alone | 0 (paper: 1 (100)) |" in text
    assert "| solved by no approach | 1 (96) (paper: 10) |" in text
    assert "| 0 (instance-1) |" not in text  # solved by Fast Downward: not a hard case
    assert (
        "| 96 (instance-97) | 90–100 | 100 | Timeout | Timeout | Timeout, 21 samples | "
        f"Early exit, 30 model calls, 2 resets | no approach | {PAPER_NAMED[96]} |"
    ) in text
    assert "| Solved, 120 actions, 80 model calls | Agentic LLM |" in text
    assert "| Solved, 100 actions, 4 samples | Solved, 101 actions, 70 model calls |" in text


def test_without_both_planners_there_are_no_hard_cases():
    llm_only = [r for r in RECORDS if r["condition"] in ("direct", "agentic")]
    assert "need both Fast Downward configurations' runs; this run has Direct LLM, Agentic" in (
        hard_cases_table(llm_only)
    )
    assert cell(None) == "not run"


def test_figure_2s_counts_by_block_are_beside_the_papers():
    text = figure_2_table(RECORDS, "agentic-figure-2.png")
    assert text.startswith(f"### {FIGURE_2.title}\n\nthis run: openai:haiku")
    row = next(line for line in text.splitlines() if line.startswith("| 80–90 |"))
    assert row == (
        "| 80–90 | 0/1 (0%) (paper: 7/10 (70%)) | 0/1 (0%) (paper: 7/10 (70%)) | "
        "1/1 (100%) (paper: 5/10 (50%)) | 1/1 (100%) (paper: 2/10 (20%)) |"
    )
    assert "| 60–70 | - (paper: 10/10 (100%)) | - (paper: 10/10 (100%)) | - | - |" in text
    assert "agentic-figure-2.png beside this file" in text


@pytest.mark.parametrize("places", [[0], list(range(102))], ids=["1", "102"])
def test_figure_2_reads_at_one_instance_and_at_102(tmp_path, places):
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    records = [
        record(c, p, won=(p + i) % 3 != 0, stop="unsolvable" if c == "agentic" else "timeout")
        for p in places
        for i, c in enumerate(("lama-first", "seq-sat-lama-2011", "direct", "agentic"))
    ]
    path = tmp_path / "figure.png"
    assert save_figure_2([records], path)
    height, width, _ = imread(path).shape
    assert 500 < width < 2100 and 300 < height < 900  # neither a strip nor a poster


def test_figure_2_labels_legend_and_n(monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from planloop.study.plots import overflowing_labels, overlapping_texts

    kept = []
    monkeypatch.setattr(plt, "close", kept.append)  # keep the figure to read it
    runs = [RECORDS, [{**r, "provenance": {**PROVENANCE, "model_spec": "b"}} for r in RECORDS]]
    assert save_figure_2(runs, tmp_path / "figure.png")
    [figure] = kept
    [axes] = figure.axes
    assert axes.get_title().replace("\n", " ").replace("\u00a0", " ") == (
        "Fig. 2: per-instance outcome of every approach (n = 4 instances, 2 runs)"
    )
    assert axes.get_xlabel().startswith("instance (place in the paper's order")
    assert axes.get_ylabel() == "approach"
    assert [t.get_text() for t in axes.get_yticklabels()][::4] == [
        "lama-first\nopenai:haiku",
        "lama-first\nb",
    ]
    [legend] = figure.legends
    assert [t.get_text() for t in legend.get_texts()] == ["Solved", "Timeout", "Early exit"]
    assert overlapping_texts(figure) == [] and overflowing_labels(figure) == []
    assert not save_figure_2([], tmp_path / "none.png")
