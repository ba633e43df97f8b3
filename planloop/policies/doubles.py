"""A scripted model that answers the loop policies' prompts by following known plans:
for tests, benchmarks, and checking a new environment end to end without an API."""

from __future__ import annotations

from typing import Callable

from ..llm import ScriptedModel
from .loop import GENERIC_OPENING, STUDY_OPENINGS, STUDY_START

_PROGRESS = "Actions executed so far"
_BEFORE = "in this step: "
_STEP = "We are about to do the next step in the plan:\n\n"
_VARIABLE = "which of the following objects fits the description, "
_FAILURES = ("The action ", "Based on your plan, we've just executed")  # explain a failure


def goal_of(messages: list[dict]) -> str:
    """The goal the policy stated to the model (``Goal: ...`` of its task message)."""
    for message in messages:
        content = message.get("content") or ""
        if "\nGoal: " in content:
            return content.rsplit("\nGoal: ", 1)[1].split("\n", 1)[0]
    raise ValueError("no 'Goal:' line in the conversation")


def _is_failure(content: str) -> bool:
    return content.startswith(_FAILURES) and "failed" in content


def _is_opening(question: str) -> bool:
    """Whether ``question`` is one of the study's opening turns (role, world, start)."""
    heads = [STUDY_START] + [
        opening.world for opening in (*STUDY_OPENINGS.values(), GENERIC_OPENING)
    ]
    return question in [
        opening.role for opening in (*STUDY_OPENINGS.values(), GENERIC_OPENING)
    ] or question.startswith(tuple(head.split("{", 1)[0] for head in heads))


def has_lessons(messages: list[dict]) -> bool:
    """Whether the conversation carries explanations of earlier failures."""
    return any(
        (m.get("content") or "").startswith("What went wrong")
        or (m["role"] == "user" and _is_failure(m.get("content") or ""))
        for m in messages
    )


def _position(messages: list[dict]) -> int:
    """How many steps of the plan the current attempt has grounded before this question.

    A rebuilt prompt says it (the progress message and the actions chosen before in this
    step); in an accumulating conversation, count the grounding questions since the last
    failure (the one under way included, when this question asks for one of its
    parameters)."""
    question = messages[-1]["content"]
    if any(m["role"] == "assistant" for m in messages):
        count = 0
        for message in messages[:-1]:
            content = (message.get("content") or "") if message["role"] == "user" else ""
            if _is_failure(content):
                count = 0
            elif content.startswith("The next action is") or _STEP in content:
                count += 1
        return count - (1 if _VARIABLE in question else 0)
    progress = next(
        (m["content"] for m in messages if (m.get("content") or "").startswith(_PROGRESS)), None
    )
    done = len(progress.splitlines()) - 1 if progress else 0
    if _BEFORE in question:
        before = question.split(_BEFORE, 1)[1].split("\n", 1)[0]
        done += 0 if before == "none" else len(before.split(", "))
    return done


def following_model(
    plan_for: Callable[[list[dict]], list[str]], delay: float = 0.0, name: str = "plan-follower"
) -> ScriptedModel:
    """Answers :class:`~planloop.policies.ClosedLoopPolicy` and ``OpenLoopPolicy``, in
    every mode of their switches, with the steps of ``plan_for(messages)``: the next
    action names (or the rest of the sequence) from where the current attempt stands,
    each one's grounding (whole, or one parameter at a time after ``Answer:``), and a
    stock explanation of a failure."""

    def reply(messages: list[dict]) -> str:
        question = messages[-1]["content"]
        if _is_failure(question):
            return "The action needs a fact that an earlier action makes true."
        if _STEP in question and _VARIABLE not in question or _is_opening(question):
            return "Understood."  # a step's introduction, or the study's opening
        steps = plan_for(messages)
        done = _position(messages)
        if _VARIABLE in question:
            return f"Answer: {_argument(messages, question, steps[done])}"
        if question.startswith("The next action is"):
            return steps[done]
        if "Can you please give a sequence" in question:
            return (
                "\n".join(f"{i}. {_name(step)}\n   (why)" for i, step in enumerate(steps[done:], 1))
                + "\n***"
            )
        if "Write the whole sequence" in question:
            return "\n".join(f"{i}. {_name(step)}" for i, step in enumerate(steps, 1))
        if "What are the next " not in question:
            raise ValueError(
                f"following_model answers ClosedLoopPolicy's and OpenLoopPolicy's "
                f"prompts only, not {question[:80]!r}"
            )
        count = int(question.split("What are the next ", 1)[1].split()[0])
        return "\n".join(_name(step) for step in steps[done : done + count]) or "DONE"

    return ScriptedModel(reply, delay=delay, name=name)


def _argument(messages: list[dict], question: str, step: str) -> str:
    """The argument of ``step`` that the question describes: its place among the
    variables the step's introduction lists."""
    intro = next(m["content"] for m in reversed(messages) if _STEP in (m.get("content") or ""))
    variables = intro.split(_STEP, 1)[1].split("relate to the action.\n", 1)[1]
    variables = variables.split("\nActions chosen before", 1)[0]
    wanted = question.split(_VARIABLE, 1)[1].split("?\n", 1)[0]
    return step.strip("()").split()[1:][variables.splitlines().index(wanted)]


def _name(step: str) -> str:
    return step.strip("()").split()[0]
