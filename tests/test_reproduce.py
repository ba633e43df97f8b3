"""experiments/reproduce.py: each paper's tables in one command, with the paper's rows
and columns, the published figures, Wilson intervals and model errors (a smoke run with
--limit 1 and a scripted model)."""

import pytest

from planloop.llm import LLMError, ScriptedModel

from conftest import load_experiment

pytestmark = pytest.mark.slow  # whole studies and campaigns: -m "not slow" skips them

WORDS = {  # what each paper's table must name (the list)
    "pddlego-plus": [
        "PDDLego+",
        "PDDLego (no error fixing)",
        "PlanGen",
        "CoinCollector",
        "ALFWorld",
        "success",
        "solver errors",
        "simulation errors",
        "model errors",
    ],
    "mystery": [
        "direct one-shot",
        "direct zero-shot",
        "pipeline",
        "success",
        "Wilson",
        "model errors",
    ],
    "nl-pddl": ["Baseline", "Planner-in-the-loop", "SVR", "PSR", "TSR", "CR", "model errors"],
    "agentic": [
        "lama-first",
        "seq-sat-lama-2011",
        "Direct LLM",
        "Agentic LLM",
        "Solved",
        "Timeout",
        "Early exit",
        "model errors",
    ],
    "baking": ["Open-loop", "horizon 5", "horizon 1", "problem 1", "problem 4", "model errors"],
}


@pytest.mark.parametrize("paper", list(WORDS))
def test_each_paper_writes_its_tables(tmp_path, paper):
    reproduce = load_experiment("reproduce")
    model = ScriptedModel(lambda messages: "I cannot help with that.")
    extra = ["--", "--seconds", "2"] if paper == "agentic" else []  # not 180 s per call
    assert (
        reproduce.main(
            [paper, "--llm", "x", "--limit", "1", "--out", str(tmp_path), *extra], model=model
        )
        == 0
    )
    tables = sorted(tmp_path.glob(f"{paper}-*.md"))
    assert tables
    text = "\n".join(path.read_text() for path in tables)
    for word in WORDS[paper]:
        assert word.lower() in text.lower(), word
    assert "(paper: " in text  # the published figures beside the reproduced ones
    assert "a smoke run: the first 1 of every cell" in text
    assert " 0/0" not in text


def test_a_model_that_always_fails_is_zero_of_n_with_n_model_errors(tmp_path):
    reproduce = load_experiment("reproduce")
    model = ScriptedModel(lambda messages: LLMError("bad_response", "a broken body"))
    assert (
        reproduce.main(
            ["baking", "--llm", "x", "--limit", "1", "--out", str(tmp_path)], model=model
        )
        == 0
    )
    table = (tmp_path / "baking-table.md").read_text()
    assert "| horizon 1 | 0/1 (0%) [0%, 79%] (paper: 4/5 (80%)) |" in table
    assert table.count("| 4 |") == 3  # every row: 4 problems, 4 model errors


def test_the_ground_truth_reproduces_only_what_has_one(tmp_path, capsys):
    reproduce = load_experiment("reproduce")
    assert reproduce.main(["mystery", "--llm", "groundtruth", "--out", str(tmp_path)]) == 2
    assert "mystery has no ground-truth formalizer" in capsys.readouterr().err
