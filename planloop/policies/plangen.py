"""PlanGen: the language model as planner on text games, PDDLego+'s baseline. Each
step, the model picks the next command from the task, the history and the valid
commands."""

from __future__ import annotations

from ..formalizer.extract import json_objects
from ..llm import Usage, call_model

PROMPT_VERSION = "plangen/v1"
SYSTEM = "You play a text game. Choose one command at a time to complete the task."
USER = """Your task: {task}

Everything so far (your commands after '>'):
{history}

Commands the game accepts now: {valid}

Answer with JSON only: {{"action": "<one command>"}}."""


def read_command(text: str, valid: list[str]) -> str:
    """The command in a reply: the ``action`` of a JSON object, else the reply's first
    line; a valid command written with other case or spacing is matched to it."""
    chosen = next(
        (value["action"] for value in json_objects(text) if isinstance(value.get("action"), str)),
        None,
    )
    if chosen is None:
        lines = [line for line in (raw.strip(" `'\"") for raw in text.splitlines()) if line]
        chosen = lines[0] if lines else ""
    wanted = " ".join(chosen.lower().split())
    return next((c for c in valid if " ".join(c.lower().split()) == wanted), chosen.strip())


class PlanGenPolicy:
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
