"""Every setting of the formalization study, with its one default: the study's flags,
the protocol's settings and the settings each run is keyed by come from
:class:`FormalizeConfig`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...envs.problem_sets import MAX_SIZE
from ...formalizer.problems import DEFECTS, KEEPS, MAX_ITERATIONS
from ...pddl import PLANNER_NAMES
from ...study.config import StudyConfig, setting
from ...study.flags import episode_count, non_negative_int, positive_float
from .sets import SETS

SIZES = "10,20,30,40"
SIZED = tuple(name for name, problems in SETS.items() if problems.sized)


def name_list(known: tuple[str, ...], what: str) -> Callable[[str], str]:
    """A flag type: a comma list of ``known`` names (``what`` they are), kept as given."""

    def parse(text: str) -> str:
        names = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in names if n not in known]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(unknown)[:80] or repr(text)}; "
                f"choose from {', '.join(known)}"
            )
        return ",".join(names)

    return parse


def domains_or_none(text: str) -> str:
    """``--direct``: a comma list of :data:`~.sets.SETS`' names, or ``none`` ("")."""
    return "" if text.strip() in ("", "none") else name_list(tuple(SETS), "domain")(text)


def size_list(text: str) -> str:
    """``--sizes``: a comma list of object counts, each from 1 to
    :data:`~planloop.envs.problem_sets.MAX_SIZE` (a domain's own minimum is
    :meth:`FormalizeConfig.check`'s)."""
    try:
        sizes = [int(s) for s in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or not all(1 <= size <= MAX_SIZE for size in sizes):
        raise argparse.ArgumentTypeError(
            f"a comma list of object counts from 1 to {MAX_SIZE} "
            f"(planloop.envs.problem_sets.MAX_SIZE), not {text!r:.80}"
        )
    return ",".join(str(size) for size in dict.fromkeys(sizes))


@dataclass(frozen=True)
class FormalizeConfig(StudyConfig):
    """The formalization study's settings (see :mod:`planloop.study.config`): the
    problems (in each job's condition and instance, not in :meth:`key`), and the loop's
    settings, every one in the study's settings (beside the temperature, the prompt's
    version, how the metrics judge and the protocol)."""

    domains: str = setting(
        ",".join(SIZED),
        f"comma list of {', '.join(SETS)}",
        type=name_list(tuple(SETS), "domain"),
        keyed="never",
    )
    sizes: str = setting(
        SIZES,
        f"objects per generated problem, a comma list (each at most {MAX_SIZE} and at least "
        "the domain's minimum)",
        type=size_list,
        keyed="never",
    )
    per_cell: int = setting(
        5,
        "problems per domain and size (seeds 0..N-1)",
        type=episode_count,
        metavar="N",
        keyed="never",
    )
    domain: Path | None = setting(
        None, "a domain of your own ...", type=Path, metavar="FILE", keyed="never"
    )
    problems: Path | None = setting(
        None,
        "... and a folder of its problems (descriptions are rendered)",
        type=Path,
        metavar="DIR",
        keyed="never",
    )
    defects: str = setting(
        ",".join(DEFECTS),
        "scripted-defects only: the defects to inject",
        type=name_list(DEFECTS, "defect"),
        keyed="never",
    )
    max_iterations: int = setting(
        MAX_ITERATIONS,
        "repairs after the one shot",
        type=non_negative_int,
        metavar="T",
        keyed="always",
    )
    direct: str = setting(
        "",
        "domains whose problems the model also plans directly (those of them among "
        "--domains), from the same "
        "words and the domain's PDDL, its plan validated on the reference problem (Table 2): "
        "a comma list, or none",
        type=domains_or_none,
        metavar="DOMAINS",
        keyed="never",
    )
    keep: str = setting(
        "best",
        "the candidate kept among those equally far through the checks (reader, planner, "
        "validator): best, the earliest, replaced only by one that passes more of them "
        "(the paper's best verified specification); latest, planloop's rule before",
        choices=KEEPS,
        keyed="always",
    )
    planner: str = setting(
        "lama-first", "the fixed planner configuration", choices=PLANNER_NAMES, keyed="always"
    )
    timeout: float = setting(60.0, "seconds per planner call", type=positive_float, keyed="always")

    @property
    def size_list(self) -> list[int]:
        """``sizes`` as counts."""
        return [int(size) for size in self.sizes.split(",")]

    def check(self) -> None:
        """``--domain`` and ``--problems`` together, the latter a folder; every size at
        least the minimum of every generated domain asked for; ``--direct`` (of which those
        among ``--domains`` are played: ``--paper --domains blocksworld`` plays the loop
        alone) with built-in domains only."""
        if self.direct and (self.problems or self.domain):
            raise ValueError("--direct plans built-in domains, not --domain/--problems")
        if self.problems or self.domain:
            if not (self.problems and self.domain):
                raise ValueError("--domain FILE and --problems DIR go together")
            if not self.problems.is_dir():
                raise ValueError(
                    f"--problems {str(self.problems):.200} is no folder of problem files"
                )
            return
        smallest = min(self.size_list)
        short = {
            name: SETS[name].min_size
            for name in self.domains.split(",")
            if SETS[name].sized and SETS[name].min_size > smallest
        }
        if short:
            raise ValueError(
                f"--sizes {smallest} is below the smallest problem of "
                + ", ".join(f"{name} ({size} objects)" for name, size in short.items())
                + ": give larger --sizes or other --domains"
            )
