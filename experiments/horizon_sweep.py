"""Closed-loop horizon sweep: success against the planning horizon H.

For every horizon (default 1, 5 and the open loop), problem and trial, a language model
plans with ``ClosedLoopPolicy(horizon=H)`` (``OpenLoopPolicy`` for ``open``) in the
environment, and the environment judges the episode.

    python experiments/horizon_sweep.py --llm openai:gpt-4o-mini
    python experiments/horizon_sweep.py --env Mystery-BW-v0 --instances 0:5 \\
        --llm http://localhost:8000/v1@Qwen/Qwen2.5-7B-Instruct --workers 8

The model must answer one short call before the first episode. ``--out DIR`` receives
``episodes.jsonl`` (one record per episode, appended as each ends; rerunning the same
command resumes and skips finished episodes; episodes whose model calls failed for
good are recorded and run again), ``success.md`` (the table printed at the end) and
``success.png`` (success against horizon, with 95% Wilson intervals; needs matplotlib,
the ``plot`` extra).

The policies default to their richer behaviour; each of the horizon study's choices can
be switched on: ``--feedback state`` (on a failure the model sees the executed actions,
the state before the failure and the failed action, not the environment's cause),
``--grounding per_variable`` (one question per parameter), ``--conversation accumulate``
(one growing conversation), ``--ask sequence`` (the whole sequence each time, its first
H executed), ``--opening study`` (the study's role-play introduction of the domain, the
starting state, then the goal; needs the two before) and ``--max-restarts none``;
``--paper`` sets all of them (a flag given beside it still wins). Switches not at their default enter the results key.

``--progress-feedback ff`` (or ``add``, the cheaper h_add) adds to every observation
whether the last action brought the goal closer by a relaxed-plan distance
(``planloop.wrappers.ProgressFeedback``); it enters the results key when on.
"""

from __future__ import annotations

import sys

from planloop.llm import ChatModel
from planloop.protocols.baking.study import SPEC
from planloop.study import study_main
from planloop.study.spec import run_spec


@study_main
def main(argv: list[str] | None = None, model: ChatModel | None = None, show: bool = True) -> int:
    """The study (:data:`planloop.protocols.baking.study.SPEC`) with this help."""
    return run_spec(SPEC, argv, model, show, description=__doc__)


if __name__ == "__main__":
    sys.exit(main())
