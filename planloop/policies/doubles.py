"""A scripted model that answers the loop policies' prompts by following known plans:
for tests, benchmarks, and checking a new environment end to end without an API."""

from __future__ import annotations

from typing import Callable

from ..llm import ScriptedModel

_PROGRESS = "Actions executed so far"


def goal_of(messages: list[dict]) -> str:
    """The goal the policy stated to the model (``Goal: ...`` of its task message)."""
    for message in messages:
        content = message.get("content") or ""
        if "\nGoal: " in content:
            return content.rsplit("\nGoal: ", 1)[1].split("\n", 1)[0]
    raise ValueError("no 'Goal:' line in the conversation")


def has_lessons(messages: list[dict]) -> bool:
    """Whether the conversation carries explanations of earlier failures."""
    return any((m.get("content") or "").startswith("What went wrong") for m in messages)


def following_model(plan_for: Callable[[list[dict]], list[str]], delay: float = 0.0,
                    name: str = "plan-follower") -> ScriptedModel:
    """Answers :class:`~planloop.policies.ClosedLoopPolicy` and ``OpenLoopPolicy`` with
    the steps of ``plan_for(messages)``: the next action names from where the current
    attempt stands, each one's grounding, and a stock explanation of a failure."""

    def reply(messages: list[dict]) -> str:
        question = messages[-1]["content"]
        if question.startswith("The action ") and "failed." in question:
            return "The action needs a fact that an earlier action makes true."
        steps = plan_for(messages)
        progress = next((m["content"] for m in messages
                         if (m.get("content") or "").startswith(_PROGRESS)), None)
        done = len(progress.splitlines()) - 1 if progress else 0
        if question.startswith("The next action is"):
            before = question.split("in this step: ", 1)[1].split("\n", 1)[0]
            return steps[done + (0 if before == "none" else len(before.split(", ")))]
        if "Write the whole sequence" in question:
            return "\n".join(f"{i}. {_name(step)}" for i, step in enumerate(steps, 1))
        if "What are the next " not in question:
            raise ValueError(f"following_model answers ClosedLoopPolicy's and OpenLoopPolicy's "
                             f"prompts only, not {question[:80]!r}")
        count = int(question.split("What are the next ", 1)[1].split()[0])
        return "\n".join(_name(step) for step in steps[done:done + count]) or "DONE"

    return ScriptedModel(reply, delay=delay, name=name)


def _name(step: str) -> str:
    return step.strip("()").split()[0]
