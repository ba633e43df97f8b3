"""The MCP server: the engine session's operations as typed tools (``mcp`` extra)."""

from typing import Annotated, Any, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..envs.session import OPERATIONS
from .sandbox import shorten
from .sessions import SessionError, SessionRegistry

INSTRUCTIONS = (
    "Planning tasks as tools. start_session opens a session on a registered "
    "environment (list_environments) or on PDDL text and returns its session_id; "
    "every other tool takes that id. Execute actions one at a time until the goal "
    "is reached, reset to start again, validate a complete plan before trusting it."
)
_DESCRIPTION = {op.name: op.description for op in OPERATIONS}

SessionId = Annotated[str, Field(description="the id start_session returned")]


class Environment(TypedDict):
    env_id: str
    fully_observable: Annotated[
        bool, Field(description="a session's state is then PDDL facts, else the observation")
    ]
    description: str


class Environments(TypedDict):
    environments: list[Environment]


class State(TypedDict):
    """The state: PDDL facts, or a text environment's observation."""

    facts: NotRequired[list[str]]
    observation: NotRequired[str]
    goal_reached: bool


class Started(State):
    session_id: str
    env_id: str | None
    goal: str
    instance: NotRequired[int]
    domain: NotRequired[str]
    problem: NotRequired[str]


class Actions(TypedDict):
    actions: list[str]


class Verdict(TypedDict):
    valid: bool
    failure: Annotated[
        str | None,
        Field(description="precondition, bad_action, goal or (text environments) episode_over"),
    ]
    failed_step: Annotated[int | None, Field(description="the first failing step, from 1")]
    advice: str


class Closed(TypedDict):
    session_id: str
    closed: bool


def build_server(registry: SessionRegistry | None = None) -> MCPServer:
    """A server whose tools act on ``registry`` (a new one by default)."""
    registry = SessionRegistry() if registry is None else registry
    server = MCPServer("planloop", instructions=INSTRUCTIONS)

    def answer(call, *args, **kwargs) -> Any:
        try:
            return call(*args, **kwargs)
        except SessionError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # a fault of ours: say what, quoting little
            raise ToolError(f"{type(exc).__name__}: {shorten(str(exc))}") from exc

    @server.tool(description="The registered environments a session can be started on.")
    def list_environments() -> Environments:
        # environments() builds exactly this shape (the other tools' answers are Any)
        return cast(Environments, registry.environments())

    @server.tool(
        description="Start a session on a registered environment (env_id, with "
        "instance, seed, options, env_kwargs) or on PDDL text (domain and problem). "
        "Returns the session_id, the goal and the initial state."
    )
    def start_session(
        env_id: Annotated[str | None, Field(description="a registered environment id")] = None,
        instance: Annotated[int | None, Field(description="the instance to play")] = None,
        seed: Annotated[int | None, Field(description="the reset seed")] = None,
        options: Annotated[dict[str, Any] | None, Field(description="reset options")] = None,
        env_kwargs: Annotated[
            dict[str, Any] | None, Field(description="keyword arguments for gym.make")
        ] = None,
        domain: Annotated[str | None, Field(description="a PDDL domain")] = None,
        problem: Annotated[str | None, Field(description="a PDDL problem")] = None,
    ) -> Started:
        return answer(registry.start, env_id, instance, seed, options, env_kwargs, domain, problem)

    @server.tool(description=_DESCRIPTION["get_state"])
    def get_state(session_id: SessionId) -> State:
        return answer(registry.run, session_id, "state")

    @server.tool(description=_DESCRIPTION["get_applicable_actions"])
    def get_applicable_actions(session_id: SessionId) -> Actions:
        return answer(registry.run, session_id, "applicable_actions")

    @server.tool(
        description="Execute one action: (name arg1 ...) in a PDDL session, a "
        "command in a text environment. An action that cannot run is an error "
        "that says why."
    )
    def execute_action(
        session_id: SessionId, action: Annotated[str, Field(description="the action")]
    ) -> State:
        return answer(registry.run, session_id, "execute", action=action)

    @server.tool(description=_DESCRIPTION["reset"])
    def reset(session_id: SessionId) -> State:
        return answer(registry.run, session_id, "reset")

    @server.tool(description=_DESCRIPTION["get_history"])
    def get_history(session_id: SessionId) -> Actions:
        return answer(registry.run, session_id, "history")

    @server.tool(description=_DESCRIPTION["validate_plan"])
    def validate_plan(
        session_id: SessionId,
        plan: Annotated[
            list[str] | str, Field(description="the actions, as a list or one per line")
        ],
    ) -> Verdict:
        return answer(registry.run, session_id, "validate_plan", plan=plan)

    @server.tool(description="Close a session and free it.")
    def close_session(session_id: SessionId) -> Closed:
        return answer(registry.close, session_id)

    return server
