"""An engine session: seven operations on one PDDL task, for tool-using agents.

The same seven serve the agentic policy's tool calls and can be served as MCP tools.
Every operation answers with plain JSON-ready data, and bad input (unreadable PDDL, an
unknown action, a plan that cannot be read) is an answer with an ``error``, never an
exception, because a language model is the caller.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from ..pddl import PDDLError, validate
from .feedback import action_failure
from .pddl_env import PDDLEnv


@dataclass(frozen=True)
class Operation:
    """One operation: its name, the session method serving it, what it does, and its
    arguments as a JSON schema."""

    name: str
    method: str
    description: str
    parameters: dict

    def tool(self) -> dict:
        """The operation as an OpenAI-style function tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def _schema(required: tuple[str, ...] = (), **properties: str) -> dict:
    """String arguments described by ``properties``; ``required`` names the mandatory."""
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            name: {"type": "string", "description": text} for name, text in properties.items()
        },
        "required": list(required),
    }


OPERATIONS = (
    Operation(
        "start_session",
        "start",
        "Start (or restart) a session on a planning task "
        "and return its initial state and goal. Without arguments, the task at hand.",
        _schema(domain="the PDDL domain (optional)", problem="the PDDL problem (optional)"),
    ),
    Operation(
        "get_state", "state", "The facts that hold now, and whether the goal holds.", _schema()
    ),
    Operation(
        "get_applicable_actions",
        "applicable_actions",
        "Every action that can be executed now.",
        _schema(),
    ),
    Operation(
        "execute_action",
        "execute",
        "Execute one action, written as (name arg1 arg2 ...).",
        _schema(("action",), action="the action, e.g. (pick-up a)"),
    ),
    Operation("reset", "reset", "Return to the initial state; the history is cleared.", _schema()),
    Operation(
        "get_history",
        "history",
        "The actions executed since the start or the last reset.",
        _schema(),
    ),
    Operation(
        "validate_plan",
        "validate_plan",
        "Check a complete plan from the initial state "
        "without executing it: valid, or the first failing step and why.",
        _schema(("plan",), plan="the plan, one action (name args) per line"),
    ),
)
OPERATION_NAMES = tuple(op.name for op in OPERATIONS)
_BY_NAME = {op.name: op for op in OPERATIONS}


class EngineSession:
    """A PDDL task and a current state, behind the seven :data:`OPERATIONS`.

    Facts and actions are in PDDL syntax, in the names of the PDDL it was started with.
    """

    def __init__(self, domain: str | None = None, problem: str | None = None):
        self.env: PDDLEnv | None = None
        self._history: list[str] = []
        self._task_text: tuple[str, str] | None = None
        if domain is not None and problem is not None:
            self.start(domain, problem)

    # -- the seven operations --------------------------------------------------------
    def start(self, domain: str | None = None, problem: str | None = None) -> dict:
        if domain is None and problem is None:
            if self._task_text is None:
                return {"error": "no task: give the domain and the problem"}
            domain, problem = self._task_text
        elif domain is None or problem is None:
            return {"error": "give both the domain and the problem, or neither"}
        try:
            env = PDDLEnv(domain, [problem], obs_format="pddl")
            env.reset(options={"instance": 0})
        except PDDLError as exc:
            return {"error": f"cannot read the task: {exc}"}
        self.env, self._task_text, self._history = env, (domain, problem), []
        task = env.started()
        warnings = [str(w) for w in env.domain.warnings + task.problem.warnings]
        return {
            "started": True,
            "goal": env.view.goal(task),
            **self.state(),
            **({"warnings": warnings} if warnings else {}),
        }

    def state(self) -> dict:
        env = self.env
        if env is None:
            return _NOT_STARTED
        task = env.started()
        return {
            "facts": [str(fact) for fact in task.atoms(env.state)],
            "goal_reached": task.is_goal(env.state),
        }

    def applicable_actions(self) -> dict:
        env = self.env
        if env is None:
            return _NOT_STARTED
        task = env.started()
        return {"actions": env.view.admissible(task, env.state)}

    def execute(self, action: str) -> dict:
        env = self.env
        if env is None:
            return _NOT_STARTED
        _, _, _, _, info = env.step(str(action))
        error = action_failure(info)
        if error is not None:
            return {
                "executed": False,
                "error": error["kind"],
                "message": error["message"],
                "unmet": error["unmet"],
            }
        outcome = env.outcome
        assert outcome is not None and outcome.action is not None  # the step was executed
        self._history.append(env.view.command(outcome.action, env.started()))
        return {"executed": True, "goal_reached": info["won"], **self.state()}

    def reset(self) -> dict:
        env = self.env
        if env is None:
            return _NOT_STARTED
        env.reset(options={"instance": 0})
        self._history = []
        return {"reset": True, **self.state()}

    def history(self) -> dict:
        return {"actions": list(self._history)}

    def validate_plan(self, plan: str | list[str]) -> dict:
        env = self.env
        if env is None:
            return _NOT_STARTED
        try:
            report = validate(env.started(), plan)
        except PDDLError as exc:
            return {"valid": False, "error": f"cannot read the plan: {exc}"}
        return {
            "valid": report.valid,
            "failure": report.failure,
            "failed_step": report.failed_step,
            "advice": report.advice,
        }

    # -- dispatch --------------------------------------------------------------------
    def call(self, name: str, arguments: dict | None = None) -> dict:
        """Run operation ``name`` with ``arguments`` as a tool caller sends them."""
        operation = _BY_NAME.get(name)
        if operation is None:
            return {
                "error": f"unknown operation {name!r}; the operations are "
                + ", ".join(OPERATION_NAMES)
            }
        arguments = arguments or {}
        if not isinstance(arguments, dict):
            return {"error": "arguments must be a JSON object"}
        handler = getattr(self, operation.method)
        try:
            inspect.signature(handler).bind(**arguments)
        except TypeError:
            expected = inspect.signature(handler).parameters
            return {
                "error": f"{name} takes "
                + (", ".join(expected) or "no arguments")
                + f", not {', '.join(arguments) or 'nothing'}"
            }
        return handler(**arguments)


_NOT_STARTED = {"error": "no session: call start_session first"}
