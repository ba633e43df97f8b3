"""PlanGen: the language model as planner on text games, PDDLego+'s baseline. Each
step, the model picks the next command from the task, the history and the valid
commands: planloop's :class:`PlanGenPolicy` (every command a step, refused ones too), or
:class:`PlanGenStepsPolicy`, the baseline as its authors' code runs it (a refused
command is retried, each try restarting the game)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Literal, get_args

from ..envs.feedback import action_failure
from ..formalizer.extract import json_objects
from ..formalizer.templates import PromptTemplate, TemplateFields
from ..llm import LLMError, Usage, call_model
from .base import GIVE_UP, RESTART, PolicyBase

PROMPT_VERSION = "plangen/v1"
SYSTEM = "You play a text game. Choose one command at a time to complete the task."
USER = """Your task: {task}

Everything so far (your commands after '>'):
{history}

Commands the game accepts now: {valid}

Answer with JSON only: {{"action": "<one command>"}}."""


def json_commands(value: object) -> list[str] | None:
    """The commands a reply's JSON value names: an object's ``action`` (one command), or
    its ``actions``, a list of commands (the form PDDLego+'s authors' PlanGen prompt
    asks for); None when it names neither."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("action"), str):
        return [value["action"].strip()]
    actions = value.get("actions")
    if isinstance(actions, list) and all(isinstance(a, str) for a in actions):
        return [a.strip() for a in actions]
    return None


def read_command(text: str, valid: list[str]) -> str:
    """The command in a reply: the first command a JSON object names (:func:`json_commands`),
    else the reply's first line; a valid command written with other case or spacing is
    matched to it."""
    chosen = next(
        (named[0] for value in json_objects(text) if (named := json_commands(value))), None
    )
    if chosen is None:
        lines = [line for line in (raw.strip(" `'\"") for raw in text.splitlines()) if line]
        chosen = lines[0] if lines else ""
    wanted = " ".join(chosen.lower().split())
    return next((c for c in valid if " ".join(c.lower().split()) == wanted), chosen.strip())


class PlanGenPolicy(PolicyBase):
    """One model call per step; the whole trajectory is in every prompt. A reply that
    names no valid command is sent as written, and the game's answer is in the history."""

    name = "plangen"
    prompt_version = PROMPT_VERSION

    def __init__(self, model, **params):
        self.model, self.params = model, params
        self.model_name = model.name
        self.usage = Usage()
        self.details: dict = {}

    def reset(self, obs: str, info: dict) -> None:
        self.task = str(info.get("task", ""))
        self.history = [obs]
        self.last: str | None = None

    def act(self, obs: str, info: dict) -> str:
        if self.last is not None:
            self.history.append(f"> {self.last}\n{obs}")
        valid = list(info.get("admissible_actions") or ())
        prompt = USER.format(
            task=self.task, history="\n".join(self.history), valid=", ".join(valid)
        )
        reply = call_model(
            self.model,
            [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
            **self.params,
        )
        self.usage = self.usage + reply.usage
        self.last = read_command(reply.text, valid)
        return self.last


STEPS_VERSION = "plangen/steps/v1"
STEPS_FIELDS = TemplateFields(
    {
        "task": "the task in words",
        "memory": "the first observation, then '> command' and the game's answer for each "
        "command of the steps that ran through",
        "latest": "what the game shows now: the last '> command' and its answer (at the "
        "start, the first observation)",
        "commands": "the game's commands at the start (less look, inventory and help), "
        "comma-separated",
        "error": "the answer to the command the game refused, which the step's next try "
        "answers; empty otherwise",
    },
    required="latest",
)
STEPS_PROMPT = PromptTemplate(
    """You play a text game, one command at a time.
Your task: {task}

The steps that ran through so far (your commands after '>'):
{memory}

What you see now:
{latest}

Commands of the game: {commands}
{if error}
{error}
{end}
Answer with JSON only: {"action": "<one command>"}.""",
    "plangen-steps",
    STEPS_FIELDS,
)
NOT_OFFERED = ("look", "look around", "inventory", "help")
Replies = Literal["lenient", "json"]
_FENCE = re.compile(r"```[ \t]*[\w-]*[ \t]*\n(.*?)```", re.DOTALL)


def read_json_commands(text: str) -> list[str]:
    """The commands of a reply that is one JSON object (after its ``</think>`` block;
    bare, or the first fenced block), as PDDLego+'s code reads a reply: its ``action``
    (``{"action": "move north"}``) or its list of ``actions`` (``{"actions": ["move
    north"]}``, possibly empty); anything else is an LLMError of kind
    ``unreadable_reply``."""
    answer = text.rsplit("</think>", 1)[-1]
    fenced = _FENCE.search(answer)
    try:
        value = json.loads((fenced.group(1) if fenced else answer).strip())
    except ValueError:
        value = None
    commands = json_commands(value)
    if commands is None:
        raise LLMError(
            "unreadable_reply", "the reply is not a JSON object with an action or a list of actions"
        )
    return commands


class PlanGenStepsPolicy(PolicyBase):
    """PlanGen as PDDLego+'s authors' code runs it. A *step* is one model call and the
    command it names (the prompt asks for one); a command the game refuses ends the try
    and the step is tried again, up to ``max_simulation_retries`` times (then the episode
    ends), each try after the first restarting the game (``RESTART``) and replaying the
    commands of the steps that ran through when ``rollback`` (without it, the game goes
    on from where it is); at most ``max_steps`` steps (None: no cap).

    A reply listing several commands (``{"actions": [...]}``) has them played in order
    as one step, as the authors' code plays the list it reads: the step ran through when
    all did, and a refused one ends the try (without ``rollback`` the ones before it
    stay played, and join the steps that ran through); a list naming none ends the
    episode, as their code ends the game.

    The prompt is one user message, ``template`` (:data:`STEPS_PROMPT` unless given, its
    fields :data:`STEPS_FIELDS`): the task, the steps that ran through, the last command
    and the game's answer, the commands valid at the start (as the authors' prompt lists
    them) and, after a refusal, ``explain_refusal(command, game_text)`` (default: the
    game's answer). ``replies="json"`` reads a reply as their code does
    (:func:`read_json_commands`). ``details["tries"]`` is PDDLego+'s record, per step one
    ``[try, 0]`` pair per try (no solver); ``details["stop"]`` says why it gave up."""

    name = "plangen"

    def __init__(
        self,
        model,
        max_simulation_retries: int = 4,
        max_steps: int | None = 20,
        rollback: bool = True,
        explain_refusal: Callable[[str, str], str] | None = None,
        replies: Replies = "lenient",
        template: PromptTemplate | None = None,
        **params,
    ):
        if replies not in get_args(Replies):
            raise ValueError(f"replies must be 'lenient' or 'json', not {replies!r}")
        self.model, self.params = model, params
        self.model_name = model.name
        self.max_simulation, self.max_steps, self.rollback = (
            max_simulation_retries,
            max_steps,
            rollback,
        )
        self.explain_refusal, self.replies = explain_refusal, replies
        self.template = template or STEPS_PROMPT
        self.prompt_version = STEPS_VERSION if template is None else template.version
        self.usage = Usage()
        self.details: dict = {}

    def reset(self, obs: str, info: dict) -> None:
        self.task = str(info.get("task", ""))
        offered = info.get("admissible_actions") or ()
        self.commands = sorted(c for c in offered if c not in NOT_OFFERED)
        self.memory, self.latest = [obs], obs
        self.error: str | None = None  # the refusal the step's next try answers
        self.committed: list[str] = []  # the commands of the steps that ran through
        self.ran: list[tuple[str, str]] = []  # this try's commands that ran, and their text
        self.queue: list[str] = []  # the rest of this try's commands
        self.sent: str | None = None
        self.replay: list[str] | None = None  # after a RESTART
        self.tries: list[list[list[int]]] = []
        self.details = {"tries": self.tries, "stop": None}

    def act(self, obs: str, info: dict) -> str:
        if self.sent is not None:
            self._observe(obs, info)
            if self.replay is not None:
                return RESTART
        if self.replay:
            return self.replay.pop(0)
        self.replay = None
        if self.queue:
            self.sent = self.queue.pop(0)
            return self.sent
        new_step = self.error is None
        if new_step and self.max_steps is not None and len(self.tries) >= self.max_steps:
            self.details["stop"] = f"step limit: {self.max_steps} steps"
        if self.details["stop"] is not None:
            return GIVE_UP
        if new_step:
            self.tries.append([])
        self.tries[-1].append([len(self.tries[-1]) + 1, 0])
        prompt = self.template.render(
            {
                "task": self.task,
                "memory": "\n".join(self.memory),
                "latest": self.latest,
                "commands": ", ".join(self.commands),
                "error": self.error or "",
            }
        )
        reply = call_model(self.model, [{"role": "user", "content": prompt}], **self.params)
        self.usage = self.usage + reply.usage
        commands = (
            read_json_commands(reply.text)
            if self.replies == "json"
            else [read_command(reply.text, list(info.get("admissible_actions") or ()))]
        )
        if not commands:
            self.details["stop"] = "the reply named no command"
            return GIVE_UP
        self.sent, *self.queue = commands
        return self.sent

    def finish(self, obs: str, info: dict) -> None:
        """The last command's outcome (a winning step ran through)."""
        if self.sent is not None:
            self._observe(obs, info)

    def _observe(self, obs: str, info: dict) -> None:
        command, self.sent = str(self.sent), None
        self.latest = f"> {command}\n{obs}"
        if action_failure(info) is None:
            self.ran.append((command, self.latest))
            if not self.queue:  # the step ran through
                self._commit()
                self.error = None
            return
        self.queue = []
        if self.rollback:
            self.ran = []  # undone by the restart
        else:
            self._commit()
        self.error = (
            self.explain_refusal(command, obs)
            if self.explain_refusal
            else f"The game refused '{command}': {obs.strip()}"
        )
        if len(self.tries[-1]) > self.max_simulation:
            self.details["stop"] = (
                f"simulation error not fixed after {self.max_simulation} retries: {self.error}"
            )
        elif self.rollback:
            self.replay = list(self.committed)

    def _commit(self) -> None:
        """This try's commands that ran join the steps that ran through."""
        self.memory += [text for _, text in self.ran]
        self.committed += [command for command, _ in self.ran]
        self.ran = []
