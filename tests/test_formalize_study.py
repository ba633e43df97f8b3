"""experiments/formalize.py end to end: the ground truth scores 1 on every metric in
every domain and size, each scripted defect is met and repaired where it should be, a
server answering nonsense is kept to the budget, and a rerun resumes."""

import json

import pytest

from planloop.envs.problem_sets import DOMAINS
from conftest import IPC, load_experiment

ONES = {"svr": 1, "psr": 1, "tsr": 1.0, "cr": 1, "eq": 1, "goal_eq": 1}


def records_of(out):
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


def test_the_ground_truth_scores_one_on_every_metric_in_every_domain_and_size(tmp_path, capsys):
    study = load_experiment("formalize")
    args = ["--llm", "groundtruth", "--domains", ",".join(DOMAINS), "--sizes", "10,20,30,40",
            "--per-cell", "1", "--out", str(tmp_path), "--workers", "2"]
    assert study.main(args) == 0
    records = records_of(tmp_path)
    sized = [name for name, problems in DOMAINS.items() if problems.sized]
    assert len(sized) >= 4 and len(records) == 4 * len(sized) + 4 + 1  # Baking's 4, a house
    assert {r["domain"] for r in records} == set(DOMAINS)
    assert {(r["domain"], r["size"]) for r in records} >= {(d, s) for d in sized
                                                          for s in (10, 20, 30, 40)}
    for record in records:
        assert record["won"] and record["metrics"] == ONES and record["iterations"] == 0
        assert record["by_iteration"] == [ONES] * 6 and record["repaired_at"] is None
        assert record["reference_status"] == "solved"
        assert record["provenance"]["settings"]["planner"] == "lama-first"
    results = (tmp_path / "results.md").read_text()
    assert "| logistics | 40 | 1 | 1/1 [21%, 100%] |" in results
    assert (tmp_path / "repair.png").stat().st_size > 0
    assert study.main(args) == 0  # resumed
    assert "0 to run" in capsys.readouterr().err and len(records_of(tmp_path)) == len(records)


def test_scripted_defects_are_repaired_at_the_iteration_their_check_allows(tmp_path, capsys):
    study = load_experiment("formalize")
    assert study.main(["--llm", "scripted-defects", "--domains", "gripper", "--sizes", "10",
                       "--per-cell", "1", "--out", str(tmp_path)]) == 0
    records = {r["defect"]: r for r in records_of(tmp_path)}
    stages = {d: [c["stage"] for c in r["candidates"]] for d, r in records.items()}
    assert stages == {"syntax": ["parse", "ok"], "undeclared_object": ["parse", "ok"],
                      "wrong_arity": ["parse", "ok"], "missing_fact": ["planner", "ok"],
                      "swapped_goal": stages["swapped_goal"], "renamed_objects": ["ok"]}
    for defect in ("syntax", "undeclared_object", "wrong_arity", "missing_fact"):
        record = records[defect]
        assert record["repaired_at"] == 1 and record["metrics"] == ONES
        assert record["by_iteration"][0] != ONES and record["by_iteration"][1:] == [ONES] * 5
    assert "status unsolvable" in records["missing_fact"]["candidates"][0]["message"]
    assert records["renamed_objects"]["metrics"] == ONES
    swapped = records["swapped_goal"]
    assert swapped["candidates"][0]["metrics"]["eq"] == 0
    out = capsys.readouterr().out
    assert "| gripper | 10 | missing_fact | 1 |" in out and "### Repair curve" in out
    assert "| 0 | 2/6 [10%, 70%] |" in out  # SVR of the one shots: the three unread


def test_a_server_answering_nonsense_is_kept_to_the_budget_and_a_rerun_asks_nothing(
        tmp_path, monkeypatch):
    pytest.importorskip("openai")
    from planloop.llm.fake_server import FakeChatServer

    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
    study = load_experiment("formalize")
    args = ["--domains", "blocksworld", "--sizes", "10", "--per-cell", "2",
            "--max-iterations", "2", "--out", str(tmp_path / "out")]
    with FakeChatServer([("ok", "OK")] + [("ok", "Blocks are blue.")] * 6) as server:
        assert study.main([*args, "--llm", f"{server.url}@nonsense"]) == 0
    records = records_of(tmp_path / "out")
    assert len(records) == 2 and not any(r.get("error") for r in records)
    for record in records:
        assert [c["stage"] for c in record["candidates"]] == ["parse"] * 3
        assert "holds no problem file" in record["candidates"][0]["message"]
        assert record["metrics"]["svr"] == 0 and record["usage"]["calls"] == 3
    with FakeChatServer([]) as server:
        assert study.main([*args, "--llm", f"{server.url}@nonsense"]) == 0
    assert server.requests == []


def test_a_users_own_domain_and_problems(tmp_path):
    study = load_experiment("formalize")
    assert study.main(["--llm", "groundtruth", "--domain", str(IPC / "domain.pddl"),
                       "--problems", str(IPC / "instances"), "--instances", "0:2",
                       "--out", str(tmp_path)]) == 0
    records = records_of(tmp_path)
    assert len(records) == 2 and all(r["metrics"] == ONES for r in records)
    assert all("objects" in r["description"].lower() for r in records)


def test_bad_flags_are_one_line(tmp_path, capsys):
    study = load_experiment("formalize")
    assert study.main(["--llm", "groundtruth", "--domains", "chess", "--out",
                       str(tmp_path)]) == 2
    assert "unknown domain chess; choose from blocksworld" in capsys.readouterr().err
    assert study.main(["--llm", "groundtruth", "--problems", str(tmp_path)]) == 2
    assert "--domain FILE and --problems DIR go together" in capsys.readouterr().err
    assert study.main(["--llm", "scripted-defects", "--defects", "typo", "--out",
                       str(tmp_path)]) == 2
    assert "unknown defect typo" in capsys.readouterr().err
    assert study.main(["--llm", "groundtruth", "--domain", str(IPC / "domain.pddl"),
                       "--problems", str(IPC / "instances"), "--instances", "0:99",
                       "--out", str(tmp_path)]) == 2
    assert "has 6 problems (instances 0 to 5); there is no instance 98" in \
        capsys.readouterr().err
    user = ["--llm", "groundtruth", "--domain", str(IPC / "domain.pddl"), "--out", str(tmp_path)]
    assert study.main(user + ["--problems", str(tmp_path / "nowhere")]) == 2
    assert f"--problems {tmp_path / 'nowhere'} is no folder of problem files" in \
        capsys.readouterr().err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "p1.pddl").write_text("(define (problem p) (:domain blocks) (:objects a - block)")
    assert study.main(user + ["--problems", str(broken)]) == 2
    assert "cannot read" in (err := capsys.readouterr().err) and "unbalanced" in err
    assert study.main(["--out", str(tmp_path)]) == 2
    assert "--llm is required: groundtruth, scripted-defects" in capsys.readouterr().err
