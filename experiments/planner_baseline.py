"""The classical-planner baseline: a planner sees the task as the agent sees it
(``info["domain_pddl"]`` and ``info["problem_pddl"]``, obfuscated in Mystery
environments), plans, and its plan is executed step by step in the environment.

    python experiments/planner_baseline.py --env Mystery-BW-v0 --instances 0:100

The environment must be fully observable (one of ``planloop.envs.FULLY_OBSERVABLE``): a
planner needs the task's PDDL.

``--out DIR`` (default ``results/planner_baseline``) receives ``episodes.jsonl``, one
record per episode appended as it ends; rerunning the same command resumes and skips
finished episodes. The table has one row per configuration recorded in DIR (environment,
its options, planner, timeout), so runs that differ in ``--planner`` or ``--timeout``
into the same DIR keep their own rows: success with its 95% Wilson interval over every
scheduled episode, plan length, planner seconds and the planner's statuses. It is
printed and written to ``results.md``, and plotted in ``success.png``.
"""

from __future__ import annotations

import sys

from planloop.protocols.planner_baseline import SPEC
from planloop.study import study_main
from planloop.study.spec import run_spec


@study_main
def main(argv: list[str] | None = None) -> int:
    """The study (:data:`planloop.protocols.planner_baseline.SPEC`) with this help."""
    return run_spec(SPEC, argv, description=__doc__)


if __name__ == "__main__":
    sys.exit(main())
