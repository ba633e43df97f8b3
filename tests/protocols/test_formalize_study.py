"""experiments/formalize.py end to end: the ground truth scores 1 on every metric in
every domain and size, each scripted defect is met and repaired where it should be, a
server answering nonsense is kept to the budget, and a rerun resumes."""

import importlib.util
import json

import pytest

from planloop.envs.problem_sets import DOMAINS, problem_set
from planloop.llm import LLMError, ScriptedModel

from conftest import IPC, load_experiment

ONES = {
    "svr": 1,
    "psr": 1,
    "tsr": 1.0,
    "cr": 1,
    "tsr_matched": 1.0,
    "cr_matched": 1,
    "eq": 1,
    "goal_eq": 1,
}


# 5 initial atoms and 1 goal atom, every one naming an object; the plan is pick ball1,
# move, drop ball1
TWO_BALLS = """(define (problem two-balls) (:domain gripper-typed)
  (:objects rooma roomb - room ball1 ball2 - ball left right - gripper)
  (:init (at-robby rooma) (free left) (free right) (at ball1 rooma) (at ball2 rooma))
  (:goal (and (at ball1 roomb))))"""
RENAMED = """(define (problem two-balls) (:domain gripper-typed)
  (:objects hall kitchen - room red blue - ball l r - gripper)
  (:init (at-robby hall) (free l) (free r) (at red hall) (at blue hall))
  (:goal (and (at red kitchen))))"""
WRONG_BALL = TWO_BALLS.replace("(at ball1 roomb)", "(at ball2 roomb)")


def records_of(out):
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_the_ground_truth_scores_one_on_every_metric_in_every_domain_and_size(tmp_path, capsys):
    study = load_experiment("formalize")
    args = [
        "--llm",
        "groundtruth",
        "--domains",
        ",".join(DOMAINS),
        "--sizes",
        "10,20,30,40",
        "--per-cell",
        "1",
        "--out",
        str(tmp_path),
        "--workers",
        "2",
    ]
    assert study.main(args) == 0
    records = records_of(tmp_path)
    sized = [name for name, problems in DOMAINS.items() if problems.sized]
    assert len(sized) >= 4 and len(records) == 4 * len(sized) + 4 + 1  # Baking's 4, a house
    assert {r["domain"] for r in records} == set(DOMAINS)
    assert {(r["domain"], r["size"]) for r in records} >= {
        (d, s) for d in sized for s in (10, 20, 30, 40)
    }
    for record in records:
        assert record["won"] and record["metrics"] == ONES and record["iterations"] == 0
        assert record["by_iteration"] == [ONES] * 6 and record["repaired_at"] is None
        assert record["reference_status"] == "solved"
        assert record["provenance"]["settings"]["planner"] == "lama-first"
    results = (tmp_path / "results.md").read_text()
    assert "| logistics | 40 | 1 | 0 | 1/1 [21%, 100%] |" in results  # no model errors
    if importlib.util.find_spec("matplotlib"):  # the plot extra
        assert (tmp_path / "repair.png").stat().st_size > 0
    assert study.main(args) == 0  # resumed
    assert "0 to run" in capsys.readouterr().err and len(records_of(tmp_path)) == len(records)


@pytest.mark.slow
def test_scripted_defects_are_repaired_at_the_iteration_their_check_allows(tmp_path, capsys):
    study = load_experiment("formalize")
    assert (
        study.main(
            [
                "--llm",
                "scripted-defects",
                "--domains",
                "gripper",
                "--sizes",
                "10",
                "--per-cell",
                "1",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    records = {r["defect"]: r for r in records_of(tmp_path)}
    stages = {d: [c["stage"] for c in r["candidates"]] for d, r in records.items()}
    assert stages == {
        "syntax": ["parse", "ok"],
        "undeclared_object": ["parse", "ok"],
        "wrong_arity": ["parse", "ok"],
        "missing_fact": ["planner", "ok"],
        "swapped_goal": stages["swapped_goal"],
        "renamed_objects": ["ok"],
    }
    for defect in ("syntax", "undeclared_object", "wrong_arity", "missing_fact"):
        record = records[defect]
        assert record["repaired_at"] == 1 and record["metrics"] == ONES
        assert record["by_iteration"][0] != ONES and record["by_iteration"][1:] == [ONES] * 5
    assert "status unsolvable" in records["missing_fact"]["candidates"][0]["message"]
    renamed = records["renamed_objects"]["metrics"]  # gripper: every atom names an object
    assert renamed == {**ONES, "tsr": 0.0, "cr": 0}
    swapped = records["swapped_goal"]
    assert swapped["candidates"][0]["metrics"]["eq"] == 0
    out = capsys.readouterr().out  # the final candidates; the repair curve in the file
    results = (tmp_path / "results.md").read_text()
    assert "| gripper | 10 | missing_fact | 1 |" in out and "### Repair curve" not in out
    assert "| 0 | 2/6 [10%, 70%] |" in results  # SVR of the one shots: the three unread


@pytest.mark.slow
def test_a_server_answering_nonsense_is_kept_to_the_budget_and_a_rerun_asks_nothing(
    tmp_path, monkeypatch
):
    pytest.importorskip("openai")
    from planloop.llm.fake_server import FakeChatServer

    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
    study = load_experiment("formalize")
    args = [
        "--domains",
        "blocksworld",
        "--sizes",
        "10",
        "--per-cell",
        "2",
        "--max-iterations",
        "2",
        "--out",
        str(tmp_path / "out"),
    ]
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
    assert (
        study.main(
            [
                "--llm",
                "groundtruth",
                "--domain",
                str(IPC / "domain.pddl"),
                "--problems",
                str(IPC / "instances"),
                "--instances",
                "0:2",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    records = records_of(tmp_path)
    assert len(records) == 2 and all(r["metrics"] == ONES for r in records)
    assert all("objects" in r["description"].lower() for r in records)


def usage_error(capsys, main, argv) -> str:
    """The error line of a usage error: argparse's exit 2, a usage line, the error."""
    with pytest.raises(SystemExit) as ended:
        main(argv)
    err = capsys.readouterr().err
    assert ended.value.code == 2 and err.startswith("usage: ") and len(err.splitlines()) == 2
    return err.splitlines()[1]


def test_bad_flags_are_one_line(tmp_path, capsys):
    study = load_experiment("formalize")
    bad = ["--llm", "groundtruth", "--domains", "chess", "--out", str(tmp_path)]
    assert "unknown domain chess; choose from blocksworld" in usage_error(capsys, study.main, bad)
    bad = ["--llm", "groundtruth", "--problems", str(tmp_path)]
    assert "--domain FILE and --problems DIR go together" in usage_error(capsys, study.main, bad)
    bad = ["--llm", "scripted-defects", "--defects", "typo", "--out", str(tmp_path)]
    assert "unknown defect typo" in usage_error(capsys, study.main, bad)
    bad = ["--llm", "groundtruth", "--sizes", "5", "--out", str(tmp_path / "below")]
    assert "--sizes 5 is below the smallest problem of logistics (8 objects)" in usage_error(
        capsys, study.main, bad
    )
    assert not (tmp_path / "below").exists()
    assert (
        study.main(
            [
                "--llm",
                "groundtruth",
                "--domain",
                str(IPC / "domain.pddl"),
                "--problems",
                str(IPC / "instances"),
                "--instances",
                "0:99",
                "--out",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert "has 6 problems (instances 0 to 5); there is no instance 98" in capsys.readouterr().err
    user = ["--llm", "groundtruth", "--domain", str(IPC / "domain.pddl"), "--out", str(tmp_path)]
    assert f"--problems {tmp_path / 'nowhere'} is no folder of problem files" in usage_error(
        capsys, study.main, user + ["--problems", str(tmp_path / "nowhere")]
    )
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "p1.pddl").write_text("(define (problem p) (:domain blocks) (:objects a - block)")
    assert study.main(user + ["--problems", str(broken)]) == 2
    assert "cannot read" in (err := capsys.readouterr().err) and "unbalanced" in err
    assert study.main(["--out", str(tmp_path)]) == 2
    assert "--llm is required: groundtruth, scripted-defects" in capsys.readouterr().err


@pytest.mark.parametrize(
    "candidate, tsr",
    [
        (RENAMED, 0.0),  # every atom and every action string names an object: none shared
        # the goal's atom differs: 5 shared of 7; the plans share the move of 3 steps (Sim 1/3)
        (WRONG_BALL, 0.7143),
    ],
)
@pytest.mark.slow
def test_tsr_and_cr_score_atoms_and_actions_as_written_and_the_name_matched_ones_beside(
    tmp_path, candidate, tsr
):
    study = load_experiment("formalize")
    (tmp_path / "domain.pddl").write_text(problem_set("gripper").domain_text())
    (tmp_path / "problems").mkdir()
    (tmp_path / "problems" / "two-balls.pddl").write_text(TWO_BALLS)
    assert (
        study.main(
            [
                "--domain",
                str(tmp_path / "domain.pddl"),
                "--problems",
                str(tmp_path / "problems"),
                "--out",
                str(tmp_path / "out"),
            ],
            model=ScriptedModel([candidate]),
        )
        == 0
    )  # one call: the plan validates
    [record] = records_of(tmp_path / "out")
    assert record["won"] and record["iterations"] == 0
    assert (record["metrics"]["tsr"], record["metrics"]["cr"]) == (tsr, 0)
    results = (tmp_path / "out" / "results.md").read_text()
    assert "| SVR | PSR | TSR | CR | TSR (names matched) | CR (names matched) |" in results
    # renaming the objects back (or swapping the balls, which both start in rooma) gives
    # the reference: the name-matched scores are 1
    one = "1/1 [21%, 100%]"
    assert (
        f"| {one} | {one} | {tsr:.1%} [{tsr:.0%}, {tsr:.0%}] | 0/1 [0%, 79%] | "
        f"100.0% [100%, 100%] | {one} |" in results
    )


def test_a_model_whose_every_answer_is_broken_scores_zero_of_n_with_n_model_errors(tmp_path):
    study = load_experiment("formalize")
    model = ScriptedModel(lambda messages: LLMError("bad_response", "the body is not JSON"))
    assert (
        study.main(
            [
                "--paper",
                "--domains",
                "gripper",
                "--sizes",
                "10",
                "--per-cell",
                "2",
                "--out",
                str(tmp_path),
            ],
            model=model,
        )
        == 0
    )
    records = records_of(tmp_path)
    assert len(records) == 2 and model.calls == 2
    assert all(r["error"] == "bad_response: the body is not JSON" for r in records)
    results = (tmp_path / "results.md").read_text()
    zero, none = "0/2 [0%, 66%]", "0.0% [0%, 0%]"
    assert (
        f"| gripper | 10 | 2 | 2 | {zero} | {zero} | {none} | {zero} | {none} | {zero} |" in results
    )
    assert (
        f"| Baseline | {zero} (paper: 76.3%) | {zero} (paper: 9.7%) | {none} (paper: 52.9%) | "
        f"{zero} (paper: 10.9%) | 2 | 2 |" in results
    )
    assert "0/0" not in results and "| - |" not in results
    assert "2 episodes ended on a failed model call" in results


def test_paper_runs_the_protocol_and_writes_table_3_with_the_published_figures(tmp_path):
    study = load_experiment("formalize")
    assert (
        study.main(
            [
                "--paper",
                "--llm",
                "groundtruth",
                "--domains",
                "gripper",
                "--sizes",
                "10",
                "--per-cell",
                "1",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    [record] = records_of(tmp_path)
    assert len(record["by_iteration"]) == 6  # T_max = 5 repairs after the one shot
    settings = record["provenance"]["settings"]
    assert settings["protocol"] == "nl-pddl" and settings["max_iterations"] == 5
    # --paper plays the test domains and PlanBench (Table 5): gripper alone narrows it
    assert settings["overrides"] == {"domains": "gripper", "sizes": "10", "per_cell": 1}
    results = (tmp_path / "results.md").read_text()
    one, full = "1/1 [21%, 100%]", "100.0% [100%, 100%]"
    table = results[results.index("### Table 3") :]
    assert table.startswith(
        "### Table 3: overall results\n\nthis run: groundtruth; paper: Llama3.1-8B; "
        "overridden: domains=gripper, sizes=10, per_cell=1\n"
    )
    assert "|  | SVR | PSR | TSR | CR | n | model errors |" in table
    assert (
        f"| Planner-in-the-loop | {one} (paper: 84.9%) | {one} (paper: 80.7%) | "
        f"{full} (paper: 82.8%) | {one} (paper: 81.2%) | 1 | 0 |" in table
    )
    assert "overridden: domains=gripper, sizes=10, per_cell=1" in table
