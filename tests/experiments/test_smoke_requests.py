"""A smoke run is small: ``reproduce.py agentic --limit 1`` against an endpoint that
answers at once (the paper bounds the direct baseline and the agentic loop by 180 s
alone, thousands of calls at such an endpoint)."""

import pytest

pytest.importorskip("openai")

from planloop.llm.fake_server import FakeChatServer  # noqa: E402
from planloop.protocols.reproduction import SMOKE_CALLS  # noqa: E402

from conftest import load_experiment  # noqa: E402


def test_agentic_at_limit_1_makes_a_bounded_number_of_requests(tmp_path):
    """At most ``1 + 2 * SMOKE_CALLS`` (11) requests: the model check, then on the one
    instance the direct baseline's samples and the agentic loop's model calls, each
    capped at SMOKE_CALLS (the Fast Downward rows call no model). Every answer is a
    tool call, so neither stops early: the direct baseline reads no plan from it and
    resamples, the agentic loop calls again after each tool's answer."""
    script = [("tool", "get_state", "{}")] * 1000
    with FakeChatServer(script) as server:
        argv = ["agentic", "--llm", f"{server.url}@gpt-4o", "--limit", "1"]
        assert load_experiment("reproduce").main([*argv, "--out", str(tmp_path)]) == 0
    assert len(server.requests) == 1 + 2 * SMOKE_CALLS
    table = (tmp_path / "agentic-table-ii.md").read_text()
    assert f"max_attempts={SMOKE_CALLS}" in table and f"max_model_calls={SMOKE_CALLS}" in table
