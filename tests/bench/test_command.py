"""``planloop bench`` end to end against a local OpenAI-compatible server: the oracle's
ceiling and the fake model's failures on one board, paired intervals separating them,
a rerun that calls nothing, a model added later that plays only its own episodes,
a replay with the server gone giving the same rates, the cost cap, and bad input."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from planloop.bench.command import main
from planloop.bench.records import FAILURE_KINDS
from planloop.llm.fake_server import FakeChatServer

JUNK = "I would rather not say."  # no action, no plan, no PDDL


def small_suite(tmp_path: Path) -> Path:
    """A suite of four families, two episodes each: quick, and every kind of player."""
    expect = {"calls": 2, "prompt_tokens": 500, "completion_tokens": 50}

    def family(name, policy, sets, steps=30, calls=6):
        return {"family": name, "policy": policy, "max_steps": steps, "max_calls": calls,
                "expect": expect, "sets": sets}  # fmt: skip

    suite = {
        "name": "small",
        "version": "1",
        "families": [
            family("blocksworld", "closed-loop",
                   [{"env": "Blocksworld-v0", "instances": [0, 1], "seeds": [0]}]),
            family("coincollector-obfuscated", "pddlego",
                   [{"env": "CoinCollector-v0", "options": {"num_locations": 3},
                     "instances": [0, 1], "seeds": [0]}]),
            family("contingent", "plangen",
                   [{"env": "Contingent-Blocks-v0", "instances": [0], "seeds": [0, 1]}]),
            family("nl-pddl", "formalize",
                   [{"domain": "blocksworld", "size": 3, "instances": [0, 1], "seeds": [0]}],
                   steps=4, calls=4),
        ],
    }  # fmt: skip
    path = tmp_path / "small.json"
    path.write_text(json.dumps(suite))
    return path


def board(out: Path) -> dict:
    return json.loads((out / "leaderboard.json").read_text())


def rates(out: Path) -> dict:
    return {
        row["model"]: {name: f["rate"] for name, f in row["families"].items()}
        for row in board(out)["models"]
    }


def read_records(out: Path) -> list[dict]:
    return [json.loads(line) for path in out.glob("*/episodes.jsonl") for line in path.open()]


def bench(*argv) -> int:
    return main([str(a) for a in argv])


@pytest.fixture
def server():
    with FakeChatServer([("ok", JUNK)] * 2000) as fake:
        yield fake


def test_a_board_of_oracle_random_and_a_model_then_rerun_add_replay(tmp_path, server, capsys):
    suite, out = small_suite(tmp_path), tmp_path / "run"
    fake = f"{server.url}@fake-model"
    argv = ["--suite", suite, "--out", out, "--workers", "4"]
    assert bench(*argv, "--llm", "oracle", "--llm", "random", "--llm", fake) == 0
    shown = capsys.readouterr()
    assert len(shown.out.splitlines()) < 60 and "oracle" in shown.out
    data = board(out)
    assert data["suite"]["name"] == "small" and len(data["suite"]["sha256"]) == 64
    by_model = {row["model"]: row for row in data["models"]}
    for name, family in by_model["oracle"]["families"].items():
        assert family["rate"] == 1.0, name
    assert "nl-pddl" not in by_model["random"]["families"]  # nothing to draw from
    model = by_model[fake]
    assert model["calls"] > 0 and model["tokens"]["prompt"] == 11 * model["calls"]
    for name, family in model["families"].items():
        assert family["won"] == 0, name
        assert sum(family["failures"].values()) == family["n"]
        assert set(family["failures"]) <= set(FAILURE_KINDS)
    for pair in data["pairs"]:
        if {pair["a"], pair["b"]} == {"oracle", fake}:
            sign = 1 if pair["a"] == "oracle" else -1
            assert sign * pair["diff"] == 1.0 and sign * pair["ci95"][0] > 0, pair
    records = read_records(out)
    assert {
        "model",
        "family",
        "instance",
        "seed",
        "won",
        "failure",
        "calls",
        "tokens",
        "seconds",
    } <= set(records[0])
    for record in records:
        assert (out / record["transcript"]).is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["suite"]["sha256"] == data["suite"]["sha256"]
    assert manifest["contestants"][fake]["sent"] == {"temperature": 0}
    logged = []  # what the episodes' requests carried, as the server saw them (not the check)
    for body in server.requests[1:]:
        params = {k: v for k, v in body.items() if k not in ("model", "messages", "tools")}
        logged += [params] if params not in logged else []
    recorded_sets = [s for r in records if r["model"] == fake for s in r["sent"]]
    assert {json.dumps(s, sort_keys=True) for s in recorded_sets} == {
        json.dumps(s, sort_keys=True) for s in logged
    }
    assert by_model[fake]["settings"]["sent"] and all(
        s in logged for s in by_model[fake]["settings"]["sent"]
    )

    calls = len(server.requests)
    assert bench(*argv, "--llm", "oracle", "--llm", "random", "--llm", fake) == 0
    assert len(server.requests) == calls  # a rerun: every episode recorded, no call

    second = f"{server.url}@fake-model-2"
    assert bench(*argv, "--llm", second) == 0
    added = len(server.requests) - calls
    rows = {row["model"]: row for row in board(out)["models"]}
    assert set(rows) == {"oracle", "random", fake, second}
    mine = [r for r in read_records(out) if r["model"] == second]
    fresh = sum(r["calls"] - r["cached_calls"] for r in mine)  # a request seen before: cached
    assert added == fresh + 1 and rows[second]["calls"] == sum(r["calls"] for r in mine) > 0

    before = rates(out)
    server.__exit__(None, None, None)  # the server is gone
    capsys.readouterr()
    assert bench("--replay", out, "--workers", "2") == 0
    assert rates(out / "replay") == before


def test_the_cost_cap_stops_in_one_line_and_the_rerun_goes_on(tmp_path, server, capsys):
    suite, out = small_suite(tmp_path), tmp_path / "run"
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake-model": {"prompt": 1000.0, "completion": 1000.0}}))
    fake = f"{server.url}@fake-model"
    argv = ["--suite", suite, "--out", out, "--llm", fake, "--prices", prices]
    assert bench(*argv, "--max-cost", "0.02") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "--max-cost 0.02 USD reached" in err[-1] and len(err[-1]) < 300
    assert "estimate before the run" in "\n".join(err) and "USD" in err[0]
    saved = len(read_records(out))
    assert 0 < saved < 8
    assert bench(*argv) == 0  # no cap: the rest is played
    assert len(read_records(out)) == 8
    row = board(out)["models"][0]
    assert row["cost_usd"] == pytest.approx(
        (row["tokens"]["prompt"] + row["tokens"]["completion"]) * 1000.0 / 1e6
    )


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--llm", "oracle", "--families", "chess"], "has no family 'chess'"),
        (["--llm", "oracle", "--suite", "giant"], "no suite 'giant'"),
        (["--llm", "gpt-4o"], "cannot read model spec"),
        (["--llm", "interactive"], "cannot play a bench"),
        ([], "give at least one --llm"),
        (["--llm", "oracle", "--prices", "{tmp}/nothing.json"], "nothing.json"),
        (["--llm", "oracle", "--prices", "{tmp}/bad.json"], "bad.json"),
        (["--replay", "{tmp}"], "not a bench run"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, said):
    (tmp_path / "bad.json").write_text("{not json")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert bench(*argv, "--out", tmp_path / "out") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and err[0].startswith("planloop bench: error:")


def test_a_folder_of_another_suite_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    assert (
        bench(
            "--llm",
            "oracle",
            "--suite",
            small_suite(tmp_path),
            "--out",
            out,
            "--families",
            "blocksworld",
        )
        == 0
    )
    shutil.copy(small_suite(tmp_path), tmp_path / "other.json")
    other = json.loads((tmp_path / "other.json").read_text())
    other["version"] = "2"
    (tmp_path / "other.json").write_text(json.dumps(other))
    capsys.readouterr()
    assert bench("--llm", "oracle", "--suite", tmp_path / "other.json", "--out", out) == 2
    assert "holds a run of suite small version 1" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_run_in_one_line_and_the_rerun_finishes_it(tmp_path, signum, code):
    suite, out = small_suite(tmp_path), tmp_path / "run"
    with FakeChatServer([("slow", 0.3, JUNK)] * 400) as server:
        argv = [sys.executable, "-m", "planloop", "bench", "--suite", str(suite), "--out", str(out),
                "--llm", f"{server.url}@fake-model", "--workers", "2"]  # fmt: skip
        env = dict(os.environ, HOME=str(tmp_path))
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while not (out.exists() and read_records(out)):  # the first episode saved
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        text = err.decode()
        assert proc.returncode == code, text
        saved = len(read_records(out))
        assert f"planloop bench: interrupted: {saved} of 8 episodes saved" in text
        assert "Traceback" not in text and saved < 8
        rerun = subprocess.run(argv, env=env, capture_output=True, timeout=300)
        assert rerun.returncode == 0, rerun.stderr.decode()
    keys = [r["key"] for r in read_records(out)]
    assert len(keys) == len(set(keys)) == 8  # nothing lost, nothing twice


def test_a_bench_process_starts_without_what_it_does_not_use():
    """matplotlib is imported when the PNGs are drawn, openai when a model is opened,
    Ray, the MCP SDK and TextWorld Express never by the bench itself."""
    heavy = ("matplotlib", "ray", "mcp", "textworld_express", "py4j", "openai")
    code = f"import sys, planloop.cli, planloop.bench.command; print([m for m in {heavy!r} if m in sys.modules])"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_smoke_suite_bounds_the_board_by_its_players(tmp_path, server, capsys):
    """The issue's check: on every family of the smoke suite the oracle wins at least 90%
    of its episodes, the fake model none (each loss with its kind), and every (oracle,
    fake) pair is separated by its interval; the replanner plays contingent."""
    out, fake = tmp_path / "run", f"{server.url}@fake-model"
    argv = ["--suite", "smoke", "--out", out, "--workers", "2"]
    assert (
        bench(*argv, "--llm", "oracle", "--llm", "random", "--llm", "replanner", "--llm", fake) == 0
    )
    rows = {row["model"]: row for row in board(out)["models"]}
    families = board(out)["suite"]["families"]
    assert len(families) == 11 and sum(f.endswith("-obfuscated") for f in families) == 4
    assert all(rows["oracle"]["families"][f]["rate"] >= 0.9 for f in families)
    assert all(rows[fake]["families"][f]["won"] == 0 for f in families)
    assert all(set(rows[fake]["families"][f]["failures"]) <= set(FAILURE_KINDS) for f in families)
    assert set(rows["replanner"]["families"]) == {"contingent"}
    separated = {
        p["family"] for p in board(out)["pairs"]
        if {p["a"], p["b"]} == {"oracle", fake} and min(abs(x) for x in p["ci95"]) > 0
    }  # fmt: skip
    assert separated == set(families)
    assert len(capsys.readouterr().out.splitlines()) < 60


@pytest.mark.slow
def test_a_server_gone_mid_run_stops_it_in_one_line_and_records_none_of_its_episodes(
    tmp_path, capsys
):
    suite, out = small_suite(tmp_path), tmp_path / "run"
    server = FakeChatServer([("ok", JUNK)] * 400).__enter__()
    fake = f"{server.url}@fake-model"

    def shut_after_a_few() -> None:
        while len(server.requests) < 4:
            time.sleep(0.01)
        server.__exit__(None, None, None)

    closer = threading.Thread(target=shut_after_a_few)
    closer.start()
    code = bench("--suite", suite, "--out", out, "--llm", fake, "--call-timeout", "1")
    closer.join()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and re.search(r"stopped answering: [34] episodes in a row ended on", err[-1])
    assert "rerun the same command to resume" in err[-1] and len(err[-1]) < 400
    kinds = {r["failure"] for r in read_records(out)}
    assert not kinds & {"model_unreachable", "model_timeout"}  # a rerun plays them
