"""experiments/horizon_sweep.py: horizons x problems x trials, resumable, with its table
and plot, driven by a scripted model that follows known plans."""

import importlib.util
import json

import pytest

from planloop.protocols.baking.study import parse_horizons

from conftest import load_experiment, plan_follower

ENV_ID = "Mystery-BW-v0"


def test_sweep_table_plot_resume_and_retry(tmp_path, capsys, mystery_plans):
    sweep = load_experiment("horizon_sweep")
    args = [
        "--env",
        ENV_ID,
        "--instances",
        "3:5",
        "--horizons",
        "1,open",
        "--trials",
        "2",
        "--workers",
        "3",
        "--out",
        str(tmp_path),
    ]
    failing = plan_follower(mystery_plans, fail_on=list(mystery_plans)[0])
    assert sweep.main(args, model=failing) == 0
    table = capsys.readouterr().out
    assert "4 episodes ended on a failed model call" in table
    records = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 8 and sum(bool(r["error"]) for r in records) == 4

    model = plan_follower(mystery_plans)
    assert sweep.main(args, model=model) == 0
    table = capsys.readouterr().out
    assert "| H = 1 | 2/2 [34%, 100%] | 2/2 [34%, 100%] | 4/4 [51%, 100%] |" in table
    assert "| open loop | 2/2 [34%, 100%] | 0/2 [0%, 66%] | 2/4 [15%, 85%] |" in table
    assert "failed model call" not in table
    assert (tmp_path / "success.md").read_text() in table
    if importlib.util.find_spec("matplotlib"):  # the plot extra
        assert (tmp_path / "success.png").read_bytes()[:4] == b"\x89PNG"
    else:
        assert not (tmp_path / "success.png").exists()
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 12  # only the 4 failed episodes ran again
    calls = model.calls
    assert calls > 0

    assert sweep.main(args, model=model) == 0
    assert model.calls == calls  # an identical rerun makes no model call
    restarted = [json.loads(line) for line in lines[-4:]]
    assert {r["horizon"] for r in restarted} == {1, "open"}
    with_restart = [r for r in map(json.loads, lines) if r["restarts"]]
    assert with_restart and all(r["horizon"] == 1 and r["won"] for r in with_restart)


def test_horizons_are_checked(capsys):
    sweep = load_experiment("horizon_sweep")
    assert parse_horizons("1, 5,open") == [1, 5, "open"]
    with pytest.raises(SystemExit):
        sweep.main(["--horizons", "0,open", "--llm", "openai:x"])
    assert "a horizon is a positive integer or 'open'" in capsys.readouterr().err


def test_a_server_answering_garbage_fails_episodes_not_the_sweep(tmp_path, monkeypatch, capsys):
    pytest.importorskip("openai")
    from planloop.llm.fake_server import FakeChatServer

    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
    sweep = load_experiment("horizon_sweep")
    garbage = ("raw", 200, {"Content-Type": "text/html"}, b"<html>502 Bad Gateway</html>")
    with FakeChatServer([("ok", "OK")] + [garbage] * 2) as server:  # the check, then episodes
        rc = sweep.main(
            [
                "--env",
                ENV_ID,
                "--instances",
                "3:4",
                "--horizons",
                "1,open",
                "--trials",
                "1",
                "--out",
                str(tmp_path / "out"),
                "--llm",
                f"{server.url}@test-model",
            ]
        )
    out, err = capsys.readouterr()
    assert rc == 0 and "2 episodes ended on a failed model call" in out
    # every scheduled episode is in n: the broken bodies are failures and model errors
    assert "| H = 1 | 0/1 [0%, 79%] | 0/1 [0%, 79%] | 1 |" in out
    assert "| open loop | 0/1 [0%, 79%] | 0/1 [0%, 79%] | 1 |" in out
    assert "instance 3 trial 0 (horizon=1): bad_response: " in err  # as it happened
    assert "The last: bad_response: " in out and "Bad Gateway" in out  # the reason, on screen
    records = [
        json.loads(line) for line in (tmp_path / "out" / "episodes.jsonl").read_text().splitlines()
    ]
    assert len(records) == 2 and len(server.requests) == 3  # the model check and 2 episodes
    assert all(
        r["error"].startswith("bad_response:") and "502 Bad Gateway" in r["error"] for r in records
    )
