"""Every setting of the formalization study, with its one default: the study's flags,
the protocol's settings and the settings each run is keyed by come from
:class:`FormalizeConfig`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...envs.problem_sets import DOMAINS, MAX_SIZE
from ...formalizer.problems import DEFECTS, MAX_ITERATIONS
from ...pddl import PLANNER_NAMES
from ...study.config import StudyConfig, setting
from ...study.flags import episode_count, non_negative_int, positive_float

SIZES = "10,20,30,40"
SIZED = tuple(name for name, problems in DOMAINS.items() if problems.sized)


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
        f"comma list of {', '.join(DOMAINS)}",
        type=name_list(tuple(DOMAINS), "domain"),
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
        least the minimum of every generated domain asked for."""
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
            name: DOMAINS[name].min_size
            for name in self.domains.split(",")
            if DOMAINS[name].sized and DOMAINS[name].min_size > smallest
        }
        if short:
            raise ValueError(
                f"--sizes {smallest} is below the smallest problem of "
                + ", ".join(f"{name} ({size} objects)" for name, size in short.items())
                + ": give larger --sizes or other --domains"
            )
