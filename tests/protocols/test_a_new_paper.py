"""A sixth paper is one new package and nothing else edited: a toy paper, written into
the papers' namespace as a package of its own, is found by the registry, runs as a
study from its spec and is reproduced by ``experiments/reproduce.py`` with its table."""

from __future__ import annotations

import textwrap

import pytest

import planloop.protocols
from planloop.llm import ScriptedModel
from planloop.protocols.registry import papers

from conftest import load_experiment

TOY = '''
"""A toy paper: Fast Downward on the first Blocksworld problems."""

from dataclasses import dataclass

from planloop.policies import PlannerPolicy, run_episode
from planloop.protocols.base import PaperTable, Protocol, paper_heading
from planloop.protocols.registry import Paper
from planloop.study import markdown_table, success_cell, tally
from planloop.study.config import StudyConfig, setting
from planloop.study.flags import positive_float
from planloop.study.spec import StudySpec, spec_main

TABLE = PaperTable("Solved", ("planner",), ("success",), {("planner", "success"): "100%"}, "none")
TOY = Protocol("toy", "A Toy Paper (2026)", {"timeout": 30.0}, tables=(TABLE,), n="2 problems")


@dataclass(frozen=True)
class ToyConfig(StudyConfig):
    timeout: float = setting(60.0, "seconds per planner call", type=positive_float)


def play(run):
    def episode(env, job):
        policy = PlannerPolicy("lama-first", run.config.timeout)
        return {"won": run_episode(env, policy, options={"instance": job.instance}).won}
    return episode


def table(records):
    cell = success_cell(*tally(records))
    return paper_heading(TABLE, records) + "\\n\\n" + markdown_table(
        ["", "success", "paper"], [["planner", cell, TABLE.published[("planner", "success")]]]
    )


def report(run, records):
    (run.out / "results.md").write_text(table(records) + run.caption() + "\\n")


SPEC = StudySpec(
    name="toy", script="toy.py", config=ToyConfig, protocol=TOY, env="Blocksworld-v0",
    out="results/toy", llm="optional", conditions=("planner",), instance_limit=2,
    uses_model=lambda run: False, play=play, report=report,
)
main = spec_main(SPEC)


def reproduction(runner, out):
    records = runner.run(main, out, ["--instances", f"0:{runner.first(2)}"], model=False)
    return records, lambda group: {"table": table(group)}


PAPER = Paper(TOY, ToyConfig, main, reproduction, "Fast Downward on 2 Blocksworld problems")
'''


@pytest.fixture
def toy_paper(tmp_path, monkeypatch):
    """The toy paper's package, ``toy_paper``, beside the shipped papers."""
    package = tmp_path / "papers" / "toy_paper"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A toy paper."""\n')
    (package / "paper.py").write_text(textwrap.dedent(TOY))
    monkeypatch.setattr(
        planloop.protocols, "__path__", [*planloop.protocols.__path__, str(package.parent)]
    )
    papers.cache_clear()
    yield papers()["toy"]
    papers.cache_clear()


def test_the_shipped_papers_are_found_once_each():
    assert sorted(papers()) == ["agentic", "baking", "mystery", "nl-pddl", "pddlego-plus"]
    assert all(name == paper.protocol.name for name, paper in papers().items())


def test_a_new_package_is_a_paper_that_reproduce_runs(toy_paper, tmp_path, capsys):
    assert toy_paper.summary == "Fast Downward on 2 Blocksworld problems"
    out = tmp_path / "out"
    reproduce = load_experiment("reproduce")
    argv = ["toy", "--llm", "x", "--out", str(out)]
    assert reproduce.main(argv, model=ScriptedModel([])) == 0
    written = (out / "toy-table.md").read_text()
    assert written.startswith("# A Toy Paper (2026)\n\nProtocol: A Toy Paper (2026) (`--paper`)")
    assert "the paper's n: 2 problems" in written
    assert "| planner | 2/2" in written and "| 100% |" in written
    assert "# A Toy Paper (2026)" in capsys.readouterr().out
    assert (out / "toy" / "results.md").exists()  # the study's own report, under --paper


def test_the_toy_study_runs_as_a_command_from_its_spec(toy_paper, tmp_path):
    out = tmp_path / "study"
    assert toy_paper.main(["--instances", "0:1", "--out", str(out)], None, False) == 0
    assert "| planner | 1/1" in (out / "results.md").read_text()
    with pytest.raises(SystemExit) as refused:  # argparse's usage error
        toy_paper.main(["--timeout", "-1", "--out", str(out)], None, False)
    assert refused.value.code == 2
