"""Which request parameters a chat model is sent.

A request's parameters come from two sources: the ones the user *set* (a study's flags,
``OpenAIChat(..., temperature=0.3)``), which are always sent, and *defaults* (planloop's
or a paper protocol's), which are sent only where the model takes them. OpenAI's
reasoning models (the o1, o3, o4 and gpt-5 families, dated names and gateway prefixes
such as ``openai/o3-mini`` included) refuse a ``temperature`` or ``top_p`` other than
their own (1) and ``max_tokens``: they are sent no default sampling parameter but one
at 1 (as the PDDLego+ authors sent o3-mini ``top_p=1``), and ``max_completion_tokens``
in place of ``max_tokens``. A default any other model refuses
(a 400 naming it) is dropped for the rest of the run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass


def _number(what: str, low: float, high: float) -> Callable[[str], float]:
    """A reader of a number from ``low`` to ``high`` (a ValueError naming ``what``)."""

    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not low <= value <= high:  # NaN fails too
            raise ValueError(f"{what} is a number from {low:g} to {high:g}, not {text!r:.80}")
        return value

    return read


def _integer(low: int | None) -> Callable[[str], int]:
    """A reader of an integer (of at least ``low``, unless None)."""
    least = "" if low is None else f" of at least {low}"

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or (low is not None and value < low):
            raise ValueError(f"expected an integer{least}, not {text!r:.80}")
        return value

    return read


@dataclass(frozen=True)
class RequestParam:
    """A request parameter a study or a caller may set: its ``name``, what a study's flag
    says of it (``help``) and how the flag's text is read (``read``, a ValueError for a
    value out of range; or ``choices``); ``flag=False``: set by a caller only."""

    name: str
    help: str = ""
    read: Callable[[str], object] | None = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    flag: bool = True


PARAMS: tuple[RequestParam, ...] = (
    RequestParam(
        "temperature", "sampling temperature, 0-2", _number("a temperature", 0, 2), metavar="T"
    ),
    RequestParam("top_p", "nucleus sampling, 0-1", _number("top_p", 0, 1), metavar="P"),
    RequestParam("frequency_penalty", "-2 to 2", _number("a penalty", -2, 2), metavar="X"),
    RequestParam("presence_penalty", "-2 to 2", _number("a penalty", -2, 2), metavar="X"),
    RequestParam(
        "reasoning_effort",
        "OpenAI reasoning models' effort",
        choices=("minimal", "low", "medium", "high"),
    ),
    RequestParam("seed", "the provider's sampling seed", _integer(None), metavar="N"),
    RequestParam(
        "max_tokens",
        "tokens per reply (sent as max_completion_tokens to reasoning models)",
        _integer(1),
        metavar="N",
    ),
    RequestParam("max_completion_tokens", flag=False),
    RequestParam("stop", flag=False),
)  # every parameter a request may carry, each declared once: a new one is one entry here
REQUEST_PARAMS = tuple(param.name for param in PARAMS)  # anything else is refused by name
SAMPLING = ("temperature", "top_p")  # what a reasoning model takes only at its own value
_REASONING = re.compile(r"(o1|o3|o4|gpt-5)([-._].*)?")
_QUOTED = re.compile(r"(?:parameter|value):\s*'([a-z_]+)'", re.IGNORECASE)


def is_reasoning_model(name: str) -> bool:
    """Whether ``name`` is one of OpenAI's reasoning models (o1, o3, o4, gpt-5 and
    their variants and dated names), with or without a gateway's ``provider/`` prefix."""
    return _REASONING.fullmatch(name.rsplit("/", 1)[-1].strip().lower()) is not None


def build_request(
    model: str,
    defaults: Mapping[str, object],
    set_: Mapping[str, object],
    per_call: Mapping[str, object],
    dropped: Mapping[str, str],
) -> dict[str, object]:
    """The parameters one request carries. ``per_call`` (a policy's, e.g. its sampling
    temperature) wins over the model's ``defaults`` and ``set_``; a parameter counts as
    set when its name is in ``set_``. Defaults in ``dropped`` and, for a reasoning
    model, default sampling parameters other than 1 are left out; None means "not
    sent"."""
    request = {**defaults, **set_, **per_call}
    reasoning = is_reasoning_model(model)
    for name in list(request):
        if name in set_:
            continue
        if name in dropped or (reasoning and name in SAMPLING and request[name] != 1):
            del request[name]
    if reasoning and "max_tokens" in request:
        request.setdefault("max_completion_tokens", request["max_tokens"])
        del request["max_tokens"]
    return {name: value for name, value in request.items() if value is not None}


def refused_parameter(param: object, message: object, request: Mapping[str, object]) -> str | None:
    """The request parameter a 400 refuses: its ``param`` field, else the first quoted
    name in ``Unsupported parameter: 'x'`` / ``Unsupported value: 'x'``; None when it
    names none the request carried."""
    names = [param] if isinstance(param, str) else []
    if isinstance(message, str):
        names += _QUOTED.findall(message[:2000])
    return next((name for name in names if name in request), None)
