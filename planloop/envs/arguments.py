"""The one place that checks what callers hand the environments: ``gym.make`` keyword
arguments and ``reset`` seeds and options. A value of the wrong type is a TypeError, a
value of the right type but out of range a ValueError; each message names the option
and what it accepts, e.g. ``num_locations must be an integer from 1 to 11, not -1``."""

from __future__ import annotations

import numbers
import os
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Literal, TypeVar, overload

import numpy as np

from ..errors import PlanloopError
from ..pddl import Limits
from ..pddl.diagnostics import quote, received
from ..pddl.model import Problem
from ..pddl.source import source_path

MAX_SEED = 2**31 - 1  # a generated world's seed (TextWorld Express's is a Java int)
RESET_OPTIONS = ("instance",)
CONTINGENT_RESET_OPTIONS = RESET_OPTIONS + ("hidden",)  # a contingent env's chosen world


class MissingPath(PlanloopError, FileNotFoundError, ValueError):
    """A path argument that names nothing on disk (a ValueError, and a FileNotFoundError)."""


def _shown(value) -> str:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = int(value)
        bits = value.bit_length()
        return str(value) if bits <= 128 else f"an integer of {bits} bits"
    if value is None or isinstance(value, str):
        return repr(value) if value is None else quote(value)
    return f"{type(value).__name__} {reprlib.repr(value)}"


def integer(name: str, value, low: int, high: int | None = None) -> int:
    """``value`` as an int from ``low`` to ``high`` (no upper bound when None)."""
    accepted = f"{name} must be " + (
        f"{low}"
        if high == low
        else f"an integer of at least {low}"
        if high is None
        else f"an integer from {low} to {high}"
    )
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{accepted}, not {_shown(value)}")
    number = int(value)
    if number < low or (high is not None and number > high):
        raise ValueError(f"{accepted}, not {_shown(value)}")
    return number


C = TypeVar("C", bound=str)


@overload
def choice(name: str, value, choices: Sequence[C], optional: Literal[False] = False) -> C: ...
@overload
def choice(name: str, value, choices: Sequence[C], optional: bool) -> C | None: ...
def choice(name: str, value, choices: Sequence[C], optional: bool = False) -> C | None:
    """The one of the strings ``choices`` that ``value`` is (or None when ``optional``): a
    closed set's ``Literal`` type when ``choices`` are typed as its values."""
    if value is None and optional:
        return None
    accepted = f"{name} must be one of {', '.join(choices)}"
    if not isinstance(value, str):
        raise TypeError(f"{accepted}, not {_shown(value)}")
    if value not in choices:
        raise ValueError(f"{accepted}, not {_shown(value)}")
    return choices[choices.index(value)]


def boolean(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {_shown(value)}")
    return bool(value)


def instance_of(name: str, value, kind: type | tuple[type, ...], what: str, optional: bool = False):
    """``value`` when it is a ``kind`` (``what`` in words), or None when ``optional``."""
    if not (isinstance(value, kind) or (value is None and optional)):
        raise TypeError(
            f"{name} must be {what}{' or None' if optional else ''}, not {_shown(value)}"
        )
    return value


def path(name: str, value, folder: bool = False) -> Path:
    """The existing file (or ``folder``) a str or ``os.PathLike`` names (where it leads:
    see :func:`~planloop.pddl.source.source_path`)."""
    what = "folder" if folder else "file"
    instance_of(name, value, (str, os.PathLike), f"the path of a {what}")
    found = source_path(value)
    if found is None or found.is_dir() != folder:
        raise MissingPath(
            f"{name} must be the path of a {what}: no such {what} {received(os.fspath(value))}"
        )
    return found


def source(name: str, value, parsed: type | None = None):
    """A path to an existing file or folder, or PDDL text (or a ``parsed`` object): a
    blank str is empty, a str without ``(`` that names nothing on disk a missing path."""
    kinds = (str, os.PathLike) + ((parsed,) if parsed else ())
    what = "a path, PDDL text" + (f" or a {parsed.__name__}" if parsed else "")
    instance_of(name, value, kinds, what)
    if isinstance(value, str) and not value.strip():
        raise ValueError(f"{name} is empty: give a path or PDDL text")
    if (
        isinstance(value, (str, os.PathLike))
        and "(" not in os.fspath(value)
        and source_path(value) is None
    ):
        raise MissingPath(f"{name}: no such file or folder {received(os.fspath(value))}")
    return value


def sources(name: str, value, parsed: type | None = None) -> Sequence:
    """A problem argument: one source (see :func:`source`) or a non-empty sequence of
    them; a list or tuple is checked item by item, any other sequence (a generated set)
    is taken as it is."""
    if isinstance(value, (str, os.PathLike)) or not isinstance(value, Sequence):
        return source(name, value, parsed)
    if len(value) == 0:
        raise ValueError(f"{name} must name at least one problem, not an empty list")
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            source(f"{name}[{i}]", item, parsed)
    return value


def limits(value) -> Limits:
    """A :class:`~planloop.pddl.Limits`, or a dict of some of its fields (``Limits``
    checks their values); None for the defaults."""
    if value is None:
        return Limits()
    if isinstance(value, Mapping):
        names = [f.name for f in fields(Limits)]
        unknown = sorted(map(str, set(value) - set(names)))
        if unknown:
            raise TypeError(
                f"limits has no field {unknown[0]!r}; its fields are {', '.join(names)}"
            )
        return Limits(**value)
    return instance_of("limits", value, Limits, "a Limits or a dict of its fields")


def check_reset(seed, options, accepted: tuple[str, ...] = RESET_OPTIONS) -> None:
    """A ``reset`` seed is None or an integer of at least 0; options are None or a dict
    of the ``accepted`` options (each env checks the instance against its range), a
    ``hidden`` world of the kinds :func:`hidden` takes."""
    if seed is not None:
        integer("seed", seed, 0)
    if options is None:
        return
    instance_of("options", options, Mapping, "a dict such as {'instance': 0}")
    unknown = sorted(map(str, set(options) - set(accepted)))
    if unknown:
        raise ValueError(
            f"unknown reset option {unknown[0]!r}; the options are {', '.join(accepted)}"
        )
    if "hidden" in options:
        hidden("options['hidden']", options["hidden"])


def hidden(name: str, value):
    """Hidden worlds: a path or text of ``(:hidden atom ...)`` sections (bare, or in a
    problem), a parsed ``Problem`` holding them, or a list or tuple of atoms such as
    ``["(opened p2-3)"]`` (one world)."""
    what = "a path or text of '(:hidden ...)' sections, a Problem, or a list of atoms"
    instance_of(name, value, (str, os.PathLike, Problem, list, tuple), what)
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            instance_of(f"{name}[{i}]", item, str, "an atom such as '(opened p2-3)'")
    elif not isinstance(value, Problem):
        source(name, value)
    return value
