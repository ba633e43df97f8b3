"""The command-line flags every study shares."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..llm import parse_spec
from ..llm.openai_chat import DEFAULTS as MODEL_DEFAULTS
from ..llm.requests import PARAMS as REQUEST_PARAMETERS
from .backends import BACKENDS
from .jobs import MAX_EPISODES

LLM_SPECS = "openai:MODEL, URL@MODEL (an OpenAI-compatible server) or interactive"
CALL_TIMEOUT = 300.0  # seconds a model call may take, retries included
MAX_WORKERS = 1024  # --workers: episodes played at once (a thread or Ray actor each)
USAGE = "%(prog)s [-h] [options]"  # one line: a usage error is this and the error


def parse_option(text: str) -> tuple[str, object]:
    """``KEY=VALUE``; the value is read as JSON when it can be (numbers, true, lists)."""
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"an option is KEY=VALUE, not {text!r:.80}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def parse_instances(text: str) -> range:
    """``A:B`` is instances A to B-1, ``A`` alone is instance A; at most
    :data:`~.jobs.MAX_EPISODES` of them."""
    start, sep, stop = text.partition(":")
    try:
        first = int(start)
        end = int(stop) if sep else first + 1
    except ValueError:
        first = end = -1
    if not 0 <= first < end:
        raise argparse.ArgumentTypeError(
            f"instances are A:B with 0 <= A < B (A alone for one instance), not {text!r:.80}"
        )
    if end - first > MAX_EPISODES:
        raise argparse.ArgumentTypeError(
            f"{text!r:.80} is {end - first} instances, more than a run's "
            f"{MAX_EPISODES:,} episodes (planloop.study.jobs.MAX_EPISODES): run it in "
            "parts (--instances A:B each), the same --out gathers them"
        )
    return range(first, end)


def episode_count(text: str) -> int:
    """A count of episodes (``--trials``, problems per cell): an integer from 1 to
    :data:`~.jobs.MAX_EPISODES`."""
    value = positive_int(text)
    if value > MAX_EPISODES:
        raise argparse.ArgumentTypeError(
            f"{value} is more than a run's {MAX_EPISODES:,} episodes "
            "(planloop.study.jobs.MAX_EPISODES): run it in parts into the same --out"
        )
    return value


def worker_count(text: str) -> int:
    """``--workers``: an integer from 1 to :data:`MAX_WORKERS`."""
    value = positive_int(text)
    if value > MAX_WORKERS:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_WORKERS} workers (planloop.study.flags.MAX_WORKERS), not {value}"
        )
    return value


def positive_int(text: str) -> int:
    """An integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 1, not {text!r:.80}")
    return value


def non_negative_int(text: str) -> int:
    """An integer of at least 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 0, not {text!r:.80}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number of at least 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of at least 0, not {text!r:.80}")
    return value


def positive_float(text: str) -> float:
    """A finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number above 0, not {text!r:.80}")
    return value


def _flag_reader(read: Callable[[str], object]) -> Callable[[str], object]:
    """``read`` as an argparse type: its ValueError an ArgumentTypeError."""

    def typed(text: str) -> object:
        try:
            return read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return typed


REQUEST_FLAGS: dict[str, dict] = {
    param.name: {
        "help": param.help,
        **({"type": _flag_reader(param.read)} if param.read else {}),
        **({"choices": param.choices} if param.choices else {}),
        **({"metavar": param.metavar} if param.metavar else {}),
    }
    for param in REQUEST_PARAMETERS
    if param.flag
}  # the request flags every study with a model takes, by dest: planloop.llm.requests.PARAMS


def add_conditions(
    parser: argparse.ArgumentParser, conditions: Sequence[str], *, given_order: bool
) -> None:
    """``--conditions``: a comma list of ``conditions`` (default all of them), each kept
    once, in the order given (``given_order``) or in ``conditions``' order; an unknown or
    empty list is a usage error naming the conditions."""

    def parse(text: str) -> list[str]:
        names = [part.strip() for part in text.split(",") if part.strip()]
        unknown = [name for name in names if name not in conditions]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"conditions are a comma list of {', '.join(conditions)}"
                f"; not {', '.join(unknown) or 'empty'}"
            )
        return list(dict.fromkeys(names)) if given_order else [c for c in conditions if c in names]

    parser.add_argument(
        "--conditions",
        type=parse,
        default=list(conditions),
        help=f"a comma list of {', '.join(conditions)} (default all)",
    )


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
        description=description,
        usage=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
        type=episode_count,
        default=trials,
        metavar="N",
        help=f"episodes per instance and condition (default {trials})",
    )
    if llm_required is not None:
        requests = parser.add_argument_group(
            "model request",
            "what every model call sends; a parameter given here is always sent (a "
            "model that refuses it stops the study before the first episode); without "
            "it, the protocol's (--paper) or planloop's default (temperature 0) is sent "
            "where the model takes it: OpenAI's reasoning models (o1, o3, o4, gpt-5) get "
            "no default temperature or top_p and max_completion_tokens for max_tokens, "
            "and a default any model refuses is dropped and named in the results",
        )
        for dest, options in REQUEST_FLAGS.items():
            requests.add_argument(
                "--" + dest.replace("_", "-"), dest=dest, default=_UNSET, **options
            )
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
        type=worker_count,
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
class RequestSettings:
    """What a study's model calls send: ``set`` (the request flags given, always sent)
    and ``defaults`` (the protocol's for this model under ``--paper``, else planloop's;
    sent where the model takes them). See :mod:`planloop.llm.requests`."""

    set: Mapping[str, object] = field(default_factory=dict)
    defaults: Mapping[str, object] = field(default_factory=lambda: dict(MODEL_DEFAULTS))


@dataclass(frozen=True)
class Settings:
    """What :meth:`PaperFlags.resolve` decided: every setting's value, whether
    ``--paper`` was given, and the settings given beside it that differ from the
    paper's (``overrides``, for the provenance and the table's caption)."""

    values: Mapping[str, object]
    paper: bool
    overrides: Mapping[str, object]
    protocol: str = ""
    request: RequestSettings = field(default_factory=RequestSettings)
    recorded_elsewhere: tuple[str, ...] = ()  # request flags the script records itself

    def recorded(self) -> dict:
        """The study settings that name the protocol: ``{"protocol": NAME,
        "overrides": {...}}`` with ``--paper``; without it, the request flags given
        (``{"request": {...}}``, those the script records itself left out), else ``{}``
        (so that runs without them keep their keys)."""
        if self.paper:
            return {"protocol": self.protocol, "overrides": dict(self.overrides)}
        given = {k: v for k, v in self.request.set.items() if k not in self.recorded_elsewhere}
        return {"request": given} if given else {}


class PaperFlags:
    """The flags a paper's protocol sets, and ``--paper``.

    ``add(*names, default=..., **argparse options)`` adds a flag whose value is, in
    order: the one given on the command line, the protocol's (with ``--paper``, when the
    protocol has a setting of the flag's ``dest``), else ``default``. :meth:`resolve`
    writes the values back into ``args``.

    The request flags of :func:`study_parser` (``--temperature``, ``--top-p``, ...) are
    resolved the same way, the protocol's value being its request for the model
    (:meth:`~planloop.protocols.Protocol.request_for`). ``temperature``: the sampling
    temperature the script's policies ask for when neither the flag nor the protocol
    sets one (None: none asked; the script records a temperature it asks for in its
    own settings)."""

    def __init__(self, parser: argparse.ArgumentParser, protocol, temperature: float | None = None):
        self.parser, self.protocol = parser, protocol
        self.defaults: dict[str, object] = {}
        self.temperature = temperature
        for dest in set(protocol.settings) - set(REQUEST_FLAGS):  # a shared flag, e.g. --trials
            if any(action.dest == dest for action in parser._actions):
                self.defaults[dest] = parser.get_default(dest)
                parser.set_defaults(**{dest: _UNSET})
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

    def resolve(self, args: argparse.Namespace, model: str | None = None) -> Settings:
        """Every setting's value (written back into ``args``); ``model``: the name of
        the study's model, whose protocol request ``--paper`` sends (by default read
        from ``args.llm``)."""
        missing = sorted(set(self.protocol.settings) - set(self.defaults) - set(REQUEST_FLAGS))
        if missing:  # a protocol setting no flag takes would be silently ignored
            raise ValueError(f"{self.protocol.name} sets {missing}, which no flag takes")
        values, overrides = {}, {}
        for dest, default in self.defaults.items():
            given = getattr(args, dest)
            paper = self.protocol.settings.get(dest, default) if args.paper else default
            values[dest] = paper if given is _UNSET else given
            if args.paper and given is not _UNSET and given != paper:
                overrides[dest] = given
            setattr(args, dest, values[dest])
        request = RequestSettings()
        if hasattr(args, "llm"):
            request, request_overrides = self._request(args, model)
            overrides.update(request_overrides)
        return Settings(
            values,
            args.paper,
            overrides,
            self.protocol.name,
            request,
            ("temperature",) if self.temperature is not None else (),
        )

    def _request(
        self, args: argparse.Namespace, model: str | None
    ) -> tuple[RequestSettings, dict[str, object]]:
        """The request flags: what was set, the defaults, and the overrides of the
        protocol's request; each flag's value (given, the protocol's, the script's
        temperature, else None) is written back into ``args``."""
        if model is None:
            try:
                model = parse_spec(args.llm or "")[1]
            except ValueError:
                model = str(args.llm)
        protocol = self.protocol.request_for(model) if args.paper else None
        given = {
            dest: getattr(args, dest) for dest in REQUEST_FLAGS if getattr(args, dest) is not _UNSET
        }
        overrides = {
            dest: value
            for dest, value in given.items()
            if protocol is not None and protocol.get(dest) != value
        }
        fallback = dict(protocol) if protocol is not None else {"temperature": self.temperature}
        for dest in REQUEST_FLAGS:
            setattr(args, dest, given.get(dest, fallback.get(dest)))
        defaults = dict(protocol) if protocol is not None else dict(MODEL_DEFAULTS)
        return RequestSettings(given, defaults), overrides
