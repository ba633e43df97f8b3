"""experiments/planner_baseline.py: a real study, resumable, with a results table."""

import json

import pytest

from conftest import load_experiment


@pytest.mark.slow
def test_study_runs_resumes_and_reports(tmp_path, capsys):
    study = load_experiment("planner_baseline")
    out = tmp_path / "results"
    episodes = out / "episodes.jsonl"
    assert study.main(["--instances", "0:4", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "| 4 | 4 | 100.0% |" in table
    records = [json.loads(line) for line in episodes.read_text().splitlines()]
    assert len(records) == 4 and all(r["won"] for r in records)
    assert all(
        r["provenance"]["env"] == "Mystery-BW-v0" and r["planner"] == "lama-first" for r in records
    )

    assert study.main(["--instances", "0:6", "--out", str(out), "--workers", "2"]) == 0
    assert len(episodes.read_text().splitlines()) == 6  # the first four were not rerun
    assert "| 6 | 6 | 100.0% |" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, key",
    [
        ("--instances 0:1", "92b752ef45514e84/0/0"),
        ("--instances 0:1 --planner bfs --timeout 30", "7f9021b82c66a22e/0/0"),
        ("--env Blocksworld-v0 --instances 0:1 -o max_episode_steps=30", "716b1d45dde01ff9/0/0"),
    ],
)
def test_its_config_keeps_the_keys_of_earlier_runs(monkeypatch, argv, key):
    """Keys computed before the study's settings became PlannerBaselineConfig."""
    from planloop.protocols.planner_baseline import SPEC
    from planloop.study.jobs import Study
    from planloop.study.spec import run_spec

    jobs, keys = Study.jobs, []

    def keyed(self, conditions, instances, trials):
        keys.extend(job.key for job in jobs(self, conditions, [0], 1))
        raise KeyboardInterrupt  # stop before any episode

    monkeypatch.setattr(Study, "jobs", keyed)
    with pytest.raises(KeyboardInterrupt):
        run_spec(SPEC, argv.split())
    assert keys == [key]
