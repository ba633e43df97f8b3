"""The command-line flags every study shares."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .backends import BACKENDS

LLM_SPECS = "openai:MODEL, URL@MODEL (an OpenAI-compatible server) or interactive"


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
        raise argparse.ArgumentTypeError(f"instances are A:B with 0 <= A < B (A alone for one "
                                         f"instance), not {text!r}")
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


def study_parser(description: str | None, *, env: str | None, out: str,
                 instances: str | None = None,
                 trials: int = 1, llm_required: bool | None = True,
                 llm_choices_help: str = LLM_SPECS) -> argparse.ArgumentParser:
    """A parser with the shared flags: ``--env ID``, ``-o/--option KEY=VALUE`` (into
    ``args.option``, a list of pairs), ``--instances A:B`` (a range; None when not given
    and ``instances`` is None), ``--trials N``, ``--llm SPEC``, ``--workers N``,
    ``--backend local|ray`` (for :func:`run_study`) and ``--out DIR`` (a Path).
    ``llm_required``: True for a study that needs a model (give ``args.llm`` to
    :func:`open_model`, which names a missing one), False for one where
    ``--llm`` is optional, None for a study without a model (no ``--llm`` flag).
    ``env=None``: a study that plays no environment (no ``--env``, no ``-o``). Scripts
    add their own flags to it."""
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    if env is not None:
        parser.add_argument("--env", default=env, metavar="ID",
                            help=f"the environment to play (default {env})")
        parser.add_argument("-o", "--option", action="append", type=parse_option, default=[],
                            metavar="KEY=VALUE",
                            help="an argument of the environment (gym.make), e.g. -o "
                                 "num_locations=7; the value is read as JSON when it can be; "
                                 "repeatable")
    parser.add_argument("--instances", type=parse_instances, default=instances,
                        metavar="A:B", help="instances A to B-1; A alone for one "
                                            f"(default {instances or 'the study chooses'})")
    parser.add_argument("--trials", type=positive_int, default=trials, metavar="N",
                        help=f"episodes per instance and condition (default {trials})")
    if llm_required is not None:
        parser.add_argument("--llm", metavar="SPEC", help=llm_choices_help
                            + (" (required)" if llm_required else " (optional)"))
    parser.add_argument("--workers", type=positive_int, default=1, metavar="N",
                        help="episodes played at once, each worker with its own "
                             "environment (default 1)")
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="where the episodes run: local (threads on this machine) or "
                             "ray (Ray actors on RAY_ADDRESS's cluster, the one started on "
                             "this node, else a new local runtime; the ray extra) "
                             "(default local)")
    parser.add_argument("--out", type=Path, default=Path(out), metavar="DIR",
                        help=f"folder of the results, DIR/episodes.jsonl; rerunning the "
                             f"same command resumes (default {out})")
    return parser
