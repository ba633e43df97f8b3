"""The ``grounding`` switch: how a chosen action name gets its arguments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, Protocol

from ..extract import extract_plan
from .prompts import ASK_ARGS, PAPER_RECAP, PAPER_STEP, PAPER_VARIABLE

if TYPE_CHECKING:
    from .context import LoopContext

GroundingName = Literal["per_action", "per_variable"]


class Grounding(Protocol):
    @property
    def name(self) -> str: ...

    def ground(
        self,
        loop: LoopContext,
        name: str,
        instruction: str,
        situation: str,
        state: str,
        before: list[str],
    ) -> str:
        """The command for action ``name`` (``instruction``: the model's line that named
        it), ``before``: the commands chosen earlier in this proposal; ``situation`` is
        the observation, ``state`` the same without the last step's feedback."""
        ...


class PerActionGrounding:
    """``per_action``: one question for all of an action's arguments (today's default)."""

    name: Literal["per_action"] = "per_action"

    def ground(
        self,
        loop: LoopContext,
        name: str,
        instruction: str,
        situation: str,
        state: str,
        before: list[str],
    ) -> str:
        action = loop.domain.actions[name]
        if not action.params:
            return f"({name})"
        params = ", ".join(f"{p.name} - {' or '.join(p.types)}" for p in action.params)
        placeholders = " ".join(p.name.lstrip("?") for p in action.params)
        reply = loop.chat(
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


class PerVariableGrounding:
    """``per_variable``: the study's: the step in context (as the conversation puts it),
    then one question per parameter with its description, over the objects of its type,
    the answer read after ``Answer:``."""

    name: Literal["per_variable"] = "per_variable"

    def ground(
        self,
        loop: LoopContext,
        name: str,
        instruction: str,
        situation: str,
        state: str,
        before: list[str],
    ) -> str:
        action = loop.domain.actions[name]
        text, described = loop.describe(name)
        variables = [
            described.get(p.name) or f"the parameter {p.name} ({' or '.join(p.types)})"
            for p in action.params
        ]
        head = loop.conversation.introduce_step(
            loop,
            PAPER_RECAP.format(situation=state, goal=loop.goal),
            PAPER_STEP.format(instruction=instruction, variables="\n".join(variables)),
            before,
        )
        args = []
        for param, variable in zip(action.params, variables, strict=True):
            objects = [
                name
                for name, kind in loop.objects.items()
                if loop.domain.is_subtype(kind, param.types)
            ] or list(loop.objects)
            reply = loop.chat(
                head
                + PAPER_VARIABLE.format(
                    action=text[:-1].lower(), variable=variable, objects="\n".join(objects)
                )
            )
            answer = reply.rsplit("Answer:", 1)[-1].strip().splitlines() or [""]
            args.append(answer[0].strip(" .`*\"'()").lower())
        return "(" + " ".join([name, *args]) + ")"


GROUNDINGS: Mapping[str, Grounding] = {
    "per_action": PerActionGrounding(),
    "per_variable": PerVariableGrounding(),
}
