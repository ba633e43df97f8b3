"""The command-line flags every study shares."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .backends import BACKENDS

LLM_SPECS = "openai:MODEL, URL@MODEL (an OpenAI-compatible server) or interactive"
CALL_TIMEOUT = 300.0  # seconds a model call may take, retries included


def parse_option(text: str) -> tuple[str, object]:
    """``KEY=VALUE``; the value is read as JSON when it can be (numbers, true, lists)."""
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"an option is KEY=VALUE, not {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def parse_instances(text: str) -> range:
    """``A:B`` is instances A to B-1, ``A`` alone is instance A."""
    start, sep, stop = text.partition(":")
    try:
        first = int(start)
        end = int(stop) if sep else first + 1
    except ValueError:
        first = end = -1
    if not 0 <= first < end:
        raise argparse.ArgumentTypeError(
            f"instances are A:B with 0 <= A < B (A alone for one instance), not {text!r}"
        )
    return range(first, end)


def positive_int(text: str) -> int:
    """An integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 1, not {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An integer of at least 0."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected an integer of at least 0, not {text!r}")
    return int(text)


def non_negative_float(text: str) -> float:
    """A finite number of at least 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of at least 0, not {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number above 0, not {text!r}")
    return value


def temperature(text: str) -> float:
    """A sampling temperature: a number from 0 to 2 (the OpenAI API's range)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 2:
        raise argparse.ArgumentTypeError(f"a temperature is a number from 0 to 2, not {text!r}")
    return value


def run_options(args: argparse.Namespace) -> dict:
    """:func:`run_study`'s keywords from the flags of :func:`study_parser`: ``--out``,
    ``--workers``, ``--backend`` and, in a study with a model, ``--max-unreachable``."""
    options = {"out": args.out, "workers": args.workers, "backend": args.backend}
    if hasattr(args, "max_unreachable"):
        options["max_failed_in_a_row"] = args.max_unreachable
    return options


def study_parser(
    description: str | None,
    *,
    env: str | None,
    out: str,
    instances: str | None = None,
    trials: int = 1,
    llm_required: bool | None = True,
    llm_choices_help: str = LLM_SPECS,
) -> argparse.ArgumentParser:
    """A parser with the shared flags: ``--env ID``, ``-o/--option KEY=VALUE`` (into
    ``args.option``, a list of pairs), ``--instances A:B`` (a range; None when not given
    and ``instances`` is None), ``--trials N``, ``--llm SPEC``, ``--workers N``,
    ``--backend local|ray`` (for :func:`run_study`) and ``--out DIR`` (a Path).
    ``llm_required``: True for a study that needs a model (give ``args.llm`` to
    :func:`open_model`, which names a missing one), False for one where
    ``--llm`` is optional, None for a study without a model (no ``--llm`` flag).
    ``env=None``: a study that plays no environment (no ``--env``, no ``-o``). Scripts
    add their own flags to it."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    if env is not None:
        parser.add_argument(
            "--env", default=env, metavar="ID", help=f"the environment to play (default {env})"
        )
        parser.add_argument(
            "-o",
            "--option",
            action="append",
            type=parse_option,
            default=[],
            metavar="KEY=VALUE",
            help="an argument of the environment (gym.make), e.g. -o "
            "num_locations=7; the value is read as JSON when it can be; "
            "repeatable",
        )
    parser.add_argument(
        "--instances",
        type=parse_instances,
        default=instances,
        metavar="A:B",
        help=f"instances A to B-1; A alone for one (default {instances or 'the study chooses'})",
    )
    parser.add_argument(
        "--trials",
        type=positive_int,
        default=trials,
        metavar="N",
        help=f"episodes per instance and condition (default {trials})",
    )
    if llm_required is not None:
        parser.add_argument(
            "--llm",
            metavar="SPEC",
            help=llm_choices_help + (" (required)" if llm_required else " (optional)"),
        )
        parser.add_argument(
            "--call-timeout",
            type=positive_float,
            default=CALL_TIMEOUT,
            metavar="S",
            help="the longest one model call may take, its "
            f"retries included (default {CALL_TIMEOUT:g} s)",
        )
        parser.add_argument(
            "--max-unreachable",
            type=positive_int,
            default=3,
            metavar="N",
            help="stop the study after N episodes in a row end because the "
            "model server cannot be reached (default 3)",
        )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        metavar="N",
        help="episodes played at once, each worker with its own environment (default 1)",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where the episodes run: local (threads on this machine) or "
        "ray (Ray actors on RAY_ADDRESS's cluster, the one started on "
        "this node, else a new local runtime; the ray extra) "
        "(default local)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(out),
        metavar="DIR",
        help=f"folder of the results, DIR/episodes.jsonl; rerunning the "
        f"same command resumes (default {out})",
    )
    return parser


_UNSET = object()  # a flag not given on the command line


@dataclass(frozen=True)
class Settings:
    """What :meth:`PaperFlags.resolve` decided: every setting's value, whether
    ``--paper`` was given, and the settings given beside it that differ from the
    paper's (``overrides``, for the provenance and the table's caption)."""

    values: Mapping[str, object]
    paper: bool
    overrides: Mapping[str, object]
    protocol: str = ""

    def recorded(self) -> dict:
        """The study settings that name the protocol: ``{"protocol": NAME,
        "overrides": {...}}`` with ``--paper``, else ``{}`` (so that runs without it
        keep their keys)."""
        return {"protocol": self.protocol, "overrides": dict(self.overrides)} if self.paper else {}


class PaperFlags:
    """The flags a paper's protocol sets, and ``--paper``.

    ``add(*names, default=..., **argparse options)`` adds a flag whose value is, in
    order: the one given on the command line, the protocol's (with ``--paper``, when the
    protocol has a setting of the flag's ``dest``), else ``default``. :meth:`resolve`
    writes the values back into ``args``."""

    def __init__(self, parser: argparse.ArgumentParser, protocol):
        self.parser, self.protocol = parser, protocol
        self.defaults: dict[str, object] = {}
        parser.add_argument(
            "--paper",
            action="store_true",
            help=f"the protocol of {protocol.paper}: "
            + ", ".join(f"{key}={value}" for key, value in protocol.settings.items())
            + "; a flag given beside it overrides one setting, "
            "recorded in the results and the table's caption",
        )

    def add(self, *names: str, default: object, **options) -> None:
        action = self.parser.add_argument(*names, default=_UNSET, **options)
        self.defaults[action.dest] = default

    def resolve(self, args: argparse.Namespace) -> Settings:
        values, overrides = {}, {}
        for dest, default in self.defaults.items():
            given = getattr(args, dest)
            paper = self.protocol.settings.get(dest, default) if args.paper else default
            values[dest] = paper if given is _UNSET else given
            if args.paper and given is not _UNSET and given != paper:
                overrides[dest] = given
            setattr(args, dest, values[dest])
        return Settings(values, args.paper, overrides, self.protocol.name)
