"""experiments/planner_baseline.py: a real study, resumable, with a results table."""

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).parents[1] / "experiments" / "planner_baseline.py"


def load_script():
    spec = importlib.util.spec_from_file_location("planner_baseline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_study_runs_resumes_and_reports(tmp_path, capsys):
    study = load_script()
    out = tmp_path / "results.jsonl"
    assert study.main(["--instances", "0:4", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "| 4 | 4 | 100.0% |" in table
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4 and all(r["won"] for r in records)
    assert all(r["config"]["env"] == "Mystery-BW-v0" for r in records)

    assert study.main(["--instances", "0:6", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 6  # the first four were not rerun
    assert "| 6 | 6 | 100.0% |" in capsys.readouterr().out
