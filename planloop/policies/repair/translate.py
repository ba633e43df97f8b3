"""Translation: a plan as a model writes it -> plan steps.

Tolerant of numbering (``1.``, ``Step 2:``, bullets), case, parentheses
(``(attack a)``, ``attack a``, ``attack(a, b)``), commas, ``;`` comments and code
fences. A line is read as a step when it starts like one (a number, a bullet or a
parenthesis) or with the name of one of the domain's actions; other lines are prose
and are kept aside. Names are matched as written, arguments by position: whether
each step has the right arity and objects is the consistency check's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...pddl import PDDLError, Step, parse_plan

_LOOKS_LIKE_STEP = re.compile(r"^\s*(?:(?:step\s*)?\d+\s*[.:)]|[-*]\s|\()", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][\w-]*")


@dataclass(frozen=True)
class Translation:
    steps: tuple[Step, ...]
    skipped: tuple[str, ...]  # lines read as prose, or that no step could be read from

    @property
    def commands(self) -> list[str]:
        return [str(step) for step in self.steps]


def translate(text: str, action_names) -> Translation:
    """The steps written in ``text``; ``action_names`` are the domain's actions."""
    names = {name.lower() for name in action_names}
    steps, skipped = [], []
    for line in text.splitlines():
        line = line.split(";", 1)[0].strip().rstrip(".")
        if not line or line.startswith("```"):
            continue
        first = _WORD.search(line)
        if not _LOOKS_LIKE_STEP.match(line) and not (
            first and first.start() == 0 and first.group().lower() in names
        ):
            skipped.append(line)
            continue
        try:
            steps += parse_plan(line)
        except PDDLError:
            skipped.append(line)
    return Translation(tuple(steps), tuple(skipped))
