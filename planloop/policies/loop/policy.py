"""The closed- and open-loop policies, composed of one strategy per switch."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

from ...envs.feedback import action_failure
from ...llm import Usage, call_model
from ...pddl import parse
from ..base import GIVE_UP, RESTART, PolicyBase
from .asking import ASKS, Ask, AskName
from .conversation import CONVERSATIONS, Conversation, ConversationName
from .feedback import FEEDBACKS, Feedback, FeedbackName
from .grounding import GROUNDINGS, Grounding, GroundingName
from .opening import OPENINGS, Opening, OpeningName

PROMPT_VERSION = "loop-v1"


@dataclass(frozen=True)
class LoopDefaults:
    """The loop's settings a study exposes, each with its one default (the horizon
    study's config takes them from :data:`DEFAULT`)."""

    feedback: FeedbackName = "cause"
    grounding: GroundingName = "per_action"
    conversation: ConversationName = "rebuild"
    ask: AskName = "next"
    opening: OpeningName = "brief"
    max_restarts: int | None = 5
    max_actions: int = 50


DEFAULT = LoopDefaults()
SWITCHES = ("feedback", "grounding", "conversation", "ask", "opening", "max_restarts")
DEFAULTS = {name: getattr(DEFAULT, name) for name in SWITCHES}  # the switches' defaults
CHOICES = {
    "feedback": tuple(FEEDBACKS),
    "grounding": tuple(GROUNDINGS),
    "conversation": tuple(CONVERSATIONS),
    "ask": tuple(ASKS),
    "opening": tuple(OPENINGS),
}

_ITEM = re.compile(r"^\s*(?:[-*]|\d+[.):])?\s*\(?\s*([A-Za-z][\w-]*)")
_NUMBERED = re.compile(r"^\s*\d+[.):]")
_ACTION_LINE = re.compile(r"^- \(([\w-]+)[^)]*\): (.+)$")
_PARAM_LINE = re.compile(r"^\s+(\?[\w-]+) \([^)]*\): (.+)$")
_Strategy = TypeVar("_Strategy")
LoopStop = Literal["action_limit", "plan_executed", "no_actions", "restart_limit"]


def describe_actions(description: str | None, actions) -> dict[str, tuple[str, dict[str, str]]]:
    """The description of each of ``actions`` and of its parameters, from a domain
    description in words (``- (name ?a): text`` lines, each followed by
    ``    ?a (type): text`` lines, as Baking-v0 writes it)."""
    found: dict[str, tuple[str, dict[str, str]]] = {}
    params: dict[str, str] | None = None
    for line in (description or "").splitlines():
        if (action := _ACTION_LINE.match(line)) and action.group(1) in actions:
            params = {}
            found.setdefault(action.group(1), (action.group(2), params))
        elif (param := _PARAM_LINE.match(line)) and params is not None:
            params[param.group(1)] = param.group(2)
        else:
            params = None
    return found


def choose(switch: str, value: str | _Strategy, strategies: Mapping[str, _Strategy]) -> _Strategy:
    """The strategy a switch's ``value`` names, or ``value`` itself when it is one."""
    if not isinstance(value, str):
        return value
    if value not in strategies:
        raise ValueError(f"{switch} must be one of {tuple(strategies)}, not {value!r}")
    return strategies[value]


class ClosedLoopPolicy(PolicyBase):
    """Horizon-``H`` closed-loop planning (``horizon=None`` asks for the whole plan).

    ``max_actions`` caps the actions executed over the whole episode (restarts
    included), ``max_restarts`` the explained restarts (None: no cap); ``feedback``,
    ``grounding``, ``conversation``, ``ask`` and ``opening`` are described in the package
    docstring: each takes a choice's name or a strategy object, and those not at their
    default are named in ``prompt_version``. ``details`` records the explanations, the
    number of proposals and why the policy stopped.
    """

    replans = True
    # one attempt's state, set by _begin_attempt()
    queue: list[str]
    trace: list[str]
    attempt: list[str]  # the actions tried in this attempt
    proposed: bool
    _last: tuple[str, str, str] | None  # action, observation, state

    def __init__(
        self,
        model,
        horizon: int | None = 1,
        max_actions: int = DEFAULT.max_actions,
        max_restarts: int | None = DEFAULT.max_restarts,
        temperature: float | None = 0.0,
        seed: int | None = None,
        feedback: FeedbackName | Feedback = DEFAULT.feedback,
        grounding: GroundingName | Grounding = DEFAULT.grounding,
        conversation: ConversationName | Conversation = DEFAULT.conversation,
        ask: AskName | Ask = DEFAULT.ask,
        opening: OpeningName | Opening = DEFAULT.opening,
    ):
        if horizon is not None and horizon < 1:
            raise ValueError(f"horizon must be at least 1 (or None for open loop), not {horizon}")
        self.feedback = choose("feedback", feedback, FEEDBACKS)
        self.grounding = choose("grounding", grounding, GROUNDINGS)
        self.conversation = choose("conversation", conversation, CONVERSATIONS)
        self.ask = choose("ask", ask, ASKS)
        self.opening = choose("opening", opening, OPENINGS)
        self.opening.check(self.conversation, self.ask)
        self.model, self.model_name = model, model.name
        self.horizon, self.max_actions, self.max_restarts = horizon, max_actions, max_restarts
        self.sampling = {"temperature": temperature, **({"seed": seed} if seed is not None else {})}
        self.name = (
            "open-loop"
            if not self.replans
            else f"closed-loop-h{'inf' if horizon is None else horizon}"
        )
        switches: dict[str, object] = {
            "feedback": self.feedback.name,
            "grounding": self.grounding.name,
            "conversation": self.conversation.name,
            "ask": self.ask.name,
            "opening": self.opening.name,
        }
        if self.replans:
            switches["max_restarts"] = max_restarts
        self.prompt_version = PROMPT_VERSION + "".join(
            f"+{key}={value}" for key, value in switches.items() if value != DEFAULTS[key]
        )
        self.usage = Usage()
        self.details: dict = {}

    # -- the step interface ----------------------------------------------------------
    def reset(self, obs: str, info: dict) -> None:
        if "domain_pddl" not in info:
            raise ValueError(
                f"{type(self).__name__} needs the task's PDDL in info "
                f"(a fully observable environment)"
            )
        self.domain, problem = parse(info["domain_pddl"], info["problem_pddl"])
        intro = info.get("domain_description") or "The domain in PDDL:\n" + info["domain_pddl"]
        self.objects = {**self.domain.constants, **problem.objects}
        self.described = describe_actions(info.get("domain_description"), self.domain.actions)
        self.goal = info.get("task", "")
        objects = ", ".join(f"{name} ({obj_type})" for name, obj_type in self.objects.items())
        self.context = self.opening.context(intro, objects, self.goal)
        self.messages = list(self.context)  # the one conversation, when it accumulates
        self.summary = (info.get("domain_description") or "").split("\n\nActions:", 1)[0]
        self.lessons: list[str] = []
        self.details = {"explanations": self.lessons, "proposals": 0, "stop": None}
        self.executed = 0
        self._begin_attempt()

    def act(self, obs: str, info: dict) -> str:
        if self._last is not None:
            action, situation, state = self._last
            self._last = None
            self.executed += 1
            self.attempt.append(action)
            failed = bool(action_failure(info)) and self.replans
            if self.feedback.traces(failed):
                self.trace.append(f"{action}: {info.get('feedback') or obs}")
            if failed:
                return self._explain_and_restart(action, situation, state, info)
        if self.executed >= self.max_actions:
            return self._stop("action_limit")
        if not self.queue:
            if self.proposed and self.horizon is None:
                return self._stop("plan_executed")
            self.queue = self._propose(obs, _state_of(obs, info))
            if not self.queue:
                return self._stop("no_actions")
        action = self.queue.pop(0)
        self._last = (action, obs, _state_of(obs, info))
        return action

    # -- what the strategies use -----------------------------------------------------
    def chat(self, question: str) -> str:
        """Ask the model ``question`` in the conversation; its reply's text."""
        reply = call_model(self.model, self.conversation.prompt(self, question), **self.sampling)
        self.usage = self.usage + reply.usage
        self.conversation.record(self, reply.text)
        return reply.text

    def describe(self, name: str) -> tuple[str, dict[str, str]]:
        """An action's description (ending in a full stop) and its parameters'."""
        return self.described.get(name) or (f"do the action {name}.", {})

    def action_list(self) -> str:
        """Every action of the domain with its description, one per line."""
        return "\n".join(f"{name}: {self.describe(name)[0]}" for name in self.domain.actions)

    def read_names(self, reply: str) -> list[tuple[str, str]]:
        """The action names a reply lists, each standing for its own instruction."""
        return [(name, name) for name, _ in self._read_steps(reply)]

    def read_numbered(self, reply: str) -> list[tuple[str, str]]:
        """The numbered steps of a reply in the study's format (a list ended by ``***``),
        each with its line."""
        return self._read_steps(reply.split("***", 1)[0], numbered=True)

    # -- steps of the loop -----------------------------------------------------------
    def _begin_attempt(self) -> None:
        self.queue = []
        self.trace = []
        self.attempt = []
        self.proposed = False
        self._last = None

    def _stop(self, reason: LoopStop) -> str:
        self.details["stop"] = reason
        return GIVE_UP

    def _propose(self, situation: str, state: str) -> list[str]:
        """Ask for the next action names, then ground each one. ``situation`` is the
        observation, ``state`` the same without the feedback on the last step (the
        study's prompts show the facts only)."""
        first = not self.proposed
        self.proposed = True
        self.details["proposals"] += 1
        steps = self.opening.propose_first(self, state) if self.details["proposals"] == 1 else None
        if steps is None:
            steps = self.ask.propose(self, situation, state, first)
        if self.horizon is not None:
            steps = steps[: self.horizon]
        chosen: list[str] = []
        for name, instruction in steps:
            chosen.append(self.grounding.ground(self, name, instruction, situation, state, chosen))
        return chosen

    def _explain_and_restart(self, action: str, situation: str, state: str, info: dict) -> str:
        if self.max_restarts is not None and len(self.lessons) >= self.max_restarts:
            return self._stop("restart_limit")
        why = self.chat(self.feedback.question(action, situation, state, self.attempt, info))
        self.lessons.append(f"{action} failed: {why.strip()}")
        self._begin_attempt()
        return RESTART

    def _read_steps(self, text: str, numbered: bool = False) -> list[tuple[str, str]]:
        """The action name of each line that names one, with the line; lines naming no
        action (or, when ``numbered``, not numbered) are skipped."""
        steps = []
        for line in text.splitlines():
            found = _ITEM.match(line)
            if (
                found
                and found.group(1).lower() in self.domain.actions
                and (not numbered or _NUMBERED.match(line))
            ):
                steps.append((found.group(1).lower(), line.strip()))
        return steps


def _state_of(obs: str, info: dict) -> str:
    """The observation without the feedback on the last step that heads it."""
    feedback = info.get("feedback") or ""
    return obs[len(feedback) :].lstrip("\n") if feedback and obs.startswith(feedback) else obs


class OpenLoopPolicy(ClosedLoopPolicy):
    """The whole sequence of action names up front, each grounded, executed with no
    feedback: the infinite-horizon end of the closed-loop study."""

    replans = False

    def __init__(
        self,
        model,
        max_actions: int = DEFAULT.max_actions,
        temperature: float | None = 0.0,
        seed: int | None = None,
        grounding: GroundingName | Grounding = DEFAULT.grounding,
        conversation: ConversationName | Conversation = DEFAULT.conversation,
        ask: AskName | Ask = DEFAULT.ask,
        opening: OpeningName | Opening = DEFAULT.opening,
    ):
        super().__init__(
            model,
            horizon=None,
            max_actions=max_actions,
            max_restarts=0,
            temperature=temperature,
            seed=seed,
            grounding=grounding,
            conversation=conversation,
            ask=ask,
            opening=opening,
        )
