"""What a model's tokens cost: USD per million prompt and completion tokens, from a small
dated table of well-known OpenAI models (:data:`DEFAULT_PRICES`) or a user's file
(``--prices``). A model with no price has no cost (None), never a guess.

A prices file is one JSON object, model name to its two prices::

    {"gpt-4o": {"prompt": 2.5, "completion": 10.0}, "my-local-model": {"prompt": 0, "completion": 0}}

or, dated, ``{"as_of": "2025-08-07", "models": {...}}`` (``as_of`` is not kept). A file
that is not one of these (over 1 MiB, not JSON, a price that is not a finite
non-negative number, a field other than the two) is a :class:`PricesError` in one line.

Reasoning tokens are part of the completion tokens (as OpenAI counts and bills them),
so they are never added again.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlanloopError
from .records import Expect, Tokens

PRICES_AS_OF = "2025-08-07"  # OpenAI's API pricing page (platform.openai.com/docs/pricing)
MAX_PRICES_BYTES = 1 << 20  # a prices file larger than this is refused
MAX_NAME = 200  # characters of a model name in a prices file
SHOWN = 40  # characters of a bad value quoted in an error


class PricesError(PlanloopError, ValueError):
    """A prices file that cannot be read, said in one line naming the file, the model
    and the field."""


@dataclass(frozen=True)
class Price:
    """USD per million prompt tokens and per million completion tokens."""

    prompt: float
    completion: float

    def as_dict(self) -> dict[str, float]:
        return {"prompt": self.prompt, "completion": self.completion}

    @classmethod
    def of(cls, data: Mapping[str, float]) -> Price:
        return cls(float(data["prompt"]), float(data["completion"]))


DEFAULT_PRICES: dict[str, Price] = {
    name: Price(prompt, completion)
    for name, prompt, completion in (
        ("gpt-4o", 2.50, 10.00),
        ("gpt-4o-mini", 0.15, 0.60),
        ("gpt-4.1", 2.00, 8.00),
        ("gpt-4.1-mini", 0.40, 1.60),
        ("gpt-4.1-nano", 0.10, 0.40),
        ("o3", 2.00, 8.00),
        ("o3-mini", 1.10, 4.40),
        ("o4-mini", 1.10, 4.40),
        ("gpt-5", 1.25, 10.00),
        ("gpt-5-mini", 0.25, 2.00),
        ("gpt-5-nano", 0.05, 0.40),
    )
}
_DATED = re.compile(r"^(?P<name>.+?)-\d{4}-\d{2}-\d{2}$")


def price_of(model: str, prices: Mapping[str, Price] = DEFAULT_PRICES) -> Price | None:
    """The price of ``model``: its name as given, without a ``provider/`` prefix, or
    without a dated suffix (``gpt-4o-mini-2024-07-18`` is ``gpt-4o-mini``, never
    ``gpt-4o``); None when none of these is priced."""
    names = [model, model.rpartition("/")[2]]
    names += [m.group("name") for name in list(names) if (m := _DATED.match(name))]
    return next((prices[name] for name in names if name in prices), None)


def prices(given: Mapping[str, Price] | None = None) -> dict[str, Price]:
    """The shipped prices, each model of ``given`` (a user's file) replacing its own."""
    return {**DEFAULT_PRICES, **(given or {})}


def read_prices(path: Path | str) -> dict[str, Price]:
    """The prices of a file (see the module docstring); a PricesError in one line."""
    path = Path(path)
    where = f"--prices {path}"
    try:
        with path.open("rb") as file:
            data = file.read(MAX_PRICES_BYTES + 1)
    except OSError as exc:
        raise PricesError(f"{where}: {exc.strerror or exc}") from None
    if len(data) > MAX_PRICES_BYTES:
        raise PricesError(f"{where}: larger than {MAX_PRICES_BYTES:,} bytes")
    try:
        table = json.loads(data)
    except RecursionError:
        raise PricesError(f"{where}: JSON nested too deeply") from None
    except ValueError:
        raise PricesError(
            f'{where}: not JSON: give {{"MODEL": {{"prompt": USD, "completion": USD}}}} '
            f"(USD per million tokens)"
        ) from None
    if isinstance(table, dict) and "as_of" in table:
        table = _dated(table, where)
    if not isinstance(table, dict):
        raise PricesError(f"{where}: not a JSON object of models")
    return {name: _price(name, entry, where) for name, entry in table.items()}


def _dated(table: dict, where: str) -> object:
    """The models of a dated file, ``{"as_of": DATE, "models": {...}}``."""
    extra = sorted(set(table) - {"as_of", "models"})
    if extra:
        raise PricesError(f"{where}: a dated file holds as_of and models, not {_quoted(extra[0])}")
    if not isinstance(table["as_of"], str) or len(table["as_of"]) > SHOWN:
        raise PricesError(f"{where}: as_of must be a date as text, not {_quoted(table['as_of'])}")
    if "models" not in table:
        raise PricesError(f"{where}: a dated file without models")
    return table["models"]


def _price(name: str, entry: object, where: str) -> Price:
    """The price of model ``name`` in a prices file."""
    if not name or len(name) > MAX_NAME:
        raise PricesError(f"{where}: a model name of 1 to {MAX_NAME} characters")
    shown = _cut(name if name.isprintable() else json.dumps(name))
    if not isinstance(entry, dict):
        raise PricesError(f"{where}: {shown}: not an object of prompt and completion")
    unknown = sorted(set(entry) - {"prompt", "completion"})
    if unknown:
        raise PricesError(f"{where}: {shown}: unknown field {_quoted(unknown[0])}")
    return Price(*(_field(entry, field, f"{where}: {shown}") for field in ("prompt", "completion")))


def _field(entry: dict, field: str, where: str) -> float:
    """The price ``entry`` gives ``field``, checked."""
    usd = _usd(entry.get(field))
    if usd is None:
        raise PricesError(
            f"{where}: {field} must be a non-negative number of USD per million tokens, "
            f"not {_quoted(entry[field]) if field in entry else 'missing'}"
        )
    return usd


def _usd(value: object) -> float | None:
    """``value`` as a price: None unless a finite non-negative number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        usd = float(value)
    except OverflowError:  # an integer past any float
        return None
    return usd if 0 <= usd < math.inf else None


def _quoted(value: object) -> str:
    """``value`` as JSON, at most about :data:`SHOWN` characters (a container by kind)."""
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    return _cut(json.dumps(value))


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def cost_usd(tokens: Tokens, price: Price | None) -> float | None:
    """What ``tokens`` cost at ``price`` (None without a price)."""
    if price is None:
        return None
    return (tokens["prompt"] * price.prompt + tokens["completion"] * price.completion) / 1e6


def estimate(price: Price | None, episodes: int, expect: Expect) -> float | None:
    """The expected dollars of ``episodes`` episodes, each making ``expect["calls"]``
    calls of ``expect["prompt_tokens"]`` and ``expect["completion_tokens"]`` tokens (a
    suite family's ``expect``); None without a price."""
    if price is None:
        return None
    calls = episodes * expect["calls"]
    tokens: Tokens = {
        "prompt": round(calls * expect["prompt_tokens"]),
        "completion": round(calls * expect["completion_tokens"]),
        "reasoning": 0,
    }
    return cost_usd(tokens, price)
