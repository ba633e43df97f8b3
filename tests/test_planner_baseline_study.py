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
