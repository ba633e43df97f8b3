"""Checking JSON read back against a schema declared once, as a ``TypedDict``.

A schema is a ``TypedDict`` (its required and optional keys as Python declares them;
keys it does not declare are let through), whose fields are ``str``, ``int``, ``float``,
``bool``, ``None``, ``object`` (anything), a ``Literal`` of such values, ``list[T]``,
``dict[str, T]``, another ``TypedDict`` or a union of these. An ``int`` is an integer (not true or false) of at most
:data:`MAX_INT_DIGITS` digits; a ``float`` a finite number (an integer that fits one
counts). :func:`schema_problem` says in one short line why a value does not fit, quoting
at most :data:`SHOWN` characters of it.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

MAX_INT_DIGITS = 18  # an int field holds at most this many digits (an int64 holds 18)
SHOWN = 40  # characters of a wrong value quoted in a problem


def schema_problem(value: object, schema: type, where: str = "") -> str | None:
    """Why ``value`` does not fit ``schema`` (None when it does), naming the field:
    ``no study``, ``provenance.settings is [1], not an object``."""
    if _is_typed_dict(schema):
        if not isinstance(value, dict):
            return _wrong(where.rstrip(".") or "the record", value, schema)
        hints = get_type_hints(schema)
        required = schema.__required_keys__  # type: ignore[attr-defined]
        for key in hints:  # in the order declared
            if key in required and key not in value:
                return f"no {where}{key}"
        for key, kind in hints.items():
            if key in value:
                problem = schema_problem(value[key], kind, f"{where}{key}.")
                if problem is not None:
                    return problem
        return None
    name = where.rstrip(".")
    origin, args = get_origin(schema), get_args(schema)
    if origin in (Union, types.UnionType):
        problems = [schema_problem(value, arg, where) for arg in args]
        if None in problems:
            return None
        shaped = [p for arg, p in zip(args, problems, strict=True) if _shaped(value, arg)]
        return shaped[0] if shaped else _wrong(name, value, schema)  # the object's own
    if origin is list:
        if not isinstance(value, list):
            return _wrong(name, value, schema)
        return next(
            (p for i, v in enumerate(value) if (p := schema_problem(v, args[0], f"{name}[{i}]."))),
            None,
        )
    if origin is dict:
        if not isinstance(value, dict):
            return _wrong(name, value, schema)
        return next(
            (p for k, v in value.items() if (p := schema_problem(v, args[1], f"{name}.{k}."))),
            None,
        )
    return None if _fits(value, schema) else _wrong(name, value, schema)


def _fits(value: object, kind: Any) -> bool:
    if kind is object or kind is Any:
        return True
    if get_origin(kind) is Literal:
        return any(type(value) is type(choice) and value == choice for choice in get_args(kind))
    if kind is None or kind is type(None):
        return value is None
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return (
            isinstance(value, int)
            and not isinstance(value, bool)
            and -(10**MAX_INT_DIGITS) < value < 10**MAX_INT_DIGITS
        )
    if kind is float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        try:
            return math.isfinite(value)
        except OverflowError:  # an integer too large for a float
            return False
    if kind is str:
        return isinstance(value, str)
    raise TypeError(f"a schema field of type {kind!r}, which schema_problem does not check")


def _wrong(name: str, value: object, kind: Any) -> str:
    return f"{name} is {_shown(value)}, not {describe(kind)}"


def _shown(value: object) -> str:
    """``value`` for a problem line: its repr up to :data:`SHOWN` characters."""
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    if isinstance(value, int) and abs(value) >= 10**MAX_INT_DIGITS:
        return f"an integer of more than {MAX_INT_DIGITS} digits"
    text = repr(value[: SHOWN + 1] if isinstance(value, str) else value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def describe(kind: Any) -> str:
    """``kind`` in words: ``text or null``."""
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        return " or ".join(describe(arg) for arg in get_args(kind))
    if origin is list:
        return f"a list of {describe(get_args(kind)[0]).removeprefix('a ').removeprefix('an ')}"
    if origin is dict or _is_typed_dict(kind):
        return "an object"
    if origin is Literal:
        return (
            "one of "
            + ", ".join(map(repr, get_args(kind)[:8]))
            + (", ..." if len(get_args(kind)) > 8 else "")
        )
    words = {
        str: "text",
        int: "an integer",
        float: "a finite number",
        bool: "true or false",
        type(None): "null",
        None: "null",
    }
    return words.get(kind, "anything")


def _shaped(value: object, kind: Any) -> bool:
    """Whether ``value`` is the array or object ``kind`` describes (its fields aside)."""
    if isinstance(value, dict):
        return get_origin(kind) is dict or _is_typed_dict(kind)
    return isinstance(value, list) and get_origin(kind) is list


def _is_typed_dict(kind: Any) -> bool:
    return isinstance(kind, type) and typing.is_typeddict(kind)
