"""The PDDLego+ study's resume keys, as computed before its settings had one config:
results files written then must resume with the same keys."""

from pathlib import Path

import pytest

from planloop.protocols.pddlego_plus import study
from planloop.study import StudyError, spec

from conftest import BrokenModel


def run_ids(argv, model=None, monkeypatch=None) -> list[str]:
    """The run id (config hash) of every condition ``main(argv)`` schedules."""
    seen: list[str] = []

    def fake_run_study(study_, jobs, play, **options):
        seen.extend(dict.fromkeys(job.key.split("/")[0] for job in jobs))
        raise StudyError("captured")

    monkeypatch.setattr(spec, "run_study", fake_run_study)
    assert study.main([*argv, "--instances", "0:2", "--out", "/nonexistent"], model=model) == 2
    return seen


DOMAIN = Path(__file__).parents[2] / "planloop/envs/data/blocksworld.pddl"
GT = ["--llm", "groundtruth"]
MODEL = ["--llm", "openai:broken"]
ALF = ["--env", "ALFWorld-v0"]
CASES = {
    "default": GT,
    "max steps 30": [*GT, "--max-steps", "30"],
    "max steps paper": [*GT, "--max-steps", "paper"],
    "max steps none": [*GT, "--max-steps", "none"],
    "simulation retries 3": [*GT, "--simulation-retries", "3"],
    "replies json": [*GT, "--replies", "json"],
    "replies lenient": [*GT, "--replies", "lenient"],
    "coin shown": [*GT, "--coin", "shown"],
    "coin in-view": [*GT, "--coin", "in-view"],
    "coin planned": [*GT, "--coin", "planned"],
    "coin shown on ALFWorld": [*GT, *ALF, "--coin", "shown"],
    "switches": [*GT, "--strict-pddl", "--no-error-fixing", "--rollback"],
    "feedback detailed": [*GT, "--feedback", "detailed"],
    "unmapped play, two attempts": [*GT, "--unmapped", "play", "--trial-attempts", "2"],
    "retries and planner": [*GT, "--retries", "3", "--planner", "lama-first"],
    "ALFWorld": [*GT, *ALF],
    "ALFWorld paper": [*GT, *ALF, "--paper"],
    "ALFWorld paper, overridden": [*GT, *ALF, "--paper", "--max-steps", "10", "--retries", "2"],
    "coin paper, generated games": [*MODEL, "--paper", "--coin-games", "generated"],
    "model": MODEL,
    "model, simple prompt": [*MODEL, "--prompt", "simple"],
    "model, fixed domain": [*MODEL, "--domain-file", str(DOMAIN)],
    "model, temperature": [*MODEL, "--temperature", "0.5", "--top-p", "0.9"],
    "contingent": [*MODEL, "--env", "Contingent-Doors-v0", "-o", "seed=1"],
    "plangen": [*MODEL, "--policy", "plangen"],
    "plangen, 30 commands": [*MODEL, "--policy", "plangen", "--max-steps", "30"],
    "plangen as its authors ran it": [
        *MODEL,
        "--policy",
        "plangen",
        "--simulation-retries",
        "4",
        "--max-steps",
        "paper",
        "--feedback",
        "authors",
        "--rollback",
    ],
    "plangen paper on ALFWorld": [*MODEL, *ALF, "--policy", "plangen", "--paper"],
}

# each case's run id, computed by the study at 3182841, before its config; the five
# that play a planner other than auto (--paper's authors, or --planner lama-first) since
# 2026-12-02, when a planner other than auto entered the key: episodes of another
# planner must not resume as these
KEYS = {
    "ALFWorld": "d8172ae04e6c8d5a",
    "ALFWorld paper": "1bd6aa3024185206",
    "ALFWorld paper, overridden": "79d0e792ffaf0bb5",
    "coin in-view": "935e7ba28befe9fd",
    "coin paper, generated games": "cd92fbf11af3d5e7",
    "coin planned": "6210dd8638ad47a5",
    "coin shown": "2bc119f84271114c",
    "coin shown on ALFWorld": "d8172ae04e6c8d5a",
    "contingent": "72bc58505089bb20",
    "default": "6210dd8638ad47a5",
    "feedback detailed": "a6a0086e02ccfc28",
    "max steps 30": "3f41fa0c6a9906f1",
    "max steps none": "6210dd8638ad47a5",
    "max steps paper": "b1116f7aaf29d04c",
    "model": "e066e55475fbf84b",
    "model, fixed domain": "398cf54da5816c94",
    "model, simple prompt": "e0a734dccdb39789",
    "model, temperature": "1df84e3824c742f1",
    "plangen": "90a1c86f760a01f0",
    "plangen as its authors ran it": "e41ab73c18891af0",
    "plangen paper on ALFWorld": "b35ed5d645b547af",
    "plangen, 30 commands": "ff80e8ca190c78f7",
    "replies json": "113da3a50b490094",
    "replies lenient": "6210dd8638ad47a5",
    "retries and planner": "406dd5cf2e33daf0",
    "simulation retries 3": "6932476d63716ea9",
    "switches": "245e250eb0faa930",
    "unmapped play, two attempts": "e5f4348e03941f8c",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_keys_are_those_of_earlier_runs(name, monkeypatch):
    argv = CASES[name]
    model = BrokenModel() if "openai:broken" in argv else None
    assert run_ids(argv, model, monkeypatch) == [KEYS[name]]
