"""Open-loop and closed-loop planning with a language model.

The model first names the next actions (names only), then grounds each one's arguments
from the task's objects. Closed loop with horizon H executes up to H actions, looks at
the new state and asks again; when an action fails, the model explains the failure and
the episode starts over (``RESTART``) with the explanation in context. Open loop asks
once for the whole sequence and executes it with no feedback.

Six switches choose between today's richer defaults and the horizon study's workflow
(Feng 2024, "A Study on Planning with LLMs in Relational Domains"; its settings are
``planloop.protocols.baking``), whose templates the ``PAPER_*`` and ``STUDY_*`` prompts
follow word for word:

- ``feedback``: ``cause`` shows the failed action, the state and the environment's words
  on why it failed; ``state`` only the executed actions, the state before the failure and
  the failed action (the study's explanation prompt).
- ``grounding``: ``per_action`` asks for all of an action's arguments at once;
  ``per_variable`` introduces the step, then asks one question per parameter with the
  parameter's description and the objects, read after ``Answer:`` (the study).
- ``conversation``: ``rebuild`` builds each prompt afresh (task, explanations, progress,
  question); ``accumulate`` keeps one growing conversation with every reply (the study).
- ``ask``: ``next`` asks for the next H action names (the whole plan at H = None);
  ``sequence`` asks for the whole sequence each time and executes its first H (the study).
- ``opening``: ``brief`` states the domain and the task in a system and a user message;
  ``study`` opens the conversation as the study does: the role (a household robot, for
  Baking), the kinds of objects with a summary of the domain, the starting state, then
  the goal with the actions, each turn answered (needs ``conversation="accumulate"``).
- ``max_restarts``: the cap on explained restarts; None for none.

With ``ask="sequence"`` a step is introduced by the model's own line for it; each
parameter's question lists the objects of its type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..envs.feedback import action_failure
from ..llm import Usage, call_model
from ..pddl import parse
from .base import GIVE_UP, RESTART, PolicyBase
from .extract import extract_plan

PROMPT_VERSION = "loop-v1"
DEFAULTS = {
    "feedback": "cause",
    "grounding": "per_action",
    "conversation": "rebuild",
    "ask": "next",
    "opening": "brief",
    "max_restarts": 5,
}
CHOICES = {
    "feedback": ("cause", "state"),
    "grounding": ("per_action", "per_variable"),
    "conversation": ("rebuild", "accumulate"),
    "ask": ("next", "sequence"),
    "opening": ("brief", "study"),
}

SYSTEM = (
    "You control an agent that acts in a world described below. You choose actions "
    "to reach a goal.\n\n{intro}"
)
TASK = "Objects: {objects}\n\nGoal: {goal}"
LESSONS = "What went wrong in earlier attempts:\n{lessons}"
PROGRESS = "Actions executed so far in this attempt:\n{trace}"
ASK_NEXT = (
    "Current situation:\n{situation}\n\nWhat are the next {count} actions to take? "
    "Answer with action names only, one per line, in order. If the goal already "
    "holds, answer DONE."
)
ASK_ALL = (
    "Current situation:\n{situation}\n\nWrite the whole sequence of actions that "
    "reaches the goal. Answer with action names only, one per line, in order."
)
ASK_ARGS = (
    "The next action is {name}, with parameters {params}.\nActions chosen before it "
    "in this step: {before}\nSituation when the step began:\n{situation}\n\n"
    "Which objects are its arguments? Answer with the action only, as "
    "({name} {placeholders})."
)
ASK_WHY = (
    "The action {action} failed.\nThe situation when it was tried:\n{situation}\n"
    "The environment said: {feedback}\n\nExplain in one or two sentences why it "
    "failed and what must hold before it can succeed."
)

PAPER_ASK = (
    "These are the names of the atomic actions that we can perform, along with their "
    "descriptions:\n{actions}\n\nCan you please give a sequence of these phrases that will "
    "get us to the goal? Include the exact phrase in each step of your answer. Format it "
    'using a numbered list with one line per step, starting with "1.". Give a little '
    "explanation of each step underneath each bullet point. Mark the end of the plan with "
    "'***' in your response. Please avoid {avoid} past planning mistakes."
)
PAPER_SEQUENCE = (
    "{lead}Currently, these facts are true:\n\n{situation}\n\nWe want these "
    "things to be true:\n\n{goal}\n\n" + PAPER_ASK
)
PAPER_REPLAN = (
    "Ok, thanks for the explanation. Now, let's replan to the goal from the "
    "beginning and avoid this mistake and all previous mistakes.\n\n"
)
PAPER_RECAP = (
    "Thanks. Let's think step by step what objects are associated with each of "
    "these actions.\nLet's recap what we've talked about. Currently, the following "
    "facts are true:\n\n{situation}\n\nWe want to make these facts true:\n{goal}\n\n"
    "We're thinking through a plan step-by-step to our goal. \n\n"
)
PAPER_STEP = (
    "We are about to do the next step in the plan:\n\n{instruction}\nWe need to "
    "identify the names of the specific objects involved in this action. Here are "
    "more details about how the objects involved need to relate to the action.\n"
    "{variables}"
)
PAPER_VARIABLE = (
    "We are going to {action}. Given knowledge of the current state and our "
    "planned actions, which of the following objects fits the description, "
    "{variable}?\n{objects}\nPlease explain your answer, and then answer with "
    'the object name on the last line after "Answer:".'
)
BEFORE = "Actions chosen before it in this step: {before}\n\n"
PAPER_WHY = (
    "Based on your plan, we've just executed these actions:{executed}However, the "
    "last action failed to execute properly. Before we executed the last action, the "
    "following facts were true in the environment:\n\n{state}\n\nThen, we tried "
    "executing this action:\n\n{action}\n\nHowever, executing this action failed. "
    "Please explain what happened."
)

STUDY_START = "The following things are true at this moment:\n\n{state}\n\n{reminder}"
STUDY_GOAL = (
    "These are the things that you would like to become true:\n{goal}\n\nThis "
    "state is your goal.\n\n" + PAPER_ASK
)
_GUIDANCE = (
    "More specifically, you will be given a set of facts that are currently true in "
    "the world, and a set of facts that is your goal to make true in the world. With "
    "my step-by-step guidance, you will think through how to act to achieve the goal."
)


@dataclass(frozen=True)
class Opening:
    """The study's introduction of a domain: the ``role`` turn, the ``world`` turn (over
    ``{kinds}``, the domain's types one per line, and ``{summary}``) and the ``reminder``
    after the starting state."""

    role: str
    world: str
    reminder: str


STUDY_OPENINGS = {
    "baking": Opening(
        role=(
            "You are a household robot in a kitchen. You are in front of the kitchen counter, "
            "where there are some prepared ingredients. \n\n" + _GUIDANCE
        ),
        world=(
            "In the kitchen, there different kinds of objects that you can interact with. "
            "The different kind of objects that you see are categorized into the following:"
            "\n\n{kinds}\n\nRight now, you see the some of these ingredients and items on "
            "the counter. You also see some appliances in the kitchen. \n\nTo start making a "
            "mixture for a souffle, you need to mix together egg yolk, sugar, butter, and a "
            "little bit of flour. To make a mixture for a cake, you need to mix together a "
            "whole egg, sugar, butter, more flour, and baking powder."
        ),
        reminder=(
            "As a reminder, in the kitchen, the pans, measuring cups, and bowls are on the "
            "counter, and the oven(s) is (are) behind the counter. If you are baking "
            "desserts, please rationalize what are the essential ingredients and their "
            "amounts to make those desserts and use only those. Once an ingredient is used "
            "once, it can't be reused.\n\nYou should have all of the ingredients that you "
            "need on the counter prepared for you. I'll let you know what desserts you will "
            "make shortly."
        ),
    )
}
GENERIC_OPENING = Opening(
    role="You are a robot that acts in a world of objects.\n\n" + _GUIDANCE,
    world=(
        "In this world, there are different kinds of objects that you can interact with. "
        "They are categorized into the following:\n\n{kinds}{summary}"
    ),
    reminder="I'll let you know what the goal is shortly.",
)

_ITEM = re.compile(r"^\s*(?:[-*]|\d+[.):])?\s*\(?\s*([A-Za-z][\w-]*)")
_NUMBERED = re.compile(r"^\s*\d+[.):]")
_ACTION_LINE = re.compile(r"^- \(([\w-]+)[^)]*\): (.+)$")
_PARAM_LINE = re.compile(r"^\s+(\?[\w-]+) \([^)]*\): (.+)$")


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


class ClosedLoopPolicy(PolicyBase):
    """Horizon-``H`` closed-loop planning (``horizon=None`` asks for the whole plan).

    ``max_actions`` caps the actions executed over the whole episode (restarts
    included), ``max_restarts`` the explained restarts (None: no cap); ``feedback``,
    ``grounding``, ``conversation``, ``ask`` and ``opening`` are described in the module
    docstring,
    and those not at their default are named in ``prompt_version``. ``details`` records
    the explanations, the number of proposals and why the policy stopped.
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
        max_actions: int = 50,
        max_restarts: int | None = 5,
        temperature: float | None = 0.0,
        seed: int | None = None,
        feedback: str = "cause",
        grounding: str = "per_action",
        conversation: str = "rebuild",
        ask: str = "next",
        opening: str = "brief",
    ):
        if horizon is not None and horizon < 1:
            raise ValueError(f"horizon must be at least 1 (or None for open loop), not {horizon}")
        switches = {
            "feedback": feedback,
            "grounding": grounding,
            "conversation": conversation,
            "ask": ask,
            "opening": opening,
        }
        for key, value in switches.items():
            if value not in CHOICES[key]:
                raise ValueError(f"{key} must be one of {CHOICES[key]}, not {value!r}")
        if opening == "study" and (conversation, ask) != ("accumulate", "sequence"):
            raise ValueError(
                "opening='study' opens the study's conversation: it needs "
                "conversation='accumulate' and ask='sequence'"
            )
        self.model, self.model_name = model, model.name
        self.horizon, self.max_actions, self.max_restarts = horizon, max_actions, max_restarts
        self.feedback, self.grounding, self.conversation, self.ask, self.opening = switches.values()
        self.sampling = {"temperature": temperature, **({"seed": seed} if seed is not None else {})}
        self.name = (
            "open-loop"
            if not self.replans
            else f"closed-loop-h{'inf' if horizon is None else horizon}"
        )
        changed = {**switches, "max_restarts": max_restarts} if self.replans else switches
        self.prompt_version = PROMPT_VERSION + "".join(
            f"+{key}={value}" for key, value in changed.items() if value != DEFAULTS[key]
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
        self.context = (
            []
            if self.opening == "study"
            else [
                {"role": "system", "content": SYSTEM.format(intro=intro)},
                {"role": "user", "content": TASK.format(objects=objects, goal=self.goal)},
            ]
        )
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
            failed = action_failure(info) and self.replans
            if not (failed and self.feedback == "state"):  # the cause stays unseen
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

    # -- steps of the loop -----------------------------------------------------------
    def _begin_attempt(self) -> None:
        self.queue = []
        self.trace = []
        self.attempt = []
        self.proposed = False
        self._last = None

    def _stop(self, reason: str) -> str:
        self.details["stop"] = reason
        return GIVE_UP

    def _propose(self, situation: str, state: str) -> list[str]:
        """Ask for the next action names, then ground each one. ``situation`` is the
        observation, ``state`` the same without the feedback on the last step (the
        study's prompts show the facts only)."""
        first = not self.proposed
        self.proposed = True
        self.details["proposals"] += 1
        if self.opening == "study" and self.details["proposals"] == 1:
            self._open_study(state)
            reply = self._ask(
                STUDY_GOAL.format(goal=self.goal, actions=self._action_list(), avoid="any")
            )
            steps = self._read_steps(reply.split("***", 1)[0], numbered=True)
        elif self.ask == "sequence":
            reply = self._ask(
                PAPER_SEQUENCE.format(
                    lead=PAPER_REPLAN if self.lessons and first else "",
                    situation=state,
                    goal=self.goal,
                    actions=self._action_list(),
                    avoid="all" if self.lessons and first else "any",
                )
            )
            steps = self._read_steps(reply.split("***", 1)[0], numbered=True)
        else:
            ask = (
                ASK_ALL.format(situation=situation)
                if self.horizon is None
                else ASK_NEXT.format(situation=situation, count=self.horizon)
            )
            steps = [(name, name) for name, _ in self._read_steps(self._ask(ask))]
        if self.horizon is not None:
            steps = steps[: self.horizon]
        chosen: list[str] = []
        for name, instruction in steps:
            chosen.append(
                self._ground_per_variable(name, instruction, state, chosen)
                if self.grounding == "per_variable"
                else self._ground(name, situation, chosen)
            )
        return chosen

    def _open_study(self, state: str) -> None:
        """The study's first turns: the role, the kinds of objects, the starting state."""
        opening = STUDY_OPENINGS.get(self.domain.name, GENERIC_OPENING)
        kinds = "\n".join(kind.replace("-", " ") for kind in self.domain.types if kind != "object")
        self._ask(opening.role)
        self._ask(opening.world.format(kinds=kinds, summary=self.summary and "\n\n" + self.summary))
        self._ask(STUDY_START.format(state=state, reminder=opening.reminder))

    def _ground(self, name: str, situation: str, before: list[str]) -> str:
        action = self.domain.actions[name]
        if not action.params:
            return f"({name})"
        params = ", ".join(f"{p.name} - {' or '.join(p.types)}" for p in action.params)
        placeholders = " ".join(p.name.lstrip("?") for p in action.params)
        reply = self._ask(
            ASK_ARGS.format(
                name=name,
                params=params,
                situation=situation,
                before=", ".join(before) or "none",
                placeholders=placeholders,
            )
        )
        steps = [s for s in extract_plan(reply) if s[1:].split(" ", 1)[0] == name]
        if steps:
            return steps[0]
        words = reply.replace("(", " ").replace(")", " ").split()
        return "(" + " ".join([name] + [w.lower() for w in words if w.lower() != name]) + ")"

    def _ground_per_variable(
        self, name: str, instruction: str, state: str, before: list[str]
    ) -> str:
        """The study's grounding: the step in context (a turn of its own when the
        conversation accumulates, the head of each question when it is rebuilt), then
        one question per parameter, over the objects of its type."""
        action = self.domain.actions[name]
        text, described = self._describe(name)
        variables = [
            described.get(p.name) or f"the parameter {p.name} ({' or '.join(p.types)})"
            for p in action.params
        ]
        step = PAPER_STEP.format(instruction=instruction, variables="\n".join(variables))
        if self.conversation == "accumulate":
            recap = PAPER_RECAP.format(situation=state, goal=self.goal) if not before else ""
            self._ask(recap + step)
            head = ""
        else:
            head = (
                PAPER_RECAP.format(situation=state, goal=self.goal)
                + step
                + "\n"
                + BEFORE.format(before=", ".join(before) or "none")
            )
        args = []
        for param, variable in zip(action.params, variables, strict=True):
            objects = [
                name
                for name, kind in self.objects.items()
                if self.domain.is_subtype(kind, param.types)
            ] or list(self.objects)
            reply = self._ask(
                head
                + PAPER_VARIABLE.format(
                    action=text[:-1].lower(), variable=variable, objects="\n".join(objects)
                )
            )
            answer = reply.rsplit("Answer:", 1)[-1].strip().splitlines() or [""]
            args.append(answer[0].strip(" .`*\"'()").lower())
        return "(" + " ".join([name, *args]) + ")"

    def _explain_and_restart(self, action: str, situation: str, state: str, info: dict) -> str:
        if self.max_restarts is not None and len(self.lessons) >= self.max_restarts:
            return self._stop("restart_limit")
        if self.feedback == "state":
            executed = "".join(f"\n{i}. {step}" for i, step in enumerate(self.attempt, 1))
            question = PAPER_WHY.format(executed=executed + "\n", state=state, action=action)
        else:
            question = ASK_WHY.format(
                action=action, situation=situation, feedback=info.get("feedback", "")
            )
        why = self._ask(question)
        self.lessons.append(f"{action} failed: {why.strip()}")
        self._begin_attempt()
        return RESTART

    def _ask(self, question: str) -> str:
        if self.conversation == "accumulate":
            self.messages.append({"role": "user", "content": question})
            messages = list(self.messages)
        else:
            messages = list(self.context)
            if self.lessons:
                messages.append(
                    {
                        "role": "user",
                        "content": LESSONS.format(
                            lessons="\n".join(f"- {lesson}" for lesson in self.lessons)
                        ),
                    }
                )
            if self.trace:
                messages.append(
                    {"role": "user", "content": PROGRESS.format(trace="\n".join(self.trace))}
                )
            messages.append({"role": "user", "content": question})
        reply = call_model(self.model, messages, **self.sampling)
        self.usage = self.usage + reply.usage
        if self.conversation == "accumulate":
            self.messages.append({"role": "assistant", "content": reply.text})
        return reply.text

    def _describe(self, name: str) -> tuple[str, dict[str, str]]:
        """An action's description (ending in a full stop) and its parameters'."""
        return self.described.get(name) or (f"do the action {name}.", {})

    def _action_list(self) -> str:
        return "\n".join(f"{name}: {self._describe(name)[0]}" for name in self.domain.actions)

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
        max_actions: int = 50,
        temperature: float | None = 0.0,
        seed: int | None = None,
        grounding: str = "per_action",
        conversation: str = "rebuild",
        ask: str = "next",
        opening: str = "brief",
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
