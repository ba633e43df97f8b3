"""planloop-mcp as a hostile client meets it: files, sizes, session counts, ids, echoes,
nesting, slow starts."""

import difflib
import json
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("mcp")
from anyio.from_thread import start_blocking_portal
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_REQUEST, LATEST_PROTOCOL_VERSION, PARSE_ERROR
from test_mcp_server import DOMAIN, PROBLEM, Client, connect

from conftest import DATA

PASSWD = Path("/etc/passwd")
SECRET = "zq" + "x" * 300 + "SECRET"  # a token no reply may carry whole
OUTSIDER = "zqoutsider"  # the object only the problem outside the root names
LAMPS = DATA / "contingent" / "lamps"
LAMPS_IN_ROOT = {"domain": "lamps/domain.pddl", "problem": "lamps/probs"}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("root")
    (root / "domain.pddl").write_text(DOMAIN)
    (root / "problem.pddl").write_text(PROBLEM)
    (root / "broken.pddl").write_text(PROBLEM.replace("(:goal", f"({SECRET} (:goal"))
    (root / "big.pddl").write_text(";" * 30_000 + PROBLEM)
    (root / "passwd").symlink_to(PASSWD)
    (root / "etc").symlink_to("/etc")
    outside = tmp_path_factory.mktemp("outside") / "p.pddl"
    outside.write_text(PROBLEM.replace("a b c d", f"a b c d {OUTSIDER}").replace("(on c", OUTSIDER))
    (root / "probs").mkdir()
    (root / "probs" / "a.pddl").write_text(PROBLEM)
    (root / "probs" / "b.pddl").symlink_to(outside)
    (root / "probs" / "c.pddl").write_text(";" * 30_000 + PROBLEM)
    (root / "lamps").mkdir()
    shutil.copy(LAMPS / "domain.pddl", root / "lamps")
    (root / "lamps" / "probs").mkdir()
    shutil.copy(LAMPS / "problem.pddl", root / "lamps" / "probs")
    (root / "outside.pddl").symlink_to(outside)  # a link to swap in
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
        ("CoinCollector-v0", {"layout": "passwd"}),
        ("ContingentPDDL-v0", {**LAMPS_IN_ROOT, "hidden": str(PASSWD)}),
        ("ContingentPDDL-v0", {**LAMPS_IN_ROOT, "hidden": "passwd"}),
    ):
        reply = rooted.error("start_session", env_id=env_id, env_kwargs=kwargs)
        assert "outside the allowed roots" in reply and not leaked(reply), reply
    for hidden in (str(PASSWD), "etc/passwd"):  # a reset option names a file too
        reply = rooted.error(
            "start_session",
            env_id="ContingentPDDL-v0",
            env_kwargs=LAMPS_IN_ROOT,
            options={"hidden": hidden},
        )
        assert reply.endswith("is outside the allowed roots") and not leaked(reply), reply


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
def test_a_session_in_a_long_call_stalls_no_other_call():
    """A validation of 600,000 steps (about 3.5 s here; 300,000 took under 3 s) outlives the
    idle timeout: expiring its session waits for nothing; the call still answers, then
    the session is gone. Before, a start_session waited for the whole call."""
    with serve("--idle-timeout", "1") as client:
        busy = client.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
        idle = client.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
        long_plan = "(unstack b c)\n(stack b c)\n" * 300_000  # one string: read at once
        assert client.call("get_state", session_id=busy)["facts"]
        slow = client.portal.start_task_soon(
            client.session.call_tool, "validate_plan", {"session_id": busy, "plan": long_plan}
        )
        time.sleep(1.5)  # both sessions are idle past the timeout, one of them in its call
        assert client.call("start_session", env_id="Blocksworld-v0", instance=0)["facts"]
        assert not slow.done()  # answered while the long call runs
        assert client.error("get_state", session_id=idle).endswith(": no such session")
        assert client.error("close_session", session_id=busy).endswith(": no such session")
        verdict = slow.result(timeout=300)
        assert not verdict.is_error, verdict.content[0].text
        assert verdict.structured_content["failure"] == "goal"
        assert client.error("get_state", session_id=busy).endswith(": no such session")


@pytest.mark.slow
def test_idle_sessions_expire():
    with serve("--idle-timeout", "0.3") as client:
        sid = client.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
        time.sleep(0.5)
        assert client.error("get_state", session_id=sid).endswith(": no such session")


def test_a_link_in_a_folder_is_refused_and_nothing_of_it_replies(rooted):
    folder = {"domain": "domain.pddl", "problem": "probs"}
    started = rooted.call("start_session", env_id="PDDL-v0", instance=0, env_kwargs=folder)
    assert started["goal"] == "(and (on c b))"
    for env_id, kwargs in (
        ("PDDL-v0", folder),
        ("Blocksworld-v0", {"instances": "probs"}),
        ("MysteryRandom-BW-v0", {"instances": "probs"}),
    ):
        reply = rooted.error("start_session", env_id=env_id, instance=1, env_kwargs=kwargs)
        assert reply.endswith("the file 'probs/b.pddl' is outside the allowed roots"), reply
        assert OUTSIDER not in reply
    for seed in range(6):  # whichever instance a seed draws
        result = rooted.portal.call(
            rooted.session.call_tool,
            "start_session",
            {"env_id": "PDDL-v0", "seed": seed, "env_kwargs": folder},
        )
        assert OUTSIDER not in json.dumps(result.model_dump(mode="json"))


def test_a_file_is_checked_each_time_it_is_opened(rooted, root):
    kwargs = {"domain": "lamps/domain.pddl", "problem": "lamps/probs"}
    started = rooted.call("start_session", env_id="ContingentPDDL-v0", seed=0, env_kwargs=kwargs)
    sid = started["session_id"]
    member = root / "lamps" / "probs" / "problem.pddl"
    member.unlink()
    member.symlink_to((root / "outside.pddl").resolve())
    reply = rooted.error("validate_plan", session_id=sid, plan=["(look a)"])  # plays it anew
    assert reply.endswith("the file 'lamps/probs/problem.pddl' is outside the allowed roots")
    assert OUTSIDER not in reply


def test_every_refusal_says_why_in_one_line(rooted):
    folder = {"domain": "domain.pddl", "problem": "probs"}
    for kwargs, instance, why in (
        (folder, 2, "the file 'probs/c.pddl' has more than 20,000 bytes (--max-bytes)"),
        (
            {"domain": DOMAIN, "problem": "big.pddl"},
            0,
            "the file 'big.pddl' has more than 20,000 bytes (--max-bytes)",
        ),
        (
            {**folder, "limits": {"max_objects": 10**9}},
            0,
            "limits: max_objects may be at most 20,000 on this server",
        ),
        ({**folder, "limits": {"max_objects": 2}}, 0, "the problem is too large: 4 objects"),
    ):
        reply = rooted.error(
            "start_session", env_id="PDDL-v0", instance=instance, env_kwargs=kwargs
        )
        assert "\n" not in reply and why in reply, reply
    lamps = {"domain": "lamps/domain.pddl", "problem": (LAMPS / "problem.pddl").read_text()}
    reply = rooted.error(
        "start_session", env_id="ContingentPDDL-v0", env_kwargs={**lamps, "max_belief": 2**20}
    )
    assert reply.endswith("max_belief may be at most 65,536 on this server")


def tower(blocks: int) -> str:
    """A Blocksworld problem of ``blocks`` blocks on the table: about 2 s to ground."""
    names = " ".join(f"b{i}" for i in range(blocks))
    init = " ".join(f"(ontable b{i}) (clear b{i})" for i in range(blocks))
    return (
        f"(define (problem tower) (:domain blocksworld-4ops) (:objects {names}) "
        f"(:init (handempty) {init}) (:goal (on b0 b1)))"
    )


@pytest.mark.slow
def test_other_calls_are_answered_while_a_session_starts(rooted):
    sid = rooted.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
    slow = rooted.portal.start_task_soon(
        rooted.session.call_tool, "start_session", {"domain": DOMAIN, "problem": tower(300)}
    )
    time.sleep(0.3)  # the server is grounding it
    assert rooted.call("get_state", session_id=sid)["facts"]
    assert rooted.call("list_environments")["environments"]
    assert rooted.call("start_session", env_id="CoinCollector-v0", seed=0)["observation"]
    assert not slow.done()
    started = slow.result(timeout=60)
    assert not started.is_error, started.content[0].text
    rooted.call("close_session", session_id=started.structured_content["session_id"])


def unsatisfiable_chain(atoms: int) -> dict:
    """A contingent task whose initial belief holds no world, a chain of ``or`` clauses
    over ``atoms`` unknown atoms (2^atoms assignments to search without a bound)."""
    names = " ".join(f"(u{i})" for i in range(atoms))
    last = f"(u{atoms - 1})"
    clauses = " ".join(f"(or (u{i}) (u{i + 1}))" for i in range(atoms - 1))
    unknown = " ".join(f"(unknown (u{i}))" for i in range(atoms))
    return {
        "domain": f"(define (domain d) (:requirements :contingent) (:predicates (g) {names}) "
        "(:action a :parameters () :precondition (u0) :effect (g)))",
        "problem": f"(define (problem p) (:domain d) (:init {unknown} {clauses} "
        f"(or (not (u0)) (not {last})) (or (u0)) (or {last})) (:goal (g)))",
    }


@pytest.mark.slow
def test_a_contingent_start_is_bounded_and_leaves_the_others_answered(rooted):
    sid = rooted.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
    began = time.monotonic()
    slow = rooted.portal.start_task_soon(
        rooted.session.call_tool,
        "start_session",
        {"env_id": "ContingentPDDL-v0", "env_kwargs": unsatisfiable_chain(30)},
    )
    assert rooted.call("get_state", session_id=sid)["facts"]
    assert rooted.call("list_environments")["environments"]
    refused = slow.result(timeout=60)
    assert refused.is_error and time.monotonic() - began < 60  # 2.5 s measured alone
    said = refused.content[0].text  # past the work bound, or proved empty by the solver
    assert "(max_belief_work)" in said or "the initial belief is empty" in said


def nested(levels: int) -> list:
    """Lists nested ``levels`` deep."""
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_a_request_nested_too_deep_is_an_error_answer(rooted):
    # the message, its params and the arguments are 3 levels: 64 in all is taken
    reply = rooted.error("get_state", session_id=nested(61))
    assert "validation error" in reply.lower()
    with pytest.raises(MCPError) as refused:
        rooted.portal.call(rooted.session.call_tool, "get_state", {"session_id": nested(62)})
    assert refused.value.error.code == INVALID_REQUEST
    assert refused.value.error.message == (
        "the message nests arrays and objects more than 64 levels deep"
    )
    assert rooted.call("list_environments")["environments"]


@contextmanager
def wire():
    """``send(line)`` and ``receive()`` (the next reply, parsed) of planloop-mcp over its
    pipes: lines the SDK's client cannot write (it refuses to nest past 255 levels)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "planloop.mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    replies: queue.Queue = queue.Queue()
    threading.Thread(
        target=lambda: [replies.put(line) for line in server.stdout], daemon=True
    ).start()

    def send(line: str) -> None:
        server.stdin.write(line + "\n")
        server.stdin.flush()

    def receive() -> dict:
        return json.loads(replies.get(timeout=20))

    try:
        send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": LATEST_PROTOCOL_VERSION,
                        "capabilities": {},
                        "clientInfo": {"name": "test", "version": "0"},
                    },
                }
            )
        )
        assert receive()["id"] == 0
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        yield send, receive
    finally:
        server.kill()
        server.wait()


@pytest.mark.slow
def test_requests_nested_400_and_10000_deep_are_answered():
    with wire() as (send, receive):
        for depth in (400, 10_000):
            arguments = {"session_id": "@"}
            line = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": depth,
                    "method": "tools/call",
                    "params": {"name": "get_state", "arguments": arguments},
                }
            )
            send(line.replace('"@"', "[" * depth + "]" * depth))
            answer = receive()
            assert answer["id"] == depth and answer["error"]["code"] == INVALID_REQUEST
        send('{"jsonrpc": "2.0", "id": 7, "method": ')
        assert receive()["error"]["code"] == PARSE_ERROR
        send(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}))
        assert receive()["result"]["tools"]


@pytest.mark.slow
def test_batches_and_odd_ids_get_an_error_answer():
    request = {"jsonrpc": "2.0", "method": "tools/list"}
    with wire() as (send, receive):
        batch = [{**request, "id": 1}, {**request, "id": "b"}, {**request}]
        send(json.dumps(batch))
        answers = [receive(), receive()]
        assert [a["id"] for a in answers] == [1, "b"]
        assert {a["error"]["code"] for a in answers} == {INVALID_REQUEST}
        send("[]")
        assert receive() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": INVALID_REQUEST,
                "message": "batches (JSON arrays) are not taken: send one message a line",
            },
        }
        for odd in ({"a": 1}, [1], None, True, 1.5):
            send(json.dumps({**request, "id": odd}))
            answer = receive()
            assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST
            assert answer["error"]["message"] == "the id must be a string or an integer"
        send(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}))
        assert receive()["result"]["tools"]
