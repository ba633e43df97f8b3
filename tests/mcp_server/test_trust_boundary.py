"""planloop-mcp as a hostile client meets it: files, sizes, session counts, ids, echoes."""

import difflib
import re
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("mcp")
from anyio.from_thread import start_blocking_portal
from test_mcp_server import DOMAIN, PROBLEM, Client, connect

PASSWD = Path("/etc/passwd")
SECRET = "zq" + "x" * 300 + "SECRET"  # a token no reply may carry whole


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("root")
    (root / "domain.pddl").write_text(DOMAIN)
    (root / "problem.pddl").write_text(PROBLEM)
    (root / "broken.pddl").write_text(PROBLEM.replace("(:goal", f"({SECRET} (:goal"))
    (root / "big.pddl").write_text(";" * 30_000 + PROBLEM)
    (root / "passwd").symlink_to(PASSWD)
    (root / "etc").symlink_to("/etc")
    return root


@contextmanager
def serve(*flags: str):
    """A Client of ``planloop-mcp flags...``."""
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connect(*flags)) as session,
    ):
        yield Client(portal, session)


@pytest.fixture(scope="module")
def rooted(root):
    with serve("--root", str(root), "--max-bytes", "20000") as client:
        yield client


def leaked(reply: str) -> list[str]:
    """The lines of the password file a reply carries."""
    return [line for line in PASSWD.read_text().splitlines() if len(line) > 8 and line in reply]


def longest_echo(reply: str, sent: str) -> int:
    """The longest run of ``sent`` that ``reply`` repeats."""
    match = difflib.SequenceMatcher(None, reply, sent, autojunk=False)
    return match.find_longest_match(0, len(reply), 0, len(sent)).size


@pytest.mark.skipif(not PASSWD.is_file(), reason="no /etc/passwd here")
def test_no_file_outside_the_root_reaches_a_reply(rooted, root):
    for path in (
        str(PASSWD),
        "../../../../../../etc/passwd",
        "passwd",
        "etc/passwd",
        str(root / "etc" / "passwd"),
        str(root / ".." / "x"),
    ):
        reply = rooted.error("start_session", domain=path, problem=PROBLEM)
        assert "outside the allowed roots" in reply and not leaked(reply), reply
        reply = rooted.error("start_session", domain=DOMAIN, problem=path)
        assert "outside the allowed roots" in reply and not leaked(reply), reply
    for env_id, kwargs in (
        ("PDDL-v0", {"domain": "passwd", "problem": PROBLEM}),
        ("PDDL-v0", {"domain": DOMAIN, "problem": [PROBLEM, "/etc/passwd"]}),
        ("ALFWorld-v0", {"game_file": "/etc/passwd"}),
        ("Blocksworld-v0", {"instances": "etc"}),
    ):
        reply = rooted.error("start_session", env_id=env_id, env_kwargs=kwargs)
        assert "outside the allowed roots" in reply and not leaked(reply), reply


@pytest.mark.slow
@pytest.mark.skipif(not PASSWD.is_file(), reason="no /etc/passwd here")
def test_without_a_root_no_path_is_read():
    with serve() as client:
        for path in (str(PASSWD), "etc/passwd", "domain.pddl"):
            reply = client.error("start_session", domain=path, problem=PROBLEM)
            assert "paths are not accepted" in reply and "--root DIR" in reply
            assert not leaked(reply)
        reply = client.error(
            "start_session",
            env_id="PDDL-v0",
            env_kwargs={"domain": str(PASSWD), "problem": PROBLEM},
        )
        assert "paths are not accepted" in reply and not leaked(reply)
        assert client.call("start_session", domain=DOMAIN, problem=PROBLEM)["goal"]


def test_a_path_inside_the_root_is_read(rooted, root):
    started = rooted.call("start_session", domain=str(root / "domain.pddl"), problem="problem.pddl")
    assert started["goal"] == "(and (on c b))"
    by_env = rooted.call(
        "start_session",
        env_id="PDDL-v0",
        env_kwargs={"domain": "domain.pddl", "problem": ["problem.pddl"]},
    )
    assert by_env["facts"] == started["facts"]
    assert "no such file" in rooted.error("start_session", domain="nope.pddl", problem=PROBLEM)
    assert "not a regular file" in rooted.error("start_session", domain=".", problem=PROBLEM)
    big = rooted.error("start_session", domain=DOMAIN, problem="big.pddl")
    assert "more than 20,000 bytes (--max-bytes)" in big
    assert "20,000 (--max-bytes)" in rooted.error(
        "start_session", domain=DOMAIN, problem=";" * 20_001 + PROBLEM
    )


def test_an_error_in_a_file_says_where_not_what(rooted):
    reply = rooted.error("start_session", domain="domain.pddl", problem="broken.pddl")
    assert re.search(r"the problem file has an error at line \d+, col \d+", reply), reply
    assert "zqxx" not in reply and "SECRET" not in reply


def test_errors_quote_at_most_80_characters_of_what_was_sent(rooted):
    problem = PROBLEM.replace("(:goal", f"({SECRET} (:goal")
    reply = rooted.error("start_session", domain=DOMAIN, problem=problem)
    assert "cannot read the task: problem error at line" in reply
    assert longest_echo(reply, problem) <= 80
    sid = rooted.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
    coin = rooted.call("start_session", env_id="CoinCollector-v0", seed=1)["session_id"]
    for tool, arguments in (
        ("start_session", {"env_id": SECRET}),
        ("start_session", {"env_id": "CoinCollector-v0", "env_kwargs": {SECRET: 1}}),
        ("start_session", {"domain": SECRET, "problem": PROBLEM}),
        ("execute_action", {"session_id": sid, "action": f"(pick-up {SECRET})"}),
        ("execute_action", {"session_id": sid, "action": f"({SECRET} a)"}),
        ("execute_action", {"session_id": sid, "action": SECRET}),
        ("validate_plan", {"session_id": sid, "plan": f"(pick-up a)\n({SECRET}"}),
        ("validate_plan", {"session_id": sid, "plan": [f"(pick-up {SECRET})"]}),
        ("execute_action", {"session_id": coin, "action": SECRET}),
        ("validate_plan", {"session_id": coin, "plan": [SECRET]}),
        ("get_state", {"session_id": SECRET}),
    ):
        result = rooted.portal.call(rooted.session.call_tool, tool, arguments)
        reply = result.content[0].text  # an error, or a verdict whose advice says why
        assert longest_echo(reply, SECRET) <= 80, (tool, reply)
    assert rooted.call("get_history", session_id=sid) == {"actions": []}


def test_ids_are_random_tokens_and_an_unknown_one_reveals_nothing(rooted):
    ids = [
        rooted.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"] for _ in range(5)
    ]
    assert len(set(ids)) == 5 and all(re.fullmatch(r"[A-Za-z0-9_-]{22}", sid) for sid in ids)
    for guess in ("s1", "s2", ids[0][:-1], ids[0].upper(), ""):
        reply = rooted.error("get_state", session_id=guess)
        assert reply.endswith(": no such session") and not any(sid in reply for sid in ids)
    for sid in ids:
        rooted.call("close_session", session_id=sid)


@pytest.mark.slow
def test_sessions_are_capped_and_the_server_goes_on():
    with serve() as client:
        opened, refused = [], []
        for attempt in range(200):
            try:
                opened.append(
                    client.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
                )
            except AssertionError as exc:
                refused.append(str(exc))
            if attempt % 50 == 49:
                assert client.call("get_state", session_id=opened[0])["facts"]
        assert len(opened) == 64 and len(refused) == 136
        assert "64 are open" in refused[0] and "--max-sessions" in refused[0]
        assert "close_session" in refused[0] and "--idle-timeout" in refused[0]
        client.call("close_session", session_id=opened.pop())
        assert client.call("start_session", env_id="Blocksworld-v0", instance=0)["facts"]
        assert "--max-sessions" in client.error("start_session", env_id="CoinCollector-v0")
        assert client.call("list_environments")["environments"]


@pytest.mark.slow
def test_idle_sessions_expire():
    with serve("--idle-timeout", "0.3") as client:
        sid = client.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
        time.sleep(0.5)
        assert client.error("get_state", session_id=sid).endswith(": no such session")
