"""Step-wise agentic tool use: the model drives an engine session through tool calls.

Queries (state, applicable actions, history, plan validation) are answered from an
:class:`~planloop.envs.session.EngineSession` built from the task the agent sees.
``execute_action`` is played in the real environment through the runner (and mirrored
in the session); ``reset`` and a restarting ``start_session`` become ``RESTART``.

Switches choose between today's defaults and the protocol of the agentic step-wise
planning paper (PyPDDLEngine, "Agentic LLM Planning via Step-Wise PDDL Simulation: An
Empirical Characterisation", arXiv 2603.06064): ``max_model_calls=None`` and
``max_tool_calls=None``, no cap on calls (the paper has none); ``seconds``, a
wall-clock budget ("a uniform 180-second budget"); ``end_on_valid_plan``, which ends the
episode when ``validate_plan`` confirms a plan ("Interaction continues until
validate_complete_plan confirms a valid plan or the 180-second wall-clock budget is
exhausted"; the plan is then played in the environment, which judges it); and
``feedback``: ``cause`` answers ``execute_action`` with the environment's words and the
unmet facts of a failure, ``outcome`` with a success flag (and on success the state and
whether the goal holds) only ("The per-step confirmation tells the agent only that an
action was applicable").

The sentence of a ``ProgressFeedback`` wrapper (``info["progress"]``) reaches the
model with each answer from the environment, in the observation or beside it.
"""

from __future__ import annotations

import json
import time
from typing import Literal, get_args

from ..envs.session import OPERATIONS, EngineSession
from ..llm import LLMError, Usage, call_model
from ..pddl import parse_plan
from .base import GIVE_UP, RESTART, PolicyBase

PROMPT_VERSION = "agentic-v1"
SYSTEM = (
    "You solve planning tasks by calling tools on a planning engine. The engine holds "
    "the task below and its current state. Inspect the state and the applicable "
    "actions, execute actions one at a time until the goal holds, reset when you are "
    "stuck, and validate a complete plan before trusting it. When the goal is reached, "
    "or if you are convinced the task is unsolvable, stop calling tools and say so "
    "(the word UNSOLVABLE ends the task as unsolvable)."
)
VALIDATED_ENDS = " The task ends as soon as validate_plan confirms a complete plan."
USER = "{intro}\n\nProblem (PDDL):\n{problem}\n\nGoal: {goal}"
TOOLS = [op.tool() for op in OPERATIONS]
AgenticFeedback = Literal["cause", "outcome"]
AgenticStop = Literal["finished", "unsolvable", "budget", "timeout", "validated", "model_error"]


class AgenticPolicy(PolicyBase):
    """Tool calls over the seven session operations, within ``max_model_calls``,
    ``max_tool_calls`` and ``seconds`` of wall-clock time from ``reset`` (None: no
    limit, but not all three). ``details["stop"]`` says why it stopped: ``finished``
    (the model stopped calling tools), ``unsolvable`` (it declared the task so),
    ``budget`` (calls), ``timeout`` (seconds), ``validated`` (``end_on_valid_plan``;
    ``details["plan"]`` holds the plan) or ``model_error`` (a call failed for good,
    raised for the runner to record); None while it plays on, until the environment
    ends the episode. ``temperature=None`` leaves it to the provider. Switches not at
    their default are named in ``prompt_version``."""

    name = "agentic"

    def __init__(
        self,
        model,
        max_model_calls: int | None = 60,
        max_tool_calls: int | None = 200,
        temperature: float | None = 0.0,
        seconds: float | None = None,
        end_on_valid_plan: bool = False,
        feedback: AgenticFeedback = "cause",
    ):
        if feedback not in get_args(AgenticFeedback):
            raise ValueError(f"feedback must be 'cause' or 'outcome', not {feedback!r}")
        if max_model_calls is None and max_tool_calls is None and seconds is None:
            raise ValueError("with no cap on calls, give seconds")
        self.model, self.model_name = model, model.name
        self.max_model_calls, self.max_tool_calls = max_model_calls, max_tool_calls
        self.temperature = temperature
        self.seconds, self.end_on_valid_plan, self.feedback = seconds, end_on_valid_plan, feedback
        self.prompt_version = (
            PROMPT_VERSION
            + (f"+seconds={seconds:g}" if seconds is not None else "")
            + ("+end_on_valid_plan" if end_on_valid_plan else "")
            + (f"+feedback={feedback}" if feedback != "cause" else "")
        )
        self.usage = Usage()
        self.details: dict = {}

    def reset(self, obs: str, info: dict) -> None:
        if "domain_pddl" not in info:
            raise ValueError(
                "AgenticPolicy needs the task's PDDL in info (a fully observable environment)"
            )
        self.session = EngineSession(info["domain_pddl"], info["problem_pddl"])
        intro = info.get("domain_description") or "Domain (PDDL):\n" + info["domain_pddl"]
        system = SYSTEM + (VALIDATED_ENDS if self.end_on_valid_plan else "")
        self.messages = [
            {"role": "system", "content": system},
            {
                "role": "user",
                "content": USER.format(
                    intro=intro, problem=info["problem_pddl"], goal=info.get("task", "")
                ),
            },
        ]
        self.pending: list = []  # tool calls of the last reply not yet answered
        # the call answered by the environment's next observation: (call id, command or None)
        self.awaiting: tuple[str, str | None] | None = None
        self.replay: list[str] = []  # what is left to play of a validated plan
        self.deadline = None if self.seconds is None else time.monotonic() + self.seconds
        self.details = {"stop": None, "model_calls": 0, "tool_calls": 0}

    def act(self, obs: str, info: dict) -> str:
        if self.details["stop"] == "validated":
            return self._replay()
        if self.awaiting is not None:
            self._answer_from_env(self.awaiting, obs, info)
        while True:
            while self.pending:
                command = self._dispatch(self.pending.pop(0))
                if command is not None:
                    return command
            if _reached(self.details["model_calls"], self.max_model_calls) or _reached(
                self.details["tool_calls"], self.max_tool_calls
            ):
                return self._stop("budget")
            if self._timed_out():
                return self._stop("timeout")
            try:
                reply = call_model(
                    self.model, self.messages, tools=TOOLS, temperature=self.temperature
                )
            except LLMError:
                self.details["stop"] = "model_error"
                raise
            self.usage = self.usage + reply.usage
            self.details["model_calls"] += 1
            if self._timed_out():  # a reply that came too late is not acted on
                return self._stop("timeout")
            self.messages.append(_assistant_message(reply))
            if not reply.tool_calls:
                return self._stop(
                    "unsolvable" if "unsolvable" in reply.text.lower() else "finished"
                )
            self.pending = list(reply.tool_calls)

    # -- tool calls ------------------------------------------------------------------
    def _dispatch(self, call) -> str | None:
        """Answer ``call`` now, or return the command the runner must play for it."""
        self.details["tool_calls"] += 1
        try:
            arguments = json.loads(call.arguments or "{}")
        except json.JSONDecodeError as exc:
            self._reply(call.id, {"error": f"arguments are not valid JSON: {exc}"})
            return None
        if (
            call.name == "execute_action"
            and isinstance(arguments, dict)
            and isinstance(arguments.get("action"), str)
        ):
            self.awaiting = (call.id, arguments["action"])
            return arguments["action"]
        if call.name == "start_session" and arguments:
            self._reply(
                call.id,
                {
                    "error": "this session holds the task at hand; call "
                    "start_session without arguments"
                },
            )
            return None
        moved = bool(self.session.history()["actions"])
        if arguments == {} and (call.name == "reset" or (call.name == "start_session" and moved)):
            self.awaiting = (call.id, None)
            return RESTART
        result = self.session.call(call.name, arguments)
        self._reply(call.id, result)
        if self.end_on_valid_plan and call.name == "validate_plan" and result.get("valid"):
            return self._play(arguments["plan"], moved)
        return None

    def _play(self, plan: str | list[str], moved: bool) -> str:
        """End on a validated plan: play it from the start in the environment."""
        self.details["stop"] = "validated"
        self.details["plan"] = [str(step) for step in parse_plan(plan)]
        self.replay = [RESTART] * moved + self.details["plan"]
        return self._replay()

    def _replay(self) -> str:
        """The validated plan's next command; GIVE_UP once it is played."""
        return self.replay.pop(0) if self.replay else GIVE_UP

    def _answer_from_env(self, awaiting: tuple[str, str | None], obs: str, info: dict) -> None:
        call_id, action = awaiting
        self.awaiting = None
        if action is None:
            result = self.session.reset()
        else:
            result = self.session.execute(action)
            if self.feedback == "cause":
                result["observation"] = obs
            elif not result["executed"]:
                result = {"executed": False}
        if "progress" in info and "observation" not in result:  # ProgressFeedback's sentence
            result["progress"] = info["progress"]
        self._reply(call_id, result)

    def _reply(self, call_id: str, result: dict) -> None:
        self.messages.append(
            {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}
        )

    def _timed_out(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _stop(self, reason: AgenticStop) -> str:
        self.details["stop"] = reason
        return GIVE_UP


def _reached(count: int, cap: int | None) -> bool:
    return cap is not None and count >= cap


def _assistant_message(reply) -> dict:
    message = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return message
