"""experiments/reproduce.py: each paper's tables in one command, with the paper's rows
and columns, the published figures, Wilson intervals and model errors (a smoke run with
--limit 1 and a scripted model)."""

import subprocess
import sys

import pytest

from planloop.llm import LLMError, ScriptedModel
from planloop.protocols.registry import papers

from conftest import EXPERIMENTS, load_experiment

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
        "Figure 10",
        "RAG_DF",
        "Figure 12",
        "simple prompt",
        "Average steps of won episodes",
        "Model scale",
    ],
    "mystery": [
        "direct one-shot",
        "direct zero-shot",
        "pipeline",
        "success",
        "Wilson",
        "model errors",
        "Table 2: ablations",
        "w/o Repair",
        "w/o Step-wise Validation",
        "w/o Deep Constraints",
        "Runtime by subset",
        "Figure 10: ",
        "Figure 11: ",
    ],
    "nl-pddl": [
        "Table 3",
        "Baseline",
        "Planner-in-the-loop",
        "SVR",
        "PSR",
        "TSR",
        "CR",
        "model errors",
        "Table 2",
        "Direct plan generation",
        "Logistics",
        "Blocksworld",
        "Table 5: transfer to PlanBench's Blocksworld",
    ],
    "agentic": [
        "lama-first",
        "seq-sat-lama-2011",
        "Direct LLM",
        "Agentic LLM",
        "Solved",
        "Timeout",
        "Early exit",
        "model errors",
        "Fig. 2",
        "median samples",
        "Hard cases",
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
    if paper == "agentic":  # Fig. 2 beside its counts, IV-B's samples and IV-E's hard cases
        assert (tmp_path / "agentic-figure-2.png").stat().st_size > 0
        for name in ("figure-2", "attempts", "hard-cases"):
            assert (tmp_path / f"agentic-{name}.md").is_file(), name


def test_nl_pddl_writes_tables_3_2_and_5_and_its_repair_curve(tmp_path):
    smoke(tmp_path, "nl-pddl", "groundtruth", None)
    names = sorted(path.name for path in tmp_path.glob("nl-pddl-*.md"))
    assert names == ["nl-pddl-table-2.md", "nl-pddl-table-3.md", "nl-pddl-table-5.md"]
    assert (tmp_path / "nl-pddl" / "repair.png").stat().st_size > 0
    # the ground truth's plans, direct and the loop's, validate on the reference problems
    table_2 = (tmp_path / "nl-pddl-table-2.md").read_text()
    assert "| Logistics | 4/4 [51%, 100%] (paper: GPT-4o 22.4%" in table_2
    assert "| 1/1 [21%, 100%] (paper: 87.3%) | 1 | 1 | 0 | 0 |" in table_2
    assert (
        "| Planner-in-the-loop | 1/1 [21%, 100%] (paper: 100.0%) |"
        in (tmp_path / "nl-pddl-table-5.md").read_text()
    )


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


def scripted(name):
    return ScriptedModel(lambda messages: "I cannot help with that.", name=name)


def smoke(out, paper, spec, model, *extra):
    """``reproduce.py PAPER --llm SPEC --limit 1 --out OUT -- EXTRA`` with ``model``."""
    if paper == "agentic":
        extra = ("--seconds", "2", *extra)  # not 180 s per call
    argv = [paper, "--llm", spec, "--limit", "1", "--out", str(out)]
    assert load_experiment("reproduce").main([*argv, "--", *extra], model=model) == 0


def sections(path):
    """The runs' tables in a written table file, after the protocol's heading."""
    return path.read_text().rstrip("\n").split("\n\n### ")[1:]


@pytest.mark.parametrize("paper", list(WORDS))
def test_two_models_into_one_out_are_a_table_each_and_share_no_cell(tmp_path, paper, capsys):
    truth = paper in ("pddlego-plus", "nl-pddl")
    first = ("groundtruth", None) if truth else ("model-a", scripted("model-a"))
    smoke(tmp_path / "alone", paper, "model-b", scripted("model-b"))
    smoke(tmp_path / "both", paper, *first)
    names = sorted(path.name for path in (tmp_path / "alone").glob(f"{paper}-*.md"))
    across = [f"{paper}-models.md"] if paper == "pddlego-plus" else []  # every run: one table
    timed = ["mystery-runtime.md"]  # wall-clock seconds, measured anew by every run
    names = [name for name in names if name not in across + timed]
    before = {name: sections(tmp_path / "both" / name) for name in names}
    capsys.readouterr()
    smoke(tmp_path / "both", paper, "model-b", scripted("model-b"))
    printed = capsys.readouterr().out
    paper_model = papers()[paper].protocol.tables[0].paper_model
    assert names and paper_model
    for name in names:
        [alone] = sections(tmp_path / "alone" / name)
        a, b = sections(tmp_path / "both" / name)
        assert [a] == before[name]  # the first model's cells are as they were
        assert b == alone  # the second's hold its own episodes only
        assert f"\n\nthis run: {first[0]}; paper: {paper_model}" in a
        assert f"\n\nthis run: model-b; paper: {paper_model}" in b
        assert printed.count(b) == 1 and a not in printed  # the run just made, once
    assert printed.count("this run: ") == len(names) + (paper == "mystery")  # + its runtime
    for name in across:  # PDDLego+'s model-scale table: a column per run, printed once
        [table] = sections(tmp_path / "both" / name)
        header = next(line for line in table.splitlines() if line.startswith("| success"))
        assert header == "| success [95% Wilson] | groundtruth | model-b | paper (o3-mini) |"
        assert printed.count(table) == 1


def test_one_model_under_two_configurations_is_two_tables(tmp_path):
    smoke(tmp_path, "baking", "model-a", scripted("model-a"))
    smoke(tmp_path, "baking", "model-a", scripted("model-a"), "--max-restarts", "1")
    default, overridden = sections(tmp_path / "baking-table.md")
    assert "this run: model-a; paper: GPT-4o; overridden: trials=1\n" in default  # --limit 1
    assert "this run: model-a; paper: GPT-4o; overridden: trials=1, max_restarts=1\n" in (
        overridden
    )
    for table in (default, overridden):  # one trial per cell each, never two
        assert "| horizon 1 | 0/1 (0%) [0%, 79%] (paper: 4/5 (80%)) |" in table


def test_a_smoke_run_with_the_ground_truth_says_each_table_once_in_under_60_lines(tmp_path):
    reproduce = [sys.executable, str(EXPERIMENTS / "reproduce.py"), "pddlego-plus"]
    done = subprocess.run(
        [*reproduce, "--llm", "groundtruth", "--limit", "1", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = (done.stdout + done.stderr).splitlines()
    assert len(lines) < 120, "\n".join(lines)  # six tables, each once
    assert done.stdout.count("### Success\n\nthis run: groundtruth; paper: o3-mini\n") == 1
    assert done.stdout.count("### Errors met / fixed, and model errors\n") == 1
    assert "| PDDLego+ | 5/5 [57%, 100%] (paper: 86%) | 5/5 [57%, 100%] (paper: 38%) |" in (
        done.stdout
    )
    assert done.stdout.count("| env | options | model |") == 0  # no study's own table
    tables = ("success", "errors", "steps", "figure-10", "figure-12", "models")
    for path in (*(f"pddlego-plus-{name}.md" for name in tables), "pddlego-plus/"):
        assert f"  {tmp_path / path}" in done.stdout
    for title in ("Average steps of won episodes", "Figure 10: ", "Figure 12: ", "Model scale"):
        assert done.stdout.count(f"### {title}") == 1, title
    steps = "| PDDLego+ | 4.4 steps, 8.0 commands (5 won) | 4.4 steps, 9.2 commands (5 won) |"
    assert steps in done.stdout  # measured: the ground truth, the first game of each cell
    assert "| CoinCollector | 5/5 [57%, 100%] | not run: the ground truth writes the true DF |" in (
        done.stdout
    )
    for figure in ("figure-10", "figure-12"):  # drawn over every run in the folder
        assert (tmp_path / f"pddlego-plus-{figure}.png").stat().st_size > 10_000
    assert done.stderr.count("pddlego on ") == 10  # each study's progress: 5 sizes, 5 task types


def test_mystery_writes_tables_1_and_2_the_runtime_and_figures_10_and_11(tmp_path):
    model = ScriptedModel(lambda messages: "(attack a)", name="model-a")  # applies, no goal
    smoke(tmp_path, "mystery", "model-a", model)
    for name in ("table-1", "table-2", "runtime", "figure-10", "figure-11"):
        assert (tmp_path / f"mystery-{name}.md").is_file(), name
    table = (tmp_path / "mystery-table-2.md").read_text()
    assert "| w/o Repair | 0/1 (0.0%) | [0.0%, 79.3%] | +0.0 points (paper: -10.4 points) |" in (
        table
    )
    figure = (tmp_path / "mystery-figure-10.md").read_text()
    assert "| attack | - | 2 (100.0%) |" in figure  # the pipeline's K = 2 plans, both failed
    for number in (10, 11):
        assert (tmp_path / f"mystery-figure-{number}.png").stat().st_size > 10_000
