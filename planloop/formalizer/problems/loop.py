"""The planner-in-the-loop repair of a problem written from words: one shot, then up to
``max_iterations`` repairs, each asked with the last check's diagnostics, until a
candidate's plan validates. The answer kept is the best verified one (section 3.4 of
the NL-PDDL-Bench paper): the first that validates, or else the candidate furthest
through the checks, a later one replacing it only when it passes more of them
(``keep="best"``); ``keep="latest"`` (planloop's rule before) takes the latest among
equals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ...llm import Usage, call_model
from ...pddl.model import Domain
from .prompts import task_messages
from .verify import STAGES, Verdict, feedback, verify

MAX_ITERATIONS = 5
Keep = Literal["best", "latest"]  # among candidates equally far through the checks
KEEPS: tuple[Keep, ...] = ("best", "latest")


@dataclass
class Formalization:
    """Every candidate's verdict in order (iteration 0 is the one shot), the index of
    the one kept (by the rule ``keep``), and the model's usage."""

    verdicts: list[Verdict] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    keep: Keep = "best"

    @property
    def kept(self) -> int:
        """The index of the candidate kept after the last iteration."""
        return best_so_far(self.verdicts, len(self.verdicts) - 1, self.keep)

    @property
    def repaired_at(self) -> int | None:
        """The iteration whose candidate validated after earlier ones failed."""
        last = len(self.verdicts) - 1
        return last if last > 0 and self.verdicts[last].ok else None


def best_so_far(verdicts: list[Verdict], upto: int, keep: Keep = "best") -> int:
    """The candidate the loop would keep had it stopped after iteration ``upto``: the
    furthest through the checks, the earliest (``best``) or latest (``latest``) among
    equals."""
    later = 1 if keep == "latest" else -1
    return max(range(upto + 1), key=lambda i: (STAGES.index(verdicts[i].stage), later * i))


def formalize_problem(
    model,
    domain: Domain,
    description: str,
    max_iterations: int = MAX_ITERATIONS,
    planner: str = "lama-first",
    timeout: float = 60.0,
    temperature: float | None = 0.0,
    keep: Keep = "best",
) -> Formalization:
    """Ask ``model`` for the problem ``description`` states, check it, and repair it
    with the checks' feedback, keeping a candidate by the rule ``keep``. A model call
    that fails for good raises LLMError."""
    result = Formalization(keep=keep)
    messages = task_messages(domain, description)
    for _ in range(max_iterations + 1):
        reply = call_model(model, messages, temperature=temperature)
        result.usage = result.usage + reply.usage
        result.replies.append(reply.text)
        verdict = verify(domain, reply.text, planner, timeout)
        result.verdicts.append(verdict)
        if verdict.ok:
            break
        messages = messages + [
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": feedback(verdict)},
        ]
    return result
