"""Whatever a server sends, a study keeps and prints a bounded amount of it: a 20 MB
error body (over the reply cap) and a 5 MB one (under it) leave small records."""

import json

import pytest

pytest.importorskip("openai")

from planloop.llm.fake_server import FakeChatServer  # noqa: E402

from conftest import load_experiment  # noqa: E402


def error_body(megabytes: int) -> bytes:
    message = "Unsupported thing: " + "x" * (megabytes * 2**20)
    return json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()


def test_huge_error_bodies_leave_small_records_and_output(tmp_path, capsys):
    script = [("ok", "OK"), ("raw", 400, {}, error_body(20)), ("raw", 400, {}, error_body(5))]
    with FakeChatServer(script) as server:
        argv = ["-o", "num_locations=3", "--instances", "0:2", "--llm", f"{server.url}@m"]
        assert load_experiment("pddlego").main([*argv, "--out", str(tmp_path)]) == 0
    records = (tmp_path / "episodes.jsonl").read_text()
    errors = [json.loads(line)["error"] for line in records.splitlines()]
    assert all(errors) and len(errors) == 2
    assert any("refused unread" in e for e in errors)  # the 20 MB body, past the reply cap
    assert any("Unsupported thing" in e for e in errors)  # the 5 MB one, quoted in part
    assert len(records) < 2**20
    out = capsys.readouterr()
    assert len(out.out) + len(out.err) < 100_000
