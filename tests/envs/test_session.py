"""The engine session's seven operations, as a tool-calling model would use them."""

from planloop.envs.session import OPERATION_NAMES, OPERATIONS, EngineSession

from conftest import PLANBENCH

DOMAIN = (PLANBENCH / "blocksworld" / "generated_domain.pddl").read_text()
PROBLEM = (PLANBENCH / "blocksworld" / "generated_basic" / "instance-1.pddl").read_text()


def test_seven_operations_with_tool_schemas():
    assert OPERATION_NAMES == (
        "start_session",
        "get_state",
        "get_applicable_actions",
        "execute_action",
        "reset",
        "get_history",
        "validate_plan",
    )
    for op in OPERATIONS:
        tool = op.tool()
        assert tool["type"] == "function" and tool["function"]["name"] == op.name
        assert tool["function"]["parameters"]["type"] == "object" and op.description
    assert OPERATIONS[3].parameters["required"] == ["action"]


def test_a_session_plays_resets_and_validates():
    session = EngineSession()
    assert session.call("get_state") == {"error": "no session: call start_session first"}
    started = session.call("start_session", {"domain": DOMAIN, "problem": PROBLEM})
    assert started["started"] and not started["goal_reached"] and "(handempty)" in started["facts"]
    first = session.call("get_applicable_actions")["actions"][0]
    assert session.call("execute_action", {"action": first})["executed"]
    assert session.call("get_history") == {"actions": [first]}
    failed = session.call("execute_action", {"action": first})
    assert failed["executed"] is False and failed["error"] == "inapplicable" and failed["unmet"]
    assert session.call("get_history") == {"actions": [first]}  # failures are not history
    assert session.call("reset")["facts"] == started["facts"]
    assert session.call("get_history") == {"actions": []}
    verdict = session.call("validate_plan", {"plan": f"{first}\n{first}"})
    assert verdict["valid"] is False and verdict["failed_step"] == 2
    assert "unsatisfied precondition" in verdict["advice"]
    assert session.call("get_history") == {"actions": []}  # validation executes nothing
    assert session.call("start_session")["facts"] == started["facts"]  # the same task again


def test_bad_calls_are_answers_not_exceptions():
    session = EngineSession(DOMAIN, PROBLEM)
    assert "unknown operation 'jump'" in session.call("jump")["error"]
    assert session.call("execute_action", {})["error"] == "execute_action takes action, not nothing"
    assert session.call("reset", ["x"])["error"] == "arguments must be a JSON object"
    assert session.call("execute_action", {"action": "(fly a)"})["error"] == "unknown"
    assert session.call("execute_action", {"action": "pick-up"})["executed"] is False
    assert "cannot read the plan" in session.call("validate_plan", {"plan": "(pick-up a"})["error"]
    broken = session.call("start_session", {"domain": DOMAIN, "problem": PROBLEM[:-40]})
    assert broken["error"].startswith("cannot read the task")
    assert session.call("get_state")["facts"]  # the earlier task is kept
    assert "both" in session.call("start_session", {"domain": DOMAIN})["error"]


def test_start_names_the_readers_warnings():
    """A model's task in a dialect planners accept starts, and says how it was read."""
    domain = DOMAIN.replace("(:predicates", "(:types block - block)\n(:predicates", 1)
    started = EngineSession().call("start_session", {"domain": domain, "problem": PROBLEM})
    assert started["started"]
    [warning] = started["warnings"]
    assert "type 'block' is listed among its own subtypes; read as a type of its own" in warning
    assert "line " in warning and "col " in warning
    assert "warnings" not in EngineSession().call(
        "start_session", {"domain": DOMAIN, "problem": PROBLEM}
    )
