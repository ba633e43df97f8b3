"""planloop.llm.sent: what a block's requests carried, read from the requests as they
were sent (checked against the server's log), kept apart per thread and bounded."""

import threading

import pytest

from planloop.llm.sent import MAX_SETS, SentLog, note_sent, recording

HELLO = [{"role": "user", "content": "hello"}]


def params_of(body: dict) -> dict:
    """A logged request body's parameters (the rest is the model, messages and tools)."""
    return {k: v for k, v in body.items() if k not in ("model", "messages", "tools")}


def distinct(sets: list[dict]) -> list[dict]:
    out: list[dict] = []
    for params in sets:
        if params not in out:
            out.append(params)
    return out


def test_a_log_keeps_each_distinct_set_once_in_the_order_first_sent():
    log = SentLog()
    for params in ({"seed": 1}, {"seed": 0}, {"seed": 1}, {}):
        log.add(params)
    assert log.record() == {"sent_sets": [{"seed": 1}, {"seed": 0}, {}], "unlisted_requests": 0}


def test_a_log_is_bounded_and_counts_the_requests_it_did_not_keep():
    log = SentLog()
    for seed in range(MAX_SETS + 3):
        log.add({"seed": seed})
    log.add({"seed": 0})  # kept already: not counted
    record = log.record()
    assert record["sent_sets"] == [{"seed": s} for s in range(MAX_SETS)]
    assert record["unlisted_requests"] == 3


def test_requests_outside_a_block_are_noted_nowhere_and_each_thread_has_its_own():
    note_sent({"seed": 99})  # no block: nothing to note in, nothing fails
    seen: dict[int, dict] = {}

    def episode(seed: int) -> None:
        with recording() as log:
            for _ in range(20):
                note_sent({"seed": seed})
        seen[seed] = log.record()

    threads = [threading.Thread(target=episode, args=(s,)) for s in range(8)]
    with recording() as outer:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert outer.record()["sent_sets"] == []
    assert seen == {s: {"sent_sets": [{"seed": s}], "unlisted_requests": 0} for s in range(8)}


def test_an_inner_block_has_its_own_log_until_it_ends():
    with recording() as outer:
        note_sent({"a": 1})
        with recording() as inner:
            note_sent({"b": 2})
        note_sent({"c": 3})
    assert outer.record()["sent_sets"] == [{"a": 1}, {"c": 3}]
    assert inner.record()["sent_sets"] == [{"b": 2}]


def test_the_log_says_every_attempt_the_server_logged_a_refused_one_included():
    pytest.importorskip("openai")
    from planloop.llm import OpenAIChat
    from planloop.llm.fake_server import FakeChatServer, refusing

    with FakeChatServer([("ok", "a"), ("ok", "b")], refusing("top_p")) as server:
        model = OpenAIChat("gateway", base_url=server.url, defaults={"top_p": 1})
        model.complete(HELLO)  # outside the block: not in its log
        with recording() as log:
            model.complete(HELLO, temperature=0.7, seed=3)
    assert [params_of(r) for r in server.requests] == [
        {"top_p": 1},
        {},
        {"temperature": 0.7, "seed": 3},
    ]
    assert log.record()["sent_sets"] == [params_of(server.requests[-1])]


def test_a_cached_answer_counts_as_sent_with_the_parameters_it_answers(tmp_path):
    pytest.importorskip("openai")
    from planloop.llm import CachedModel, OpenAIChat
    from planloop.llm.fake_server import FakeChatServer

    with FakeChatServer([("ok", "a")]) as server:
        model = CachedModel(OpenAIChat("m", base_url=server.url), tmp_path / "c.sqlite")
        with recording() as first:
            assert not model.complete(HELLO, seed=5).cached
        with recording() as again:
            assert model.complete(HELLO, seed=5).cached
    logged = distinct([params_of(r) for r in server.requests])
    assert logged == [{"temperature": 0.0, "seed": 5}]
    assert first.record()["sent_sets"] == again.record()["sent_sets"] == logged
