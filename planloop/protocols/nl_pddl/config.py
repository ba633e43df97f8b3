"""Every setting of the formalization study, with its one default: the study's flags,
the protocol's settings and the settings each run is keyed by come from
:class:`FormalizeConfig`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...envs.problem_sets import DOMAINS
from ...formalizer.problems import DEFECTS, MAX_ITERATIONS
from ...pddl import PLANNER_NAMES
from ...study.config import StudyConfig, setting
from ...study.flags import non_negative_int, positive_float, positive_int

SIZES = "10,20,30,40"
SIZED = tuple(name for name, problems in DOMAINS.items() if problems.sized)


@dataclass(frozen=True)
class FormalizeConfig(StudyConfig):
    """The formalization study's settings (see :mod:`planloop.study.config`): the
    problems (in each job's condition and instance, not in :meth:`key`), and the loop's
    settings, every one in the study's settings (beside the temperature, the prompt's
    version, how the metrics judge and the protocol)."""

    domains: str = setting(",".join(SIZED), f"comma list of {', '.join(DOMAINS)}", keyed="never")
    sizes: str = setting(SIZES, "objects per generated problem", keyed="never")
    per_cell: int = setting(
        5,
        "problems per domain and size (seeds 0..N-1)",
        type=positive_int,
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
        ",".join(DEFECTS), "scripted-defects only: the defects to inject", keyed="never"
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
