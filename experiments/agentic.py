"""The agentic step-wise planning paper (PyPDDLEngine, "Agentic LLM Planning via
Step-Wise PDDL Simulation", arXiv 2603.06064), Tables I, II and III: Fast Downward
lama-first and seq-sat-lama-2011, a direct LLM baseline and the agentic loop on IPC
Blocksworld, each with one wall-clock budget per instance.

    python experiments/agentic.py --paper --llm openai:MODEL --workers 4
    python experiments/agentic.py --paper --llm openai:MODEL -o problem=FOLDER

By default ``PDDL-v0`` plays the IPC-2000 Blocksworld files this checkout ships in
``tests/data/ipc2000-blocks``: the typed domain and 6 of the paper's 102 instances
(instance-1, -2, -3, -10, -20, -35). The paper's 102 are IPC-2000's typed Blocksworld,
``instance-1.pddl`` to ``instance-102.pddl`` as potassco/pddl-instances names them
(``ipc-2000/domains/blocks-strips-typed/instances``): ``-o problem=FOLDER`` plays a folder
of them in their original order (file names in natural order), ``-o domain=FILE`` takes
another domain. planloop ships their SHA-256 in the paper's order
(``planloop/envs/data/ipc2000_blocks/SHA256SUMS``, its README says where to get them):
each record's ``paper_instance`` is its file's place in that order (None for a file that
is not one of them), and every table says how many instances ran and how many are the
paper's. An episode may play up to 10,000 steps (``-o max_episode_steps=N``), so that no
plan is cut short.

``--conditions`` takes a comma list of lama-first, seq-sat-lama-2011 (its best plan when
the budget ends), direct (the domain and problem in one prompt, resampled from a fresh
context until a plan validates) and agentic (the seven engine tools, ending when
validate_plan confirms a plan, when the model stops, or when the budget ends; the
temperature is the provider's, as in the paper). ``--seconds`` is every approach's
budget per instance. ``--paper`` takes the paper's protocol
(``planloop.protocols.agentic``: 180 s, temperature 0.2, no cap on samples or calls,
success-or-failure step feedback); each of its flags given beside it overrides one
setting, named in the table's caption.

Each episode is classified as Table II does: Solved (a plan the environment accepts,
within the budget), Timeout (the budget ran out: the seconds, or a cap on samples or
calls when one is set) or Early exit (the agentic model stopped before the budget,
judging the task unsolvable, or without a validated plan). Every scheduled instance is
in n: an episode that ended on a failed model call is a failure, counted under "model
errors"; any other failure (a planner error, a plan the environment refused) is named
below the table.

Tables I and III are plan lengths (the actions of a solved instance's plan, after its
last restart) by difficulty block, the paper's places 0-9, 10-19, ..., 100-101: Table I
over the instances both Fast Downward configurations solved, Table III over those all
four approaches solved (the co-solved set).

The direct baseline's samples (IV-B) are the median number of replies read and
validated until a plan validated or the budget ended; the hard cases (IV-E) are the
instances both Fast Downward configurations failed, and who solved each.

``--out DIR`` receives ``episodes.jsonl`` (one record per approach and instance, with its
problem's ``objects``; rerunning resumes), ``results.md`` (Table II, the cost of each
approach, then Tables I and III, the direct baseline's samples and the hard cases when the
run has their approaches, each beside the paper's figures) and ``success.png``;
``reproduce.py agentic`` adds Fig. 2 (each instance's outcome under every approach).
"""

from __future__ import annotations

import sys

from planloop.llm import ChatModel
from planloop.protocols.agentic.study import SPEC
from planloop.study import study_main
from planloop.study.spec import run_spec


@study_main
def main(argv: list[str] | None = None, model: ChatModel | None = None, show: bool = True) -> int:
    """The study (:data:`planloop.protocols.agentic.study.SPEC`) with this help."""
    return run_spec(SPEC, argv, model, show, description=__doc__)


if __name__ == "__main__":
    sys.exit(main())
