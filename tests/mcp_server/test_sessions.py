"""The session registry behind planloop-mcp, without the MCP SDK."""

import sys
import threading
import time

import pytest

from planloop.envs import ENVIRONMENTS, FULLY_OBSERVABLE
from planloop.mcp import SessionError, SessionRegistry, main
from planloop.mcp.sandbox import ground_actions
from planloop.pddl import load, parse

from conftest import PLANBENCH

DOMAIN = (PLANBENCH / "blocksworld" / "generated_domain.pddl").read_text()
PROBLEM = (PLANBENCH / "blocksworld" / "generated_basic" / "instance-1.pddl").read_text()


@pytest.mark.parametrize("env_id", ENVIRONMENTS)
def test_every_registered_environment_starts(env_id):
    registry = SessionRegistry()
    lamps = PLANBENCH.parent / "contingent" / "lamps"
    env_kwargs = (
        {"domain": DOMAIN, "problem": PROBLEM}
        if env_id == "PDDL-v0"
        else {
            "domain": (lamps / "domain.pddl").read_text(),
            "problem": (lamps / "problem.pddl").read_text(),
        }
        if env_id == "ContingentPDDL-v0"
        else None
    )
    started = registry.start(env_id=env_id, seed=0, env_kwargs=env_kwargs)
    assert ("facts" in started) == (env_id in FULLY_OBSERVABLE) != ("observation" in started)
    assert started["goal"] and registry.run(started["session_id"], "applicable_actions")["actions"]


def test_start_takes_an_environment_or_pddl_not_both():
    registry = SessionRegistry()
    with pytest.raises(SessionError, match="not both"):
        registry.start(env_id="Blocksworld-v0", domain=DOMAIN, problem=PROBLEM)
    with pytest.raises(SessionError, match="need an env_id"):
        registry.start(domain=DOMAIN, problem=PROBLEM, seed=1)
    with pytest.raises(SessionError, match="cannot start CoinCollector-v0: TypeError"):
        registry.start(env_id="CoinCollector-v0", env_kwargs={"rooms": 3})


def test_a_text_session_fails_without_moving_and_replays_its_instance():
    registry = SessionRegistry()
    started = registry.start(env_id="CoinCollector-v0")  # no seed: the instance is drawn
    sid = started["session_id"]
    with pytest.raises(SessionError, match="unknown: Unknown action"):
        registry.run(sid, "execute", action="dance")
    assert registry.run(sid, "state")["observation"] == started["observation"]
    assert registry.run(sid, "history") == {"actions": []}
    registry.run(sid, "execute", action="inventory")
    assert registry.run(sid, "reset") == {
        "observation": started["observation"],
        "goal_reached": False,
    }
    verdict = registry.run(sid, "validate_plan", plan="inventory\ndance")
    assert verdict["failure"] == "bad_action" and verdict["failed_step"] == 2
    assert verdict["advice"].startswith("'dance' at step 2: Unknown action")


def test_a_text_plan_must_end_with_the_episode():
    registry = SessionRegistry()
    sid = registry.start(env_id="CoinCollector-v0", seed=1)["session_id"]
    assert registry.run(sid, "validate_plan", plan=["take coin"])["valid"]
    verdict = registry.run(sid, "validate_plan", plan=["take coin", "look around"])
    assert verdict == {
        "valid": False,
        "failure": "episode_over",
        "failed_step": 2,
        "advice": "The episode ended after step 1.",
    }


def test_closed_sessions_are_gone():
    registry = SessionRegistry()
    sid = registry.start(domain=DOMAIN, problem=PROBLEM)["session_id"]
    assert registry.close(sid) == {"session_id": sid, "closed": True}
    with pytest.raises(SessionError, match=r"^no such session$"):
        registry.run(sid, "state")


def test_the_server_needs_the_mcp_extra(monkeypatch):
    for name in ["mcp", *(name for name in sys.modules if name.startswith("mcp."))]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    monkeypatch.delitem(sys.modules, "planloop.mcp.server", raising=False)
    with pytest.raises(SystemExit, match=r"pip install 'planloop\[mcp\]'"):
        main([])


def test_idle_sessions_expire_on_the_next_call():
    now = [0.0]
    registry = SessionRegistry(max_sessions=2, idle_timeout=10, clock=lambda: now[0])
    old = registry.start(domain=DOMAIN, problem=PROBLEM)["session_id"]
    now[0] = 8
    kept = registry.start(domain=DOMAIN, problem=PROBLEM)["session_id"]
    with pytest.raises(SessionError, match="2 are open.*--max-sessions.*close_session"):
        registry.start(domain=DOMAIN, problem=PROBLEM)
    now[0] = 16
    registry.run(kept, "state")  # a call keeps a session alive
    assert len(registry) == 1
    with pytest.raises(SessionError, match="^no such session$"):
        registry.run(old, "state")
    assert registry.start(domain=DOMAIN, problem=PROBLEM)["session_id"] not in (old, kept)
    now[0] = 25.9
    assert registry.run(kept, "state")["facts"]


def test_the_ground_action_budget_counts_every_live_task():
    assert ground_actions(*parse(DOMAIN, PROBLEM)) == len(load(DOMAIN, PROBLEM).actions)  # 40
    registry = SessionRegistry(max_ground_actions=100)
    first = registry.start(domain=DOMAIN, problem=PROBLEM)["session_id"]
    registry.start(env_id="Blocksworld-v0", instance=0)  # 4 blocks again
    with pytest.raises(
        SessionError,
        match=r"may ground 40 actions, and the live sessions hold "
        r"80 of the 100 .*\(--max-ground-actions\)",
    ):
        registry.start(domain=DOMAIN, problem=PROBLEM)
    registry.start(env_id="CoinCollector-v0", seed=0)  # a text session costs nothing
    registry.close(first)
    assert registry.start(domain=DOMAIN, problem=PROBLEM)["goal"]


LAMPS = PLANBENCH.parent / "contingent" / "lamps"
CONTINGENT = {
    "domain": (LAMPS / "domain.pddl").read_text(),
    "problem": (LAMPS / "problem.pddl").read_text(),
}


def test_a_client_may_lower_a_limit_never_raise_one():
    registry = SessionRegistry()
    pddl = {"domain": DOMAIN, "problem": PROBLEM}
    for env_id, env_kwargs, refusal in (
        (
            "PDDL-v0",
            {**pddl, "limits": {"max_objects": 10**9}},
            "^limits: max_objects may be at most 20,000 on this server$",
        ),
        (
            "PDDL-v0",
            {**pddl, "limits": {"max_objects": 2}},
            r"the problem is too large: 4 objects.*\(max_objects\)$",
        ),
        (
            "PDDL-v0",
            {**pddl, "limits": {"max_bytes": 1}},
            r"too large: .* \(max_bytes, --max-bytes\)$",
        ),
        ("PDDL-v0", {**pddl, "limits": ["max_objects"]}, "^limits must be a dict"),
        (
            "ContingentPDDL-v0",
            {**CONTINGENT, "max_belief": 2**17},
            "^max_belief may be at most 65,536 on this server$",
        ),
        (
            "ContingentPDDL-v0",
            {**CONTINGENT, "limits": {"max_belief_work": 10**7}},
            "^limits: max_belief_work may be at most 1,000,000",
        ),
        (
            "ContingentPDDL-v0",
            {**CONTINGENT, "limits": {"max_belief_work": 1}},
            r"the initial belief needs .*\(max_belief_work\)$",
        ),
    ):
        with pytest.raises(SessionError, match=refusal):
            registry.start(env_id=env_id, env_kwargs=env_kwargs)
    assert len(registry) == 0


def test_a_contingent_session_holds_its_task_in_the_ground_action_budget():
    size = ground_actions(*parse(CONTINGENT["domain"], CONTINGENT["problem"], contingent=True))
    registry = SessionRegistry(max_ground_actions=size + 12)
    registry.start(env_id="ContingentPDDL-v0", env_kwargs=CONTINGENT)
    with pytest.raises(
        SessionError,
        match=r"more than the limit of 12 \(max_ground_actions, --max-ground-actions\)$",
    ):
        registry.start(env_id="Contingent-Doors-v0")
    with pytest.raises(
        SessionError, match=r"may ground 40 actions, and the live sessions hold 28 "
    ):
        registry.start(domain=DOMAIN, problem=PROBLEM)
    assert registry.start(env_id="CoinCollector-v0", seed=0)["observation"]


@pytest.mark.slow
def test_a_slow_start_leaves_the_other_sessions_answered():
    registry = SessionRegistry()
    sid = registry.start(domain=DOMAIN, problem=PROBLEM)["session_id"]
    blocks = " ".join(f"b{i}" for i in range(300))
    tower = PROBLEM.replace("a b c d", f"a b c d {blocks}")  # a second or two to ground
    started: list[dict] = []
    slow = threading.Thread(
        target=lambda: started.append(registry.start(domain=DOMAIN, problem=tower))
    )
    slow.start()
    time.sleep(0.2)
    assert registry.run(sid, "state")["facts"] and len(registry) == 2
    assert slow.is_alive()
    slow.join()
    assert started[0]["goal"] == "(and (on c b))"
