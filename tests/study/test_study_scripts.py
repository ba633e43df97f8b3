"""Study scripts on the harness: every mistake one line and exit 2, never a traceback."""

import json
import time

import pytest

from planloop.study import StudyError, study_main

from conftest import load_experiment


def test_study_main_turns_a_study_error_into_one_line(capsys):
    @study_main
    def main(argv=None) -> int:
        raise StudyError("the server\nis down")

    assert main() == 2
    assert capsys.readouterr().err == "test_study_scripts.py: error: the server is down\n"


def test_study_main_on_ctrl_c_and_on_bugs(capsys):
    @study_main
    def interrupted() -> int:
        raise KeyboardInterrupt

    @study_main
    def buggy() -> int:
        return 1 / 0

    assert interrupted() == 130
    assert (
        "interrupted: finished episodes are saved; rerun the same command to resume"
        in capsys.readouterr().err
    )
    with pytest.raises(ZeroDivisionError):  # a bug keeps its traceback
        buggy()


@pytest.mark.slow
def test_the_sweep_against_a_closed_port(tmp_path, monkeypatch, capsys, closed_port):
    pytest.importorskip("openai")
    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
    sweep = load_experiment("horizon_sweep")
    start = time.monotonic()
    rc = sweep.main(
        [
            "--env",
            "Mystery-BW-v0",
            "--instances",
            "3:4",
            "--horizons",
            "1,open",
            "--trials",
            "1",
            "--out",
            str(tmp_path / "out"),
            "--llm",
            f"http://127.0.0.1:{closed_port}/v1@m",
        ]
    )
    seconds = time.monotonic() - start
    out, err = capsys.readouterr()
    assert rc == 2 and seconds < 15, seconds  # one probe, not an episode's ~30 s of retries
    assert out == "" and "Traceback" not in err and len(err.splitlines()) == 1
    assert err.startswith(
        f"horizon_sweep.py: error: model m at http://127.0.0.1:{closed_port}"
        f"/v1 cannot answer: connection: "
    )
    episodes = tmp_path / "out" / "episodes.jsonl"
    assert not episodes.exists() or episodes.read_text() == ""


@pytest.mark.parametrize(
    "script, argv, message",
    [
        (
            "horizon_sweep",
            ["--env", "Mystery-BW-v0"],
            "horizon_sweep.py: error: --llm is required: openai:MODEL, URL@MODEL or interactive",
        ),
        (
            "horizon_sweep",
            ["--llm", "gpt-4o"],
            "horizon_sweep.py: error: cannot read model spec 'gpt-4o'",
        ),
        (
            "planner_baseline",
            ["--instances", "0:2", "-o", "bogus=1"],
            "planner_baseline.py: error: cannot make Mystery-BW-v0 with bogus=1: ",
        ),
        (
            "planner_baseline",
            ["--env", "Baking-v0", "--instances", "3:6"],
            "planner_baseline.py: error: Baking-v0 has 4 instances (0 to 3); there is no instance 4, 5",
        ),
    ],
)
def test_mistakes_are_one_line(tmp_path, capsys, script, argv, message):
    assert load_experiment(script).main(argv + ["--out", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(message) and len(err.splitlines()) == 1


def test_the_sweep_records_provenance_and_its_condition(tmp_path, capsys):
    from planloop.llm import ScriptedModel

    sweep = load_experiment("horizon_sweep")
    model = ScriptedModel(lambda messages: "DONE", name="quitter")
    assert (
        sweep.main(
            [
                "--env",
                "Mystery-BW-v0",
                "--instances",
                "2",
                "--horizons",
                "3",
                "--trials",
                "2",
                "-o",
                "obs_format=text",
                "--out",
                str(tmp_path),
            ],
            model=model,
        )
        == 0
    )
    records = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert [(r["horizon"], r["instance"], r["trial"]) for r in records] == [(3, 2, 0), (3, 2, 1)]
    assert records[0]["provenance"]["env_kwargs"] == {"obs_format": "text"}
    assert records[0]["provenance"]["settings"] == {"max_actions": 50, "temperature": 0.7}
    assert records[0]["provenance"]["model"] == "quitter"
    assert "| H = 3 | 0/2 [0%, 66%] | 0/2 [0%, 66%] |" in capsys.readouterr().out
