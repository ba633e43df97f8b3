"""experiments/mystery.py --paper: the pipeline gets the authors' K = 2 attempts, recorded
in every record's provenance; ``--attempts`` beside ``--paper`` overrides it (named in
the caption), and a run without ``--paper`` keeps its budget and its record keys."""

import json

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import ScriptedModel
from planloop.pddl import solve

from conftest import PLANBENCH, load_experiment

BW_FILES = str(PLANBENCH / "blocksworld" / "generated_basic")


@pytest.fixture(scope="module")
def short_plans():
    """Problem text -> a plan of it without its first step (it never validates)."""
    env, found = gym.make("Mystery-BW-v0", instances=BW_FILES), {}
    for instance in range(2):
        _, info = env.reset(options={"instance": instance})
        result = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs", timeout=30)
        found[info["problem_pddl"]] = "\n".join(result.plan[1:])
    return found


def run(tmp_path, short_plans, *flags):
    """The pipeline on instances 0-1 with a model whose plan always fails; the records."""
    study = load_experiment("mystery")
    model = ScriptedModel(
        lambda messages: next(v for k, v in short_plans.items() if k in messages[1]["content"])
    )
    argv = ["-o", f"instances={BW_FILES}", "--instances", "0:2", "--conditions", "pipeline"]
    assert study.main([*argv, *flags, "--out", str(tmp_path)], model=model, show=False) == 0
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_paper_gives_the_pipeline_two_attempts(tmp_path, short_plans):
    records = run(tmp_path, short_plans, "--paper")
    assert [r["attempts"] for r in records] == [2, 2]
    assert {r["details"]["config"]["max_attempts"] for r in records} == {2}
    settings = records[0]["provenance"]["settings"]
    assert settings["attempts"] == 2
    assert (settings["protocol"], settings["overrides"]) == ("mystery", {})
    text = (tmp_path / "results.md").read_text()
    assert "| condition | K = 1 | K = 2 |" in text  # the retry curve up to the paper's K


def test_attempts_beside_paper_overrides_it(tmp_path, short_plans):
    records = run(tmp_path, short_plans, "--paper", "--attempts", "3")
    assert {r["details"]["config"]["max_attempts"] for r in records} == {3}
    assert records[0]["provenance"]["settings"]["overrides"] == {"attempts": 3}
    assert "; overridden: attempts=3" in (tmp_path / "results.md").read_text()


def test_without_paper_the_budget_and_the_record_keys_stay(tmp_path, short_plans):
    records = run(tmp_path, short_plans)
    assert {r["details"]["config"]["max_attempts"] for r in records} == {5}
    assert records[0]["provenance"]["settings"] == {
        "attempts": 5,
        "temperature": 0.2,
        "max_seconds": 180.0,
        "max_actions": 50,
        "agentic_feedback": "outcome",
        "planner": "lama-first",
        "planner_timeout": 60.0,
    }
