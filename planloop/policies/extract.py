"""Reading actions out of what a language model writes."""

from __future__ import annotations

import re

_GROUP = re.compile(r"\(([^()]+)\)")
_FENCE = re.compile(r"```(?:\w+)?\n(.*?)```", re.DOTALL)


def extract_plan(text: str) -> list[str]:
    """Every ``(action args)`` in ``text``, lowercased, in order.

    A fenced code block, when there is one, is preferred over the prose around it;
    lines without parentheses (explanations, numbering) are skipped.
    """
    fenced = _FENCE.findall(text)
    body = "\n".join(fenced) if any(_GROUP.search(block) for block in fenced) else text
    body = "\n".join(line.split(";", 1)[0] for line in body.splitlines())
    return [
        "(" + " ".join(group.lower().replace(",", " ").split()) + ")"
        for group in _GROUP.findall(body)
        if group.strip()
    ]
