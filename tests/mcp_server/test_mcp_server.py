"""planloop-mcp over stdio, driven by the MCP SDK's own client: one server for the module."""

import sys
from contextlib import asynccontextmanager

import gymnasium as gym
import pytest

pytest.importorskip("mcp")
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client

from conftest import PLANBENCH

DOMAIN = (PLANBENCH / "blocksworld" / "generated_domain.pddl").read_text()
PROBLEM = (PLANBENCH / "blocksworld" / "generated_basic" / "instance-1.pddl").read_text()
PLAN = ["(unstack b c)", "(put-down b)", "(pick-up c)", "(stack c b)"]
TOOLS = {
    "list_environments",
    "start_session",
    "get_state",
    "get_applicable_actions",
    "execute_action",
    "reset",
    "get_history",
    "validate_plan",
    "close_session",
}


class Client:
    """Blocking calls to the server's tools."""

    def __init__(self, portal, session: ClientSession):
        self.portal, self.session = portal, session

    def tools(self) -> dict:
        return {tool.name: tool for tool in self.portal.call(self.session.list_tools).tools}

    def call(self, tool: str, **arguments) -> dict:
        """A tool's structured result (the client checks it against the output schema)."""
        result = self.portal.call(self.session.call_tool, tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    def error(self, tool: str, **arguments) -> str:
        """The text of a tool error."""
        result = self.portal.call(self.session.call_tool, tool, arguments)
        assert result.is_error and result.structured_content is None
        return result.content[0].text


@asynccontextmanager
async def connect(*flags: str):
    """A client session with ``planloop-mcp flags...``."""
    server = StdioServerParameters(command=sys.executable, args=["-m", "planloop.mcp", *flags])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()  # the output schemas the client checks results against
        yield session


@pytest.fixture(scope="module")
def client():
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(connect()) as session:
        yield Client(portal, session)


@pytest.mark.slow
def test_tools_and_their_schemas(client):
    tools = client.tools()
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert tool.description and tool.output_schema["type"] == "object"
        assert ("session_id" in tool.input_schema.get("required", [])) == (
            name not in ("list_environments", "start_session")
        )
    start = tools["start_session"].input_schema["properties"]
    assert set(start) == {
        "env_id",
        "instance",
        "seed",
        "options",
        "env_kwargs",
        "domain",
        "problem",
    }
    assert start["seed"]["anyOf"][0] == {"type": "integer"}
    assert tools["execute_action"].input_schema["required"] == ["session_id", "action"]
    actions = tools["get_applicable_actions"].output_schema["properties"]["actions"]
    assert actions == {"items": {"type": "string"}, "title": "Actions", "type": "array"}
    started = tools["start_session"].output_schema
    assert {"session_id", "goal", "goal_reached"} <= set(started["required"])
    assert {"facts", "observation"} <= set(started["properties"]) - set(started["required"])
    assert {"valid", "failure", "failed_step", "advice"} == set(
        tools["validate_plan"].output_schema["required"]
    )
    environments = client.call("list_environments")["environments"]
    kinds = {env["env_id"]: env["fully_observable"] for env in environments}
    assert kinds["Blocksworld-v0"] and not kinds["CoinCollector-v0"] and "ALFWorld-v0" in kinds


def test_a_pddl_round_trip(client):
    started = client.call("start_session", domain=DOMAIN, problem=PROBLEM)
    sid = started["session_id"]
    assert started["goal"] == "(and (on c b))" and not started["goal_reached"]
    assert "(handempty)" in started["facts"] and started["env_id"] is None
    assert client.call("get_state", session_id=sid) == {
        "facts": started["facts"],
        "goal_reached": False,
    }
    for action in PLAN:
        assert action in client.call("get_applicable_actions", session_id=sid)["actions"]
        step = client.call("execute_action", session_id=sid, action=action)
        assert step["goal_reached"] == (action == PLAN[-1])
    assert "(on c b)" in client.call("get_state", session_id=sid)["facts"]
    assert client.call("get_history", session_id=sid)["actions"] == PLAN
    assert client.call("reset", session_id=sid) == {
        "facts": started["facts"],
        "goal_reached": False,
    }
    assert client.call("get_history", session_id=sid)["actions"] == []
    valid = {"valid": True, "failure": None, "failed_step": None, "advice": "Plan valid"}
    assert client.call("validate_plan", session_id=sid, plan=PLAN) == valid
    assert client.call("validate_plan", session_id=sid, plan="\n".join(PLAN)) == valid
    broken = client.call("validate_plan", session_id=sid, plan=[PLAN[0], PLAN[0]])
    assert broken["valid"] is False and broken["failed_step"] == 2
    assert broken["failure"] == "precondition" and "unsatisfied precondition" in broken["advice"]
    short = client.call("validate_plan", session_id=sid, plan=PLAN[:-1])
    assert short["failure"] == "goal" and "(on c b)" in short["advice"]
    assert client.call("close_session", session_id=sid) == {"session_id": sid, "closed": True}


def test_blocksworld_by_env_id(client):
    started = client.call("start_session", env_id="Blocksworld-v0", instance=0)
    sid = started["session_id"]
    assert started["env_id"] == "Blocksworld-v0" and started["instance"] == 0
    assert started["domain"].lstrip().startswith("(define") and "(:goal" in started["problem"]
    assert started["facts"] and not started["goal_reached"]
    actions = client.call("get_applicable_actions", session_id=sid)["actions"]
    assert actions and all(action.startswith("(") for action in actions)
    step = client.call("execute_action", session_id=sid, action=actions[0])
    assert step["facts"] != started["facts"]
    again = client.call("start_session", env_id="Blocksworld-v0", seed=0)
    assert again["session_id"] != sid


def test_coin_collector_is_a_text_session(client):
    env = gym.make("planloop:CoinCollector-v0")
    env.reset(seed=3)
    gold = env.unwrapped.gold_path()
    started = client.call("start_session", env_id="CoinCollector-v0", seed=3)
    sid = started["session_id"]
    assert started["goal"].startswith("Your task is to search the environment")
    assert started["observation"].startswith("You are in the") and "facts" not in started
    actions = client.call("get_applicable_actions", session_id=sid)["actions"]
    assert gold[0] in actions and "look around" in actions
    assert client.call("validate_plan", session_id=sid, plan=gold)["valid"]
    assert client.call("validate_plan", session_id=sid, plan=gold[:-1])["failure"] == "goal"
    assert "(in-room coin" in client.error("execute_action", session_id=sid, action="take coin")
    for command in gold:
        step = client.call("execute_action", session_id=sid, action=command)
    assert step["goal_reached"] and "coin" in step["observation"]
    assert client.call("get_history", session_id=sid)["actions"] == gold
    over = client.error("execute_action", session_id=sid, action="look around")
    assert "episode is over" in over
    reset = client.call("reset", session_id=sid)
    assert reset == {"observation": started["observation"], "goal_reached": False}


def test_two_sessions_are_kept_apart(client):
    one = client.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
    two = client.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
    coin = client.call("start_session", env_id="CoinCollector-v0", seed=1)["session_id"]
    assert len({one, two, coin}) == 3
    client.call("execute_action", session_id=one, action=PLAN[0])
    client.call("execute_action", session_id=coin, action="look around")
    assert client.call("get_history", session_id=one)["actions"] == [PLAN[0]]
    assert client.call("get_history", session_id=two)["actions"] == []
    assert client.call("get_history", session_id=coin)["actions"] == ["look around"]
    state_one = client.call("get_state", session_id=one)
    state_two = client.call("get_state", session_id=two)
    assert "(holding b)" in state_one["facts"] and "(holding b)" not in state_two["facts"]
    client.call("close_session", session_id=one)
    assert client.call("get_state", session_id=two)["facts"] == state_two["facts"]


def test_bad_input_is_a_tool_error_and_the_server_goes_on(client):
    sid = client.call("start_session", domain=DOMAIN, problem=PROBLEM)["session_id"]
    assert client.error("get_state", session_id="nope").endswith(": no such session")
    unknown_env = client.error("start_session", env_id="Chess-v0")
    assert "unknown environment 'Chess-v0'" in unknown_env and "Blocksworld-v0" in unknown_env
    unreadable = client.error("start_session", domain=DOMAIN, problem=PROBLEM[:-40])
    assert "cannot read the task" in unreadable
    assert "domain and problem" in client.error("start_session")
    assert "cannot start PDDL-v0" in client.error("start_session", env_id="PDDL-v0")
    assert "instance must be an integer from 0 to 3, not 99" in client.error(
        "start_session", env_id="Baking-v0", instance=99
    )
    inapplicable = client.error("execute_action", session_id=sid, action="(stack c b)")
    assert "inapplicable" in inapplicable and "(holding c)" in inapplicable
    unknown = client.error("execute_action", session_id=sid, action="(fly a)")
    assert "unknown: Unknown action 'fly'" in unknown
    unreadable = client.error("validate_plan", session_id=sid, plan="(pick-up a")
    assert "cannot read the plan" in unreadable
    assert "session_id" in client.error("execute_action", action="(pick-up a)")
    client.call("close_session", session_id=sid)
    assert client.error("close_session", session_id=sid).endswith(": no such session")
    assert client.call("list_environments")["environments"]
